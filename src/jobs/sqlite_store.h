/* The daemon's job store on disk: one SQLite file (STATE_DIR/jobs.sqlite,
 * WAL mode) holding what a restart must find again:
 *   jobs        id, request id and payload hash, circuit, priority, state,
 *               error, times; parts_done / parts_ended counters
 *   partitions  each one's witness (a path, the inline values, or the
 *               circuit's input JSON, dropped once it is proved), state
 *               (queued, running, done, failed, cancelled), attempts,
 *               error, and its proof and public signals (codec/proof_words.h)
 *   circuits    those registered through the API (POST /v1/circuits)
 *   inputs      inline witnesses and input JSON, until proved
 * What a client is told was kept (a submit, a cancel, a circuit) is on the
 * disk before the call returns (synchronous FULL: an fsync); claims and
 * results survive the process's death however it dies, and a power cut
 * may lose the last of them (NORMAL: no fsync; those partitions are proved
 * again).  * A partition is 'done' exactly when its proof and signals are in its row
 * (a CHECK), and its job becomes 'done' in the same transaction as its
 * last proof: a job is never reported done without its proofs.
 * One connection, its statements serialized by the store's mutex.
 * Errors: CUZK_ERR_UNAVAILABLE when the disk is full (SQLITE_FULL),
 * CUZK_ERR_IO for other I/O trouble, CUZK_ERR_FORMAT for a damaged or
 * foreign file, CUZK_ERR_ARG for an unknown job. */
#ifndef CUZK_JOBS_SQLITE_STORE_H
#define CUZK_JOBS_SQLITE_STORE_H

#include "engine/engine.h"
#include "groth16/wtns.h"

typedef struct sqlite_store sqlite_store;

/* The store's file in dir. */
#define SQLITE_STORE_FILE "jobs.sqlite"

/* Opens (or creates) dir/jobs.sqlite: the file is checked whole
 * (PRAGMA quick_check) and written once (a refusal now, not at the first
 * submit, when it cannot be). max_pages > 0 caps the file (tests: a disk
 * that fills). The directory's lock is the caller's (state_lock.h). */
sqlite_store *store_open(const char *dir, long max_pages, cuzk_error *err);
void store_close(sqlite_store *s);
/* The file's path and size in bytes (the WAL's included). */
const char *store_path(const sqlite_store *s);
uint64_t store_bytes(const sqlite_store *s);

/* Keeps req as a new job, its id from the wall clock in microseconds (as
 * the engine's, so ids never repeat across restarts or modes), or finds
 * the job of its request id (*existing = 1): the same payload hash
 * (cuzk_job_request_hash) gives that job's id, another one fails with
 * CUZK_ERR_CONFLICT. */
int store_submit(sqlite_store *s, const cuzk_job_request *req, uint64_t *job_id, int *existing, cuzk_error *err);

/* A partition taken to be proved. */
typedef struct {
    uint64_t job_id;
    uint32_t idx;
    int attempt;
    char circuit[136];
    cuzk_priority priority;
    char *witness_path; /* or */
    cuzk_wtns witness;  /* the inline values (has_witness), or */
    char *input_json;   /* the circuit's input; none of the three: a simulated circuit */
    int has_witness;
} store_partition;
void store_partition_free(store_partition *p);

/* Takes up to max queued partitions, by priority, then job, then index,
 * into out[0 .. *n): each becomes 'running' with one attempt more. */
int store_claim(sqlite_store *s, int max, store_partition *out, int *n, cuzk_error *err);

/* What a partition's proving made. */
typedef struct {
    const cuzk_proof *proof;
    const uint64_t (*publics)[4];
    uint32_t n_public;
    double witness_s, synth_s, device_s;
    int verified;
} store_proof;

/* Records the proof of running partition (job_id, idx) in one
 * transaction with its job's counters and, at the last partition, its
 * job's end (*job_ended). *recorded = 0 when the partition is no longer
 * running (its job was cancelled meanwhile): nothing changes. */
int store_record_proof(sqlite_store *s, uint64_t job_id, uint32_t idx, const store_proof *p, int *recorded,
                       int *job_ended, cuzk_error *err);
/* The partition failed (error says why): its job fails once its other
 * partitions have ended, naming the first that failed. */
int store_record_failure(sqlite_store *s, uint64_t job_id, uint32_t idx, const char *error, int *recorded,
                         int *job_ended, cuzk_error *err);
/* A running partition goes back to the queue, its attempt not counted
 * (the daemon stops before it was proved). */
int store_release(sqlite_store *s, uint64_t job_id, uint32_t idx, cuzk_error *err);
/* Every running partition goes back to the queue (at start: the daemon
 * before died while they were proved); *n: how many. */
int store_requeue_running(sqlite_store *s, int *n, cuzk_error *err);

/* Cancels a job that has not ended: its queued and running partitions
 * are cancelled (the caller cancels the engine's work). *ended = 0 when
 * it had already ended. CUZK_ERR_ARG for an unknown job. */
int store_cancel_job(sqlite_store *s, uint64_t job_id, int *ended, cuzk_error *err);

/* The job as cuzk_engine_wait reports one: proofs and signals of its
 * proved partitions once it has ended (done or failed). */
int store_read_job(sqlite_store *s, uint64_t job_id, cuzk_job_result *out, cuzk_error *err);

/* Deletes jobs ended more than retain_s ago (with their partitions);
 * *n: how many. */
int store_delete_ended(sqlite_store *s, double retain_s, int *n, cuzk_error *err);

/* Counts for status: jobs by state (queued counts those not yet started,
 * running those started and not ended), and partitions waiting. */
typedef struct {
    uint64_t queued, running, done, failed, cancelled;
    uint64_t partitions_queued, partitions_running;
} store_counts;
int store_count(sqlite_store *s, store_counts *c, cuzk_error *err);

/* A circuit registered through the API: a key file (and r1cs, wasm), or
 * a development setup from an r1cs (development, device_only). */
typedef struct {
    const char *id, *zkey, *r1cs, *wasm;
    int development, device_only;
} store_circuit;
/* Keeps c (replacing a row of its id). */
int store_add_circuit(sqlite_store *s, const store_circuit *c, cuzk_error *err);
int store_remove_circuit(sqlite_store *s, const char *id, cuzk_error *err);
/* Calls each(ctx, c) for every circuit kept, in the order they came. */
int store_each_circuit(sqlite_store *s, void (*each)(void *ctx, const store_circuit *c), void *ctx,
                       cuzk_error *err);

#endif
