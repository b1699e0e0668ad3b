/* The job API of a single machine: the engine's own calls. */
#include "jobs/jobs.h"

#include "util/err.h"

static int local_submit(jobs_api *j, const cuzk_job_request *req, uint64_t *job_id, cuzk_error *err)
{
    return cuzk_engine_submit(j->engine, req, job_id, err);
}

static int local_wait(jobs_api *j, uint64_t job_id, double timeout_s, cuzk_job_result *out, cuzk_error *err)
{
    int rc = cuzk_engine_wait(j->engine, job_id, timeout_s, out);
    return rc ? cuzk_fail(err, rc, "%s", out->error) : CUZK_OK;
}

static int local_cancel(jobs_api *j, uint64_t job_id, cuzk_error *err)
{
    int rc = cuzk_engine_cancel(j->engine, job_id);
    return rc ? cuzk_fail(err, rc, "unknown job %llu", (unsigned long long)job_id) : CUZK_OK;
}

static void local_stop_accepting(jobs_api *j) { cuzk_engine_stop_accepting(j->engine); }

static const jobs_ops local_ops = {local_submit, local_wait, local_cancel, local_stop_accepting};

void jobs_local_init(jobs_api *j, cuzk_engine *engine)
{
    j->ops = &local_ops;
    j->engine = engine;
}
