/* The route table and what every handler shares. */
#include "daemon/routes.h"

#include <stdio.h>
#include <string.h>

#include "codec/curve_id.h"
#include "util/timer.h"

/* A pattern is a path in which "*" stands for one non-empty segment: the
 * handler's arg. */
typedef struct {
    const char *method, *pattern;
    route_handler handler;
} route;

static const route routes[] = {
    {"POST", "/v1/jobs", route_submit_job},
    {"GET", "/v1/jobs/*", route_get_job},
    {"DELETE", "/v1/jobs/*", route_cancel_job},
    {"POST", "/v1/circuits", route_register_circuit},
    {"GET", "/v1/circuits/*/verification_key", route_get_verification_key},
    {"POST", "/v1/keys/*/preload", route_preload_key},
    {"DELETE", "/v1/keys/*", route_evict_key},
    {"GET", "/v1/status", route_get_status},
    {"GET", "/metrics", route_get_metrics},
};

/* 10,000 partitions of one path each, and room to spare */
enum { ROUTES_ARG_MAX = 256, ROUTES_MAX_JSON_VALUES = 65536 };

void routes_init(routes_context *a, cuzk_engine *engine, const char *backend, double max_wait_s, int max_connections)
{
    memset(a, 0, sizeof *a);
    a->engine = engine;
    jobs_local_init(&a->local, engine);
    a->jobs = &a->local;
    a->backend = backend;
    a->max_wait_s = max_wait_s;
    a->max_waiting = max_connections - (max_connections / 4 > 1 ? max_connections / 4 : 1);
    a->t_start = cuzk_now_s();
    a->accepting = 1;
}

void routes_use_cluster(routes_context *a, cluster_node *n, double lease_s)
{
    a->cluster = n;
    a->cluster_lease_s = lease_s;
    a->jobs = cluster_jobs(n);
}

void routes_use_store(routes_context *a, jobs_sqlite *store)
{
    a->store = store;
    a->jobs = jobs_sqlite_api(store);
}

void routes_stop_accepting(routes_context *a)
{
    atomic_store(&a->accepting, 0);
    a->jobs->ops->stop_accepting(a->jobs);
}

/* 1 when path fits pattern; the "*" segment goes to arg. */
static int route_matches(const char *pattern, const char *path, char arg[ROUTES_ARG_MAX])
{
    arg[0] = 0;
    while (*pattern && *path) {
        if (*pattern == '*') {
            size_t len = strcspn(path, "/");
            if (!len || len >= ROUTES_ARG_MAX)
                return 0;
            memcpy(arg, path, len);
            arg[len] = 0;
            path += len;
            pattern++;
        } else if (*pattern++ != *path++) {
            return 0;
        }
    }
    return !*pattern && !*path;
}

void routes_handle(void *routes_ctx, const http_request *rq, http_response *rs)
{
    routes_context *a = routes_ctx;
    char arg[ROUTES_ARG_MAX];
    rs->allow[0] = 0;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (!route_matches(routes[i].pattern, rq->path, arg))
            continue;
        if (!strcmp(routes[i].method, rq->method)) {
            routes[i].handler(a, rq, arg[0] ? arg : NULL, rs);
            return;
        }
        size_t used = strlen(rs->allow);
        snprintf(rs->allow + used, sizeof rs->allow - used, "%s%s", used ? ", " : "", routes[i].method);
    }
    if (rs->allow[0])
        http_respond_error(rs, 405, "%s is not allowed on %s (allowed: %s)", rq->method, rq->path, rs->allow);
    else
        http_respond_error(rs, 404, "no such resource: %s", rq->path);
}

/* A bound on the values of a JSON text: its separators outside strings,
 * counted in one pass with no memory, before jansson spends about 100 bytes
 * a value (a 64 MiB array of zeros would otherwise take gigabytes). */
static size_t json_values_bound(const char *p, size_t n)
{
    size_t values = 1;
    int in_string = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        if (in_string) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_string = 0;
        } else if (ch == '"') {
            in_string = 1;
        } else {
            values += ch == ',' || ch == '[' || ch == '{' || ch == ':';
        }
    }
    return values;
}

json_t *routes_body_object(const http_request *rq, http_response *rs)
{
    if (!rq->body_len) {
        http_respond_error(rs, 400, "the body is empty: a JSON object is expected");
        return NULL;
    }
    size_t values = json_values_bound(rq->body, rq->body_len);
    if (values > ROUTES_MAX_JSON_VALUES) {
        http_respond_error(rs, 413, "the body has about %zu JSON values; a request may have at most %d", values,
                           ROUTES_MAX_JSON_VALUES);
        return NULL;
    }
    json_error_t je;
    json_t *root = json_loadb(rq->body, rq->body_len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        http_respond_error(rs, 400, "the body is not valid JSON: %s (line %d, column %d)", je.text, je.line,
                           je.column);
        return NULL;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        http_respond_error(rs, 400, "the body must be a JSON object");
        return NULL;
    }
    return root;
}

json_t *routes_circuit_json(const cuzk_circuit_info *c)
{
    json_t *key = c->simulated ? json_null()
                               : json_pack("{s:s, s:s, s:i, s:I, s:I, s:I}", "path", c->key.path, "tier",
                                           key_tier_name(c->key.tier), "refs", c->key.refs, "bytes",
                                           (json_int_t)c->key.bytes, "loads", (json_int_t)c->key.loads,
                                           "evictions", (json_int_t)c->key.evictions);
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:b, s:b, s:b, s:o}", "id", c->id, "curve",
                     cuzk_curve_snarkjs_name(c->curve), "domain_size", (json_int_t)c->domain_size, "n_vars",
                     (json_int_t)c->n_vars, "n_public", (json_int_t)c->n_public, "simulated", c->simulated,
                     "checks_r1cs", c->has_r1cs, "takes_input", c->has_wasm, "key", key);
}
