/* The engine's insides, shared by its files (engine.c: names, time and
 * waiting, life cycle; engine_jobs.c: queues, bookkeeping, the job API;
 * engine_dispatch.c: the dispatcher; engine_workers.c: synthesis, device,
 * finalizer and maintenance threads; engine_circuits.c; engine_stats.c).
 * Not for use outside src/engine. */
#ifndef CUZK_ENGINE_ENGINE_INTERNAL_H
#define CUZK_ENGINE_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "engine/pacer_control.h"
#include "engine/engine.h"
#include "engine/keycache.h"
#include "synthesis/pce.h"
#include "engine/timeline.h"
#include "groth16/r1cs_eval.h"
#include "synthesis/wtns_pack.h"
#include "util/log.h"
#include "witness/circom.h"

typedef struct circuit {
    char *id;
    uint32_t domain_size, n_vars, n_public;
    cuzk_curve_id curve;
    key_entry *key; /* NULL for simulated circuits */
    cuzk_pce pce;
    int has_pce, pce_charged; /* charged under BUDGET_PCE once it fits */
    cuzk_r1cs r1cs;
    int has_r1cs;
    cuzk_vk vk; /* exported once at registration: proofs are verified against it */
    int has_vk;
    int abc_on_device; /* the backend builds a, b, c from the key (builds_abc): no host synthesis */
    cuzk_circom *wasm; /* its witness calculator, when registered with one (NULL: witnesses only) */
    struct circuit *next;
} circuit;

typedef struct job job;

typedef enum { P_PENDING, P_SYNTH_QUEUED, P_SYNTH, P_GPU_QUEUED, P_GPU, P_FINISH, P_DONE, P_DROPPED } part_state;

typedef struct partition {
    job *job;
    uint32_t index;
    part_state state;
    char *witness_path;
    cuzk_wtns witness;  /* calculated at synthesis, or given at submit (copied or lent), until staged */
    int has_witness;
    int witness_lent;   /* witness.values are the submitter's: never freed here */
    witness_input input; /* read at submit; the witness is calculated from it */
    int has_input;
    cuzk_wtns staged;   /* the witness with its values in the pool buffer (a file's read there) */
    cuzk_wtns_packed packed; /* the witness packed into the pool buffer (base set) when a, b, c
                              * are built on the device and packing pays; staged.values are
                              * not the values then */
    uint64_t ws_bytes;  /* working set charged under BUDGET_PARTITIONS */
    void *abc;          /* pinned buffer while checked out */
    int holds_permit;
    int device;
    cuzk_msm_results msm;
    double t_synth_start, t_witness_start, t_witness_end, t_synth_end, t_device_start, t_device_end, t_done;
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
    uint8_t *proved; /* per partition: its proof is in proofs */
    cuzk_job_state state;
    atomic_int cancelled; /* stop its work: read outside e->lock by the pool and the budget */
    atomic_int admitted;  /* a partition has had its buffer: the rest ask the budget as admitted work */
    int cancel_asked;     /* by cuzk_engine_cancel/_cancel_all: it ends "cancelled", not "failed" */
    int verified_all;
    double t_submit, t_first_synth, t_end, synth_s, witness_s, device_s;
    char error[512];
    job *next; /* in the job table */
};

typedef struct {
    partition *head, *tail;
    uint32_t len;
} part_queue;

/* A submit or a registration that may wait for memory before it is a job
 * (its key's load): cancel_all, stop_accepting and destroy set its flag
 * and wake the budget, so no such wait outlives them. */
typedef struct engine_waiter {
    atomic_int cancel;
    struct engine_waiter *next;
} engine_waiter;

struct cuzk_engine {
    cuzk_engine_config cfg;
    cuzk_backend *backend;
    cuzk_budget *budget;
    pinned_pool *pool;
    keycache *keys;
    timeline *tl;
    double t0;

    pthread_mutex_t lock;
    pthread_cond_t dispatch_cv, synth_cv, device_cv, finish_cv, job_cv;
    int stopping;
    int closed;              /* stop_accepting: no new jobs or circuits */
    engine_waiter *waiters;  /* submits and registrations under way */
    part_queue pending[CUZK_N_PRIORITIES];
    part_queue synth_q, device_q, finish_q;
    uint32_t synthesizing, on_device;
    int permits_free;
    pacer pace;
    double next_dispatch_at;

    circuit *circuits;
    job *jobs;
    uint64_t next_job_id;
    uint32_t jobs_finished_kept;

    uint64_t partitions_done, proofs_verified, jobs_done, jobs_failed, jobs_cancelled, dispatched;
    uint64_t jobs_active;
    double device_busy_s[CUZK_MAX_DEVICES], device_clock_s[CUZK_MAX_DEVICES];
    double device_first_start[CUZK_MAX_DEVICES], device_last_end[CUZK_MAX_DEVICES]; /* 0: none yet */
    /* device memory (backend->device_memory) after the last proof or
     * registration, and the most seen then: the device pools keep what a
     * proof freed, so what is in use after a proof includes its peak */
    uint64_t device_memory_used[CUZK_MAX_DEVICES], device_memory_high[CUZK_MAX_DEVICES];
    uint64_t device_memory_total[CUZK_MAX_DEVICES];
    uint64_t device_memory_waits[CUZK_MAX_DEVICES]; /* proofs that waited for room, as last sampled */
    cuzk_stage_histogram stage_hist[N_STAGES];
    double *samples[N_STAGES]; /* a ring: the next sample goes to samples_next */
    size_t n_samples, cap_samples, samples_next;

    pthread_t dispatcher, maintainer;
    pthread_t *workers;
    int n_workers;
};

typedef struct {
    cuzk_engine *e;
    int device;
} device_worker_arg;

/* A partition's pool buffer: a, b, c, then (real circuits) a copy of the
 * witness, so the device reads both from pinned memory; the witness alone
 * when the backend builds a, b, c on the device (c->abc_on_device). */
static inline size_t engine_abc_bytes(const circuit *c)
{
    return c->abc_on_device ? 0 : 3 * (size_t)c->domain_size * 32;
}

static inline size_t engine_staging_bytes(const circuit *c)
{
    return engine_abc_bytes(c) + (c->key ? (size_t)c->n_vars * 32 : 0);
}

/* Samples the device memory of `device` (under e->lock; nothing for a
 * backend without device memory) (engine_stats.c). */
void engine_sample_device_memory(cuzk_engine *e, int device);

/* ---------- time and waiting (engine.c) ---------- */

/* Real time, or the configured virtual clock (tests on the sim backend). */
double engine_now(const cuzk_engine *e);
/* Waits on cv (e->lock held) until woken or until `until` (< 0: no
 * deadline), in the engine's time; may return early: callers recheck. */
void engine_wait(cuzk_engine *e, pthread_cond_t *cv, double until);
/* Wakes cv's waiters (one, or all), with e->lock held. */
void engine_wake(cuzk_engine *e, pthread_cond_t *cv, int all);
void engine_sleep(cuzk_engine *e, double s);
/* A thread of the engine starts (0, or pthread_create's error), or ends. */
int engine_thread_start(cuzk_engine *e, pthread_t *t, void *(*main)(void *), void *arg);
void engine_thread_end(cuzk_engine *e);

/* ---------- queues and bookkeeping, under e->lock (engine_jobs.c) ---------- */

void engine_queue_push(part_queue *q, partition *p);
partition *engine_queue_pop(part_queue *q);
/* Moves every partition of job j from q to removed; returns how many. */
uint32_t engine_queue_remove_job(part_queue *q, job *j, part_queue *removed);
uint32_t engine_pending_count(const cuzk_engine *e);
/* The next pending partition by priority, FIFO within one; NULL: none. */
partition *engine_pop_pending(cuzk_engine *e);
/* A partition leaves the pipeline (P_DONE or P_DROPPED): what it held is
 * released, and its job ends when it was the last in flight. */
void engine_partition_retire(cuzk_engine *e, partition *p, part_state how);
/* Frees the partition's own witness (not a lent one) and gives its budget
 * back: at staging, or when the partition retires before. */
void engine_partition_drop_witness(cuzk_engine *e, partition *p);
void engine_give_back_permit(cuzk_engine *e, partition *p);
/* Records err as the job's error (unless a cancel was asked for), stops the
 * job's other partitions, retires p: the job ends "failed". */
void engine_fail_partition(cuzk_engine *e, partition *p, const cuzk_error *err);
void engine_free_job(job *j);
/* A submit or registration begins (CUZK_ERR_CANCELLED, naming what, once
 * the engine takes no new work) or ends; each takes e->lock. */
int engine_waiter_add(cuzk_engine *e, engine_waiter *w, const char *what, cuzk_error *err);
/* CUZK_ERR_CANCELLED: "<what>: the engine takes no new jobs ...". */
int engine_refuse_closed(const char *what, cuzk_error *err);
void engine_waiter_remove(cuzk_engine *e, engine_waiter *w);
/* Whether stop_accepting (or destroy) has been called; takes e->lock. */
int engine_closed(cuzk_engine *e);
/* Under e->lock: ends every waiter's wait (the caller then calls
 * engine_wake_blocked). */
void engine_cancel_waiters(cuzk_engine *e);
/* Outside e->lock, after cancel flags were set: every wait that watches
 * one (the budget's, the pool's, the backend's prove_start) looks again. */
void engine_wake_blocked(cuzk_engine *e);
/* Drops finished jobs beyond results_max (oldest first) or past their TTL. */
void engine_prune_results(cuzk_engine *e, double now);

/* ---------- circuits (engine_circuits.c), statistics (engine_stats.c) ---------- */

circuit *engine_find_circuit(cuzk_engine *e, const char *id);
void engine_free_circuit(cuzk_engine *e, circuit *c);
/* Under e->lock: fails (CUZK_ERR_NOMEM, with the numbers) when one job of
 * c could never fit in the budget: its key, one partition's pinned buffer
 * and working set beside the PCE of every registered circuit (plus
 * extra_pce, c's own while it registers). */
int engine_check_fits(cuzk_engine *e, const circuit *c, uint64_t extra_pce, cuzk_error *err);
/* A partition done: its stage latencies into the histograms and samples. */
void engine_add_sample(cuzk_engine *e, const partition *p);

/* ---------- dispatch policies (engine_dispatch.c, dispatch_<name>.c) ---------- */

/* A dispatch policy (engine.h lists them): step dispatches partitions or
 * waits once, under e->lock, and returns; on_service_time (NULL: not
 * wanted) hears each partition's device time, under e->lock. */
typedef struct {
    void (*step)(cuzk_engine *e);
    void (*on_service_time)(cuzk_engine *e, double seconds);
} dispatch_policy;

#define ENGINE_POLICY_DECLARE_(name, NAME, help) extern const dispatch_policy dispatch_##name;
CUZK_DISPATCH_POLICIES(ENGINE_POLICY_DECLARE_)

/* The policy p names; NULL for a value outside the enum. */
const dispatch_policy *engine_dispatch_policy(cuzk_dispatch_policy p);
/* Moves p to the synthesis queue, with one of the permits or without. */
void engine_dispatch_one(cuzk_engine *e, partition *p, int with_permit);

/* ---------- threads (engine_dispatch.c, engine_workers.c) ---------- */

void *engine_dispatcher_main(void *arg);
void *engine_synth_worker_main(void *arg);
void *engine_device_worker_main(void *arg); /* arg: a device_worker_arg, freed by the thread */
void *engine_finisher_main(void *arg);
void *engine_maintainer_main(void *arg);

#endif
