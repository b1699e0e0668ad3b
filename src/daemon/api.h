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
#include "cluster/jobs.h"
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
    int max_waiting;       /* requests that may wait at once (the rest answer at once) */
    cuzk_logger *log;      /* NULL: none */
    atomic_int waiting;
    double t_start;
    http_counters counters;
    atomic_int accepting; /* for status: the engine itself refuses the submits */
} api_context;

/* max_connections: the server's; a quarter of them (at least one) are
 * kept from requests that wait (?wait_ms), so status, metrics and submits
 * always find a connection. */
void api_init(api_context *a, cuzk_engine *engine, const char *backend, double max_wait_s, int max_connections);
/* Cluster mode: the jobs are the cluster's (status and metrics gain its
 * numbers). */
void api_use_cluster(api_context *a, cluster_node *n, double lease_s);
/* From now on POST /v1/jobs answers 503, submits under way included (their
 * waits for memory end; a cluster node stops claiming). Returns at once. */
void api_stop_accepting(api_context *a);

/* The server's handler (an http_handler): routes rq to its handler. */
void api_handle(void *api_ctx, const http_request *rq, http_response *rs);

/* The handlers. arg is the {id} or {circuit} segment of the path, or NULL. */
typedef void (*api_handler)(api_context *a, const http_request *rq, const char *arg, http_response *rs);
void api_submit_job(api_context *a, const http_request *rq, const char *arg, http_response *rs);
void api_get_job(api_context *a, const http_request *rq, const char *arg, http_response *rs);
void api_cancel_job(api_context *a, const http_request *rq, const char *arg, http_response *rs);
void api_register_circuit(api_context *a, const http_request *rq, const char *arg, http_response *rs);
void api_get_verification_key(api_context *a, const http_request *rq, const char *arg, http_response *rs);
void api_preload_key(api_context *a, const http_request *rq, const char *arg, http_response *rs);
void api_evict_key(api_context *a, const http_request *rq, const char *arg, http_response *rs);
void api_get_status(api_context *a, const http_request *rq, const char *arg, http_response *rs);
void api_get_metrics(api_context *a, const http_request *rq, const char *arg, http_response *rs);

/* Shared by the handlers: the body parsed as a JSON object, or NULL with
 * a 400 already set in rs. */
json_t *api_body_object(const http_request *rq, http_response *rs);
/* Circuit ids appear in paths (/v1/keys/{circuit}): 1 to API_MAX_CIRCUIT_ID
 * letters, digits and . _ : - only. */
enum { API_MAX_CIRCUIT_ID = 128 };
int api_circuit_id_ok(const char *id);
/* A circuit's description: id, curve, sizes, key tier. */
json_t *api_circuit_json(const cuzk_circuit_info *c);

#endif
