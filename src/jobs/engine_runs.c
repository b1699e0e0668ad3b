#include "jobs/engine_runs.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/timer.h"

void *engine_run_find_locked(void *slots, size_t stride, int n, uint64_t id, pthread_cond_t *cv,
                             pthread_mutex_t *lock)
{
    for (;;) {
        int submitting = 0;
        for (int i = 0; i < n; i++) {
            engine_run *r = (engine_run *)((char *)slots + (size_t)i * stride);
            if (r->state == RUN_RUNNING && r->engine_job == id)
                return r;
            submitting |= r->state == RUN_SUBMITTING;
        }
        if (!submitting)
            return NULL;
        pthread_cond_wait(cv, lock);
    }
}

void engine_run_timed_wait(pthread_cond_t *cv, pthread_mutex_t *lock, double s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + ts.tv_nsec / 1e9 + (s > 0 ? s : 0);
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    pthread_cond_timedwait(cv, lock, &ts);
}

const char *engine_run_reason(const char *error)
{
    static const char prefix[] = "partition 0: ";
    return strncmp(error, prefix, sizeof prefix - 1) ? error : error + sizeof prefix - 1;
}

int ended_queue_init(ended_queue *q, int cap)
{
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->cv, NULL);
    q->n = 0;
    q->cap = cap;
    q->ids = calloc((size_t)(cap > 0 ? cap : 1), sizeof *q->ids);
    return q->ids ? 0 : -1;
}

void ended_queue_destroy(ended_queue *q)
{
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cv);
    free(q->ids);
    q->ids = NULL;
}

void ended_queue_hook(void *ctx, uint64_t job_id)
{
    ended_queue *q = ctx;
    pthread_mutex_lock(&q->lock);
    if (q->n < q->cap)
        q->ids[q->n++] = job_id;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->lock);
}

void ended_queue_wake(ended_queue *q)
{
    pthread_mutex_lock(&q->lock);
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->lock);
}

void ended_queue_wait(ended_queue *q, double s)
{
    pthread_mutex_lock(&q->lock);
    engine_run_timed_wait(&q->cv, &q->lock, s);
    pthread_mutex_unlock(&q->lock);
}

uint64_t ended_queue_next(ended_queue *q, atomic_int *stopping, const int *used, pthread_mutex_t *used_lock,
                          double grace_s, double *stop_at)
{
    for (;;) {
        pthread_mutex_lock(&q->lock);
        while (!q->n && !atomic_load(stopping))
            pthread_cond_wait(&q->cv, &q->lock);
        uint64_t id = q->n ? q->ids[0] : 0;
        pthread_mutex_unlock(&q->lock);
        if (!atomic_load(stopping))
            return id;
        if (!*stop_at)
            *stop_at = cuzk_now_s() + grace_s;
        pthread_mutex_lock(used_lock);
        int busy = *used;
        pthread_mutex_unlock(used_lock);
        if (!busy || cuzk_now_s() > *stop_at)
            return 0;
        if (id)
            return id;
        ended_queue_wait(q, 0.1);
    }
}

void ended_queue_pop(ended_queue *q)
{
    pthread_mutex_lock(&q->lock);
    if (q->n)
        memmove(q->ids, q->ids + 1, (size_t)--q->n * sizeof *q->ids);
    pthread_mutex_unlock(&q->lock);
}
