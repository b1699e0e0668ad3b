/* The job queue's statements: jobs submitted, partitions claimed, results
 * and failures recorded, jobs cancelled and read back. Any node may run
 * any of them; the database's constraints and row locks make them safe
 * together:
 *   - a claim takes queued partitions of the node's circuits in priority
 *     then submission order with FOR UPDATE SKIP LOCKED (two claimers
 *     never take one row) and counts the attempt;
 *   - a claim is fenced by (owner, attempts): a result, failure or release
 *     changes the partition only while that claim still holds, so the late
 *     result of a partition reclaimed from a silent node is discarded
 *     (recorded = 0) and each proof is recorded once;
 *   - statements lock partitions before their job, never the other way,
 *     so they cannot deadlock one another;
 *   - request_id is UNIQUE: a second submit of one id returns the first's
 *     job (the same payload hash) or fails with CUZK_ERR_CONFLICT.
 * Notifications: cuzk_work (new work), cuzk_cancel and cuzk_job_end
 * (payload: the job id). */
#ifndef CUZK_CLUSTER_QUEUE_H
#define CUZK_CLUSTER_QUEUE_H

#include "cluster/pg.h"
#include "engine/engine.h"
#include "codec/json_io.h"
#include "groth16/wtns.h"

/* Queues req as a new job (or finds the job of its request_id); inline
 * witnesses (req->partitions[i].witness) are stored as their values,
 * inputs (input_json) as their text. */
int queue_submit(pg_conn *c, const cuzk_job_request *req, const char *node, uint64_t *job_id, cuzk_error *err);

/* A claim: which partition, and the attempt that fences it. */
typedef struct {
    uint64_t job_id;
    uint32_t idx;
    int attempt;
} claim_ref;

typedef struct {
    claim_ref ref;
    char circuit[136];
    cuzk_priority priority;
    char *witness_path; /* or */
    cuzk_wtns witness;  /* the inline values (has_witness), or */
    char *input_json;   /* the circuit's input, for the node's wasm */
    int has_witness;
    double latency_s; /* from claimable (queued, backoff over) to claimed */
} claimed_partition;

void claimed_partition_free(claimed_partition *p);

/* Claims up to max partitions of the circuits in circuits (a text[]
 * literal, queue_circuit_array) for node into out[0 .. *n), each until
 * claim_max_s from now (0: no deadline), when node_reclaim takes it back. */
int queue_claim(pg_conn *c, const char *node, const char *circuits, int max, double claim_max_s,
                claimed_partition *out, int *n, cuzk_error *err);
/* "{"a","b"}" of the ids (ids of letters, digits and . _ : - only; others
 * are left out) into a fresh string, NULL when out of memory. */
char *queue_circuit_array(const char *const *ids, size_t n);
/* Seconds until the next queued partition of circuits is due (its retry
 * backoff ends); a negative *in_s when none waits. */
int queue_next_due(pg_conn *c, const char *circuits, double *in_s, cuzk_error *err);

/* The claim's proof (with its public signals and stage times): *recorded
 * is 0 when the claim no longer held (discarded); *job_done when this was
 * the job's last partition. */
typedef struct {
    const cuzk_proof *proof;
    const uint64_t (*publics)[4];
    uint32_t n_public;
    double synth_s, device_s;
    int verified;
} partition_result;
int queue_record_proof(pg_conn *c, const char *node, const claim_ref *ref, const partition_result *res,
                       int *recorded, int *job_done, cuzk_error *err);
/* A failed attempt: queued again after a backoff (backoff_s x 2^(attempt
 * - 1), at most a minute), or failed with its job when this was attempt
 * max_attempts (*job_failed). */
int queue_record_failure(pg_conn *c, const char *node, const claim_ref *ref, const char *error, int max_attempts,
                         double backoff_s, int *recorded, int *job_failed, cuzk_error *err);
/* The claim ends without a result: cancelled (its job was cancelled or
 * failed), or released (queued again, the attempt not counted: the node
 * is stopping). */
int queue_record_cancelled(pg_conn *c, const char *node, const claim_ref *ref, cuzk_error *err);
int queue_release(pg_conn *c, const char *node, const claim_ref *ref, cuzk_error *err);

/* Ends a job that has not ended: state "cancelled" or "failed" (with
 * error), its queued partitions cancelled, and the claimers told.
 * CUZK_ERR_ARG for an unknown job; *ended is 0 when it had already ended. */
int queue_end_job(pg_conn *c, uint64_t job_id, const char *state, const char *error, int *ended, cuzk_error *err);

/* The job as cuzk_engine_wait reports one (proofs when done).
 * CUZK_ERR_ARG for an unknown job. */
int queue_read_job(pg_conn *c, uint64_t job_id, cuzk_job_result *out, cuzk_error *err);

int queue_notify(pg_conn *c, const char *channel, uint64_t job_id, cuzk_error *err);

/* Deletes jobs that ended (done, failed or cancelled) more than retain_s
 * ago, with their partitions and results, at most QUEUE_SWEEP_MAX of them
 * a call (the oldest first); *n: how many. One transaction, partitions
 * locked before their jobs as everywhere else. */
enum { QUEUE_SWEEP_MAX = 1000 };
int queue_delete_ended(pg_conn *c, double retain_s, int *n, cuzk_error *err);

#endif
