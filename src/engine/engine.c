/* The pipeline engine: jobs, partitions, scheduler, dispatch, workers.
 * One mutex (e->lock) guards every queue and every job's state; the heavy
 * work (synthesis, device proving, finishing, verification) runs outside
 * it. Condition variables say exactly when something changed: no polling
 * loops except the poll policy, which exists to reproduce one. */
#include "engine/engine.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/dispatch.h"
#include "engine/keycache.h"
#include "engine/pce.h"
#include "engine/timeline.h"
#include "groth16/curve_id.h"
#include "util/err.h"
#include "util/threads.h"
#include "util/timer.h"
#include "util/vclock.h"

typedef struct circuit {
    char *id;
    uint32_t domain_size, n_vars, n_public;
    cuzk_curve_id curve;
    key_entry *key; /* NULL for simulated circuits */
    cuzk_pce pce;
    int has_pce;
    cuzk_r1cs r1cs;
    int has_r1cs;
    cuzk_vk vk; /* exported once at registration: proofs are verified against it */
    int has_vk;
    struct circuit *next;
} circuit;

typedef struct job job;

typedef enum { P_PENDING, P_SYNTH_QUEUED, P_SYNTH, P_GPU_QUEUED, P_GPU, P_FINISH, P_DONE, P_DROPPED } part_state;

typedef struct partition {
    job *job;
    uint32_t index;
    part_state state;
    char *witness_path;
    cuzk_wtns witness;  /* loaded at synthesis (or copied at submit) */
    int has_witness;
    cuzk_wtns staged;   /* the witness with its values in the pool buffer */
    uint64_t ws_bytes;  /* working set charged under BUDGET_PARTITIONS */
    void *abc;          /* pinned buffer while checked out */
    int holds_permit;
    int device;
    cuzk_msm_results msm;
    double t_synth_start, t_synth_end, t_gpu_start, t_gpu_end, t_done;
    struct partition *next; /* in whichever queue holds it */
} partition;

struct job {
    uint64_t id;
    char *request_id;
    uint64_t payload_hash;
    circuit *circ;
    const cuzk_zkey *key; /* referenced from submit to the end */
    cuzk_priority priority;
    uint32_t n_partitions, done, in_flight;
    partition *parts;
    cuzk_proof *proofs;
    uint64_t (*publics)[4];
    cuzk_job_state state;
    atomic_int cancelled; /* read outside e->lock by the pool and the budget */
    int verified_all;
    double t_submit, t_first_synth, t_end, synth_s, gpu_s;
    char error[512];
    job *next; /* in the job table */
};

typedef struct {
    partition *head, *tail;
    uint32_t len;
} part_queue;

struct cuzk_engine {
    cuzk_engine_config cfg;
    cuzk_backend *backend;
    cuzk_budget *budget;
    pinned_pool *pool;
    keycache *keys;
    timeline *tl;
    double t0;

    pthread_mutex_t lock;
    pthread_cond_t dispatch_cv, synth_cv, gpu_cv, finish_cv, job_cv;
    int stopping;
    part_queue pending[CUZK_N_PRIORITIES];
    part_queue synth_q, gpu_q, finish_q;
    uint32_t synthesizing, on_gpu;
    int permits_free;
    pacer pace;
    double next_dispatch_at;

    circuit *circuits;
    job *jobs;
    uint64_t next_job_id;
    uint32_t jobs_finished_kept;

    uint64_t partitions_done, proofs_verified, jobs_done, jobs_failed, jobs_cancelled, dispatched;
    uint64_t jobs_active;
    double gpu_busy_s[CUZK_MAX_DEVICES];
    double gpu_first_start[CUZK_MAX_DEVICES], gpu_last_end[CUZK_MAX_DEVICES]; /* 0: none yet */
    cuzk_stage_histogram stage_hist[N_STAGES];
    double *samples[N_STAGES]; /* a ring: the next sample goes to samples_next */
    size_t n_samples, cap_samples, samples_next;

    pthread_t dispatcher, maintainer;
    pthread_t *workers;
    int n_workers;
};

/* ---------- names ---------- */

const char *cuzk_dispatch_policy_name(cuzk_dispatch_policy p)
{
    static const char *const names[] = {"semaphore", "pacer", "poll"};
    return names[p];
}

int cuzk_dispatch_policy_parse(const char *s, cuzk_dispatch_policy *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, cuzk_dispatch_policy_name((cuzk_dispatch_policy)i))) {
            *out = (cuzk_dispatch_policy)i;
            return 0;
        }
    return -1;
}

const char *cuzk_priority_name(cuzk_priority p)
{
    static const char *const names[] = {"critical", "high", "normal", "low"};
    return names[p];
}

int cuzk_priority_parse(const char *s, cuzk_priority *out)
{
    for (int i = 0; i < CUZK_N_PRIORITIES; i++)
        if (!strcasecmp(s, cuzk_priority_name((cuzk_priority)i))) {
            *out = (cuzk_priority)i;
            return 0;
        }
    return -1;
}

const char *cuzk_job_state_name(cuzk_job_state s)
{
    static const char *const names[] = {"queued", "running", "done", "failed", "cancelled"};
    return names[s];
}

const char *engine_stage_name(engine_stage s)
{
    static const char *const names[] = {"queue", "synthesis", "gpu_queue", "gpu", "finalize", "total"};
    return names[s];
}

void cuzk_engine_config_default(cuzk_engine_config *c)
{
    *c = (cuzk_engine_config){
        .budget_bytes = 16ULL << 30,
        .synthesis_workers = cuzk_cpu_count(),
        .synthesis_threads = 1,
        .gpu_workers_per_device = 1,
        .max_gpu_queue_depth = 2,
        .policy = CUZK_DISPATCH_SEMAPHORE,
        .poll_ms = 250,
        .pacer_kp = 0.5,
        .pacer_ki = 0.1,
        .pacer_target_depth = 1,
        .pool_idle_timeout_s = 30,
        .prewarm_buffers = -1,
        .verify_proofs = 1,
        .finalizers = cuzk_cpu_count() / 4 > 2 ? cuzk_cpu_count() / 4 : 2,
        .results_max = 1000,
        .results_ttl_s = 600,
    };
}

/* ---------- time and waiting ---------- */

/* Real time, or the configured virtual clock (tests on the sim backend). */
static double engine_now(const cuzk_engine *e)
{
    return e->cfg.clock ? vclock_now(e->cfg.clock) : cuzk_now_s();
}

/* Waits on cv (e->lock held) until woken or until `until` (< 0: no
 * deadline), in the engine's time; may return early: callers recheck. */
static void engine_wait(cuzk_engine *e, pthread_cond_t *cv, double until)
{
    if (e->cfg.clock) {
        vclock_wait(e->cfg.clock, &e->lock, until);
        return;
    }
    if (until < 0) {
        pthread_cond_wait(cv, &e->lock);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double delta = until - cuzk_now_s();
    if (delta < 0)
        delta = 0;
    double secs = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + delta;
    ts.tv_sec = (time_t)secs;
    ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
    pthread_cond_timedwait(cv, &e->lock, &ts);
}

/* Wakes cv's waiters (one, or all), with e->lock held. */
static void engine_wake(cuzk_engine *e, pthread_cond_t *cv, int all)
{
    if (all)
        pthread_cond_broadcast(cv);
    else
        pthread_cond_signal(cv);
    if (e->cfg.clock)
        vclock_notify(e->cfg.clock);
}

static void engine_sleep(cuzk_engine *e, double s)
{
    if (e->cfg.clock) {
        vclock_sleep(e->cfg.clock, s);
        return;
    }
    cuzk_sleep_s(s);
}

/* A thread started with engine_thread_start ends. */
static void engine_thread_end(cuzk_engine *e)
{
    if (e->cfg.clock)
        vclock_leave(e->cfg.clock);
}

static int engine_thread_start(cuzk_engine *e, pthread_t *t, void *(*main)(void *), void *arg)
{
    if (e->cfg.clock)
        vclock_enter(e->cfg.clock);
    int rc = pthread_create(t, NULL, main, arg);
    if (rc)
        engine_thread_end(e);
    return rc;
}

/* ---------- queues (under e->lock) ---------- */

static void q_push(part_queue *q, partition *p)
{
    p->next = NULL;
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    q->len++;
}

static partition *q_pop(part_queue *q)
{
    partition *p = q->head;
    if (!p)
        return NULL;
    q->head = p->next;
    if (!q->head)
        q->tail = NULL;
    q->len--;
    p->next = NULL;
    return p;
}

/* Removes every partition of job j from q; returns how many. */
static uint32_t q_remove_job(part_queue *q, job *j, part_queue *removed)
{
    uint32_t n = 0;
    partition **at = &q->head, *last = NULL;
    while (*at) {
        partition *p = *at;
        if (p->job == j) {
            *at = p->next;
            q->len--;
            q_push(removed, p);
            n++;
        } else {
            last = p;
            at = &p->next;
        }
    }
    q->tail = last;
    return n;
}

static uint32_t pending_count(const cuzk_engine *e)
{
    uint32_t n = 0;
    for (int i = 0; i < CUZK_N_PRIORITIES; i++)
        n += e->pending[i].len;
    return n;
}

static partition *pop_pending(cuzk_engine *e)
{
    for (int i = 0; i < CUZK_N_PRIORITIES; i++)
        if (e->pending[i].head)
            return q_pop(&e->pending[i]);
    return NULL;
}

/* ---------- job bookkeeping (under e->lock) ---------- */

/* From a millisecond to a quarter of an hour: a small test circuit's
 * synthesis to a queue behind many PoRep partitions. */
const double cuzk_stage_bucket_bounds[CUZK_STAGE_BUCKETS] = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000};

static void histogram_add(cuzk_stage_histogram *h, double seconds)
{
    int i = 0;
    while (i < CUZK_STAGE_BUCKETS && seconds > cuzk_stage_bucket_bounds[i])
        i++;
    h->buckets[i]++;
    h->count++;
    h->sum += seconds;
}

/* 0, or -1 when the ring cannot grow (it then keeps what it has). */
static int grow_samples(cuzk_engine *e)
{
    size_t cap = e->cap_samples ? 2 * e->cap_samples : 256;
    if (cap > CUZK_MAX_LATENCY_SAMPLES)
        cap = CUZK_MAX_LATENCY_SAMPLES;
    for (int s = 0; s < N_STAGES; s++) {
        double *grown = realloc(e->samples[s], cap * sizeof(double));
        if (!grown)
            return -1;
        e->samples[s] = grown;
    }
    e->cap_samples = cap;
    return 0;
}

static void add_sample(cuzk_engine *e, const partition *p)
{
    double v[N_STAGES] = {p->t_synth_start - p->job->t_submit, p->t_synth_end - p->t_synth_start,
                          p->t_gpu_start - p->t_synth_end, p->t_gpu_end - p->t_gpu_start,
                          p->t_done - p->t_gpu_end, p->t_done - p->job->t_submit};
    for (int s = 0; s < N_STAGES; s++)
        histogram_add(&e->stage_hist[s], v[s]);
    /* the ring fills slots 0 .. MAX-1 in order before it wraps, so the
     * first n_samples slots are always the valid ones */
    size_t slot = e->samples_next;
    if (slot == e->cap_samples && grow_samples(e))
        return;
    for (int s = 0; s < N_STAGES; s++)
        e->samples[s][slot] = v[s];
    e->samples_next = (slot + 1) % CUZK_MAX_LATENCY_SAMPLES;
    if (e->n_samples < CUZK_MAX_LATENCY_SAMPLES)
        e->n_samples++;
}

static void job_end(cuzk_engine *e, job *j, cuzk_job_state state)
{
    if (j->state >= CUZK_JOB_DONE)
        return;
    j->state = state;
    j->t_end = engine_now(e);
    e->jobs_active--;
    if (state == CUZK_JOB_DONE)
        e->jobs_done++;
    else if (state == CUZK_JOB_FAILED)
        e->jobs_failed++;
    else
        e->jobs_cancelled++;
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "job finished", "job_id=%llu state=%s partitions=%u seconds=%.3f",
             (unsigned long long)j->id, cuzk_job_state_name(state), j->n_partitions, j->t_end - j->t_submit);
    engine_wake(e, &e->job_cv, 1);
}

/* A partition leaves the pipeline (done or dropped): release what it held. */
static void partition_retire(cuzk_engine *e, partition *p, part_state how)
{
    job *j = p->job;
    p->state = how;
    if (p->has_witness) {
        cuzk_wtns_free(&p->witness);
        p->has_witness = 0;
    }
    if (p->ws_bytes) {
        budget_release(e->budget, BUDGET_PARTITIONS, p->ws_bytes);
        p->ws_bytes = 0;
    }
    j->in_flight--;
    if (how == P_DONE) {
        j->done++;
        e->partitions_done++;
        add_sample(e, p);
    }
    if (j->in_flight == 0 && j->state < CUZK_JOB_DONE) {
        if (j->cancelled)
            job_end(e, j, CUZK_JOB_CANCELLED);
        else if (j->error[0])
            job_end(e, j, CUZK_JOB_FAILED);
        else if (j->done == j->n_partitions)
            job_end(e, j, CUZK_JOB_DONE);
    }
    if (j->in_flight == 0 && j->key) {
        keycache_release(e->keys, j->circ->key);
        j->key = NULL;
    }
}

static void give_back_permit(cuzk_engine *e, partition *p)
{
    if (!p->holds_permit)
        return;
    p->holds_permit = 0;
    e->permits_free++;
    engine_wake(e, &e->dispatch_cv, 1);
}

static void fail_partition(cuzk_engine *e, partition *p, const cuzk_error *err)
{
    job *j = p->job;
    if (!j->error[0])
        snprintf(j->error, sizeof j->error, "partition %u: %.480s", p->index, err->msg);
    CUZK_LOG(e->cfg.log, CUZK_LOG_ERROR, "partition failed", "job_id=%llu partition=%u error=\"%s\"",
             (unsigned long long)j->id, p->index, err->msg);
    j->cancelled = 1; /* the other partitions are pointless now */
    give_back_permit(e, p);
    partition_retire(e, p, P_DROPPED);
}

/* ---------- dispatcher ---------- */

static void dispatch_one(cuzk_engine *e, partition *p, int with_permit)
{
    p->holds_permit = with_permit;
    if (with_permit)
        e->permits_free--;
    p->state = P_SYNTH_QUEUED;
    q_push(&e->synth_q, p);
    e->dispatched++;
    engine_wake(e, &e->synth_cv, 0);
}

/* One step of the policy: returns after dispatching or waiting once. */
static void dispatch_step(cuzk_engine *e)
{
    double now = engine_now(e);
    switch (e->cfg.policy) {
    case CUZK_DISPATCH_SEMAPHORE:
        if (e->permits_free <= 0 || !pending_count(e)) {
            engine_wait(e, &e->dispatch_cv, -1);
            return;
        }
        dispatch_one(e, pop_pending(e), 1);
        return;
    case CUZK_DISPATCH_PACER:
        if (e->permits_free <= 0 || !pending_count(e) ||
            !pacer_admits(&e->pace, e->cfg.max_gpu_queue_depth - e->permits_free)) {
            engine_wait(e, &e->dispatch_cv, -1);
            return;
        }
        if (now < e->next_dispatch_at) {
            engine_wait(e, &e->dispatch_cv, e->next_dispatch_at);
            return;
        }
        dispatch_one(e, pop_pending(e), 1);
        e->next_dispatch_at = now + pacer_next_interval(&e->pace, e->gpu_q.len);
        return;
    case CUZK_DISPATCH_POLL:
        /* the legacy throttle: look at the device queue every poll_ms and,
         * when it is short, release everything pending at once */
        if (now < e->next_dispatch_at) {
            engine_wait(e, &e->dispatch_cv, e->next_dispatch_at);
            return;
        }
        e->next_dispatch_at = now + e->cfg.poll_ms / 1000;
        if (e->gpu_q.len < (uint32_t)e->cfg.max_gpu_queue_depth) {
            partition *p;
            while ((p = pop_pending(e)))
                dispatch_one(e, p, 0);
        }
        return;
    }
}

static void *dispatcher_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping)
        dispatch_step(e);
    pthread_mutex_unlock(&e->lock);
    engine_thread_end(e);
    return NULL;
}

/* ---------- synthesis ---------- */

static int load_witness(cuzk_engine *e, partition *p, cuzk_error *err)
{
    job *j = p->job;
    if (!j->circ->key)
        return CUZK_OK;
    if (!p->has_witness) {
        int rc = cuzk_wtns_read(&p->witness, p->witness_path, err);
        if (rc)
            return rc;
        p->has_witness = 1;
    }
    p->ws_bytes = (uint64_t)p->witness.n_witness * 32;
    if (budget_acquire(e->budget, BUDGET_PARTITIONS, p->ws_bytes, &j->cancelled)) {
        p->ws_bytes = 0;
        return cuzk_fail(err, CUZK_ERR_NOMEM, "the witness does not fit in the memory budget");
    }
    if (j->key) {
        int rc = cuzk_groth16_check_inputs(j->key, &p->witness, err);
        if (rc)
            return rc;
    }
    if (j->circ->has_r1cs)
        return cuzk_r1cs_check_witness(&j->circ->r1cs, &p->witness, err);
    return CUZK_OK;
}

/* A partition's pool buffer: a, b, c, then (real circuits) a copy of the
 * witness, so the device reads both from pinned memory. */
static size_t abc_bytes(const circuit *c)
{
    return 3 * (size_t)c->domain_size * 32;
}

static size_t staging_bytes(const circuit *c)
{
    return abc_bytes(c) + (c->key ? (size_t)c->n_vars * 32 : 0);
}

/* Outside the lock: buffer, witness, a/b/c. */
static int synthesize(cuzk_engine *e, partition *p, cuzk_error *err)
{
    job *j = p->job;
    circuit *c = j->circ;
    size_t bytes = staging_bytes(c);
    p->abc = pool_checkout(e->pool, bytes, j->id, p->index, &j->cancelled);
    if (!p->abc)
        return j->cancelled ? CUZK_OK : cuzk_fail(err, CUZK_ERR_NOMEM, "no pinned buffer of %zu bytes", bytes);
    int rc = load_witness(e, p, err);
    if (rc)
        return rc;
    if (!c->key) {
        engine_sleep(e, e->cfg.sim_synth_ms / 1000);
        return CUZK_OK;
    }
    p->staged = p->witness;
    p->staged.values = (uint64_t *)((uint8_t *)p->abc + abc_bytes(c));
    memcpy(p->staged.values, p->witness.values, (size_t)c->n_vars * 32);
    return cuzk_pce_synthesize(&c->pce, p->witness.values, p->abc, e->cfg.synthesis_threads);
}

static void *synth_worker_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stopping && !e->synth_q.head)
            engine_wait(e, &e->synth_cv, -1);
        if (e->stopping)
            break;
        partition *p = q_pop(&e->synth_q);
        job *j = p->job;
        p->state = P_SYNTH;
        e->synthesizing++;
        p->t_synth_start = engine_now(e);
        if (!j->t_first_synth)
            j->t_first_synth = p->t_synth_start;
        if (j->state == CUZK_JOB_QUEUED)
            j->state = CUZK_JOB_RUNNING;
        pthread_mutex_unlock(&e->lock);

        timeline_emit(e->tl, TL_SYNTH_START, j->id, p->index, -1, p->t_synth_start);
        cuzk_error err = {0};
        int rc = j->cancelled ? CUZK_OK : synthesize(e, p, &err);
        p->t_synth_end = engine_now(e);
        timeline_emit(e->tl, TL_SYNTH_END, j->id, p->index, -1, p->t_synth_end);

        pthread_mutex_lock(&e->lock);
        e->synthesizing--;
        j->synth_s += p->t_synth_end - p->t_synth_start;
        if (rc || j->cancelled) {
            if (p->abc) {
                pool_checkin(e->pool, p->abc, j->id, p->index);
                p->abc = NULL;
            }
            if (rc)
                fail_partition(e, p, &err);
            else {
                give_back_permit(e, p);
                partition_retire(e, p, P_DROPPED);
            }
            continue;
        }
        p->state = P_GPU_QUEUED;
        q_push(&e->gpu_q, p);
        timeline_emit(e->tl, TL_GPU_QUEUE, j->id, p->index, -1, engine_now(e));
        engine_wake(e, &e->gpu_cv, 0);
    }
    pthread_mutex_unlock(&e->lock);
    engine_thread_end(e);
    return NULL;
}

/* ---------- device workers ---------- */

typedef struct {
    cuzk_engine *e;
    int device;
} gpu_worker_arg;

static void *gpu_worker_main(void *varg)
{
    gpu_worker_arg *arg = varg;
    cuzk_engine *e = arg->e;
    int device = arg->device;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stopping && !e->gpu_q.head)
            engine_wait(e, &e->gpu_cv, -1);
        if (e->stopping && !e->gpu_q.head)
            break;
        partition *p = q_pop(&e->gpu_q);
        job *j = p->job;
        if (j->cancelled) {
            pool_checkin(e->pool, p->abc, j->id, p->index);
            p->abc = NULL;
            give_back_permit(e, p);
            partition_retire(e, p, P_DROPPED);
            continue;
        }
        p->state = P_GPU;
        p->device = device;
        e->on_gpu++;
        pthread_mutex_unlock(&e->lock);

        p->t_gpu_start = engine_now(e);
        timeline_emit(e->tl, TL_GPU_START, j->id, p->index, device, p->t_gpu_start);
        backend_work w = {j->key, j->circ->key ? &p->staged : NULL, p->abc, j->circ->domain_size};
        cuzk_prove_timings times = {0};
        cuzk_error err = {0};
        int rc = e->backend->prove_start(e->backend, device, &w, &p->msm, &times, &err);
        p->t_gpu_end = engine_now(e);
        if (times.total == 0)
            times.total = p->t_gpu_end - p->t_gpu_start;
        timeline_emit(e->tl, TL_GPU_END, j->id, p->index, device, p->t_gpu_end);
        CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "gpu: partition proved",
                 "job_id=%llu partition=%u device=%d h2d=%.4f ntt=%.4f msm_a=%.4f msm_b1=%.4f msm_b2=%.4f "
                 "msm_c=%.4f msm_h=%.4f d2h=%.4f total=%.4f",
                 (unsigned long long)j->id, p->index, device, times.h2d, times.ntt, times.msm_a, times.msm_b1,
                 times.msm_b2, times.msm_c, times.msm_h, times.d2h, times.total);
        pool_checkin(e->pool, p->abc, j->id, p->index);
        p->abc = NULL;

        pthread_mutex_lock(&e->lock);
        e->on_gpu--;
        double busy = p->t_gpu_end - p->t_gpu_start;
        e->gpu_busy_s[device] += busy;
        if (e->gpu_first_start[device] == 0 || p->t_gpu_start < e->gpu_first_start[device])
            e->gpu_first_start[device] = p->t_gpu_start;
        if (p->t_gpu_end > e->gpu_last_end[device])
            e->gpu_last_end[device] = p->t_gpu_end;
        j->gpu_s += busy;
        pacer_on_service_time(&e->pace, busy);
        give_back_permit(e, p);
        if (rc) {
            fail_partition(e, p, &err);
            continue;
        }
        p->state = P_FINISH;
        q_push(&e->finish_q, p);
        engine_wake(e, &e->finish_cv, 0);
    }
    pthread_mutex_unlock(&e->lock);
    free(arg);
    engine_thread_end(e);
    return NULL;
}

/* ---------- finalizers ---------- */

static int verify_partition(job *j, partition *p, cuzk_error *err)
{
    return cuzk_groth16_verify(&j->circ->vk, (const uint64_t(*)[4])j->publics + (size_t)p->index * j->circ->n_public,
                               j->circ->n_public, &j->proofs[p->index], err);
}

static void *finisher_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stopping && !e->finish_q.head)
            engine_wait(e, &e->finish_cv, -1);
        if (e->stopping && !e->finish_q.head)
            break;
        partition *p = q_pop(&e->finish_q);
        job *j = p->job;
        pthread_mutex_unlock(&e->lock);

        backend_work w = {j->key, j->circ->key ? &p->witness : NULL, NULL, j->circ->domain_size};
        cuzk_error err = {0};
        int rc = e->backend->prove_finish(e->backend, &w, &p->msm, &j->proofs[p->index], &err);
        int verified = 0;
        if (!rc && j->circ->key) {
            cuzk_groth16_public_signals(j->key, &p->witness,
                                        j->publics + (size_t)p->index * j->circ->n_public);
            if (e->cfg.verify_proofs && !e->backend->simulated) {
                rc = verify_partition(j, p, &err);
                verified = !rc;
            }
        }
        p->t_done = engine_now(e);
        timeline_emit(e->tl, TL_DONE, j->id, p->index, p->device, p->t_done);

        pthread_mutex_lock(&e->lock);
        if (rc) {
            fail_partition(e, p, &err);
            continue;
        }
        e->proofs_verified += (uint64_t)verified;
        if (!verified)
            j->verified_all = 0;
        partition_retire(e, p, P_DONE);
    }
    pthread_mutex_unlock(&e->lock);
    engine_thread_end(e);
    return NULL;
}

/* ---------- maintenance: idle buffers, old results ---------- */

static void free_job(job *j)
{
    for (uint32_t i = 0; i < j->n_partitions; i++) {
        free(j->parts[i].witness_path);
        if (j->parts[i].has_witness)
            cuzk_wtns_free(&j->parts[i].witness);
    }
    free(j->parts);
    free(j->proofs);
    free(j->publics);
    free(j->request_id);
    free(j);
}

/* Drops finished jobs beyond results_max (oldest first) or past their TTL. */
static void prune_results(cuzk_engine *e, double now)
{
    uint32_t finished = 0;
    for (job *j = e->jobs; j; j = j->next)
        finished += j->state >= CUZK_JOB_DONE;
    /* the list is newest first: walk it and drop from the old end */
    uint32_t seen = 0;
    for (job **at = &e->jobs; *at;) {
        job *j = *at;
        if (j->state >= CUZK_JOB_DONE) {
            seen++;
            int too_many = finished > e->cfg.results_max && seen > e->cfg.results_max;
            if (too_many || now - j->t_end > e->cfg.results_ttl_s) {
                *at = j->next;
                free_job(j);
                continue;
            }
        }
        at = &j->next;
    }
}

static void *maintainer_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping) {
        engine_wait(e, &e->job_cv, engine_now(e) + 1.0);
        double now = engine_now(e);
        prune_results(e, now);
        pthread_mutex_unlock(&e->lock);
        pool_trim_idle(e->pool, now);
        pthread_mutex_lock(&e->lock);
    }
    pthread_mutex_unlock(&e->lock);
    engine_thread_end(e);
    return NULL;
}

/* ---------- life cycle ---------- */

static void free_circuit(cuzk_engine *e, struct circuit *c);

static int start_threads(cuzk_engine *e)
{
    int n_gpu = e->backend->n_devices * e->cfg.gpu_workers_per_device;
    int n_finish = e->cfg.finalizers;
    e->workers = calloc((size_t)(e->cfg.synthesis_workers + n_gpu + n_finish), sizeof *e->workers);
    if (!e->workers)
        return -1;
    for (int i = 0; i < e->cfg.synthesis_workers; i++)
        if (!engine_thread_start(e, &e->workers[e->n_workers], synth_worker_main, e))
            e->n_workers++;
    for (int d = 0; d < e->backend->n_devices; d++)
        for (int s = 0; s < e->cfg.gpu_workers_per_device; s++) {
            gpu_worker_arg *a = malloc(sizeof *a);
            if (!a)
                return -1;
            *a = (gpu_worker_arg){e, d};
            if (!engine_thread_start(e, &e->workers[e->n_workers], gpu_worker_main, a))
                e->n_workers++;
            else
                free(a);
        }
    for (int i = 0; i < n_finish; i++)
        if (!engine_thread_start(e, &e->workers[e->n_workers], finisher_main, e))
            e->n_workers++;
    if (engine_thread_start(e, &e->dispatcher, dispatcher_main, e))
        return -1;
    if (engine_thread_start(e, &e->maintainer, maintainer_main, e))
        return -1;
    return e->n_workers == e->cfg.synthesis_workers + n_gpu + n_finish ? 0 : -1;
}

cuzk_engine *cuzk_engine_create(const cuzk_engine_config *cfg, cuzk_backend *backend, cuzk_error *err)
{
    if (cfg->synthesis_workers < 1 || cfg->gpu_workers_per_device < 1 || cfg->max_gpu_queue_depth < 1 ||
        cfg->finalizers < 1 || backend->n_devices < 1 || backend->n_devices > CUZK_MAX_DEVICES) {
        backend->destroy(backend);
        return cuzk_fail(err, CUZK_ERR_ARG, "engine: workers, finalizers, queue depth and devices must be at least 1"),
               NULL;
    }
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e) {
        backend->destroy(backend);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    }
    e->cfg = *cfg;
    if (e->cfg.prewarm_buffers < 0)
        e->cfg.prewarm_buffers = e->cfg.max_gpu_queue_depth;
    e->backend = backend;
    e->t0 = engine_now(e);
    e->next_job_id = 1;
    e->permits_free = cfg->max_gpu_queue_depth;
    pacer_init(&e->pace, cfg->pacer_kp, cfg->pacer_ki, cfg->pacer_target_depth,
               backend->n_devices * cfg->gpu_workers_per_device);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_t *cvs[] = {&e->dispatch_cv, &e->synth_cv, &e->gpu_cv, &e->finish_cv, &e->job_cv};
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        pthread_cond_init(cvs[i], NULL);
    e->budget = budget_create(cfg->budget_bytes);
    e->keys = e->budget ? keycache_create(e->budget, cfg->log) : NULL;
    e->pool = e->budget ? pool_create(e->budget, backend->host, cfg->pool_idle_timeout_s, cfg->log) : NULL;
    e->tl = timeline_open(cfg->timeline_path, e->t0);
    if (!e->budget || !e->keys || !e->pool || !e->tl) {
        cuzk_engine_destroy(e);
        return cuzk_fail(err, CUZK_ERR_IO, "engine: cannot create the budget, pool or timeline %s",
                         cfg->timeline_path ? cfg->timeline_path : ""), NULL;
    }
    budget_set_evictor(e->budget, keycache_evict_lru, e->keys);
    if (start_threads(e)) {
        cuzk_engine_destroy(e);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "engine: cannot start its threads"), NULL;
    }
    CUZK_LOG(cfg->log, CUZK_LOG_INFO, "engine started",
             "backend=%s devices=%d policy=%s depth=%d synthesis_workers=%d budget_gib=%.2f", backend->name,
             backend->n_devices, cuzk_dispatch_policy_name(cfg->policy), cfg->max_gpu_queue_depth,
             cfg->synthesis_workers, (double)cfg->budget_bytes / (1 << 30));
    return e;
}

void cuzk_engine_destroy(cuzk_engine *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->lock);
    for (job *j = e->jobs; j; j = j->next)
        j->cancelled = 1;
    e->stopping = 1;
    pthread_cond_t *cvs[] = {&e->dispatch_cv, &e->synth_cv, &e->gpu_cv, &e->finish_cv, &e->job_cv};
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        engine_wake(e, cvs[i], 1);
    pthread_mutex_unlock(&e->lock);
    if (e->budget)
        budget_wake_all(e->budget);
    if (e->dispatcher)
        pthread_join(e->dispatcher, NULL);
    if (e->maintainer)
        pthread_join(e->maintainer, NULL);
    for (int i = 0; i < e->n_workers; i++)
        pthread_join(e->workers[i], NULL);
    free(e->workers);
    /* buffers of partitions stranded in queues go back before the pool dies */
    part_queue *qs[] = {&e->synth_q, &e->gpu_q, &e->finish_q};
    for (size_t i = 0; i < 3; i++)
        for (partition *p; (p = q_pop(qs[i]));)
            if (p->abc)
                pool_checkin(e->pool, p->abc, p->job->id, p->index);
    for (job *j = e->jobs, *next; j; j = next) {
        next = j->next;
        if (j->key)
            keycache_release(e->keys, j->circ->key);
        free_job(j);
    }
    for (circuit *c = e->circuits, *next; c; c = next) {
        next = c->next;
        free_circuit(e, c);
    }
    pool_destroy(e->pool);
    keycache_destroy(e->keys);
    budget_destroy(e->budget);
    timeline_close(e->tl);
    for (int s = 0; s < N_STAGES; s++)
        free(e->samples[s]);
    e->backend->destroy(e->backend);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

/* ---------- circuits ---------- */

static circuit *find_circuit(cuzk_engine *e, const char *id)
{
    for (circuit *c = e->circuits; c; c = c->next)
        if (!strcmp(c->id, id))
            return c;
    return NULL;
}

static int add_circuit(cuzk_engine *e, circuit *c, cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    if (find_circuit(e, c->id)) {
        pthread_mutex_unlock(&e->lock);
        return cuzk_fail(err, CUZK_ERR_ARG, "circuit '%s' is already registered", c->id);
    }
    c->next = e->circuits;
    e->circuits = c;
    pthread_mutex_unlock(&e->lock);
    int added = pool_prewarm(e->pool, staging_bytes(c), e->cfg.prewarm_buffers);
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "circuit registered", "circuit=%s domain=%u prewarmed_buffers=%d", c->id,
             c->domain_size, added);
    return CUZK_OK;
}

static void free_circuit(cuzk_engine *e, circuit *c)
{
    if (c->has_pce) {
        budget_release(e->budget, BUDGET_PCE, c->pce.bytes);
        cuzk_pce_free(&c->pce);
    }
    if (c->has_r1cs)
        cuzk_r1cs_free(&c->r1cs);
    if (c->has_vk)
        cuzk_vk_free(&c->vk);
    free(c->id);
    free(c);
}

/* Loads the key, compiles (or reads) its PCE and charges it to the budget. */
static int prepare_circuit(cuzk_engine *e, circuit *c, const char *zkey_path, const char *r1cs_path,
                           cuzk_error *err)
{
    if (!(c->key = keycache_add(e->keys, zkey_path, err)))
        return err->code;
    const cuzk_zkey *z;
    int rc = keycache_acquire(e->keys, c->key, &z, err);
    if (rc)
        return rc;
    c->domain_size = z->domain_size;
    c->n_vars = z->n_vars;
    c->n_public = z->n_public;
    c->curve = z->curve;
    int from_disk = 0;
    rc = cuzk_pce_get(z, e->cfg.pce_cache_dir, &c->pce, &from_disk, err);
    if (!rc) {
        c->has_pce = 1;
        rc = cuzk_groth16_export_vk(z, &c->vk, err);
        c->has_vk = !rc;
    }
    keycache_release(e->keys, c->key);
    if (rc)
        return rc;
    if (budget_acquire(e->budget, BUDGET_PCE, c->pce.bytes, NULL))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "the PCE of %s (%llu bytes) does not fit in the budget", zkey_path,
                         (unsigned long long)c->pce.bytes);
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "pce ready", "circuit=%s source=%s size_gib=%.3f", c->id,
             from_disk ? "disk" : "compiled", (double)c->pce.bytes / (1 << 30));
    if (r1cs_path) {
        if ((rc = cuzk_r1cs_read(&c->r1cs, r1cs_path, err)))
            return rc;
        c->has_r1cs = 1;
        if (c->r1cs.n_wires != c->n_vars || c->r1cs.curve != c->curve)
            return cuzk_fail(err, CUZK_ERR_MISMATCH, "%s does not belong to %s (wires %u, key nVars %u)", r1cs_path,
                             zkey_path, c->r1cs.n_wires, c->n_vars);
    }
    return CUZK_OK;
}

int cuzk_engine_register_circuit(cuzk_engine *e, const char *id, const char *zkey_path, const char *r1cs_path,
                                 cuzk_error *err)
{
    circuit *c = calloc(1, sizeof *c);
    if (!c || !(c->id = strdup(id))) {
        free(c);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    }
    int rc = prepare_circuit(e, c, zkey_path, r1cs_path, err);
    if (!rc)
        rc = add_circuit(e, c, err);
    if (rc)
        free_circuit(e, c);
    return rc;
}

int cuzk_engine_register_sim_circuit(cuzk_engine *e, const char *id, uint32_t domain_size, cuzk_error *err)
{
    if (!domain_size || (domain_size & (domain_size - 1)))
        return cuzk_fail(err, CUZK_ERR_ARG, "a domain size must be a power of two, not %u", domain_size);
    circuit *c = calloc(1, sizeof *c);
    if (!c || !(c->id = strdup(id))) {
        free(c);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    }
    c->domain_size = domain_size;
    int rc = add_circuit(e, c, err);
    if (rc)
        free_circuit(e, c);
    return rc;
}

static void fill_circuit_info(cuzk_engine *e, const circuit *c, cuzk_circuit_info *out)
{
    *out = (cuzk_circuit_info){c->id, c->curve, c->domain_size, c->n_vars, c->n_public, !c->key, c->has_r1cs, {0}};
    if (c->key)
        keycache_info(e->keys, c->key, &out->key);
}

int cuzk_engine_circuit_info(cuzk_engine *e, const char *id, cuzk_circuit_info *out)
{
    pthread_mutex_lock(&e->lock);
    circuit *c = find_circuit(e, id);
    if (c)
        fill_circuit_info(e, c, out);
    pthread_mutex_unlock(&e->lock);
    return c ? CUZK_OK : CUZK_ERR_ARG;
}

size_t cuzk_engine_list_circuits(cuzk_engine *e, cuzk_circuit_info *out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&e->lock);
    for (circuit *c = e->circuits; c; c = c->next, n++)
        if (n < cap)
            fill_circuit_info(e, c, &out[n]);
    pthread_mutex_unlock(&e->lock);
    return n;
}

/* The key of a registered, non-simulated circuit (key entries live as long
 * as the engine, so the pointer stays valid after the lock is dropped). */
static key_entry *circuit_key(cuzk_engine *e, const char *id, cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    circuit *c = find_circuit(e, id);
    key_entry *k = c ? c->key : NULL;
    pthread_mutex_unlock(&e->lock);
    if (!c)
        cuzk_fail(err, CUZK_ERR_ARG, "unknown circuit '%s'", id);
    else if (!k)
        cuzk_fail(err, CUZK_ERR_ARG, "circuit '%s' is simulated: it has no key", id);
    return k;
}

int cuzk_engine_preload_key(cuzk_engine *e, const char *circuit_id, cuzk_error *err)
{
    key_entry *k = circuit_key(e, circuit_id, err);
    return k ? keycache_preload(e->keys, k, err) : CUZK_ERR_ARG;
}

int cuzk_engine_evict_key(cuzk_engine *e, const char *circuit_id, int drop, cuzk_error *err)
{
    key_entry *k = circuit_key(e, circuit_id, err);
    if (!k)
        return CUZK_ERR_ARG;
    if (keycache_evict(e->keys, k, drop))
        return cuzk_fail(err, CUZK_ERR_ARG, "the key of circuit '%s' is in use by jobs", circuit_id);
    return CUZK_OK;
}

/* ---------- jobs ---------- */

/* FNV-1a over the request's meaning: circuit, priority, partitions. */
static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t payload_hash(const cuzk_job_request *req)
{
    uint64_t h = fnv(0xcbf29ce484222325ULL, req->circuit, strlen(req->circuit) + 1);
    h = fnv(h, &req->priority, sizeof req->priority);
    h = fnv(h, &req->n_partitions, sizeof req->n_partitions);
    for (uint32_t i = 0; req->partitions && i < req->n_partitions; i++) {
        const cuzk_partition_input *in = &req->partitions[i];
        if (in->witness_path)
            h = fnv(h, in->witness_path, strlen(in->witness_path) + 1);
        else if (in->witness)
            h = fnv(h, in->witness->values, (size_t)in->witness->n_witness * 32);
    }
    return h;
}

static job *find_job(cuzk_engine *e, uint64_t id)
{
    for (job *j = e->jobs; j; j = j->next)
        if (j->id == id)
            return j;
    return NULL;
}

static int copy_wtns(cuzk_wtns *dst, const cuzk_wtns *src)
{
    *dst = *src;
    size_t bytes = (size_t)src->n_witness * 32;
    dst->values = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!dst->values)
        return -1;
    memcpy(dst->values, src->values, bytes);
    return 0;
}

static job *build_job(circuit *c, const cuzk_job_request *req, cuzk_error *err)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    j->circ = c;
    j->priority = req->priority;
    j->n_partitions = req->n_partitions;
    j->parts = calloc(req->n_partitions, sizeof *j->parts);
    j->proofs = calloc(req->n_partitions, sizeof *j->proofs);
    j->publics = calloc((size_t)req->n_partitions * (c->n_public ? c->n_public : 1), sizeof *j->publics);
    j->request_id = req->request_id ? strdup(req->request_id) : NULL;
    int ok = j->parts && j->proofs && j->publics && (!req->request_id || j->request_id);
    for (uint32_t i = 0; ok && i < req->n_partitions; i++) {
        partition *p = &j->parts[i];
        p->job = j;
        p->index = i;
        p->device = -1;
        if (!c->key)
            continue;
        const cuzk_partition_input *in = &req->partitions[i];
        if (in->witness_path)
            ok = (p->witness_path = strdup(in->witness_path)) != NULL;
        else if (in->witness)
            ok = !copy_wtns(&p->witness, in->witness) && (p->has_witness = 1);
        else
            ok = 0;
    }
    if (!ok) {
        free_job(j);
        return cuzk_fail(err, CUZK_ERR_ARG, "out of memory, or a partition without a witness"), NULL;
    }
    j->verified_all = 1;
    return j;
}

/* Witnesses are checked against the key at submit (of a file, its header:
 * the values are read at synthesis), so a caller learns of a missing file
 * or a wrong length or curve at once rather than from a failed job. */
static int check_witnesses(const job *j, cuzk_error *err)
{
    for (uint32_t i = 0; i < j->n_partitions; i++) {
        const partition *p = &j->parts[i];
        cuzk_wtns header;
        cuzk_error why = {0};
        const cuzk_wtns *w = &p->witness;
        if (!p->has_witness) {
            if (cuzk_wtns_read_header(&header, p->witness_path, &why))
                return cuzk_fail(err, why.code, "partition %u: %.480s", i, why.msg);
            w = &header;
        }
        if (cuzk_groth16_check_inputs(j->key, w, &why))
            return cuzk_fail(err, why.code, "partition %u: %.480s", i, why.msg);
    }
    return CUZK_OK;
}

int cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, uint64_t *job_id, cuzk_error *err)
{
    if (!req->circuit || req->n_partitions == 0 || (unsigned)req->priority >= CUZK_N_PRIORITIES)
        return cuzk_fail(err, CUZK_ERR_ARG, "a job needs a circuit, a priority and at least one partition");
    uint64_t hash = payload_hash(req);
    pthread_mutex_lock(&e->lock);
    circuit *c = find_circuit(e, req->circuit);
    if (!c) {
        pthread_mutex_unlock(&e->lock);
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown circuit '%s'", req->circuit);
    }
    if (req->request_id)
        for (job *j = e->jobs; j; j = j->next)
            if (j->request_id && !strcmp(j->request_id, req->request_id)) {
                int same = j->payload_hash == hash;
                *job_id = j->id;
                pthread_mutex_unlock(&e->lock);
                return same ? CUZK_OK
                            : cuzk_fail(err, CUZK_ERR_CONFLICT,
                                        "request id '%s' was already used for a different job (%llu)",
                                        req->request_id, (unsigned long long)j->id);
            }
    pthread_mutex_unlock(&e->lock);
    if (c->key && !req->partitions)
        return cuzk_fail(err, CUZK_ERR_ARG, "circuit '%s' needs a witness per partition", req->circuit);

    job *j = build_job(c, req, err);
    if (!j)
        return err->code;
    j->payload_hash = hash;
    if (c->key) {
        int rc = keycache_acquire(e->keys, c->key, &j->key, err);
        if (!rc)
            rc = check_witnesses(j, err);
        if (rc) {
            if (j->key)
                keycache_release(e->keys, c->key);
            free_job(j);
            return rc;
        }
    }
    pthread_mutex_lock(&e->lock);
    j->id = e->next_job_id++;
    e->jobs_active++;
    j->t_submit = engine_now(e);
    j->in_flight = j->n_partitions;
    j->next = e->jobs;
    e->jobs = j;
    for (uint32_t i = 0; i < j->n_partitions; i++)
        q_push(&e->pending[j->priority], &j->parts[i]);
    engine_wake(e, &e->dispatch_cv, 1);
    *job_id = j->id;
    pthread_mutex_unlock(&e->lock);
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "job submitted", "job_id=%llu circuit=%s partitions=%u priority=%s",
             (unsigned long long)j->id, c->id, j->n_partitions, cuzk_priority_name(j->priority));
    return CUZK_OK;
}

static void copy_result(const cuzk_engine *e, const job *j, cuzk_job_result *out)
{
    memset(out, 0, sizeof *out);
    out->id = j->id;
    out->state = j->state;
    out->n_partitions = j->n_partitions;
    out->partitions_done = j->done;
    out->n_public = j->circ->n_public;
    out->verified = j->state == CUZK_JOB_DONE && j->verified_all;
    out->queue_s = (j->t_first_synth ? j->t_first_synth : engine_now(e)) - j->t_submit;
    out->synth_s = j->synth_s;
    out->gpu_s = j->gpu_s;
    out->total_s = (j->t_end ? j->t_end : engine_now(e)) - j->t_submit;
    snprintf(out->error, sizeof out->error, "%s", j->error);
    if (j->state != CUZK_JOB_DONE)
        return;
    out->proofs = malloc(j->n_partitions * sizeof *out->proofs);
    size_t npub = (size_t)j->n_partitions * out->n_public;
    out->publics = malloc((npub ? npub : 1) * sizeof *out->publics);
    if (out->proofs)
        memcpy(out->proofs, j->proofs, j->n_partitions * sizeof *out->proofs);
    if (out->publics)
        memcpy(out->publics, j->publics, npub * sizeof *out->publics);
}

int cuzk_engine_wait(cuzk_engine *e, uint64_t job_id, double timeout_s, cuzk_job_result *out)
{
    double deadline = engine_now(e) + timeout_s;
    pthread_mutex_lock(&e->lock);
    job *j;
    while ((j = find_job(e, job_id)) && j->state < CUZK_JOB_DONE && !e->stopping) {
        if (timeout_s < 0)
            engine_wait(e, &e->job_cv, -1);
        else if (engine_now(e) < deadline)
            engine_wait(e, &e->job_cv, deadline);
        else
            break;
    }
    if (!j) {
        pthread_mutex_unlock(&e->lock);
        memset(out, 0, sizeof *out);
        snprintf(out->error, sizeof out->error, "unknown job %llu", (unsigned long long)job_id);
        return CUZK_ERR_ARG;
    }
    copy_result(e, j, out);
    pthread_mutex_unlock(&e->lock);
    return CUZK_OK;
}

void cuzk_job_result_free(cuzk_job_result *r)
{
    free(r->proofs);
    free(r->publics);
    r->proofs = NULL;
    r->publics = NULL;
}

static void cancel_locked(cuzk_engine *e, job *j)
{
    if (j->state >= CUZK_JOB_DONE || j->cancelled)
        return;
    j->cancelled = 1;
    part_queue dropped = {0};
    q_remove_job(&e->pending[j->priority], j, &dropped);
    q_remove_job(&e->synth_q, j, &dropped);
    for (partition *p; (p = q_pop(&dropped));) {
        give_back_permit(e, p);
        partition_retire(e, p, P_DROPPED);
    }
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "job cancelled", "job_id=%llu", (unsigned long long)j->id);
    engine_wake(e, &e->dispatch_cv, 1);
}

int cuzk_engine_cancel(cuzk_engine *e, uint64_t job_id)
{
    pthread_mutex_lock(&e->lock);
    job *j = find_job(e, job_id);
    if (j)
        cancel_locked(e, j);
    pthread_mutex_unlock(&e->lock);
    if (!j)
        return CUZK_ERR_ARG;
    budget_wake_all(e->budget); /* a synthesis waiting for memory for this job gives up */
    return CUZK_OK;
}

void cuzk_engine_cancel_all(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    for (job *j = e->jobs; j; j = j->next)
        cancel_locked(e, j);
    pthread_mutex_unlock(&e->lock);
    budget_wake_all(e->budget);
}

int cuzk_engine_drain(cuzk_engine *e, double timeout_s)
{
    double deadline = engine_now(e) + timeout_s;
    pthread_mutex_lock(&e->lock);
    while (e->jobs_active && (timeout_s < 0 || engine_now(e) < deadline)) {
        if (timeout_s < 0)
            engine_wait(e, &e->job_cv, -1);
        else
            engine_wait(e, &e->job_cv, deadline);
    }
    int left = e->jobs_active != 0;
    pthread_mutex_unlock(&e->lock);
    return left ? -1 : 0;
}

/* ---------- statistics ---------- */

void cuzk_engine_get_stats(cuzk_engine *e, cuzk_engine_stats *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&e->lock);
    s->elapsed_s = engine_now(e) - e->t0;
    s->partitions_done = e->partitions_done;
    s->proofs_verified = e->proofs_verified;
    s->jobs_done = e->jobs_done;
    s->jobs_failed = e->jobs_failed;
    s->jobs_cancelled = e->jobs_cancelled;
    s->jobs_active = e->jobs_active;
    s->queued = pending_count(e) + e->synth_q.len;
    s->synthesizing = e->synthesizing;
    s->gpu_queued = e->gpu_q.len;
    s->on_gpu = e->on_gpu;
    s->n_devices = e->backend->n_devices;
    s->dispatched = e->dispatched;
    memcpy(s->gpu_busy_s, e->gpu_busy_s, sizeof s->gpu_busy_s);
    for (int d = 0; d < CUZK_MAX_DEVICES; d++)
        s->gpu_span_s[d] = e->gpu_last_end[d] - e->gpu_first_start[d];
    memcpy(s->stage_hist, e->stage_hist, sizeof s->stage_hist);
    s->n_samples = e->n_samples;
    for (int st = 0; st < N_STAGES; st++) {
        s->samples[st] = malloc((e->n_samples ? e->n_samples : 1) * sizeof(double));
        if (s->samples[st] && e->n_samples)
            memcpy(s->samples[st], e->samples[st], e->n_samples * sizeof(double));
    }
    pthread_mutex_unlock(&e->lock);
    pool_get_stats(e->pool, &s->pool);
    budget_get_stats(e->budget, &s->budget);
}

void cuzk_engine_stats_free(cuzk_engine_stats *s)
{
    for (int st = 0; st < N_STAGES; st++) {
        free(s->samples[st]);
        s->samples[st] = NULL;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cuzk_engine_percentile(double *samples, size_t n, double q)
{
    if (!n || !samples)
        return 0;
    qsort(samples, n, sizeof *samples, cmp_double);
    size_t k = (size_t)(q * (double)(n - 1) + 0.5);
    return samples[k < n ? k : n - 1];
}
