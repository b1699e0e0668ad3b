/* Partitions proved one at a time as one-partition engine jobs, as the
 * cluster (its claims) and the job store (its queued partitions) hand them
 * to the engine. What both need:
 *   - a run's state in a caller's slot: free, submitting (the engine job's
 *     id not known yet), running;
 *   - the engine jobs that ended, queued by the engine's on_job_end hook
 *     (which must return at once) for a completer thread to record;
 *   - the engine's message of a one-partition job without its "partition
 *     0: ". */
#ifndef CUZK_JOBS_ENGINE_RUNS_H
#define CUZK_JOBS_ENGINE_RUNS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { RUN_FREE, RUN_SUBMITTING, RUN_RUNNING } run_state;

/* The first member of a caller's slot. */
typedef struct {
    run_state state;
    uint64_t engine_job; /* when running */
    int cancel_sent;     /* its job ended elsewhere: the engine job was cancelled */
} engine_run;

/* The slot (of n, stride bytes apart, each starting with its engine_run)
 * running engine job id, under lock; waits on cv while one is still being
 * submitted (its id unknown). NULL: none of these. */
void *engine_run_find_locked(void *slots, size_t stride, int n, uint64_t id, pthread_cond_t *cv,
                             pthread_mutex_t *lock);

/* The ended queue: at most cap ids (a slot's engine job ends once, so the
 * slots' count is enough); its own leaf lock. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    uint64_t *ids;
    int n, cap;
} ended_queue;

int ended_queue_init(ended_queue *q, int cap); /* 0, or -1 out of memory */
void ended_queue_destroy(ended_queue *q);
/* The engine's on_job_end hook, its context the queue. */
void ended_queue_hook(void *q, uint64_t job_id);
/* Wakes the waits (stopping). */
void ended_queue_wake(ended_queue *q);
/* Waits up to s seconds for a new id or a wake. */
void ended_queue_wait(ended_queue *q, double s);
/* The completer's next id, left in the queue until ended_queue_pop (a
 * record that fails is tried again). 0 when the completer should end:
 * *stopping is set and either *used (the slots in use, read under
 * used_lock) is 0 or grace_s has passed since the stop was first seen
 * (*stop_at, 0 at first). */
uint64_t ended_queue_next(ended_queue *q, atomic_int *stopping, const int *used, pthread_mutex_t *used_lock,
                          double grace_s, double *stop_at);
void ended_queue_pop(ended_queue *q);

/* Waits on cv (lock held) for up to s seconds of real time. */
void engine_run_timed_wait(pthread_cond_t *cv, pthread_mutex_t *lock, double s);

/* error without the engine's "partition 0: ". */
const char *engine_run_reason(const char *error);

#endif
