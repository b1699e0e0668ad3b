/* The HTTP/JSON API over the engine: a table of routes (routes.c) and their
 * handlers, one file per resource family:
 *   routes_jobs.c   POST /v1/jobs, GET and DELETE /v1/jobs/{id}
 *   routes_circuits.c POST /v1/circuits, POST /v1/keys/{circuit}/preload,
 *                   DELETE /v1/keys/{circuit}
 *   routes_status.c GET /v1/status, GET /metrics
 * Handlers never trust the request: every field is checked, every failure
 * is a JSON {"error": ...} with a 4xx or 5xx status, and nothing a client
 * sends can stop the daemon or touch another client's job. */
#ifndef CUZK_DAEMON_ROUTES_H
#define CUZK_DAEMON_ROUTES_H

#include <pthread.h>
#include <stdatomic.h>

#include "cluster/cluster.h"
#include "jobs/jobs.h"
#include "jobs/jobs_sqlite.h"
#include "daemon/http_message.h"
#include "daemon/http_server.h"
#include "engine/engine.h"

typedef struct {
    cuzk_engine *engine;   /* circuits, keys, the node's own numbers */
    jobs_api *jobs;        /* the jobs: &local, or the cluster's */
    jobs_api local;
    cluster_node *cluster; /* NULL: single-machine mode */
    jobs_sqlite *store;    /* the jobs kept on disk ([daemon] state_dir); NULL: memory only */
    double cluster_lease_s; /* for status: which nodes are alive */
    const char *backend;   /* its name, for status */
    double max_wait_s;     /* cap on ?wait_ms */
    int max_waiting;       /* requests that may wait at once (the rest answer at once) */
    cuzk_logger *log;      /* NULL: none */
    atomic_int waiting;
    double t_start;
    http_counters counters;
    atomic_int accepting; /* for status: the engine itself refuses the submits */
} routes_context;

/* max_connections: the server's; a quarter of them (at least one) are
 * kept from requests that wait (?wait_ms), so status, metrics and submits
 * always find a connection. */
void routes_init(routes_context *a, cuzk_engine *engine, const char *backend, double max_wait_s, int max_connections);
/* Cluster mode: the jobs are the cluster's (status and metrics gain its
 * numbers). */
void routes_use_cluster(routes_context *a, cluster_node *n, double lease_s);
/* The jobs are kept in the store (status gains its numbers; circuits
 * registered through the API are kept there too). */
void routes_use_store(routes_context *a, jobs_sqlite *store);
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
/* Registers c with the engine: its key file, or a development setup from
 * its r1cs (for the route, and for the circuits a store kept). */
int routes_register_circuit(cuzk_engine *e, const store_circuit *c, cuzk_error *err);
/* A circuit's description: id, curve, sizes, key tier. */
json_t *routes_circuit_json(const cuzk_circuit_info *c);

#endif
