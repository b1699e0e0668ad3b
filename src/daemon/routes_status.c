/* GET /v1/status (JSON: devices, circuits and their keys' tiers, queues,
 * jobs, the pinned pool, the budget by category) and GET /metrics (the
 * same numbers for Prometheus). */
#include <stdlib.h>

#include "daemon/routes.h"
#include "daemon/metrics.h"
#include "util/timer.h"

/* What both answers are made of, read once per request. */
typedef struct {
    cuzk_engine_stats stats;
    cuzk_circuit_info *circuits;
    size_t n_circuits;
    uint64_t http_by_class[6];
    double uptime_s;
    cluster_stats cluster; /* when a->cluster */
    jobs_sqlite_stats store; /* when a->store */
} snapshot;

static int snapshot_take(routes_context *a, snapshot *s)
{
    cuzk_engine_get_stats(a->engine, &s->stats);
    size_t n = cuzk_engine_list_circuits(a->engine, NULL, 0);
    s->circuits = calloc(n ? n : 1, sizeof *s->circuits);
    /* a circuit registered in between is left for the next request */
    s->n_circuits = s->circuits ? cuzk_engine_list_circuits(a->engine, s->circuits, n) : 0;
    if (s->n_circuits > n)
        s->n_circuits = n;
    for (int c = 0; c < 6; c++)
        s->http_by_class[c] = atomic_load(&a->counters.by_class[c]);
    s->uptime_s = cuzk_now_s() - a->t_start;
    if (a->cluster)
        cluster_get_stats(a->cluster, &s->cluster);
    if (a->store)
        jobs_sqlite_get_stats(a->store, &s->store);
    return s->circuits ? 0 : -1;
}

static void snapshot_free(snapshot *s)
{
    cuzk_engine_stats_free(&s->stats);
    free(s->circuits);
}

static json_t *devices_json(const snapshot *s)
{
    json_t *arr = json_array();
    for (int d = 0; arr && d < s->stats.n_devices; d++)
        json_array_append_new(
            arr, json_pack("{s:i, s:f, s:f, s:I, s:I, s:I, s:I}", "device", d, "busy_s", s->stats.device_busy_s[d],
                           "busy_fraction", s->uptime_s > 0 ? s->stats.device_busy_s[d] / s->uptime_s : 0.0,
                           "memory_used_bytes", (json_int_t)s->stats.device_memory_used[d],
                           "memory_high_water_bytes", (json_int_t)s->stats.device_memory_high_water[d],
                           "memory_total_bytes", (json_int_t)s->stats.device_memory_total[d],
                           "memory_waits", (json_int_t)s->stats.device_memory_waits[d]));
    return arr;
}

static json_t *circuits_json(const snapshot *s)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < s->n_circuits; i++)
        json_array_append_new(arr, routes_circuit_json(&s->circuits[i]));
    return arr;
}

static json_t *pool_json(const pool_stats *p)
{
    uint64_t checkouts = p->reuses + p->allocations;
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "allocations", (json_int_t)p->allocations,
                     "reuses", (json_int_t)p->reuses, "checkins", (json_int_t)p->checkins, "frees",
                     (json_int_t)p->frees, "allocation_failures", (json_int_t)p->alloc_failures, "buffers",
                     (json_int_t)p->buffers_total, "idle_buffers", (json_int_t)p->buffers_idle, "bytes",
                     (json_int_t)p->bytes_total, "peak_bytes", (json_int_t)p->bytes_peak, "reuse_ratio",
                     checkouts ? (double)p->reuses / (double)checkouts : 0.0);
}

static json_t *budget_json(const budget_stats *b)
{
    json_t *by = json_object();
    for (int c = 0; by && c < BUDGET_N_CATEGORIES; c++)
        json_object_set_new(by, budget_category_name((budget_category)c), json_integer((json_int_t)b->by_category[c]));
    return json_pack("{s:I, s:I, s:I, s:i, s:o}", "limit_bytes", (json_int_t)b->limit, "used_bytes",
                     (json_int_t)b->used, "high_water_bytes", (json_int_t)b->high_water, "waiters", (int)b->waiters,
                     "by_category", by);
}

static json_t *cluster_view_json(const cluster_view *v, double lease_s)
{
    json_t *nodes = json_array();
    for (int i = 0; nodes && i < v->n_nodes; i++)
        json_array_append_new(nodes, json_pack("{s:s, s:f, s:b, s:i, s:i}", "name", v->nodes[i].name, "silent_s",
                                               v->nodes[i].silent_s, "alive", v->nodes[i].silent_s < lease_s,
                                               "claimed", (int)v->nodes[i].claimed, "capacity", v->nodes[i].capacity));
    json_t *queued = json_object();
    for (int p = 0; queued && p < CUZK_N_PRIORITIES; p++)
        json_object_set_new(queued, cuzk_priority_name((cuzk_priority)p), json_integer((json_int_t)v->queued[p]));
    return json_pack("{s:o, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I}, s:o}", "queued", queued, "backing_off",
                     (json_int_t)v->backing_off, "claimed", (json_int_t)v->claimed, "jobs", "queued",
                     (json_int_t)v->jobs[CUZK_JOB_QUEUED], "running", (json_int_t)v->jobs[CUZK_JOB_RUNNING], "done",
                     (json_int_t)v->jobs[CUZK_JOB_DONE], "failed", (json_int_t)v->jobs[CUZK_JOB_FAILED], "cancelled",
                     (json_int_t)v->jobs[CUZK_JOB_CANCELLED], "nodes", nodes);
}

/* This node's part in the cluster, and the cluster as the database sees it
 * (null when the database did not answer). */
static json_t *cluster_json(const cluster_stats *c, double lease_s)
{
    const cuzk_stage_histogram *h = &c->claim_latency;
    return json_pack("{s:s, s:b, s:i, s:i, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:{s:I, s:f}, s:o}",
                     "node", c->node, "healthy", c->healthy, "capacity", c->capacity, "claimed_here",
                     c->claimed_here, "counters", "claims", (json_int_t)c->counters.claims, "completions",
                     (json_int_t)c->counters.completions, "retries", (json_int_t)c->counters.retries, "failures",
                     (json_int_t)c->counters.failures, "reclaims", (json_int_t)c->counters.reclaims, "late_results",
                     (json_int_t)c->counters.late_results, "requeued_at_start", (json_int_t)c->counters.requeued_at_start, "cancels",
                     (json_int_t)c->counters.cancels, "reconnects", (json_int_t)c->reconnects, "claim_latency", "count",
                     (json_int_t)h->count, "mean_s", h->count ? h->sum / (double)h->count : 0.0, "cluster",
                     c->view_ok ? cluster_view_json(&c->view, lease_s) : json_null());
}

/* Where the jobs live and what survives what (README.md, "The job
 * store"); the counts are the store's (the engine's "jobs" count the
 * partitions it was handed, one engine job each). */
static json_t *store_json(const routes_context *a, const snapshot *s)
{
    if (a->cluster)
        return json_pack("{s:s, s:s}", "kind", "cluster",
                         "survives", "everything but the database: jobs live in PostgreSQL ([cluster])");
    if (!a->store)
        return json_pack("{s:s, s:s, s:s}", "kind", "memory", "state_dir", "",
                         "survives", "nothing: every job is lost when the daemon stops ([daemon] state_dir is empty)");
    const jobs_sqlite_stats *t = &s->store;
    const store_counts *c = &t->counts;
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:f, s:s, s:i, s:I, s:I, s:I, s:I, s:f, s:I, s:f}", "kind", "sqlite",
                          "state_dir", t->state_dir, "file", t->path, "bytes", (json_int_t)t->bytes, "retain_s",
                          t->retain_s, "survives",
                          "restarts, kill -9, crashes and power cuts: queued and running partitions are proved "
                          "again, proved ones kept; ended jobs until retain_s; back up with sqlite3 FILE "
                          "'.backup COPY', move the folder while the daemon is stopped",
                          "in_engine", t->in_engine, "proofs_recorded", (json_int_t)t->proofs_recorded,
                          "failures_recorded", (json_int_t)t->failures_recorded, "requeued_at_start",
                          (json_int_t)t->requeued_at_start, "errors", (json_int_t)t->store_errors,
                          "record_ms_per_proof",
                          t->proofs_recorded ? 1e3 * t->record_s / (double)t->proofs_recorded : 0.0,
                          "partitions_claimed", (json_int_t)t->partitions_claimed, "claim_ms_per_partition",
                          t->partitions_claimed ? 1e3 * t->claim_s / (double)t->partitions_claimed : 0.0);
    if (o && t->counts_ok)
        json_object_set_new(o, "jobs",
                            json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "queued", (json_int_t)c->queued,
                                      "running", (json_int_t)c->running, "done", (json_int_t)c->done, "failed",
                                      (json_int_t)c->failed, "cancelled", (json_int_t)c->cancelled,
                                      "partitions_queued", (json_int_t)c->partitions_queued, "partitions_running",
                                      (json_int_t)c->partitions_running));
    return o;
}

/* Each stage's partitions since start and their mean latency. */
static json_t *stages_json(const cuzk_engine_stats *st)
{
    json_t *o = json_object();
    for (int i = 0; o && i < N_STAGES; i++) {
        const cuzk_stage_histogram *h = &st->stage_hist[i];
        json_object_set_new(o, engine_stage_name((engine_stage)i),
                            json_pack("{s:I, s:f}", "count", (json_int_t)h->count, "mean_s",
                                      h->count ? h->sum / (double)h->count : 0.0));
    }
    return o;
}

static json_t *status_json(const routes_context *a, const snapshot *s)
{
    const cuzk_engine_stats *st = &s->stats;
    return json_pack("{s:f, s:s, s:b, s:o, s:o, s:{s:i, s:i, s:i, s:i}, s:{s:I, s:I, s:I, s:I}, "
                     "s:{s:I, s:I, s:I}, s:o, s:o, s:o, s:{s:I, s:I, s:I, s:I}}",
                     "uptime_s", s->uptime_s, "backend", a->backend, "accepting_jobs", atomic_load(&a->accepting), "devices",
                     devices_json(s), "circuits", circuits_json(s), "queues", "queued", (int)st->queued,
                     "synthesizing", (int)st->synthesizing, "gpu_queued", (int)st->device_queued, "on_gpu",
                     (int)st->on_device, "jobs", "active", (json_int_t)st->jobs_active, "done",
                     (json_int_t)st->jobs_done, "failed", (json_int_t)st->jobs_failed, "cancelled",
                     (json_int_t)st->jobs_cancelled, "partitions", "proved", (json_int_t)st->partitions_done,
                     "verified", (json_int_t)st->proofs_verified, "dispatched", (json_int_t)st->dispatched,
                     "stages", stages_json(st), "pinned_pool", pool_json(&st->pool), "budget", budget_json(&st->budget), "http_responses",
                     "2xx", (json_int_t)s->http_by_class[2], "3xx", (json_int_t)s->http_by_class[3], "4xx",
                     (json_int_t)s->http_by_class[4], "5xx", (json_int_t)s->http_by_class[5]);
}

void route_get_status(routes_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    (void)rq, (void)arg;
    snapshot s;
    json_t *o = snapshot_take(a, &s) ? NULL : status_json(a, &s);
    if (o && a->cluster)
        json_object_set_new(o, "cluster", cluster_json(&s.cluster, a->cluster_lease_s));
    if (o)
        json_object_set_new(o, "job_store", store_json(a, &s));
    if (o)
        http_respond_json(rs, 200, o);
    else
        http_respond_error(rs, 503, "out of memory");
    snapshot_free(&s);
}

void route_get_metrics(routes_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    (void)rq, (void)arg;
    snapshot s;
    char *text = NULL;
    if (!snapshot_take(a, &s)) {
        metrics_input in = {s.uptime_s, &s.stats, s.circuits, s.n_circuits, s.http_by_class,
                            a->cluster ? &s.cluster : NULL, a->cluster_lease_s};
        text = metrics_render(&in);
    }
    snapshot_free(&s);
    if (text)
        http_respond_body(rs, 200, "text/plain; version=0.0.4; charset=utf-8", text);
    else
        http_respond_error(rs, 503, "out of memory");
}
