/* The daemon's jobs kept on disk: the feeder and completer threads, the
 * job API over the store (jobs_sqlite.h). */
#include "jobs/jobs_sqlite.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/engine_runs.h"
#include "jobs/state_lock.h"
#include "util/crash_point.h"
#include "util/err.h"
#include "util/timer.h"

/* A partition handed to the engine (engine_runs.h). */
typedef struct {
    engine_run run; /* first */
    store_partition part;
} slot;

struct jobs_sqlite {
    jobs_api api; /* first: the API's calls get the store back from it */
    jobs_sqlite_config cfg;
    char *state_dir;
    cuzk_logger *log;
    cuzk_engine *engine;
    sqlite_store *store;
    int lock_fd;

    pthread_mutex_t lock; /* slots, counters, work, job_end_seq */
    pthread_cond_t cv;    /* a slot changed, work came, a job ended, stopping */
    slot *slots;
    int capacity, used;
    int batch;            /* the feeder claims once this many slots are free */
    int work;             /* the store may hold queued partitions */
    uint64_t job_end_seq; /* counts jobs ended: waits watch it */
    uint64_t proofs, failures, requeued, errors, claimed;
    double record_s, claim_s;

    ended_queue ended; /* engine jobs that ended, from the engine's hook */

    atomic_int accepting, feeding, stopping;
    int threads_started;
    pthread_t feeder, completer;
};

static void say_job_end(jobs_sqlite *j, uint64_t job_id)
{
    cuzk_job_result r;
    cuzk_error err = {0};
    if (store_read_job(j->store, job_id, &r, &err))
        return;
    CUZK_LOG(j->log, CUZK_LOG_INFO, "store: job finished", "job_id=%" PRIu64 " state=%s partitions=%u total_s=%.3f",
             job_id, cuzk_job_state_name(r.state), r.n_partitions, r.total_s);
    cuzk_job_result_free(&r);
}

static void job_ended(jobs_sqlite *j, uint64_t job_id)
{
    say_job_end(j, job_id);
    pthread_mutex_lock(&j->lock);
    j->job_end_seq++;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->lock);
}

static void free_slot(jobs_sqlite *j, slot *s)
{
    pthread_mutex_lock(&j->lock);
    store_partition_free(&s->part);
    s->run.state = RUN_FREE;
    j->used--;
    j->work = 1; /* room was made */
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->lock);
}

/* ---------- feeding the engine ---------- */

/* An engine job for s's partition; when the engine refuses it, the
 * partition fails (a witness file gone meanwhile) or, the engine stopping,
 * goes back to the queue. */
static void start_partition(jobs_sqlite *j, slot *s)
{
    store_partition *p = &s->part;
    cuzk_partition_input in = {.witness_path = p->witness_path,
                               .witness = p->has_witness ? &p->witness : NULL,
                               .input_json = p->input_json};
    int simulated = !p->witness_path && !p->has_witness && !p->input_json;
    cuzk_job_request req = {p->circuit, p->priority, NULL, 1, simulated ? NULL : &in};
    uint64_t id = 0;
    cuzk_error err = {0};
    int rc = cuzk_engine_submit(j->engine, &req, &id, &err);
    if (p->has_witness) { /* the engine has copied it */
        cuzk_wtns_free(&p->witness);
        p->has_witness = 0;
    }
    pthread_mutex_lock(&j->lock);
    if (!rc) {
        s->run.state = RUN_RUNNING;
        s->run.engine_job = id;
        pthread_cond_broadcast(&j->cv);
        pthread_mutex_unlock(&j->lock);
        return;
    }
    pthread_mutex_unlock(&j->lock);
    cuzk_error why = {0};
    int recorded = 0, ended = 0;
    if (rc == CUZK_ERR_CANCELLED)
        rc = store_release(j->store, p->job_id, p->idx, &why);
    else
        rc = store_record_failure(j->store, p->job_id, p->idx, engine_run_reason(err.msg), &recorded, &ended, &why);
    CUZK_LOG(j->log, CUZK_LOG_WARN, "store: partition not started", "job_id=%" PRIu64 " partition=%u error=\"%s\"",
             p->job_id, p->idx, err.msg);
    if (rc)
        CUZK_LOG(j->log, CUZK_LOG_ERROR, "store: cannot record it", "job_id=%" PRIu64 " error=\"%s\"", p->job_id,
                 why.msg);
    uint64_t job = p->job_id;
    free_slot(j, s);
    if (ended)
        job_ended(j, job);
}

/* Takes what the engine has room for from the store and starts it; 0 when
 * there was nothing to take (or no room). */
static int feed_some(jobs_sqlite *j)
{
    pthread_mutex_lock(&j->lock);
    int room = j->capacity - j->used;
    pthread_mutex_unlock(&j->lock);
    if (room <= 0)
        return 0;
    store_partition got[room];
    int k = 0;
    cuzk_error err = {0};
    double t0 = cuzk_now_s();
    int rc = store_claim(j->store, room, got, &k, &err);
    pthread_mutex_lock(&j->lock);
    j->claim_s += cuzk_now_s() - t0;
    j->claimed += (uint64_t)k;
    pthread_mutex_unlock(&j->lock);
    if (rc) {
        CUZK_LOG(j->log, CUZK_LOG_ERROR, "store: cannot take partitions", "error=\"%s\"", err.msg);
        pthread_mutex_lock(&j->lock);
        j->errors++;
        pthread_mutex_unlock(&j->lock);
        return 0;
    }
    slot *mine[room > 0 ? room : 1];
    pthread_mutex_lock(&j->lock);
    for (int i = 0, at = 0; i < k; i++) {
        while (j->slots[at].run.state != RUN_FREE)
            at++;
        mine[i] = &j->slots[at];
        mine[i]->run = (engine_run){RUN_SUBMITTING, 0, 0};
        mine[i]->part = got[i];
        j->used++;
    }
    pthread_mutex_unlock(&j->lock);
    for (int i = 0; i < k; i++) {
        CUZK_LOG(j->log, CUZK_LOG_DEBUG, "store: partition started", "job_id=%" PRIu64 " partition=%u attempt=%d",
                 got[i].job_id, got[i].idx, got[i].attempt);
        start_partition(j, mine[i]);
    }
    return k;
}

/* How often the feeder looks at the store unasked (retention, and work a
 * failed claim left behind). */
static const double feeder_tick_s = 1;

static void sweep(jobs_sqlite *j)
{
    int n = 0;
    cuzk_error err = {0};
    if (store_delete_ended(j->store, j->cfg.retain_s, &n, &err))
        CUZK_LOG(j->log, CUZK_LOG_WARN, "store: cannot delete old jobs", "error=\"%s\"", err.msg);
    else if (n)
        CUZK_LOG(j->log, CUZK_LOG_INFO, "store: ended jobs deleted", "jobs=%d retain_s=%g", n, j->cfg.retain_s);
}

static void *feeder_main(void *arg)
{
    jobs_sqlite *j = arg;
    double next_sweep = 0;
    pthread_mutex_lock(&j->lock);
    while (!atomic_load(&j->stopping)) {
        int room = j->capacity - j->used >= j->batch, want = j->work && atomic_load(&j->feeding);
        if (room && want) {
            j->work = 0;
            pthread_mutex_unlock(&j->lock);
            int took = feed_some(j);
            pthread_mutex_lock(&j->lock);
            if (took)
                j->work = 1; /* maybe more */
            continue;
        }
        if (j->cfg.retain_s > 0 && cuzk_now_s() >= next_sweep) {
            pthread_mutex_unlock(&j->lock);
            sweep(j);
            next_sweep = cuzk_now_s() + (j->cfg.retain_s / 2 < 60 ? j->cfg.retain_s / 2 : 60);
            pthread_mutex_lock(&j->lock);
            continue;
        }
        engine_run_timed_wait(&j->cv, &j->lock, feeder_tick_s);
        if (room && !want)
            j->work = 1; /* the tick looks again: a claim that failed is retried */
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* ---------- recording what the engine made ---------- */

/* Records r, the engine's result for s's partition: *job_end when its job
 * ended with it. */
static int record(jobs_sqlite *j, slot *s, const cuzk_job_result *r, int *job_end, cuzk_error *err)
{
    const store_partition *p = &s->part;
    int recorded = 0;
    *job_end = 0;
    if (r->state == CUZK_JOB_DONE) {
        store_proof proof = {r->proofs, (const uint64_t(*)[4])r->publics, r->n_public, r->witness_s, r->synth_s,
                             r->device_s, r->verified};
        cuzk_crash_point("store:proved");
        double t0 = cuzk_now_s();
        int rc = store_record_proof(j->store, p->job_id, p->idx, &proof, &recorded, job_end, err);
        if (rc)
            return rc;
        cuzk_crash_point("store:recorded");
        pthread_mutex_lock(&j->lock);
        j->record_s += cuzk_now_s() - t0;
        j->proofs += (uint64_t)recorded;
        pthread_mutex_unlock(&j->lock);
        CUZK_LOG(j->log, CUZK_LOG_DEBUG, "store: proof recorded", "job_id=%" PRIu64 " partition=%u recorded=%d",
                 p->job_id, p->idx, recorded);
        return CUZK_OK;
    }
    if (r->state == CUZK_JOB_FAILED) {
        int rc = store_record_failure(j->store, p->job_id, p->idx, engine_run_reason(r->error), &recorded, job_end, err);
        if (!rc) {
            pthread_mutex_lock(&j->lock);
            j->failures += (uint64_t)recorded;
            pthread_mutex_unlock(&j->lock);
            CUZK_LOG(j->log, CUZK_LOG_WARN, "store: partition failed", "job_id=%" PRIu64 " partition=%u error=\"%s\"",
                     p->job_id, p->idx, engine_run_reason(r->error));
        }
        return rc;
    }
    /* cancelled: by its job's cancel (the store knows), or by the daemon's
     * own stop (queued again for the next start) */
    return s->run.cancel_sent ? CUZK_OK : store_release(j->store, p->job_id, p->idx, err);
}

/* The completer stops once the daemon stops and nothing is left, or after
 * this long of trying to record what is left. */
static const double completer_grace_s = 10;

static void *completer_main(void *arg)
{
    jobs_sqlite *j = arg;
    double stop_at = 0;
    uint64_t id;
    while ((id = ended_queue_next(&j->ended, &j->stopping, &j->used, &j->lock, completer_grace_s,
                                     &stop_at))) {
        pthread_mutex_lock(&j->lock);
        slot *s = engine_run_find_locked(j->slots, sizeof *j->slots, j->capacity, id, &j->cv, &j->lock);
        pthread_mutex_unlock(&j->lock);
        cuzk_job_result r;
        int have = s && !cuzk_engine_wait(j->engine, id, 0, &r);
        int rc = CUZK_OK, job_end = 0;
        cuzk_error err = {0};
        if (s && !have) /* pruned by the engine: proved again */
            rc = store_release(j->store, s->part.job_id, s->part.idx, &err);
        else if (s)
            rc = record(j, s, &r, &job_end, &err);
        if (have)
            cuzk_job_result_free(&r);
        if (rc) {
            /* kept for the next try (a full disk, a busy file): the
             * engine still holds its result */
            CUZK_LOG(j->log, CUZK_LOG_ERROR, "store: result not recorded yet", "error=\"%s\"", err.msg);
            pthread_mutex_lock(&j->lock);
            j->errors++;
            pthread_mutex_unlock(&j->lock);
            ended_queue_wait(&j->ended, 0.5);
            continue;
        }
        ended_queue_pop(&j->ended);
        if (!s)
            continue;
        uint64_t job = s->part.job_id;
        free_slot(j, s);
        if (job_end)
            job_ended(j, job);
    }
    return NULL;
}

/* ---------- the job API ---------- */

static jobs_sqlite *of(jobs_api *api) { return (jobs_sqlite *)api; }

/* The store's trouble is the daemon's, not the request's: 503 (the
 * request's own codes, an unknown job or a conflict, stay). */
static int api_code(int rc)
{
    return rc == CUZK_ERR_IO || rc == CUZK_ERR_FORMAT || rc == CUZK_ERR_NOMEM ? CUZK_ERR_UNAVAILABLE : rc;
}

/* What the store keeps of a request beyond paths is bounded. */
static int check_inline(const jobs_sqlite *j, const cuzk_job_request *req, cuzk_error *err)
{
    uint64_t max = j->cfg.inline_max_bytes;
    for (uint32_t i = 0; req->partitions && i < req->n_partitions; i++) {
        const cuzk_wtns *w = req->partitions[i].witness;
        const char *input = req->partitions[i].input_json;
        uint64_t bytes = w ? (uint64_t)w->n_witness * 32 : input ? strlen(input) : 0;
        if (bytes > max)
            return cuzk_fail(err, CUZK_ERR_ARG,
                             "partition %u: %s of %" PRIu64 " bytes is over [daemon] state_inline_max_mib (%" PRIu64
                             " MiB), what the job store keeps of one: write it to a file and send its path",
                             i, w ? "an inline witness" : "an input", bytes, max >> 20);
    }
    return CUZK_OK;
}

static int st_submit(jobs_api *api, const cuzk_job_request *req, uint64_t *job_id, cuzk_error *err)
{
    jobs_sqlite *j = of(api);
    if (!atomic_load(&j->accepting))
        return cuzk_fail(err, CUZK_ERR_CANCELLED, "the daemon takes no new jobs");
    int rc = check_inline(j, req, err);
    if (!rc)
        rc = cuzk_engine_check_request(j->engine, req, err);
    int existing = 0;
    if (!rc && (rc = store_submit(j->store, req, job_id, &existing, err)))
        rc = api_code(rc);
    if (rc)
        return rc;
    cuzk_crash_point("store:submitted");
    if (existing)
        return CUZK_OK;
    CUZK_LOG(j->log, CUZK_LOG_INFO, "store: job queued", "job_id=%" PRIu64 " circuit=%s partitions=%u priority=%s",
             *job_id, req->circuit, req->n_partitions, cuzk_priority_name(req->priority));
    pthread_mutex_lock(&j->lock);
    j->work = 1;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->lock);
    return CUZK_OK;
}

/* A missed wake-up costs at most this much. */
static const double wait_recheck_s = 1;

static int st_wait(jobs_api *api, uint64_t job_id, double timeout_s, cuzk_job_result *out, cuzk_error *err)
{
    jobs_sqlite *j = of(api);
    double deadline = cuzk_now_s() + (timeout_s > 0 ? timeout_s : 0);
    for (;;) {
        pthread_mutex_lock(&j->lock);
        uint64_t seen = j->job_end_seq;
        pthread_mutex_unlock(&j->lock);
        int rc = api_code(store_read_job(j->store, job_id, out, err));
        double left = deadline - cuzk_now_s();
        if (rc || out->state >= CUZK_JOB_DONE || left <= 0)
            return rc;
        cuzk_job_result_free(out);
        pthread_mutex_lock(&j->lock);
        if (j->job_end_seq == seen && !atomic_load(&j->stopping))
            engine_run_timed_wait(&j->cv, &j->lock, left < wait_recheck_s ? left : wait_recheck_s);
        pthread_mutex_unlock(&j->lock);
    }
}

static int st_cancel(jobs_api *api, uint64_t job_id, cuzk_error *err)
{
    jobs_sqlite *j = of(api);
    int ended = 0, rc = api_code(store_cancel_job(j->store, job_id, &ended, err));
    if (rc || !ended)
        return rc;
    uint64_t ids[j->capacity > 0 ? j->capacity : 1];
    int k = 0;
    pthread_mutex_lock(&j->lock);
    for (int i = 0; i < j->capacity; i++) {
        slot *s = &j->slots[i];
        if (s->run.state != RUN_FREE && s->part.job_id == job_id && !s->run.cancel_sent) {
            s->run.cancel_sent = 1;
            if (s->run.state == RUN_RUNNING)
                ids[k++] = s->run.engine_job;
        }
    }
    pthread_mutex_unlock(&j->lock);
    for (int i = 0; i < k; i++)
        cuzk_engine_cancel(j->engine, ids[i]);
    CUZK_LOG(j->log, CUZK_LOG_INFO, "store: job cancelled", "job_id=%" PRIu64 " engine_jobs=%d", job_id, k);
    job_ended(j, job_id);
    return CUZK_OK;
}

/* Submits end; what the store holds is still proved (the drain's part). */
static void st_stop_accepting(jobs_api *api) { atomic_store(&of(api)->accepting, 0); }

static const jobs_ops sqlite_ops = {st_submit, st_wait, st_cancel, st_stop_accepting};

/* ---------- life ---------- */

jobs_sqlite *jobs_sqlite_open(const jobs_sqlite_config *cfg, cuzk_logger *log, cuzk_error *err)
{
    jobs_sqlite *j = calloc(1, sizeof *j);
    if (!j || !(j->state_dir = strdup(cfg->state_dir))) {
        free(j);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    }
    j->api.ops = &sqlite_ops;
    j->cfg = *cfg;
    j->cfg.state_dir = j->state_dir;
    j->log = log;
    j->lock_fd = -1;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cv, NULL);
    atomic_store(&j->accepting, 1);
    atomic_store(&j->feeding, 1);
    if (state_lock_take(cfg->state_dir, &j->lock_fd, err) ||
        !(j->store = store_open(cfg->state_dir, cfg->max_pages, err))) {
        jobs_sqlite_destroy(j);
        return NULL;
    }
    return j;
}

void jobs_sqlite_hook_engine(jobs_sqlite *j, cuzk_engine_config *ec)
{
    ec->on_job_end = ended_queue_hook;
    ec->on_job_end_ctx = &j->ended;
    /* the permits, and as many waiting behind them: the engine's queue
     * never runs dry while the completer records; claims wait for half of
     * the slots to be free (one commit for several partitions), so the
     * engine always holds more than its permits */
    j->capacity = 2 * ec->max_device_queue_depth + 2;
    j->batch = ec->max_device_queue_depth + 1;
}

int jobs_sqlite_start(jobs_sqlite *j, cuzk_engine *e, cuzk_error *err)
{
    j->engine = e;
    j->api.engine = e;
    j->slots = calloc((size_t)j->capacity, sizeof *j->slots);
    if (!j->slots || ended_queue_init(&j->ended, j->capacity))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    int requeued = 0, rc = store_requeue_running(j->store, &requeued, err);
    if (rc)
        return rc;
    j->requeued = (uint64_t)requeued;
    j->work = 1;
    store_counts c;
    cuzk_error ignored = {0};
    if (!store_count(j->store, &c, &ignored))
        CUZK_LOG(j->log, CUZK_LOG_INFO, "store: opened", "path=%s requeued=%d jobs_queued=%" PRIu64
                 " jobs_running=%" PRIu64 " jobs_done=%" PRIu64 " partitions_queued=%" PRIu64,
                 store_path(j->store), requeued, c.queued, c.running, c.done, c.partitions_queued);
    if (pthread_create(&j->completer, NULL, completer_main, j))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "cannot start the store's completer thread");
    j->threads_started = 1;
    if (pthread_create(&j->feeder, NULL, feeder_main, j))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "cannot start the store's feeder thread");
    j->threads_started = 2;
    return CUZK_OK;
}

jobs_api *jobs_sqlite_api(jobs_sqlite *j) { return &j->api; }

sqlite_store *jobs_sqlite_store(jobs_sqlite *j) { return j->store; }

int jobs_sqlite_drain(jobs_sqlite *j, double timeout_s)
{
    double deadline = cuzk_now_s() + timeout_s;
    for (;;) {
        store_counts c;
        cuzk_error err = {0};
        int rc = store_count(j->store, &c, &err);
        pthread_mutex_lock(&j->lock);
        int idle = !rc && !c.partitions_queued && !c.partitions_running && !j->used;
        /* fed no more (a second signal): what is left waits for the next start */
        int stopped = !atomic_load(&j->feeding) && !j->used;
        if (!idle && !stopped && (timeout_s < 0 || cuzk_now_s() < deadline))
            engine_run_timed_wait(&j->cv, &j->lock, wait_recheck_s);
        pthread_mutex_unlock(&j->lock);
        if (idle || stopped)
            return idle ? 0 : -1;
        if (timeout_s >= 0 && cuzk_now_s() >= deadline)
            return -1;
    }
}

void jobs_sqlite_stop_feeding(jobs_sqlite *j)
{
    atomic_store(&j->feeding, 0);
    atomic_store(&j->accepting, 0);
}

void jobs_sqlite_destroy(jobs_sqlite *j)
{
    if (!j)
        return;
    atomic_store(&j->feeding, 0);
    atomic_store(&j->stopping, 1);
    pthread_mutex_lock(&j->lock);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->lock);
    if (j->ended.ids)
        ended_queue_wake(&j->ended);
    if (j->threads_started > 1)
        pthread_join(j->feeder, NULL);
    if (j->threads_started > 0)
        pthread_join(j->completer, NULL);
    for (int i = 0; j->slots && i < j->capacity; i++)
        store_partition_free(&j->slots[i].part);
    store_close(j->store);
    state_lock_release(j->lock_fd);
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cv);
    if (j->ended.ids)
        ended_queue_destroy(&j->ended);
    free(j->slots);
    free(j->state_dir);
    free(j);
}

void jobs_sqlite_get_stats(jobs_sqlite *j, jobs_sqlite_stats *s)
{
    memset(s, 0, sizeof *s);
    s->state_dir = j->state_dir;
    s->path = store_path(j->store);
    s->bytes = store_bytes(j->store);
    s->retain_s = j->cfg.retain_s;
    cuzk_error err = {0};
    s->counts_ok = store_count(j->store, &s->counts, &err) == CUZK_OK;
    pthread_mutex_lock(&j->lock);
    s->in_engine = j->used;
    s->proofs_recorded = j->proofs;
    s->failures_recorded = j->failures;
    s->requeued_at_start = j->requeued;
    s->store_errors = j->errors;
    s->record_s = j->record_s;
    s->claim_s = j->claim_s;
    s->partitions_claimed = j->claimed;
    pthread_mutex_unlock(&j->lock);
}
