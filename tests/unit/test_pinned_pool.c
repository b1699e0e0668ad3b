/* Pinned pool tests: reuse within an exact size class and never across
 * classes, counters, the budget charged exactly once per buffer from
 * allocation to free, checkout waiting on a full budget, trim by idle time
 * (with `now` driven by the test), prewarm, failures counted and logged,
 * concurrent use, and the exact log texts and fields, parsed back from a
 * log file. Most tests use a fake host allocator, so buffers can claim
 * GiB sizes without the memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/pinned_pool.h"
#include "util/timer.h"

#define GIB (1024ULL * 1024 * 1024)
#define S (GIB + GIB / 2) /* 1.5 GiB */
#define T (GIB / 4)       /* 0.25 GiB */

/* ---- fake allocator ------------------------------------------------------ */

typedef struct {
    pthread_mutex_t mu;
    int allocs, frees, fail_next;
    uint64_t live_bytes;
} fake_alloc;

static void *fake_alloc_fn(void *ctx, size_t bytes)
{
    fake_alloc *f = ctx;
    pthread_mutex_lock(&f->mu);
    int fail = f->fail_next;
    f->fail_next = 0;
    if (!fail) {
        f->allocs++;
        f->live_bytes += bytes;
    }
    pthread_mutex_unlock(&f->mu);
    return fail ? NULL : malloc(16); /* a distinct address standing for `bytes` */
}

static void fake_free_fn(void *ctx, void *p, size_t bytes)
{
    fake_alloc *f = ctx;
    pthread_mutex_lock(&f->mu);
    f->frees++;
    f->live_bytes -= bytes;
    pthread_mutex_unlock(&f->mu);
    free(p);
}

static fake_alloc *fake_new(void)
{
    fake_alloc *f = calloc(1, sizeof *f);
    assert_non_null(f);
    pthread_mutex_init(&f->mu, NULL);
    return f;
}

static host_allocator fake_host(fake_alloc *f)
{
    return (host_allocator){fake_alloc_fn, fake_free_fn, f};
}

static void fake_delete(fake_alloc *f)
{
    assert_int_equal(f->allocs, f->frees); /* nothing leaked through the pool */
    assert_int_equal(f->live_bytes, 0);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static pool_stats pstats(pinned_pool *p)
{
    pool_stats s;
    pool_get_stats(p, &s);
    return s;
}

static uint64_t pinned_charged(cuzk_budget *b)
{
    budget_stats s;
    budget_get_stats(b, &s);
    return s.by_category[BUDGET_PINNED];
}

/* The budget holds exactly the pool's bytes under BUDGET_PINNED, idle or
 * out, plus `other` bytes someone else holds under other categories. */
static void assert_charged_once_plus(cuzk_budget *b, pinned_pool *p, fake_alloc *f, uint64_t other)
{
    budget_stats bs;
    budget_get_stats(b, &bs);
    pool_stats ps = pstats(p);
    assert_int_equal(bs.by_category[BUDGET_PINNED], ps.bytes_total);
    assert_int_equal(bs.used, ps.bytes_total + other);
    assert_int_equal(f->live_bytes, ps.bytes_total);
}

static void assert_charged_once(cuzk_budget *b, pinned_pool *p, fake_alloc *f)
{
    assert_charged_once_plus(b, p, f, 0);
}

#define FAR_FUTURE 1e12

/* ---- reuse and size classes --------------------------------------------- */

static void test_reuse_same_size(void **state)
{
    (void)state;
    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(8 * GIB);
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, NULL);
    assert_non_null(p);

    void *a = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 0, NULL);
    assert_non_null(a);
    pool_checkin(p, a, 1, 0);
    for (int i = 0; i < 5; i++) {
        void *again = pool_checkout(p, S, BUDGET_CLASS_NEW, 2, (uint32_t)i, NULL);
        assert_ptr_equal(again, a);
        pool_checkin(p, again, 2, (uint32_t)i);
    }
    pool_stats s = pstats(p);
    assert_int_equal(s.allocations, 1);
    assert_int_equal(s.reuses, 5);
    assert_int_equal(s.checkins, 6);
    assert_int_equal(s.frees, 0);
    assert_int_equal(s.alloc_failures, 0);
    assert_int_equal(s.buffers_total, 1);
    assert_int_equal(s.buffers_idle, 1);
    assert_int_equal(f->allocs, 1);

    pool_destroy(p);
    assert_int_equal(pinned_charged(b), 0);
    budget_destroy(b);
    fake_delete(f);
}

static void test_exact_classes_never_cross(void **state)
{
    (void)state;
    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(8 * GIB);
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, NULL);

    void *big = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 0, NULL);
    pool_checkin(p, big, 1, 0);
    /* An idle 1.5 GiB buffer is never handed to a smaller or larger request. */
    void *smaller = pool_checkout(p, S - 1, BUDGET_CLASS_NEW, 2, 0, NULL);
    void *small = pool_checkout(p, T, BUDGET_CLASS_NEW, 2, 1, NULL);
    void *larger = pool_checkout(p, S + 1, BUDGET_CLASS_NEW, 2, 2, NULL);
    assert_non_null(smaller);
    assert_non_null(small);
    assert_non_null(larger);
    assert_ptr_not_equal(smaller, big);
    assert_ptr_not_equal(small, big);
    assert_ptr_not_equal(larger, big);
    pool_stats s = pstats(p);
    assert_int_equal(s.allocations, 4);
    assert_int_equal(s.reuses, 0);
    assert_int_equal(s.buffers_idle, 1);
    assert_int_equal(s.bytes_total, S + (S - 1) + T + (S + 1));

    /* Each comes back to its own class. */
    pool_checkin(p, small, 2, 1);
    pool_checkin(p, smaller, 2, 0);
    pool_checkin(p, larger, 2, 2);
    assert_ptr_equal(pool_checkout(p, T, BUDGET_CLASS_NEW, 3, 0, NULL), small);
    assert_ptr_equal(pool_checkout(p, S, BUDGET_CLASS_NEW, 3, 1, NULL), big);
    assert_ptr_equal(pool_checkout(p, S + 1, BUDGET_CLASS_NEW, 3, 2, NULL), larger);
    assert_ptr_equal(pool_checkout(p, S - 1, BUDGET_CLASS_NEW, 3, 3, NULL), smaller);
    s = pstats(p);
    assert_int_equal(s.allocations, 4);
    assert_int_equal(s.reuses, 4);
    assert_int_equal(s.buffers_idle, 0);
    pool_checkin(p, small, 3, 0);
    pool_checkin(p, big, 3, 1);
    pool_checkin(p, larger, 3, 2);
    pool_checkin(p, smaller, 3, 3);

    pool_destroy(p);
    budget_destroy(b);
    fake_delete(f);
}

/* ---- budget accounting and counters ------------------------------------- */

static void test_budget_charged_once(void **state)
{
    (void)state;
    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(8 * GIB);
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, NULL);

    void *a = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 0, NULL);
    assert_int_equal(pinned_charged(b), S);
    assert_charged_once(b, p, f);
    pool_checkin(p, a, 1, 0); /* idle still counts */
    assert_int_equal(pinned_charged(b), S);
    a = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 1, NULL); /* reuse charges nothing more */
    assert_int_equal(pinned_charged(b), S);
    void *a2 = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 2, NULL);
    void *c = pool_checkout(p, T, BUDGET_CLASS_NEW, 1, 3, NULL);
    assert_int_equal(pinned_charged(b), 2 * S + T);
    assert_charged_once(b, p, f);

    /* An unknown pointer is refused (logged), and changes nothing. */
    int bogus;
    pool_checkin(p, &bogus, 1, 4);
    pool_stats s = pstats(p);
    assert_int_equal(s.checkins, 1);
    assert_int_equal(s.buffers_idle, 0);

    pool_checkin(p, a, 1, 1);
    pool_checkin(p, a2, 1, 2);
    pool_checkin(p, c, 1, 3);
    assert_int_equal(pinned_charged(b), 2 * S + T);
    s = pstats(p);
    assert_int_equal(s.allocations, 3);
    assert_int_equal(s.reuses, 1);
    assert_int_equal(s.checkins, 4);
    assert_int_equal(s.buffers_total, 3);
    assert_int_equal(s.buffers_idle, 3);
    assert_int_equal(s.bytes_total, 2 * S + T);
    assert_int_equal(s.bytes_peak, 2 * S + T);

    /* Freed: released, and only after the allocator's free. */
    assert_int_equal(pool_trim_idle(p, FAR_FUTURE), 3);
    s = pstats(p);
    assert_int_equal(s.frees, 3);
    assert_int_equal(s.buffers_total, 0);
    assert_int_equal(s.bytes_total, 0);
    assert_int_equal(s.bytes_peak, 2 * S + T);
    assert_int_equal(pinned_charged(b), 0);
    assert_int_equal(f->frees, 3);
    assert_charged_once(b, p, f);

    pool_destroy(p);
    budget_destroy(b);
    fake_delete(f);
}

static void test_failures_counted(void **state)
{
    (void)state;
    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(2 * GIB);
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, NULL);

    /* The allocator says no: NULL, counted, and the budget charge undone. */
    f->fail_next = 1;
    assert_null(pool_checkout(p, GIB, BUDGET_CLASS_NEW, 1, 0, NULL));
    pool_stats s = pstats(p);
    assert_int_equal(s.alloc_failures, 1);
    assert_int_equal(s.allocations, 0);
    assert_int_equal(pinned_charged(b), 0);

    /* Above the budget's limit: it could never fit, so no waiting. */
    assert_null(pool_checkout(p, 2 * GIB + 1, BUDGET_CLASS_NEW, 1, 1, NULL));
    assert_int_equal(pstats(p).alloc_failures, 2);
    assert_null(pool_checkout(p, 0, BUDGET_CLASS_NEW, 1, 2, NULL));
    assert_int_equal(pstats(p).alloc_failures, 3);

    /* A cancelled checkout is not an allocation failure. */
    atomic_int cancel = 1;
    assert_null(pool_checkout(p, GIB, BUDGET_CLASS_NEW, 1, 3, &cancel));
    s = pstats(p);
    assert_int_equal(s.alloc_failures, 3);
    assert_int_equal(s.allocations, 0);
    assert_int_equal(pinned_charged(b), 0);

    pool_destroy(p);
    budget_destroy(b);
    fake_delete(f);
}

/* ---- waiting on the budget ---------------------------------------------- */

/* Evictor that only reports it was asked: the signal that a checkout is
 * blocked in budget_acquire (the head waiter asks before sleeping). */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls;
} evict_probe;

static uint64_t evict_probe_fn(void *ctx, uint64_t need)
{
    (void)need;
    evict_probe *e = ctx;
    pthread_mutex_lock(&e->mu);
    e->calls++;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    return 0;
}

/* Installs e as b's evictor. */
static void evict_probe_attach(evict_probe *e, cuzk_budget *b)
{
    e->calls = 0;
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    budget_set_evictor(b, evict_probe_fn, e);
}

static void evict_probe_detach(evict_probe *e, cuzk_budget *b)
{
    budget_set_evictor(b, NULL, NULL);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
}

static void evict_probe_wait(evict_probe *e, int calls)
{
    pthread_mutex_lock(&e->mu);
    while (e->calls < calls)
        pthread_cond_wait(&e->cv, &e->mu);
    pthread_mutex_unlock(&e->mu);
}

typedef struct {
    pinned_pool *p;
    size_t bytes;
    const atomic_int *cancel;
    void *result;
    pthread_t th;
} checkout_arg;

static void *checkout_run(void *arg)
{
    checkout_arg *c = arg;
    c->result = pool_checkout(c->p, c->bytes, BUDGET_CLASS_NEW, 42, 7, c->cancel);
    return NULL;
}

static void test_checkout_waits_for_budget(void **state)
{
    (void)state;
    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(2 * S);
    evict_probe probe;
    evict_probe_attach(&probe, b);
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, NULL);

    void *a = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 0, NULL);
    void *a2 = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 1, NULL);
    assert_non_null(a);
    assert_non_null(a2);
    assert_int_equal(probe.calls, 0);

    /* The budget is full: a new size must wait, not exceed it. */
    checkout_arg w = {.p = p, .bytes = T};
    assert_int_equal(pthread_create(&w.th, NULL, checkout_run, &w), 0);
    evict_probe_wait(&probe, 1);
    assert_int_equal(pstats(p).allocations, 2);

    /* Checking a buffer in frees no budget (idle buffers count) ... */
    pool_checkin(p, a2, 1, 1);
    assert_int_equal(pinned_charged(b), 2 * S);
    /* ... trimming it does, and the waiter proceeds. */
    assert_int_equal(pool_trim_idle(p, FAR_FUTURE), 1);
    pthread_join(w.th, NULL);
    assert_non_null(w.result);
    pool_stats s = pstats(p);
    assert_int_equal(s.allocations, 3);
    assert_int_equal(s.frees, 1);
    assert_int_equal(s.bytes_total, S + T);
    assert_charged_once(b, p, f);

    /* A waiting checkout that is cancelled returns NULL and takes nothing. */
    void *fill = pool_checkout(p, S - T, BUDGET_CLASS_NEW, 1, 2, NULL); /* budget full again */
    assert_non_null(fill);
    atomic_int cancel = 0;
    checkout_arg wc = {.p = p, .bytes = T, .cancel = &cancel};
    int calls = probe.calls;
    assert_int_equal(pthread_create(&wc.th, NULL, checkout_run, &wc), 0);
    evict_probe_wait(&probe, calls + 1);
    cancel = 1;
    budget_wake_all(b);
    pthread_join(wc.th, NULL);
    assert_null(wc.result);
    s = pstats(p);
    assert_int_equal(s.allocations, 4);
    assert_int_equal(s.alloc_failures, 0);
    assert_charged_once(b, p, f);

    pool_checkin(p, a, 1, 0);
    pool_checkin(p, w.result, 42, 7);
    pool_checkin(p, fill, 1, 2);
    pool_destroy(p);
    assert_int_equal(pinned_charged(b), 0);
    evict_probe_detach(&probe, b);
    budget_destroy(b);
    fake_delete(f);
}

/* A checkout waiting for the budget is woken by a checkin of its size and
 * takes that buffer: it must not sleep next to an idle twin until
 * something unrelated frees memory. */
static void test_waiter_takes_buffer_checked_in_meanwhile(void **state)
{
    (void)state;
    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(2 * S);
    evict_probe probe;
    evict_probe_attach(&probe, b);
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, NULL);

    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, S, NULL), 0);
    void *a = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 0, NULL); /* budget now full */
    checkout_arg w = {.p = p, .bytes = S};
    assert_int_equal(pthread_create(&w.th, NULL, checkout_run, &w), 0);
    evict_probe_wait(&probe, 1); /* blocked in budget_acquire */
    pool_checkin(p, a, 1, 0);    /* frees no budget, but is the right size */
    pthread_join(w.th, NULL);
    assert_ptr_equal(w.result, a);
    assert_int_equal(pinned_charged(b), S); /* the budget never moved */
    pool_stats s = pstats(p);
    assert_int_equal(s.allocations, 1);
    assert_int_equal(s.reuses, 1);
    assert_int_equal(f->allocs, 1);
    assert_charged_once_plus(b, p, f, S);

    pool_checkin(p, a, 42, 7);
    budget_release(b, BUDGET_PARTITIONS, S);
    pool_destroy(p);
    evict_probe_detach(&probe, b);
    budget_destroy(b);
    fake_delete(f);
}

/* Under budget pressure an idle buffer of another size is freed (it could
 * not serve the request) rather than left to the idle timeout. */
static void test_pressure_frees_idle_of_other_size(void **state)
{
    (void)state;
    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(2 * S);
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, NULL);
    void *a = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 0, NULL);
    void *a2 = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 1, NULL);
    pool_checkin(p, a2, 1, 1);
    void *t = pool_checkout(p, T, BUDGET_CLASS_NEW, 2, 0, NULL); /* no waiting: the idle S goes */
    assert_non_null(t);
    pool_stats s = pstats(p);
    assert_int_equal(s.allocations, 3);
    assert_int_equal(s.frees, 1);
    assert_int_equal(s.buffers_total, 2);
    assert_int_equal(s.buffers_idle, 0);
    assert_charged_once(b, p, f);
    pool_checkin(p, a, 1, 0);
    pool_checkin(p, t, 2, 0);
    pool_destroy(p);
    budget_destroy(b);
    fake_delete(f);
}

/* ---- trim and prewarm ---------------------------------------------------- */

/* Lets the monotonic clock move past t by at least dt. The assertions
 * depend only on the order of the timestamps, not on how long this takes. */
static double clock_after(double t, double dt)
{
    const struct timespec tick = {0, 200000};
    double now;
    while ((now = cuzk_now_s()) < t + dt)
        nanosleep(&tick, NULL);
    return now;
}

static void test_trim_frees_only_long_idle(void **state)
{
    (void)state;
    const double timeout = 10.0;
    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(8 * GIB);
    pinned_pool *p = pool_create(b, fake_host(f), timeout, NULL);

    void *a = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 0, NULL);
    void *bb = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 1, NULL);
    void *out = pool_checkout(p, T, BUDGET_CLASS_NEW, 1, 2, NULL); /* stays checked out */

    double t0 = cuzk_now_s();
    pool_checkin(p, a, 1, 0); /* a idle since some ta in [t0, t1] */
    double t1 = cuzk_now_s();
    double t2 = clock_after(t1, 0.001);
    pool_checkin(p, bb, 1, 1); /* bb idle since some tb >= t2 */

    /* At t0 + 9.999 even a has been idle at most 9.999 s. */
    assert_int_equal(pool_trim_idle(p, t0 + timeout - 0.001), 0);
    assert_int_equal(pstats(p).buffers_total, 3);
    /* At t2 + 9.9995: a idle >= 10.0005 s (freed), bb <= 9.9995 s (kept). */
    assert_int_equal(pool_trim_idle(p, t2 + timeout - 0.0005), 1);
    pool_stats s = pstats(p);
    assert_int_equal(s.buffers_total, 2);
    assert_int_equal(s.buffers_idle, 1);
    assert_int_equal(s.frees, 1);
    assert_int_equal(pinned_charged(b), S + T);
    /* The survivor is bb. */
    void *again = pool_checkout(p, S, BUDGET_CLASS_NEW, 2, 0, NULL);
    assert_ptr_equal(again, bb);
    pool_checkin(p, again, 2, 0);

    /* A checked-out buffer is never trimmed, however late it is. */
    assert_int_equal(pool_trim_idle(p, FAR_FUTURE), 1);
    s = pstats(p);
    assert_int_equal(s.buffers_total, 1);
    assert_int_equal(s.buffers_idle, 0);
    pool_checkin(p, out, 1, 2);
    assert_int_equal(pool_trim_idle(p, FAR_FUTURE), 1);
    assert_int_equal(pstats(p).buffers_total, 0);
    assert_charged_once(b, p, f);

    pool_destroy(p);
    budget_destroy(b);
    fake_delete(f);
}

static void test_prewarm(void **state)
{
    (void)state;
    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(3 * S);
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, NULL);

    assert_int_equal(pool_prewarm(p, S, 2), 2);
    pool_stats s = pstats(p);
    assert_int_equal(s.allocations, 2);
    assert_int_equal(s.buffers_idle, 2);
    assert_int_equal(pinned_charged(b), 2 * S);
    assert_int_equal(pool_prewarm(p, S, 2), 0); /* already there */
    assert_int_equal(pool_prewarm(p, S, 5), 1); /* only what the budget has room for, without waiting */
    assert_int_equal(pool_prewarm(p, T, 1), 0); /* budget full */
    s = pstats(p);
    assert_int_equal(s.allocations, 3);
    assert_int_equal(s.alloc_failures, 0);
    assert_charged_once(b, p, f);

    /* The first checkouts are reuses: no allocation on the hot path. */
    void *x = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 0, NULL);
    void *y = pool_checkout(p, S, BUDGET_CLASS_NEW, 1, 1, NULL);
    s = pstats(p);
    assert_int_equal(s.reuses, 2);
    assert_int_equal(s.allocations, 3);
    /* One idle is left; prewarming to 2 adds nothing (no room) ... */
    assert_int_equal(pool_prewarm(p, S, 2), 0);
    pool_checkin(p, x, 1, 0);
    pool_checkin(p, y, 1, 1);
    /* ... and a failing allocator is counted. */
    assert_int_equal(pool_trim_idle(p, FAR_FUTURE), 3);
    f->fail_next = 1;
    assert_int_equal(pool_prewarm(p, S, 1), 0);
    assert_int_equal(pstats(p).alloc_failures, 1);
    assert_int_equal(pinned_charged(b), 0);

    pool_destroy(p);
    budget_destroy(b);
    fake_delete(f);
}

/* ---- real pages ---------------------------------------------------------- */

static void test_pageable_allocator(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(1 << 20);
    pinned_pool *p = pool_create(b, host_allocator_pageable(), 60.0, NULL);
    const size_t n = 1000; /* not a multiple of 64 */
    unsigned char *buf = pool_checkout(p, n, BUDGET_CLASS_NEW, 1, 0, NULL);
    assert_non_null(buf);
    assert_int_equal((uintptr_t)buf % 64, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(buf[i], 0); /* touched (zeroed) at allocation */
    memset(buf, 0xab, n);            /* the whole size is usable (the sanitizer checks) */
    pool_checkin(p, buf, 1, 0);
    assert_ptr_equal(pool_checkout(p, n, BUDGET_CLASS_NEW, 2, 0, NULL), buf);
    pool_checkin(p, buf, 2, 0);
    pool_destroy(p);
    assert_int_equal(pinned_charged(b), 0);
    budget_destroy(b);
}

/* ---- concurrency --------------------------------------------------------- */

#define WORKERS 4
#define ROUNDS 400

typedef struct {
    pinned_pool *p;
    pthread_mutex_t *mu;
    void **held; /* buffers checked out now, by anyone */
    int id, duplicates, nulls;
} worker_arg;

static void *worker_run(void *arg)
{
    worker_arg *w = arg;
    for (int i = 0; i < ROUNDS; i++) {
        size_t bytes = (i + w->id) % 3 ? S : T;
        void *buf = pool_checkout(w->p, bytes, BUDGET_CLASS_NEW, (uint64_t)w->id, (uint32_t)i, NULL);
        if (!buf) {
            w->nulls++;
            continue;
        }
        pthread_mutex_lock(w->mu);
        for (int k = 0; k < WORKERS; k++)
            w->duplicates += w->held[k] == buf; /* two holders of one buffer */
        w->held[w->id] = buf;
        pthread_mutex_unlock(w->mu);

        pthread_mutex_lock(w->mu);
        w->held[w->id] = NULL;
        pthread_mutex_unlock(w->mu);
        pool_checkin(w->p, buf, (uint64_t)w->id, (uint32_t)i);
    }
    return NULL;
}

static void test_concurrent_checkout_checkin(void **state)
{
    (void)state;
    fake_alloc *f = fake_new();
    /* Each worker holds one buffer at a time, so a class never needs more
     * than WORKERS buffers: this limit is never reached. */
    cuzk_budget *b = budget_create(WORKERS * (S + T));
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, NULL);
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    void *held[WORKERS] = {0};
    pthread_t th[WORKERS];
    worker_arg args[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        args[i] = (worker_arg){.p = p, .mu = &mu, .held = held, .id = i};
        assert_int_equal(pthread_create(&th[i], NULL, worker_run, &args[i]), 0);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < WORKERS; i++) {
        assert_int_equal(args[i].duplicates, 0);
        assert_int_equal(args[i].nulls, 0);
    }
    pool_stats s = pstats(p);
    assert_int_equal(s.allocations + s.reuses, WORKERS * ROUNDS);
    assert_int_equal(s.checkins, WORKERS * ROUNDS);
    assert_int_equal(s.buffers_idle, s.buffers_total);
    assert_true(s.buffers_total <= 2 * WORKERS);
    assert_int_equal(s.allocations, s.buffers_total); /* nothing freed */
    assert_charged_once(b, p, f);
    pool_destroy(p);
    budget_destroy(b);
    fake_delete(f);
}

/* ---- the log ------------------------------------------------------------- */

#define MAX_FIELDS 8

typedef struct {
    char level[16];
    char msg[96];
    int n;
    char key[MAX_FIELDS][32];
    char val[MAX_FIELDS][32];
} log_line;

/* Parses `ts=... level=L msg="M" k=v ...`; 0 or -1. */
static int log_line_parse(const char *s, log_line *out)
{
    memset(out, 0, sizeof *out);
    int used = 0;
    if (strncmp(s, "ts=", 3) != 0 || !(s = strchr(s, ' ')))
        return -1;
    if (sscanf(s, " level=%15s msg=\"%n", out->level, &used) != 1 || used == 0)
        return -1;
    s += used;
    size_t m = 0;
    for (; *s && *s != '"'; s++) {
        if (*s == '\\')
            s++;
        if (m + 1 >= sizeof out->msg)
            return -1;
        out->msg[m++] = *s;
    }
    if (*s++ != '"')
        return -1;
    while (*s == ' ') {
        const char *eq = strchr(s + 1, '='), *end = strchr(s + 1, ' ');
        if (!end)
            end = s + strlen(s);
        if (!eq || eq > end || out->n == MAX_FIELDS)
            return -1;
        snprintf(out->key[out->n], sizeof out->key[0], "%.*s", (int)(eq - s - 1), s + 1);
        snprintf(out->val[out->n], sizeof out->val[0], "%.*s", (int)(end - eq - 1), eq + 1);
        out->n++;
        s = end;
    }
    return *s == '\0' ? 0 : -1;
}

typedef struct {
    const char *level, *msg, *fields; /* fields as "k=v k=v", in order */
} expected_line;

static void assert_line(const log_line *l, const expected_line *e)
{
    assert_string_equal(l->level, e->level);
    assert_string_equal(l->msg, e->msg);
    char got[256] = "";
    for (int i = 0; i < l->n; i++) {
        size_t len = strlen(got);
        snprintf(got + len, sizeof got - len, "%s%s=%s", i ? " " : "", l->key[i], l->val[i]);
    }
    assert_string_equal(got, e->fields);
}

static void test_log_texts_and_fields(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/cuzk_test_pool_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cuzk_logger *lg = cuzk_logger_open(path, CUZK_LOG_INFO);
    assert_non_null(lg);

    fake_alloc *f = fake_new();
    cuzk_budget *b = budget_create(8 * GIB);
    pinned_pool *p = pool_create(b, fake_host(f), 60.0, lg);
    void *a = pool_checkout(p, S, BUDGET_CLASS_NEW, 7, 2, NULL);
    pool_checkin(p, a, 7, 2);
    a = pool_checkout(p, S, BUDGET_CLASS_NEW, 8, 0, NULL);
    void *c = pool_checkout(p, T, BUDGET_CLASS_NEW, 9, 1, NULL);
    pool_checkin(p, c, 9, 1);
    pool_checkin(p, a, 8, 0);
    assert_int_equal(pool_trim_idle(p, FAR_FUTURE), 2);
    f->fail_next = 1;
    assert_null(pool_checkout(p, GIB, BUDGET_CLASS_NEW, 10, 3, NULL));
    pool_destroy(p);
    budget_destroy(b);
    fake_delete(f);
    cuzk_logger_close(lg);

    static const expected_line want[] = {
        {"info", "pinned pool: allocated new buffer", "size_gib=1.500 total_buffers=1 total_gib=1.500"},
        {"info", "pinned pool: checkout (alloc)", "size_gib=1.500 job_id=7 partition=2 free_remaining=0"},
        {"info", "pinned pool: checkin", "size_gib=1.500 job_id=7 partition=2 free_remaining=1"},
        {"info", "pinned pool: checkout (reuse)", "size_gib=1.500 job_id=8 partition=0 free_remaining=0"},
        {"info", "pinned pool: allocated new buffer", "size_gib=0.250 total_buffers=2 total_gib=1.750"},
        {"info", "pinned pool: checkout (alloc)", "size_gib=0.250 job_id=9 partition=1 free_remaining=0"},
        {"info", "pinned pool: checkin", "size_gib=0.250 job_id=9 partition=1 free_remaining=1"},
        {"info", "pinned pool: checkin", "size_gib=1.500 job_id=8 partition=0 free_remaining=1"},
        {"info", "pinned pool: freed idle buffer", "size_gib=0.250 total_buffers=1 total_gib=1.500"},
        {"info", "pinned pool: freed idle buffer", "size_gib=1.500 total_buffers=0 total_gib=0.000"},
        {"warn", "pinned pool: allocation failed", "size_gib=1.000 reason=host_alloc job_id=10 partition=3"},
    };
    const size_t n_want = sizeof want / sizeof *want;

    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char buf[512];
    size_t n = 0;
    while (fgets(buf, sizeof buf, in)) {
        size_t len = strlen(buf);
        assert_true(len > 0 && buf[len - 1] == '\n');
        buf[len - 1] = '\0';
        log_line l;
        assert_int_equal(log_line_parse(buf, &l), 0);
        assert_true(n < n_want);
        assert_line(&l, &want[n]);
        n++;
    }
    fclose(in);
    assert_int_equal(n, n_want);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_same_size),
        cmocka_unit_test(test_exact_classes_never_cross),
        cmocka_unit_test(test_budget_charged_once),
        cmocka_unit_test(test_failures_counted),
        cmocka_unit_test(test_checkout_waits_for_budget),
        cmocka_unit_test(test_waiter_takes_buffer_checked_in_meanwhile),
        cmocka_unit_test(test_pressure_frees_idle_of_other_size),
        cmocka_unit_test(test_trim_frees_only_long_idle),
        cmocka_unit_test(test_prewarm),
        cmocka_unit_test(test_pageable_allocator),
        cmocka_unit_test(test_concurrent_checkout_checkin),
        cmocka_unit_test(test_log_texts_and_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
