/* The pipelined proving engine (see docs/ARCHITECTURE.md, "The engine").
 *
 *   submit(job: circuit, N partitions, priority)
 *     -> scheduler: CRITICAL > HIGH > NORMAL > LOW, FIFO within a level
 *     -> dispatcher: the policy decides when the next partition may start
 *          semaphore  max_device_queue_depth permits: one is taken before a
 *                     partition goes to synthesis and given back when the
 *                     device finishes it (one completion starts one synthesis)
 *          pacer      PI control of the dispatch interval on the measured
 *                     device service time, holding the device queue near its
 *                     target, with the permits as a hard cap (before the
 *                     first measurement: only the device slots plus the
 *                     target are let in)
 *          poll       the legacy throttle: every poll_ms, if the device
 *                     queue is below max_device_queue_depth, release everything
 *                     pending (kept to reproduce the original's failure)
 *     -> synthesis workers: pinned buffer from the pool, witness read (or
 *          calculated from the partition's input by the circuit's wasm),
 *          a = A.w, b = B.w, c = a o b by the circuit's PCE into the buffer
 *     -> device workers (per device x workers_per_device): backend
 *          prove_start, buffer checked back in, permit returned
 *     -> finalizers: backend prove_finish, proof verified (configurable)
 *     -> the job is done when all its partitions are.
 * One memory budget (engine/budget.h) covers keys, PCEs, the pinned pool
 * and partition working sets. */
#ifndef CUZK_ENGINE_ENGINE_H
#define CUZK_ENGINE_ENGINE_H

#include "backend/backend.h"
#include "engine/budget.h"
#include "engine/keycache.h"
#include "engine/pinned_pool.h"
#include "util/log.h"

/* The dispatch policies, one row each: X(name, NAME, help), SEP between
 * two rows (what a list puts between two names; nothing elsewhere). A
 * policy is this row and one file, engine/dispatch_<name>.c, defining
 * `const dispatch_policy dispatch_<name>` (engine_internal.h); the enum,
 * the names, parsing, the command line's usage and the daemon's config
 * choices and help come from the rows. */
#define CUZK_DISPATCH_ROWS(X, SEP)                                                                        \
    X(semaphore, SEMAPHORE, "max_gpu_queue_depth permits, one device completion starts one\nsynthesis") \
    SEP X(pacer, PACER, "PI control of the dispatch interval on the measured device\ntime")              \
    SEP X(poll, POLL, "the legacy threshold poll (kept to reproduce its failure)")
#define CUZK_DISPATCH_POLICIES(X) CUZK_DISPATCH_ROWS(X, )

#define CUZK_DISPATCH_ENUM_(name, NAME, help) CUZK_DISPATCH_##NAME,
typedef enum { CUZK_DISPATCH_POLICIES(CUZK_DISPATCH_ENUM_) CUZK_N_DISPATCH_POLICIES } cuzk_dispatch_policy;
/* "semaphore|pacer|poll" and "semaphore: ...; pacer: ...; poll: ....",
 * string literals. */
#define CUZK_DISPATCH_CHOICE_(name, NAME, help) #name
#define CUZK_DISPATCH_CHOICES CUZK_DISPATCH_ROWS(CUZK_DISPATCH_CHOICE_, "|")
#define CUZK_DISPATCH_HELP_(name, NAME, help) #name ": " help
#define CUZK_DISPATCH_HELP CUZK_DISPATCH_ROWS(CUZK_DISPATCH_HELP_, "; ") "."
typedef enum { CUZK_PRIORITY_CRITICAL = 0, CUZK_PRIORITY_HIGH, CUZK_PRIORITY_NORMAL, CUZK_PRIORITY_LOW } cuzk_priority;
enum { CUZK_N_PRIORITIES = 4 };

const char *cuzk_dispatch_policy_name(cuzk_dispatch_policy p);
int cuzk_dispatch_policy_parse(const char *s, cuzk_dispatch_policy *out);
const char *cuzk_priority_name(cuzk_priority p);
int cuzk_priority_parse(const char *s, cuzk_priority *out);

typedef struct {
    uint64_t budget_bytes;      /* the one memory budget (default 16 GiB) */
    int synthesis_workers;      /* default: CPU count */
    int synthesis_threads;      /* threads inside one synthesis (default 1) */
    int workers_per_device; /* default 1 */
    int max_device_queue_depth;    /* permits (default 2) */
    cuzk_dispatch_policy policy;
    double poll_ms;               /* poll policy period (default 250) */
    double pacer_kp, pacer_ki;    /* pacer gains (default 0.5, 0.1) */
    double pacer_target_depth;    /* device queue depth the pacer holds (default 1) */
    double pool_idle_timeout_s;   /* idle pinned buffers freed after this (default 30) */
    int prewarm_buffers;          /* per circuit at registration (default: max_device_queue_depth) */
    int verify_proofs;            /* verify each proof before a job completes (default 1) */
    int finalizers;               /* threads blinding and verifying proofs (default: CPU count / 4, >= 2) */
    const char *pce_cache_dir;    /* on-disk PCE cache (NULL: memory only) */
    const char *wasm_cache_dir;   /* compiled circom circuits (witness/wasm_build.h; NULL: its default) */
    const char *timeline_path;    /* JSONL timeline of partition events (NULL: off) */
    uint32_t results_max;         /* finished jobs kept (default 1000) */
    double results_ttl_s;         /* and for how long (default 600) */
    double sim_synth_ms;          /* synthesis time of simulated circuits */
    cuzk_logger *log;             /* NULL: no log */
    /* Called once as each job ends (done, failed or cancelled), with the
     * engine's lock held: it must return quickly and must not call the
     * engine (the cluster's completer queues the id and reads the result
     * with cuzk_engine_wait from its own thread). NULL: none. */
    void (*on_job_end)(void *ctx, uint64_t job_id);
    void *on_job_end_ctx;
    struct cuzk_vclock *clock;    /* NULL: real time; tests and bench pipeline
                                   * --virtual-time: a virtual clock (util/vclock.h)
                                   * shared with the sim backend, the engine
                                   * called from the clock's creator */
} cuzk_engine_config;

void cuzk_engine_config_default(cuzk_engine_config *c);

typedef struct cuzk_engine cuzk_engine;

/* The engine takes ownership of backend. */
cuzk_engine *cuzk_engine_create(const cuzk_engine_config *cfg, cuzk_backend *backend, cuzk_error *err);
/* Cancels what is pending, waits for what is on a device, frees everything. */
void cuzk_engine_destroy(cuzk_engine *e);

/* A circuit from its proving key (and optionally its r1cs, used to check
 * witnesses, and its circom wasm, which makes witnesses from partitions'
 * input JSON). The key is loaded, its PCE compiled or read from the cache,
 * the wasm compiled or found in its cache (witness/circom.h), and
 * prewarm_buffers pinned buffers allocated, before this returns.
 * CUZK_ERR_NOMEM, with the numbers, when one job of it could never fit in
 * the memory budget (key, PCE, one partition); CUZK_ERR_FORMAT for a wasm
 * that is not circom 2's calculator, CUZK_ERR_MISMATCH for one of another
 * curve or witness size than the key's. */
int cuzk_engine_register_circuit(cuzk_engine *e, const char *id, const char *zkey_path, const char *r1cs_path,
                                 const char *wasm_path, cuzk_error *err);
/* A circuit whose development key the engine makes itself from r, with
 * no zkey file (NOT for production: toxic waste from getrandom, wiped):
 * backend_setup on the engine's backend, so on a GPU backend the
 * multiplications run on device 0 and the key stays resident there;
 * device_only (GPU only) keeps no host copy of its points, the only way a
 * 2^27 key fits a host beside its circuit. r is freed as soon as the setup
 * has read it. The key is never evicted (nothing could reload it). */
int cuzk_engine_register_setup(cuzk_engine *e, const char *id, cuzk_r1cs *r, int device_only, cuzk_error *err);
/* A simulated circuit: only its domain size matters (buffer sizes). */
int cuzk_engine_register_sim_circuit(cuzk_engine *e, const char *id, uint32_t domain_size, cuzk_error *err);

/* One of the three. */
typedef struct {
    const char *witness_path;  /* a .wtns file, or */
    const cuzk_wtns *witness;  /* one in memory (copied, unless lend_witness), or */
    const char *input_json;    /* the circuit's input, JSON text (witness/input.h), for a
                                * circuit registered with its wasm: the witness is calculated
                                * at synthesis */
    int lend_witness;          /* witness is read in place, not copied: the caller keeps
                                * it unchanged until the job has ended (many partitions
                                * may share one) */
} cuzk_partition_input;

typedef struct {
    const char *circuit;
    cuzk_priority priority;
    const char *request_id; /* NULL, or an idempotency key */
    uint32_t n_partitions;
    const cuzk_partition_input *partitions; /* NULL for simulated circuits */
} cuzk_job_request;

/* Queues a job. Each witness is checked against the circuit's key first
 * (of a file, its header): a missing file (CUZK_ERR_IO), a bad one
 * (CUZK_ERR_FORMAT) or a wrong curve or length (CUZK_ERR_MISMATCH) fails
 * the submit, naming the partition; so does an input that is not JSON or
 * whose values are not numbers (CUZK_ERR_FORMAT), one whose signals are
 * not the circuit's inputs or not all of them, or an input for a circuit
 * registered without its wasm (CUZK_ERR_ARG). A calculation that fails
 * later (circom's assert, a trap) fails the job with circom's message. A job that could never fit in the
 * memory budget fails it with CUZK_ERR_NOMEM and the numbers; a wait for
 * memory for the key ends with CUZK_ERR_CANCELLED on cancel_all,
 * stop_accepting or destroy. With a request_id seen before: the
 * same payload returns the same job id, another payload fails with
 * CUZK_ERR_CONFLICT. */
int cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, uint64_t *job_id, cuzk_error *err);
/* The checks cuzk_engine_submit makes before it queues a job (the circuit
 * is registered, the job could fit in the budget, every witness against
 * the key), without queueing it: for a caller that queues the job
 * elsewhere (the cluster's database) and proves it later, maybe on
 * another node. The same codes as cuzk_engine_submit. */
int cuzk_engine_check_request(cuzk_engine *e, const cuzk_job_request *req, cuzk_error *err);
/* What a request id is bound to: a hash (FNV-1a) of the request's circuit,
 * priority and partitions (witness paths, or inline values); 0 for a
 * request without a request id. Two requests with one request id and
 * different hashes are a conflict. */
uint64_t cuzk_job_request_hash(const cuzk_job_request *req);

typedef enum { CUZK_JOB_QUEUED, CUZK_JOB_RUNNING, CUZK_JOB_DONE, CUZK_JOB_FAILED, CUZK_JOB_CANCELLED } cuzk_job_state;
const char *cuzk_job_state_name(cuzk_job_state s);

/* A job's state. A partition that fails does not stop the others: the job
 * ends "failed" once every partition has ended, error naming the first
 * that failed and why, and the proofs of those that were proved are kept
 * (proved says which). */
typedef struct {
    uint64_t id;
    cuzk_job_state state;
    uint32_t n_partitions, partitions_done;
    uint32_t n_public;
    cuzk_proof *proofs;        /* n_partitions, when done or failed (only those proved are set) */
    uint64_t (*publics)[4];    /* n_partitions x n_public, likewise */
    uint8_t *proved;           /* n_partitions: 1 where proofs and publics hold the partition's, likewise */
    int verified;              /* every proof verified (0 for simulated) */
    double queue_s, synth_s, witness_s, device_s, total_s; /* waiting before the first synthesis, sums (witness:
                                                         * read or calculated, part of synthesis), submit to done */
    char error[512];
} cuzk_job_result;

/* Waits up to timeout_s (< 0: forever) for the job to end; fills *out with a
 * copy either way (free with cuzk_job_result_free). CUZK_ERR_ARG for an
 * unknown (or pruned) job id. */
int cuzk_engine_wait(cuzk_engine *e, uint64_t job_id, double timeout_s, cuzk_job_result *out);
void cuzk_job_result_free(cuzk_job_result *r);
/* Cancels a job: partitions not yet on a device are dropped, their buffers
 * and permits returned. 0, or CUZK_ERR_ARG for an unknown job. Idempotent. */
int cuzk_engine_cancel(cuzk_engine *e, uint64_t job_id);
/* Cancels every job that has not ended, and ends the waits of submits and
 * registrations under way (CUZK_ERR_CANCELLED). */
void cuzk_engine_cancel_all(cuzk_engine *e);
/* From now on submits and registrations fail with CUZK_ERR_CANCELLED ("takes
 * no new jobs"), those under way included (a drain begins): after it
 * returns no new job appears, so cuzk_engine_drain sees them all. */
void cuzk_engine_stop_accepting(cuzk_engine *e);
/* Waits until every submitted job has ended (stopping new submissions is
 * the caller's part). timeout_s < 0: no limit. 0 when no job is left, -1
 * when the time ran out first. */
int cuzk_engine_drain(cuzk_engine *e, double timeout_s);

/* ---------- circuits and their keys ---------- */

typedef struct {
    const char *id;      /* valid while the engine lives (circuits are never removed) */
    cuzk_curve_id curve;
    uint32_t domain_size, n_vars, n_public;
    int simulated;       /* registered with cuzk_engine_register_sim_circuit: no key */
    int has_r1cs;        /* witnesses are checked against the r1cs */
    int has_wasm;        /* partitions may give input JSON */
    key_info key;        /* tier, references, bytes (zero for simulated circuits) */
} cuzk_circuit_info;

/* Fills *out for circuit id: 0, or CUZK_ERR_ARG when none is registered. */
int cuzk_engine_circuit_info(cuzk_engine *e, const char *id, cuzk_circuit_info *out);
/* Circuit id's verification key as snarkjs's JSON (free() it): how the
 * verifiers of a key the engine made (cuzk_engine_register_setup) get it.
 * NULL with CUZK_ERR_ARG for an unknown or simulated circuit. */
char *cuzk_engine_circuit_vk_json(cuzk_engine *e, const char *id, cuzk_error *err);
/* Fills out[0 .. min(n, cap)) with the registered circuits, newest first;
 * returns n, the number registered (call with cap 0 to size the array). */
size_t cuzk_engine_list_circuits(cuzk_engine *e, cuzk_circuit_info *out, size_t cap);
/* Makes the circuit's key hot now rather than at its next job. 0, or
 * CUZK_ERR_ARG for an unknown or simulated circuit, or the load's error. */
int cuzk_engine_preload_key(cuzk_engine *e, const char *circuit_id, cuzk_error *err);
/* Demotes the circuit's key to warm (drop == 0: the file stays mapped) or
 * cold (drop == 1). CUZK_ERR_ARG for an unknown or simulated circuit, or
 * while jobs use the key. */
int cuzk_engine_evict_key(cuzk_engine *e, const char *circuit_id, int drop, cuzk_error *err);

enum { CUZK_MAX_DEVICES = 16 };
/* STAGE_WITNESS (the witness read from its file or calculated from the
 * input) is a part of STAGE_SYNTH; the others follow one another. */
typedef enum {
    STAGE_QUEUE,
    STAGE_SYNTH,
    STAGE_WITNESS,
    STAGE_GPU_QUEUE,
    STAGE_GPU,
    STAGE_FINALIZE,
    STAGE_TOTAL,
    N_STAGES
} engine_stage;
const char *engine_stage_name(engine_stage s);

/* Stage latencies since the engine started, in fixed buckets (a daemon's
 * lifetime of partitions in constant space): buckets[i] counts partitions
 * that took at most cuzk_stage_bucket_bounds[i] seconds and more than the
 * bound before it; buckets[CUZK_STAGE_BUCKETS] counts the slower ones. */
enum { CUZK_STAGE_BUCKETS = 19 };
extern const double cuzk_stage_bucket_bounds[CUZK_STAGE_BUCKETS];
typedef struct {
    uint64_t buckets[CUZK_STAGE_BUCKETS + 1];
    uint64_t count;
    double sum;
} cuzk_stage_histogram;

/* Counts one latency of `seconds` into h. */
void cuzk_stage_histogram_add(cuzk_stage_histogram *h, double seconds);

/* Latency samples kept for percentiles: the most recent partitions only. */
enum { CUZK_MAX_LATENCY_SAMPLES = 1 << 16 };

typedef struct {
    double elapsed_s;
    uint64_t partitions_done, proofs_verified, jobs_done, jobs_failed, jobs_cancelled;
    uint64_t jobs_active;                              /* submitted, not yet ended */
    uint32_t queued, synthesizing, device_queued, on_device; /* partitions in each place now */
    int n_devices;
    double device_busy_s[CUZK_MAX_DEVICES];   /* in the backend's prove_start, waits for the driver included */
    double device_clock_s[CUZK_MAX_DEVICES]; /* of that, the device's own clock (its phase timings; the
                                            * wall time for a backend without) */
    double device_span_s[CUZK_MAX_DEVICES]; /* from each device's first partition start to its last end */
    /* device memory in bytes after the last proof or registration, the most
     * seen so, and the card's size, as the backend sees it (a memory limit
     * shrinks it); all 0 for backends without device memory */
    uint64_t device_memory_used[CUZK_MAX_DEVICES], device_memory_high_water[CUZK_MAX_DEVICES];
    uint64_t device_memory_total[CUZK_MAX_DEVICES];
    /* proofs that waited for room in the device's memory before they could
     * start (the backend's admission: backend_gpu.c), a count since start */
    uint64_t device_memory_waits[CUZK_MAX_DEVICES];
    pool_stats pool;
    budget_stats budget;
    uint64_t dispatched;
    size_t n_samples;          /* per-stage latency samples of the last partitions done (at most
                                  CUZK_MAX_LATENCY_SAMPLES), in no particular order */
    double *samples[N_STAGES]; /* owned by the caller after cuzk_engine_get_stats: free with cuzk_engine_stats_free */
    cuzk_stage_histogram stage_hist[N_STAGES]; /* every partition done */
} cuzk_engine_stats;

void cuzk_engine_get_stats(cuzk_engine *e, cuzk_engine_stats *s);
void cuzk_engine_stats_free(cuzk_engine_stats *s);

/* The engine's time in seconds: the monotonic clock's, or its virtual
 * clock's (cuzk_engine_config.clock). */
double cuzk_engine_now(const cuzk_engine *e);

/* The q-quantile (0..1) of n samples (sorted in place); 0 when n = 0. */
double cuzk_engine_percentile(double *samples, size_t n, double q);

#endif
