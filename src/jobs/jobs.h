/* The daemon's job API (POST /v1/jobs, GET and DELETE /v1/jobs/{id})
 * behind one table of operations, so the HTTP code is one for both modes:
 *   jobs_local_init  this process's engine alone (no [cluster] section:
 *                    the default), jobs_local.c
 *   cluster_jobs     a PostgreSQL queue shared by daemons (cluster.h)
 * The codes are cuzk_engine_submit's, _wait's and _cancel's, plus
 * CUZK_ERR_UNAVAILABLE while the cluster's database cannot be reached. */
#ifndef CUZK_JOBS_JOBS_H
#define CUZK_JOBS_JOBS_H

#include "engine/engine.h"

typedef struct jobs_api jobs_api;

typedef struct {
    int (*submit)(jobs_api *j, const cuzk_job_request *req, uint64_t *job_id, cuzk_error *err);
    /* Waits up to timeout_s for the job to end; *out either way (free with
     * cuzk_job_result_free). CUZK_ERR_ARG: no such job. */
    int (*wait)(jobs_api *j, uint64_t job_id, double timeout_s, cuzk_job_result *out, cuzk_error *err);
    /* CUZK_ERR_ARG: no such job. Cancelling an ended job changes nothing. */
    int (*cancel)(jobs_api *j, uint64_t job_id, cuzk_error *err);
    /* No new jobs from now on (a drain begins): submits under way end with
     * CUZK_ERR_CANCELLED; a cluster node also stops claiming. */
    void (*stop_accepting)(jobs_api *j);
} jobs_ops;

struct jobs_api {
    const jobs_ops *ops;
    cuzk_engine *engine;
};

/* The engine alone: every operation goes straight to it. */
void jobs_local_init(jobs_api *j, cuzk_engine *engine);

#endif
