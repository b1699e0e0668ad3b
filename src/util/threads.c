#include "util/threads.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    cuzk_range_fn fn;
    void *ctx;
    size_t begin, end;
    int tid;
} range_task;

static void *range_task_run(void *arg)
{
    range_task *t = arg;
    t->fn(t->ctx, t->begin, t->end, t->tid);
    return NULL;
}

void cuzk_parallel_for(int nthreads, size_t n, cuzk_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (nthreads < 1)
        nthreads = 1;
    if ((size_t)nthreads > n)
        nthreads = (int)n;
    if (nthreads == 1) {
        fn(ctx, 0, n, 0);
        return;
    }
    range_task *tasks = calloc((size_t)nthreads, sizeof *tasks);
    pthread_t *threads = calloc((size_t)nthreads, sizeof *threads);
    char *started = calloc((size_t)nthreads, 1);
    if (!tasks || !threads || !started) {
        free(tasks);
        free(threads);
        free(started);
        fn(ctx, 0, n, 0);
        return;
    }
    size_t chunk = n / (size_t)nthreads, extra = n % (size_t)nthreads, at = 0;
    for (int i = 0; i < nthreads; i++) {
        size_t len = chunk + ((size_t)i < extra);
        tasks[i] = (range_task){fn, ctx, at, at + len, i};
        at += len;
    }
    for (int i = 1; i < nthreads; i++)
        started[i] = pthread_create(&threads[i], NULL, range_task_run, &tasks[i]) == 0;
    range_task_run(&tasks[0]);
    for (int i = 1; i < nthreads; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        else
            range_task_run(&tasks[i]);
    }
    free(tasks);
    free(threads);
    free(started);
}

int cuzk_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
