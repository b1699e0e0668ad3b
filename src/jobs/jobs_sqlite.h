/* The job API of a single daemon whose jobs live on disk ([daemon]
 * state_dir): the seam (jobs.h) over the SQLite store (sqlite_store.h)
 * and this process's engine.
 *   - a submit is checked by the engine (circuit, witnesses, budget), kept
 *     in the store (one synchronous commit) and only then answered;
 *   - a feeder thread takes queued partitions from the store, as many as
 *     the engine has room for, and proves each as a one-partition engine
 *     job;
 *   - a completer thread records each proof (or failure) in the store as
 *     its engine job ends; a job ends in the store with its last proof;
 *   - GET and await read the store, so they answer for jobs of earlier
 *     runs; cancel ends the job in the store and stops its engine jobs;
 *   - at start the partitions that were running when the daemon before
 *     died are queued again: a partition is proved until its proof is
 *     recorded, and recorded once;
 *   - ended jobs are deleted retain_s after they ended.
 * Crash points (util/crash_point.h) for the tests that kill: store:submitted
 * (a job kept, its submit not yet answered), store:proved (a proof made,
 * not yet recorded), store:recorded (just recorded). */
#ifndef CUZK_JOBS_JOBS_SQLITE_H
#define CUZK_JOBS_JOBS_SQLITE_H

#include "jobs/jobs.h"
#include "jobs/sqlite_store.h"

typedef struct {
    const char *state_dir;     /* made when missing; locked while the daemon lives */
    double retain_s;           /* ended jobs this old are deleted (0: never) */
    uint64_t inline_max_bytes; /* an inline witness or input larger than this is refused */
    long max_pages;            /* > 0: the store's file is capped (tests: a full disk) */
} jobs_sqlite_config;

typedef struct jobs_sqlite jobs_sqlite;

/* Locks the state directory and opens the store: a clear refusal when
 * another daemon holds it, when it cannot be made, read or written, or
 * when its file is damaged. Nothing runs yet. */
jobs_sqlite *jobs_sqlite_open(const jobs_sqlite_config *cfg, cuzk_logger *log, cuzk_error *err);
/* The engine's job-end hook, set in its config before it is made. */
void jobs_sqlite_hook_engine(jobs_sqlite *j, cuzk_engine_config *ec);
/* The circuits kept are the caller's to register first (store_each_circuit);
 * then this queues again what was running and starts proving. */
int jobs_sqlite_start(jobs_sqlite *j, cuzk_engine *e, cuzk_error *err);
jobs_api *jobs_sqlite_api(jobs_sqlite *j);
sqlite_store *jobs_sqlite_store(jobs_sqlite *j);
/* Waits until no job of the store is left to prove (timeout_s < 0: no
 * limit): 0, or -1 when the time ran out. */
int jobs_sqlite_drain(jobs_sqlite *j, double timeout_s);
/* No partition goes to the engine from now on: what the engine is
 * proving finishes (or is cancelled by the caller and queued again). */
void jobs_sqlite_stop_feeding(jobs_sqlite *j);
/* Stops the threads after recording what the engine has finished (for
 * up to 10 s of store trouble); after the engine's drain, before it is
 * destroyed. */
void jobs_sqlite_destroy(jobs_sqlite *j);

typedef struct {
    const char *state_dir, *path;
    uint64_t bytes;
    double retain_s;
    int counts_ok; /* the store answered: counts is filled */
    store_counts counts;
    int in_engine; /* partitions handed to the engine now */
    uint64_t proofs_recorded, failures_recorded, requeued_at_start, store_errors;
    double record_s;             /* time spent recording proofs (commits included) */
    double claim_s;              /* and taking partitions from the store for the engine */
    uint64_t partitions_claimed;
} jobs_sqlite_stats;

void jobs_sqlite_get_stats(jobs_sqlite *j, jobs_sqlite_stats *s);

#endif
