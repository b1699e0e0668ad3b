/* The pipeline engine: names, time and waiting, life cycle (the jobs,
 * dispatcher, workers, circuits and statistics are in engine_*.c, which
 * share engine_internal.h). One mutex (e->lock) guards every queue and every job's state; the heavy
 * work (synthesis, device proving, finishing, verification) runs outside
 * it. Condition variables say exactly when something changed: no polling
 * loops except the poll policy, which exists to reproduce one. */
#include "engine/engine_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/err.h"
#include "util/threads.h"
#include "util/timer.h"
#include "util/vclock.h"

/* ---------- names ---------- */

#define ENGINE_POLICY_NAME_(name, NAME, help) [CUZK_DISPATCH_##NAME] = #name,

const char *cuzk_dispatch_policy_name(cuzk_dispatch_policy p)
{
    static const char *const names[CUZK_N_DISPATCH_POLICIES] = {CUZK_DISPATCH_POLICIES(ENGINE_POLICY_NAME_)};
    return names[p];
}

int cuzk_dispatch_policy_parse(const char *s, cuzk_dispatch_policy *out)
{
    for (int i = 0; i < CUZK_N_DISPATCH_POLICIES; i++)
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
    static const char *const names[] = {"queue", "synthesis", "witness", "gpu_queue", "gpu", "finalize", "total"};
    return names[s];
}

void cuzk_engine_config_default(cuzk_engine_config *c)
{
    *c = (cuzk_engine_config){
        .budget_bytes = 16ULL << 30,
        .synthesis_workers = cuzk_cpu_count(),
        .synthesis_threads = 1,
        .workers_per_device = 1,
        .max_device_queue_depth = 2,
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
double engine_now(const cuzk_engine *e)
{
    return e->cfg.clock ? vclock_now(e->cfg.clock) : cuzk_now_s();
}

double cuzk_engine_now(const cuzk_engine *e)
{
    return engine_now(e);
}

/* Waits on cv (e->lock held) until woken or until `until` (< 0: no
 * deadline), in the engine's time; may return early: callers recheck. */
void engine_wait(cuzk_engine *e, pthread_cond_t *cv, double until)
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
void engine_wake(cuzk_engine *e, pthread_cond_t *cv, int all)
{
    if (all)
        pthread_cond_broadcast(cv);
    else
        pthread_cond_signal(cv);
    if (e->cfg.clock)
        vclock_notify(e->cfg.clock);
}

void engine_sleep(cuzk_engine *e, double s)
{
    if (e->cfg.clock) {
        vclock_sleep(e->cfg.clock, s);
        return;
    }
    cuzk_sleep_s(s);
}

/* A thread started with engine_thread_start ends. */
void engine_thread_end(cuzk_engine *e)
{
    if (e->cfg.clock)
        vclock_leave(e->cfg.clock);
}

int engine_thread_start(cuzk_engine *e, pthread_t *t, void *(*main)(void *), void *arg)
{
    if (e->cfg.clock)
        vclock_enter(e->cfg.clock);
    int rc = pthread_create(t, NULL, main, arg);
    if (rc)
        engine_thread_end(e);
    return rc;
}


/* ---------- life cycle ---------- */

/* Job ids start at the wall clock in microseconds (below 2^53 until the
 * year 2255, so JSON clients keep them exact): after a restart they go on
 * above the old ones, since no engine hands out a job per microsecond, and
 * an id a client kept from before never names someone else's job. */
static uint64_t first_job_id(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000 + 1;
}

static int start_threads(cuzk_engine *e)
{
    int n_device_workers = e->backend->n_devices * e->cfg.workers_per_device;
    int n_finish = e->cfg.finalizers;
    e->workers = calloc((size_t)(e->cfg.synthesis_workers + n_device_workers + n_finish), sizeof *e->workers);
    if (!e->workers)
        return -1;
    for (int i = 0; i < e->cfg.synthesis_workers; i++)
        if (!engine_thread_start(e, &e->workers[e->n_workers], engine_synth_worker_main, e))
            e->n_workers++;
    for (int d = 0; d < e->backend->n_devices; d++)
        for (int s = 0; s < e->cfg.workers_per_device; s++) {
            device_worker_arg *a = malloc(sizeof *a);
            if (!a)
                return -1;
            *a = (device_worker_arg){e, d};
            if (!engine_thread_start(e, &e->workers[e->n_workers], engine_device_worker_main, a))
                e->n_workers++;
            else
                free(a);
        }
    for (int i = 0; i < n_finish; i++)
        if (!engine_thread_start(e, &e->workers[e->n_workers], engine_finisher_main, e))
            e->n_workers++;
    if (engine_thread_start(e, &e->dispatcher, engine_dispatcher_main, e))
        return -1;
    if (engine_thread_start(e, &e->maintainer, engine_maintainer_main, e))
        return -1;
    return e->n_workers == e->cfg.synthesis_workers + n_device_workers + n_finish ? 0 : -1;
}

cuzk_engine *cuzk_engine_create(const cuzk_engine_config *cfg, cuzk_backend *backend, cuzk_error *err)
{
    if (cfg->synthesis_workers < 1 || cfg->workers_per_device < 1 || cfg->max_device_queue_depth < 1 ||
        cfg->finalizers < 1 || backend->n_devices < 1 || backend->n_devices > CUZK_MAX_DEVICES) {
        backend->destroy(backend);
        return cuzk_fail(err, CUZK_ERR_ARG, "engine: workers, finalizers, queue depth and devices must be at least 1"),
               NULL;
    }
    if (!engine_dispatch_policy(cfg->policy)) {
        backend->destroy(backend);
        return cuzk_fail(err, CUZK_ERR_ARG, "engine: unknown dispatch policy %d (%s)", (int)cfg->policy,
                         CUZK_DISPATCH_CHOICES),
               NULL;
    }
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e) {
        backend->destroy(backend);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    }
    e->cfg = *cfg;
    if (e->cfg.prewarm_buffers < 0)
        e->cfg.prewarm_buffers = e->cfg.max_device_queue_depth;
    e->backend = backend;
    e->t0 = engine_now(e);
    e->next_job_id = first_job_id();
    e->permits_free = cfg->max_device_queue_depth;
    pacer_init(&e->pace, cfg->pacer_kp, cfg->pacer_ki, cfg->pacer_target_depth,
               backend->n_devices * cfg->workers_per_device);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_t *cvs[] = {&e->dispatch_cv, &e->synth_cv, &e->device_cv, &e->finish_cv, &e->job_cv};
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
             backend->n_devices, cuzk_dispatch_policy_name(cfg->policy), cfg->max_device_queue_depth,
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
    e->closed = 1;
    engine_cancel_waiters(e);
    pthread_cond_t *cvs[] = {&e->dispatch_cv, &e->synth_cv, &e->device_cv, &e->finish_cv, &e->job_cv};
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        engine_wake(e, cvs[i], 1);
    pthread_mutex_unlock(&e->lock);
    engine_wake_blocked(e);
    if (e->cfg.clock) /* the caller waits for the threads outside the clock */
        vclock_leave(e->cfg.clock);
    if (e->dispatcher)
        pthread_join(e->dispatcher, NULL);
    if (e->maintainer)
        pthread_join(e->maintainer, NULL);
    for (int i = 0; i < e->n_workers; i++)
        pthread_join(e->workers[i], NULL);
    if (e->cfg.clock)
        vclock_enter(e->cfg.clock);
    free(e->workers);
    /* buffers of partitions stranded in queues go back before the pool dies */
    part_queue *qs[] = {&e->synth_q, &e->device_q, &e->finish_q};
    for (size_t i = 0; i < 3; i++)
        for (partition *p; (p = engine_queue_pop(qs[i]));)
            if (p->abc)
                pool_checkin(e->pool, p->abc, p->job->id, p->index);
    for (job *j = e->jobs, *next; j; j = next) {
        next = j->next;
        if (j->key)
            keycache_release(e->keys, j->circ->key);
        engine_free_job(j);
    }
    for (circuit *c = e->circuits, *next; c; c = next) {
        next = c->next;
        engine_free_circuit(e, c);
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
