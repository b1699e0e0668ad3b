#include "util/threads.h"

#include <pthread.h>
#include <stdatomic.h>
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

typedef struct {
    cuzk_range_fn fn;
    void *ctx;
    size_t n, piece;
    atomic_size_t next; /* the first item not yet taken */
} pieces_job;

/* one thread's share: pieces taken in turn until none is left */
static void pieces_take(void *vctx, size_t begin, size_t end, int tid)
{
    (void)begin, (void)end;
    pieces_job *j = vctx;
    for (;;) {
        const size_t at = atomic_fetch_add_explicit(&j->next, j->piece, memory_order_relaxed);
        if (at >= j->n)
            return;
        j->fn(j->ctx, at, j->n - at < j->piece ? j->n : at + j->piece, tid);
    }
}

void cuzk_parallel_pieces(int nthreads, size_t n, size_t piece, cuzk_range_fn fn, void *ctx)
{
    if (piece == 0)
        piece = 1;
    pieces_job j = {.fn = fn, .ctx = ctx, .n = n, .piece = piece};
    atomic_init(&j.next, 0);
    const size_t pieces = n / piece + (n % piece != 0);
    cuzk_parallel_for(nthreads, pieces, pieces_take, &j); /* one share a thread */
}

int cuzk_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
