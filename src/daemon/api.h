/* The HTTP/JSON API over the engine: a table of routes (api.c) and their
 * handlers, one file per resource family:
 *   api_jobs.c      POST /v1/jobs, GET and DELETE /v1/jobs/{id}
 *   api_circuits.c  POST /v1/circuits, POST /v1/keys/{circuit}/preload,
 *                   DELETE /v1/keys/{circuit}
 *   api_status.c    GET /v1/status, GET /metrics
 * Handlers never trust the request: every field is checked, every failure
 * is a JSON {"error": ...} with a 4xx or 5xx status, and nothing a client
 * sends can stop the daemon or touch another client's job. */
#ifndef CUZK_DAEMON_API_H
#define CUZK_DAEMON_API_H

#include <pthread.h>
#include <stdatomic.h>

#include "cluster/cluster.h"
#include "jobs/jobs.h"
#include "daemon/http_message.h"
#include "daemon/http_server.h"
#include "engine/engine.h"

typedef struct {
    cuzk_engine *engine;   /* circuits, keys, the node's own numbers */
    jobs_api *jobs;        /* the jobs: &local, or the cluster's */
    jobs_api local;
    cluster_node *cluster; /* NULL: single-machine mode */
    double cluster_lease_s; /* for status: which nodes are alive */
    const char *backend;   /* its name, for status */
    double max_wait_s;     /* cap on ?wait_ms */
    double t_start;
    http_counters counters;
    atomic_int accepting; /* for status: the engine itself refuses the submits */
} routes_context;

void routes_init(routes_context *a, cuzk_engine *engine, const char *backend, double max_wait_s);
/* Cluster mode: the jobs are the cluster's (status and metrics gain its
 * numbers). */
void routes_use_cluster(routes_context *a, cluster_node *n, double lease_s);
/* From now on POST /v1/jobs answers 503, submits under way included (their
 * waits for memory end; a cluster node stops claiming). Returns at once. */
void routes_stop_accepting(routes_context *a);

/* The server's handler (an http_handler): routes rq to its handler. */
void routes_handle(void *routes_ctx, const http_request *rq, http_response *rs);

/* The handlers. arg is the {id} or {circuit} segment of the path, or NULL. */
typedef void (*route_handler)(routes_context *a, const http_request *rq, const char *arg, http_response *rs);
void route_submit_job(routes_context *a, const http_request *rq, const char *arg, http_response *rs);
void route_get_job(routes_context *a, const http_request *rq, const char *arg, http_response *rs);
void route_cancel_job(routes_context *a, const http_request *rq, const char *arg, http_response *rs);
void route_register_circuit(routes_context *a, const http_request *rq, const char *arg, http_response *rs);
void route_get_verification_key(routes_context *a, const http_request *rq, const char *arg, http_response *rs);
void route_preload_key(routes_context *a, const http_request *rq, const char *arg, http_response *rs);
void route_evict_key(routes_context *a, const http_request *rq, const char *arg, http_response *rs);
void route_get_status(routes_context *a, const http_request *rq, const char *arg, http_response *rs);
void route_get_metrics(routes_context *a, const http_request *rq, const char *arg, http_response *rs);

/* Shared by the handlers: the body parsed as a JSON object, or NULL with
 * a 400 already set in rs. */
json_t *routes_body_object(const http_request *rq, http_response *rs);
/* Circuit ids appear in paths (/v1/keys/{circuit}): 1 to ROUTES_MAX_CIRCUIT_ID
 * letters, digits and . _ : - only. */
enum { ROUTES_MAX_CIRCUIT_ID = 128 };
int routes_circuit_id_ok(const char *id);
/* A circuit's description: id, curve, sizes, key tier. */
json_t *routes_circuit_json(const cuzk_circuit_info *c);

#endif
