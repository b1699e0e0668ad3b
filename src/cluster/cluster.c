/* The daemon glue of cluster mode: the node's threads, its claimed
 * partitions as engine jobs, and the job API over the queue. */
#include "cluster/cluster.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "cluster/queue.h"
#include "cluster/schema.h"
#include "jobs/engine_runs.h"
#include "util/err.h"
#include "util/timer.h"

/* A partition this node claimed (jobs/engine_runs.h: its run's
 * cancel_sent: the cluster's job ended). */
typedef struct {
    engine_run run; /* first */
    claimed_partition part;
} slot;

struct cluster_node {
    jobs_api api; /* first: the API's calls get the node back from it */
    cluster_config cfg;
    char name[128];
    cuzk_logger *log;
    cuzk_engine *engine;
    pg_conn *listen, *complete, *beat;
    pg_pool pool;

    pthread_mutex_t lock; /* slots, counters, job_end_seq */
    pthread_cond_t cv;    /* a slot changed, a job ended, stopping */
    slot *slots;
    int capacity, used;
    uint64_t job_end_seq; /* counts cuzk_job_end notifications: GET waits on it */
    cuzk_stage_histogram claim_latency;
    cluster_counters count;

    ended_queue ended; /* engine jobs that ended, from the engine's hook */

    long long other_key_partitions; /* queued under keys this node lacks, as last said (the heartbeat's) */
    int wake_fd; /* the claimer's: room was made, or stop */
    atomic_int claiming, stopping, healthy;
    int threads_started;
    pthread_t claimer, completer, beater;
};

static const char listen_sql[] = "LISTEN cuzk_work; LISTEN cuzk_cancel; LISTEN cuzk_job_end";

/* "ID/KEY_HASH" of a circuit id (API_MAX_CIRCUIT_ID) and its key hash */
enum { KEYED_ID_CAP = 128 + 1 + CUZK_KEY_HASH_HEX + 1 };

static void wake_claimer(cluster_node *n)
{
    uint64_t one = 1;
    if (write(n->wake_fd, &one, sizeof one) != sizeof one)
        CUZK_LOG(n->log, CUZK_LOG_WARN, "cluster: cannot wake the claimer", "error=\"%s\"", strerror(errno));
}

/* ---------- cancels reaching this node ---------- */

static void cancel_local_job(void *ctx, uint64_t job_id)
{
    cluster_node *n = ctx;
    uint64_t ids[64];
    int k = 0;
    pthread_mutex_lock(&n->lock);
    for (int i = 0; i < n->capacity && k < 64; i++) {
        slot *s = &n->slots[i];
        if (s->run.state == RUN_RUNNING && s->part.ref.job_id == job_id && !s->run.cancel_sent) {
            s->run.cancel_sent = 1;
            ids[k++] = s->run.engine_job;
        }
    }
    n->count.cancels += (uint64_t)k;
    pthread_mutex_unlock(&n->lock);
    for (int i = 0; i < k; i++) {
        CUZK_LOG(n->log, CUZK_LOG_INFO, "cluster: cancelling a claimed partition", "job_id=%llu engine_job=%llu",
                 (unsigned long long)job_id, (unsigned long long)ids[i]);
        cuzk_engine_cancel(n->engine, ids[i]);
    }
}

static void on_notify(void *ctx, const char *channel, const char *payload)
{
    cluster_node *n = ctx;
    if (!strcmp(channel, "cuzk_cancel")) {
        cancel_local_job(n, strtoull(payload, NULL, 10));
    } else if (!strcmp(channel, "cuzk_job_end")) {
        pthread_mutex_lock(&n->lock);
        n->job_end_seq++;
        pthread_cond_broadcast(&n->cv);
        pthread_mutex_unlock(&n->lock);
    }
}

/* ---------- claiming ---------- */

/* The circuits this node proves, as claims match them (QUEUE_CIRCUIT_KEY):
 * "ID/KEY_HASH" for each registered circuit's own key, and "ID" for
 * partitions of daemons that did not record a key. */
static char *registered_circuits(cluster_node *n)
{
    size_t count = cuzk_engine_list_circuits(n->engine, NULL, 0);
    cuzk_circuit_info *info = calloc(count ? count : 1, sizeof *info);
    char (*keyed)[KEYED_ID_CAP] = calloc(count ? count : 1, sizeof *keyed);
    const char **ids = calloc(2 * (count ? count : 1), sizeof *ids);
    char *array = NULL;
    if (info && ids && keyed) {
        size_t got = cuzk_engine_list_circuits(n->engine, info, count), k = 0;
        for (size_t i = 0; i < count && i < got; i++) {
            ids[k++] = info[i].id;
            if (!info[i].key_hash[0])
                continue;
            snprintf(keyed[i], sizeof keyed[i], "%s/%s", info[i].id, info[i].key_hash);
            ids[k++] = keyed[i];
        }
        array = queue_circuit_array(ids, k);
    }
    free(info);
    free(keyed);
    free(ids);
    return array;
}

/* The key hash of this node's circuit id ("" when unknown or simulated). */
static void circuit_key_hash(cluster_node *n, const char *id, char out[CUZK_KEY_HASH_HEX + 1])
{
    cuzk_circuit_info info;
    out[0] = 0;
    if (!cuzk_engine_circuit_info(n->engine, id, &info))
        memcpy(out, info.key_hash, CUZK_KEY_HASH_HEX + 1);
}

/* An engine job for s's partition; on failure the claim is released (the
 * engine is closing) or its attempt recorded as failed. */
static void start_partition(cluster_node *n, slot *s)
{
    claimed_partition *p = &s->part;
    cuzk_partition_input in = {.witness_path = p->witness_path,
                               .witness = p->has_witness ? &p->witness : NULL,
                               .input_json = p->input_json};
    cuzk_job_request req = {p->circuit, p->priority, NULL, 1, &in};
    uint64_t id = 0;
    cuzk_error err = {0};
    int rc = cuzk_engine_submit(n->engine, &req, &id, &err);
    /* the engine has copied what it keeps */
    if (p->has_witness) {
        cuzk_wtns_free(&p->witness);
        p->has_witness = 0;
    }
    pthread_mutex_lock(&n->lock);
    if (!rc) {
        s->run.state = RUN_RUNNING;
        s->run.engine_job = id;
        pthread_cond_broadcast(&n->cv);
        pthread_mutex_unlock(&n->lock);
        return;
    }
    pthread_mutex_unlock(&n->lock);
    cuzk_error why = {0};
    int recorded = 0, job_failed = 0;
    if (rc == CUZK_ERR_CANCELLED)
        queue_release(n->listen, n->name, &p->ref, &why);
    else
        queue_record_failure(n->listen, n->name, &p->ref, err.msg, n->cfg.max_attempts, n->cfg.retry_backoff_s,
                             &recorded, &job_failed, &why);
    CUZK_LOG(n->log, CUZK_LOG_WARN, "cluster: claimed partition not started", "job_id=%llu partition=%u error=\"%s\"",
             (unsigned long long)p->ref.job_id, p->ref.idx, err.msg);
    pthread_mutex_lock(&n->lock);
    n->count.retries += recorded && !job_failed;
    n->count.failures += (uint64_t)job_failed;
    claimed_partition_free(p);
    s->run.state = RUN_FREE;
    n->used--;
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->lock);
}

/* Claims as many partitions as the engine has room for and starts them;
 * *due: seconds until a queued partition's backoff ends (< 0: none). */
static int claim_some(cluster_node *n, double *due, cuzk_error *err)
{
    *due = -1;
    pthread_mutex_lock(&n->lock);
    int room = n->capacity - n->used;
    pthread_mutex_unlock(&n->lock);
    if (room <= 0 || !atomic_load(&n->claiming))
        return CUZK_OK;
    char *circuits = registered_circuits(n);
    if (!circuits)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    claimed_partition got[room];
    int k = 0;
    int rc = queue_claim(n->listen, n->name, circuits, room, n->cfg.claim_max_s, got, &k, err);
    if (!rc && k < room)
        rc = queue_next_due(n->listen, circuits, due, err);
    free(circuits);
    slot *mine[room];
    pthread_mutex_lock(&n->lock);
    for (int i = 0, at = 0; i < k; i++) {
        while (n->slots[at].run.state != RUN_FREE)
            at++;
        mine[i] = &n->slots[at];
        mine[i]->run = (engine_run){RUN_SUBMITTING, 0, 0};
        mine[i]->part = got[i];
        n->used++;
        n->count.claims++;
        cuzk_stage_histogram_add(&n->claim_latency, got[i].latency_s);
    }
    pthread_mutex_unlock(&n->lock);
    for (int i = 0; i < k; i++) {
        CUZK_LOG(n->log, CUZK_LOG_DEBUG, "cluster: claimed", "job_id=%llu partition=%u attempt=%d latency_s=%.4f",
                 (unsigned long long)got[i].ref.job_id, got[i].ref.idx, got[i].ref.attempt, got[i].latency_s);
        start_partition(n, mine[i]);
    }
    return rc;
}

static void *claimer_main(void *arg)
{
    cluster_node *n = arg;
    while (!atomic_load(&n->stopping)) {
        cuzk_error err = {0};
        double wait = n->cfg.poll_s, due = -1;
        int rc = pg_notifications(n->listen, on_notify, n, &err);
        if (!rc)
            rc = claim_some(n, &due, &err);
        if (rc)
            wait = pg_connected(n->listen) ? 1 : pg_retry_in(n->listen) + 0.01;
        else if (due >= 0 && due < wait)
            wait = due + 0.001;
        struct pollfd fds[2] = {{n->wake_fd, POLLIN, 0}, {pg_socket(n->listen), POLLIN, 0}};
        if (poll(fds, fds[1].fd >= 0 ? 2 : 1, (int)(wait * 1000)) > 0 && (fds[0].revents & POLLIN)) {
            uint64_t v;
            if (read(n->wake_fd, &v, sizeof v) < 0 && errno != EAGAIN)
                break;
        }
    }
    return NULL;
}

/* ---------- completing ---------- */

/* Records what the engine made of s's partition. */
static int record(cluster_node *n, slot *s, cuzk_error *err)
{
    cuzk_job_result r;
    const claim_ref *ref = &s->part.ref;
    if (cuzk_engine_wait(n->engine, s->run.engine_job, 0, &r)) /* pruned: the claim goes back to the queue */
        return queue_release(n->complete, n->name, ref, err);
    int rc, recorded = 0, job_ended = 0;
    if (r.state == CUZK_JOB_DONE) {
        partition_result res = {r.proofs, (const uint64_t(*)[4])r.publics, r.n_public, r.synth_s, r.device_s, r.verified};
        rc = queue_record_proof(n->complete, n->name, ref, &res, &recorded, &job_ended, err);
    } else if (r.state == CUZK_JOB_FAILED) {
        rc = queue_record_failure(n->complete, n->name, ref, engine_run_reason(r.error), n->cfg.max_attempts,
                                  n->cfg.retry_backoff_s, &recorded, &job_ended, err);
    } else if (s->run.cancel_sent) {
        rc = queue_record_cancelled(n->complete, n->name, ref, err);
        recorded = 1;
    } else {
        rc = queue_release(n->complete, n->name, ref, err); /* cancelled by the node's own stop */
        recorded = 1;
    }
    if (!rc) {
        pthread_mutex_lock(&n->lock);
        if (!recorded)
            n->count.late_results++;
        else if (r.state == CUZK_JOB_DONE)
            n->count.completions++;
        else if (r.state == CUZK_JOB_FAILED)
            job_ended ? n->count.failures++ : n->count.retries++;
        pthread_mutex_unlock(&n->lock);
        if (!recorded)
            CUZK_LOG(n->log, CUZK_LOG_WARN, "cluster: late result discarded", "job_id=%llu partition=%u attempt=%d",
                     (unsigned long long)ref->job_id, ref->idx, ref->attempt);
        else if (r.state == CUZK_JOB_FAILED)
            CUZK_LOG(n->log, CUZK_LOG_WARN, "cluster: partition attempt failed",
                     "job_id=%llu partition=%u attempt=%d job_failed=%d error=\"%s\"", (unsigned long long)ref->job_id,
                     ref->idx, ref->attempt, job_ended, engine_run_reason(r.error));
    }
    cuzk_job_result_free(&r);
    return rc;
}

/* The completer stops once the node stops and nothing is left, or after
 * this long of trying to record what is left. */
static const double completer_grace_s = 10;

static void *completer_main(void *arg)
{
    cluster_node *n = arg;
    double stop_at = 0;
    uint64_t id;
    while ((id = ended_queue_next(&n->ended, &n->stopping, &n->used, &n->lock, completer_grace_s,
                                     &stop_at))) {
        pthread_mutex_lock(&n->lock);
        slot *s = engine_run_find_locked(n->slots, sizeof *n->slots, n->capacity, id, &n->cv, &n->lock);
        pthread_mutex_unlock(&n->lock);
        cuzk_error err = {0};
        int rc = s ? record(n, s, &err) : CUZK_OK;
        if (rc == CUZK_ERR_UNAVAILABLE || rc == CUZK_ERR_IO) {
            /* kept for the next try: the database is away, or a transient error (deadlock, restart) */
            CUZK_LOG(n->log, CUZK_LOG_DEBUG, "cluster: result not recorded yet", "error=\"%s\"", err.msg);
            ended_queue_wait(&n->ended, rc == CUZK_ERR_IO ? 0.2 : pg_retry_in(n->complete) + 0.01);
            continue;
        }
        ended_queue_pop(&n->ended);
        if (!s)
            continue;
        pthread_mutex_lock(&n->lock);
        claimed_partition_free(&s->part);
        s->run.state = RUN_FREE;
        n->used--;
        pthread_cond_broadcast(&n->cv);
        pthread_mutex_unlock(&n->lock);
        wake_claimer(n);
    }
    return NULL;
}

/* ---------- heartbeat ---------- */

static void on_reclaimed(void *ctx, const reclaimed_partition *p)
{
    cluster_node *n = ctx;
    CUZK_LOG(n->log, CUZK_LOG_WARN, "cluster: partition reclaimed from a silent node",
             "job_id=%llu partition=%u failed=%d", (unsigned long long)p->job_id, p->idx, p->failed);
}

/* Cancels the engine jobs of this node's claims whose cluster jobs ended. */
static int check_ended(cluster_node *n, cuzk_error *err)
{
    uint64_t ids[n->capacity > 0 ? n->capacity : 1];
    int k = 0;
    pthread_mutex_lock(&n->lock);
    for (int i = 0; i < n->capacity; i++)
        if (n->slots[i].run.state == RUN_RUNNING && !n->slots[i].run.cancel_sent)
            ids[k++] = n->slots[i].part.ref.job_id;
    pthread_mutex_unlock(&n->lock);
    return node_ended_jobs(n->beat, ids, k, cancel_local_job, n, err);
}

/* Ended jobs past [cluster] retain_s leave the database. */
static int sweep_ended(cluster_node *n, cuzk_error *err)
{
    int deleted = 0;
    int rc = queue_delete_ended(n->beat, n->cfg.retain_s, &deleted, err);
    if (deleted)
        CUZK_LOG(n->log, CUZK_LOG_INFO, "cluster: ended jobs deleted", "jobs=%d retain_s=%g", deleted,
                 n->cfg.retain_s);
    return rc;
}

typedef struct {
    cluster_node *n;
    long long total;
    int say;
} other_keys;

static void say_other_key(void *ctx, const char *circuit, const char *key_hash, long long count)
{
    other_keys *o = ctx;
    o->total += count;
    if (!o->say)
        return;
    char mine[CUZK_KEY_HASH_HEX + 1];
    circuit_key_hash(o->n, circuit, mine);
    CUZK_LOG(o->n->log, CUZK_LOG_WARN, "cluster: partitions queued under another key of a circuit: not claimed here",
             "circuit=%s key_hash=%s this_node_key_hash=%s partitions=%lld", circuit, key_hash, mine, count);
}

/* Says (once per change of their number) which partitions of this node's
 * circuits wait for another key: a key rotated on one host, or a
 * development setup made on each. */
static int check_other_keys(cluster_node *n, cuzk_error *err)
{
    char *circuits = registered_circuits(n);
    if (!circuits)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    other_keys o = {n, 0, 0};
    int rc = node_other_keys(n->beat, circuits, say_other_key, &o, err);
    if (!rc && o.total != n->other_key_partitions && o.total) {
        o = (other_keys){n, 0, 1};
        rc = node_other_keys(n->beat, circuits, say_other_key, &o, err);
    }
    if (!rc)
        n->other_key_partitions = o.total;
    free(circuits);
    return rc;
}

static void beat_once(cluster_node *n)
{
    cuzk_error err = {0};
    int rc = node_heartbeat(n->beat, n->name, &err);
    int was = atomic_exchange(&n->healthy, rc == CUZK_OK);
    if (was != (rc == CUZK_OK))
        CUZK_LOG(n->log, rc ? CUZK_LOG_ERROR : CUZK_LOG_INFO, "cluster: health changed", "healthy=%d error=\"%s\"",
                 rc == CUZK_OK, err.msg);
    if (rc)
        return;
    /* only after a lease of its own connection: after the database came
     * back every node needs a heartbeat to be seen alive again */
    int reclaimed = 0;
    if (pg_connected_for(n->beat) >= n->cfg.lease_s)
        rc = node_reclaim(n->beat, n->name, n->cfg.lease_s, n->cfg.max_attempts, on_reclaimed, n, &reclaimed, &err);
    if (!rc)
        rc = check_ended(n, &err);
    if (!rc)
        rc = check_other_keys(n, &err);
    if (!rc && n->cfg.retain_s > 0)
        rc = sweep_ended(n, &err);
    pthread_mutex_lock(&n->lock);
    n->count.reclaims += (uint64_t)reclaimed;
    pthread_mutex_unlock(&n->lock);
    if (rc)
        CUZK_LOG(n->log, CUZK_LOG_WARN, "cluster: heartbeat work failed", "error=\"%s\"", err.msg);
}

static void *beater_main(void *arg)
{
    cluster_node *n = arg;
    pthread_mutex_lock(&n->lock);
    while (!atomic_load(&n->stopping)) {
        pthread_mutex_unlock(&n->lock);
        beat_once(n);
        pthread_mutex_lock(&n->lock);
        if (!atomic_load(&n->stopping))
            engine_run_timed_wait(&n->cv, &n->lock, n->cfg.heartbeat_s);
    }
    pthread_mutex_unlock(&n->lock);
    return NULL;
}

/* ---------- the job API ---------- */

static cluster_node *node_of(jobs_api *j) { return (cluster_node *)j; }

static int cl_submit(jobs_api *j, const cuzk_job_request *req, uint64_t *job_id, cuzk_error *err)
{
    cluster_node *n = node_of(j);
    size_t max = (size_t)n->cfg.inline_witness_max_kib << 10;
    for (uint32_t i = 0; req->partitions && i < req->n_partitions; i++) {
        const cuzk_wtns *w = req->partitions[i].witness;
        const char *input = req->partitions[i].input_json;
        /* the queue's rows hold a witness, its path or the input (schema.c) */
        if (input && strlen(input) > max)
            return cuzk_fail(err, CUZK_ERR_ARG,
                             "partition %u: an input of %zu bytes is over [cluster] inline_witness_max_kib (%d KiB): "
                             "calculate the witness (cuzk wtns calculate), put it on storage every node reads and "
                             "send its path",
                             i, strlen(input), n->cfg.inline_witness_max_kib);
        if (w && (size_t)w->n_witness * 32 > max)
            return cuzk_fail(err, CUZK_ERR_ARG,
                             "partition %u: an inline witness of %zu bytes is over [cluster] inline_witness_max_kib "
                             "(%d KiB): put it on storage every node reads and send its path",
                             i, (size_t)w->n_witness * 32, n->cfg.inline_witness_max_kib);
    }
    int rc = cuzk_engine_check_request(n->engine, req, err);
    if (rc)
        return rc;
    /* the job is proved under this node's key of the circuit, by whichever
     * node has the same key */
    char key_hash[CUZK_KEY_HASH_HEX + 1];
    circuit_key_hash(n, req->circuit, key_hash);
    pg_conn *c = pg_pool_get(&n->pool);
    rc = queue_submit(c, req, n->name, key_hash[0] ? key_hash : NULL, job_id, err);
    pg_pool_put(&n->pool, c);
    if (!rc)
        CUZK_LOG(n->log, CUZK_LOG_INFO, "cluster: job queued", "job_id=%llu circuit=%s partitions=%u priority=%s",
                 (unsigned long long)*job_id, req->circuit, req->n_partitions, cuzk_priority_name(req->priority));
    return rc;
}

static int read_job(cluster_node *n, uint64_t job_id, cuzk_job_result *out, cuzk_error *err)
{
    pg_conn *c = pg_pool_get(&n->pool);
    int rc = queue_read_job(c, job_id, out, err);
    pg_pool_put(&n->pool, c);
    if (rc == CUZK_ERR_ARG)
        cuzk_fail(err, rc, "%s", out->error);
    return rc;
}

/* A missed notification (while reconnecting) costs at most this much. */
static const double wait_recheck_s = 1;

static int cl_wait(jobs_api *j, uint64_t job_id, double timeout_s, cuzk_job_result *out, cuzk_error *err)
{
    cluster_node *n = node_of(j);
    double deadline = cuzk_now_s() + (timeout_s > 0 ? timeout_s : 0);
    for (;;) {
        pthread_mutex_lock(&n->lock);
        uint64_t seen = n->job_end_seq;
        pthread_mutex_unlock(&n->lock);
        int rc = read_job(n, job_id, out, err);
        double left = deadline - cuzk_now_s();
        if (rc || out->state >= CUZK_JOB_DONE || left <= 0)
            return rc;
        cuzk_job_result_free(out);
        pthread_mutex_lock(&n->lock);
        if (n->job_end_seq == seen && !atomic_load(&n->stopping))
            engine_run_timed_wait(&n->cv, &n->lock, left < wait_recheck_s ? left : wait_recheck_s);
        pthread_mutex_unlock(&n->lock);
    }
}

static int cl_cancel(jobs_api *j, uint64_t job_id, cuzk_error *err)
{
    cluster_node *n = node_of(j);
    pg_conn *c = pg_pool_get(&n->pool);
    int ended = 0, rc = queue_end_job(c, job_id, "cancelled", "", &ended, err);
    pg_pool_put(&n->pool, c);
    if (ended)
        CUZK_LOG(n->log, CUZK_LOG_INFO, "cluster: job cancelled", "job_id=%llu", (unsigned long long)job_id);
    return rc;
}

static void cl_stop_accepting(jobs_api *j)
{
    cluster_node *n = node_of(j);
    atomic_store(&n->claiming, 0);
    wake_claimer(n);
    cuzk_engine_stop_accepting(n->engine);
}

static const jobs_ops cluster_ops = {cl_submit, cl_wait, cl_cancel, cl_stop_accepting};

/* ---------- life ---------- */

static int copy_config(cluster_node *n, const cluster_config *cfg, cuzk_error *err)
{
    n->cfg = *cfg;
    n->cfg.database = strdup(cfg->database);
    n->cfg.node = NULL;
    if (*cfg->node)
        snprintf(n->name, sizeof n->name, "%s", cfg->node);
    else if (gethostname(n->name, sizeof n->name - 1))
        return cuzk_fail(err, CUZK_ERR_IO, "[cluster] node: the host name is unknown (%s): set a name",
                         strerror(errno));
    return n->cfg.database ? CUZK_OK : cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
}

cluster_node *cluster_create(const cluster_config *cfg, cuzk_logger *log, cuzk_error *err)
{
    cluster_node *n = calloc(1, sizeof *n);
    if (!n)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    n->api.ops = &cluster_ops;
    n->log = log;
    n->wake_fd = -1;
    pthread_mutex_init(&n->lock, NULL);
    pthread_cond_init(&n->cv, NULL);
    int from = 0, rc = copy_config(n, cfg, err);
    if (!rc && (n->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
        rc = cuzk_fail(err, CUZK_ERR_IO, "eventfd: %s", strerror(errno));
    if (!rc && !(n->listen = pg_open(cfg->database, listen_sql, log, 1, err)))
        rc = err->code;
    if (!rc)
        rc = schema_migrate(n->listen, &from, err);
    if (!rc && (!(n->complete = pg_open(cfg->database, NULL, log, 1, err)) ||
                !(n->beat = pg_open(cfg->database, NULL, log, 1, err))))
        rc = err->code;
    if (!rc)
        rc = pg_pool_init(&n->pool, cfg->connections, cfg->database, log, err);
    if (rc) {
        cluster_destroy(n);
        return NULL;
    }
    CUZK_LOG(log, CUZK_LOG_INFO, "cluster: database ready", "node=%s schema_from=%d schema=%d", n->name, from,
             schema_version_latest());
    return n;
}

void cluster_hook_engine(cluster_node *n, cuzk_engine_config *ec)
{
    ec->on_job_end = ended_queue_hook;
    ec->on_job_end_ctx = &n->ended;
    n->capacity = ec->max_device_queue_depth;
}

int cluster_start(cluster_node *n, cuzk_engine *e, cuzk_error *err)
{
    n->engine = e;
    n->api.engine = e;
    n->slots = calloc((size_t)n->capacity, sizeof *n->slots);
    if (!n->slots || ended_queue_init(&n->ended, n->capacity))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    int requeued = 0, rc = node_join(n->beat, n->name, n->capacity, &requeued, err);
    if (rc)
        return rc;
    n->count.requeued_at_start = (uint64_t)requeued;
    atomic_store(&n->healthy, 1);
    atomic_store(&n->claiming, 1);
    if (pthread_create(&n->claimer, NULL, claimer_main, n))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "cannot start the claimer thread");
    n->threads_started = 1;
    if (pthread_create(&n->completer, NULL, completer_main, n))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "cannot start the completer thread");
    n->threads_started = 2;
    if (pthread_create(&n->beater, NULL, beater_main, n))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "cannot start the heartbeat thread");
    n->threads_started = 3;
    CUZK_LOG(n->log, CUZK_LOG_INFO, "cluster: joined", "node=%s capacity=%d requeued=%d", n->name, n->capacity,
             requeued);
    return CUZK_OK;
}

jobs_api *cluster_jobs(cluster_node *n) { return &n->api; }

void cluster_destroy(cluster_node *n)
{
    if (!n)
        return;
    atomic_store(&n->claiming, 0);
    atomic_store(&n->stopping, 1);
    if (n->wake_fd >= 0)
        wake_claimer(n);
    pthread_mutex_lock(&n->lock);
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->lock);
    if (n->ended.ids)
        ended_queue_wake(&n->ended);
    pthread_t *threads[] = {&n->claimer, &n->completer, &n->beater};
    for (int i = 0; i < n->threads_started; i++)
        pthread_join(*threads[i], NULL);
    for (int i = 0; n->slots && i < n->capacity; i++)
        claimed_partition_free(&n->slots[i].part);
    pg_close(n->listen);
    pg_close(n->complete);
    pg_close(n->beat);
    pg_pool_free(&n->pool);
    if (n->wake_fd >= 0)
        close(n->wake_fd);
    pthread_mutex_destroy(&n->lock);
    pthread_cond_destroy(&n->cv);
    if (n->ended.ids)
        ended_queue_destroy(&n->ended);
    free(n->slots);
    free(n->cfg.database);
    free(n);
}

void cluster_get_stats(cluster_node *n, cluster_stats *s)
{
    memset(s, 0, sizeof *s);
    s->node = n->name;
    s->healthy = atomic_load(&n->healthy);
    pthread_mutex_lock(&n->lock);
    s->capacity = n->capacity;
    s->claimed_here = n->used;
    s->counters = n->count;
    s->claim_latency = n->claim_latency;
    pthread_mutex_unlock(&n->lock);
    s->reconnects = pg_reconnects(n->listen) + pg_reconnects(n->complete) + pg_reconnects(n->beat);
    cuzk_error err = {0};
    pg_conn *c = pg_pool_get(&n->pool);
    s->view_ok = node_cluster_view(c, &s->view, &err) == CUZK_OK;
    pg_pool_put(&n->pool, c);
}
