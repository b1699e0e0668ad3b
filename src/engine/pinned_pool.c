#include "engine/pinned_pool.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/timer.h"

#define POOL_GIB 1073741824.0

/* An idle buffer and when it was last checked in (or prewarmed). */
typedef struct {
    void *ptr;
    double last_used;
} pool_idle;

/* All buffers of one exact size. The idle stack is pushed and popped at the
 * top, so the most recently used buffer is reused first (warm in cache and
 * TLB) and the bottom holds the longest idle: trim only ever looks there.
 * cap >= n_total at all times, so a checkin never needs memory. */
typedef struct {
    size_t bytes;
    pool_idle *idle;
    size_t n_idle, cap;
    size_t n_total; /* idle + checked out */
} pool_class;

/* A checked-out buffer, remembered so checkin knows its size. */
typedef struct {
    void *ptr;
    size_t bytes;
} pool_out;

/* A checkout blocked in budget_acquire for a new buffer. budget_acquire
 * watches `stop`, which the pool sets when a buffer of this size is checked
 * in (take it instead: otherwise the checkout would sleep next to an idle
 * twin until something unrelated freed memory) or when the caller's cancel
 * flag is found set after a budget_wake_all. */
typedef struct pool_waiter {
    size_t bytes;
    const atomic_int *cancel;
    atomic_int stop;
    struct pool_waiter *next;
} pool_waiter;

struct pinned_pool {
    pthread_mutex_t mu; /* guards what follows; never held across a buffer's allocation or free, nor a budget wait */
    cuzk_budget *budget;
    host_allocator alloc;
    double idle_timeout_s;
    cuzk_logger *log;
    pool_class *classes;
    size_t n_classes, cap_classes;
    struct pool_waiter *waiters; /* checkouts blocked in budget_acquire, oldest first */
    pool_out *out; /* cap_out >= st.buffers_total, so a reuse never needs memory */
    size_t n_out, cap_out;
    pool_stats st;
};

/* ---- bookkeeping (all *_locked with p->mu held) ------------------------- */

static double pool_gib(uint64_t bytes)
{
    return (double)bytes / POOL_GIB;
}

/* Grows *arr to hold at least `need` elements; 0 or -1. */
static int pool_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (*cap >= need)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 4;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(*arr, ncap * elem);
    if (!n)
        return -1;
    *arr = n;
    *cap = ncap;
    return 0;
}

static pool_class *pool_class_find_locked(pinned_pool *p, size_t bytes)
{
    for (size_t i = 0; i < p->n_classes; i++)
        if (p->classes[i].bytes == bytes)
            return &p->classes[i];
    return NULL;
}

static pool_class *pool_class_get_locked(pinned_pool *p, size_t bytes)
{
    pool_class *c = pool_class_find_locked(p, bytes);
    if (c)
        return c;
    if (pool_grow((void **)&p->classes, &p->cap_classes, p->n_classes + 1, sizeof *p->classes) != 0)
        return NULL;
    c = &p->classes[p->n_classes++];
    *c = (pool_class){.bytes = bytes};
    return c;
}

static void pool_push_idle_locked(pinned_pool *p, pool_class *c, void *ptr, double now)
{
    c->idle[c->n_idle++] = (pool_idle){ptr, now};
    p->st.buffers_idle++;
}

/* Adds a freshly allocated buffer, checked out or idle; 0 or -1 (no memory
 * for the bookkeeping: nothing changed). */
static int pool_register_locked(pinned_pool *p, void *ptr, size_t bytes, int checked_out, size_t *free_remaining)
{
    pool_class *c = pool_class_get_locked(p, bytes);
    if (!c || pool_grow((void **)&c->idle, &c->cap, c->n_total + 1, sizeof *c->idle) != 0 ||
        pool_grow((void **)&p->out, &p->cap_out, (size_t)p->st.buffers_total + 1, sizeof *p->out) != 0)
        return -1;
    c->n_total++;
    p->st.allocations++;
    p->st.buffers_total++;
    p->st.bytes_total += bytes;
    if (p->st.bytes_total > p->st.bytes_peak)
        p->st.bytes_peak = p->st.bytes_total;
    if (checked_out)
        p->out[p->n_out++] = (pool_out){ptr, bytes};
    else
        pool_push_idle_locked(p, c, ptr, cuzk_now_s());
    *free_remaining = c->n_idle;
    return 0;
}

/* Takes, among classes other than `except_bytes` (0: any), the buffer idle
 * the longest (the bottom of its class's stack), if it has been idle for
 * more than min_idle_s at `now`. It leaves the pool's books here; the caller
 * frees it without the lock. */
static int pool_take_oldest_idle_locked(pinned_pool *p, size_t except_bytes, double now, double min_idle_s,
                                        void **ptr, size_t *bytes)
{
    pool_class *oldest = NULL;
    for (size_t i = 0; i < p->n_classes; i++) {
        pool_class *c = &p->classes[i];
        if (c->n_idle == 0 || c->bytes == except_bytes || !(now - c->idle[0].last_used > min_idle_s))
            continue;
        if (!oldest || c->idle[0].last_used < oldest->idle[0].last_used)
            oldest = c;
    }
    if (!oldest)
        return 0;
    *ptr = oldest->idle[0].ptr;
    *bytes = oldest->bytes;
    memmove(oldest->idle, oldest->idle + 1, (oldest->n_idle - 1) * sizeof *oldest->idle);
    oldest->n_idle--;
    oldest->n_total--;
    p->st.buffers_idle--;
    p->st.buffers_total--;
    p->st.bytes_total -= oldest->bytes;
    p->st.frees++;
    return 1;
}

/* Pops the most recently used idle buffer of exactly `bytes` into the
 * checked-out list, if there is one. */
static void *pool_take_idle_locked(pinned_pool *p, size_t bytes, size_t *free_remaining)
{
    pool_class *c = pool_class_find_locked(p, bytes);
    if (!c || c->n_idle == 0)
        return NULL;
    void *ptr = c->idle[--c->n_idle].ptr;
    p->out[p->n_out++] = (pool_out){ptr, bytes};
    p->st.buffers_idle--;
    p->st.reuses++;
    *free_remaining = c->n_idle;
    return ptr;
}

/* ---- events -------------------------------------------------------------- */

/* Every request the pool could not serve is counted and logged: a caller
 * that falls back to pageable memory must never do so silently. job_id is
 * NULL for prewarm. */
static void pool_fail(pinned_pool *p, size_t bytes, const char *reason, const uint64_t *job_id, uint32_t partition)
{
    pthread_mutex_lock(&p->mu);
    p->st.alloc_failures++;
    pthread_mutex_unlock(&p->mu);
    if (job_id)
        CUZK_LOG(p->log, CUZK_LOG_WARN, "pinned pool: allocation failed",
                 "size_gib=%.3f reason=%s job_id=%" PRIu64 " partition=%" PRIu32, pool_gib(bytes), reason, *job_id,
                 partition);
    else
        CUZK_LOG(p->log, CUZK_LOG_WARN, "pinned pool: allocation failed", "size_gib=%.3f reason=%s origin=prewarm",
                 pool_gib(bytes), reason);
}

static void pool_log_checkout(pinned_pool *p, const char *msg, size_t bytes, uint64_t job_id, uint32_t partition,
                              size_t free_remaining)
{
    CUZK_LOG(p->log, CUZK_LOG_INFO, msg, "size_gib=%.3f job_id=%" PRIu64 " partition=%" PRIu32 " free_remaining=%zu",
             pool_gib(bytes), job_id, partition, free_remaining);
}

/* Frees one idle buffer chosen as in pool_take_oldest_idle_locked, then
 * gives its bytes back to the budget; 1 when one was freed. */
static int pool_free_oldest_idle(pinned_pool *p, size_t except_bytes, double now, double min_idle_s)
{
    void *ptr;
    size_t bytes;
    pthread_mutex_lock(&p->mu);
    int got = pool_take_oldest_idle_locked(p, except_bytes, now, min_idle_s, &ptr, &bytes);
    uint64_t total_buffers = p->st.buffers_total, total_bytes = p->st.bytes_total;
    pthread_mutex_unlock(&p->mu);
    if (!got)
        return 0;
    p->alloc.free(p->alloc.ctx, ptr, bytes);
    budget_release(p->budget, BUDGET_PINNED, bytes);
    CUZK_LOG(p->log, CUZK_LOG_INFO, "pinned pool: freed idle buffer",
             "size_gib=%.3f total_buffers=%" PRIu64 " total_gib=%.3f", pool_gib(bytes), total_buffers,
             pool_gib(total_bytes));
    return 1;
}

/* Allocates a buffer whose bytes the caller has already charged to the
 * budget, and adds it to the pool (checked out or idle). On failure the
 * charge is given back and the failure reported. */
static void *pool_new_charged(pinned_pool *p, size_t bytes, int checked_out, size_t *free_remaining,
                              const uint64_t *job_id, uint32_t partition)
{
    void *ptr = p->alloc.alloc(p->alloc.ctx, bytes);
    if (!ptr) {
        budget_release(p->budget, BUDGET_PINNED, bytes);
        pool_fail(p, bytes, "host_alloc", job_id, partition);
        return NULL;
    }
    pthread_mutex_lock(&p->mu);
    int rc = pool_register_locked(p, ptr, bytes, checked_out, free_remaining);
    uint64_t total_buffers = p->st.buffers_total, total_bytes = p->st.bytes_total;
    pthread_mutex_unlock(&p->mu);
    if (rc != 0) {
        p->alloc.free(p->alloc.ctx, ptr, bytes);
        budget_release(p->budget, BUDGET_PINNED, bytes);
        pool_fail(p, bytes, "bookkeeping", job_id, partition);
        return NULL;
    }
    CUZK_LOG(p->log, CUZK_LOG_INFO, "pinned pool: allocated new buffer",
             "size_gib=%.3f total_buffers=%" PRIu64 " total_gib=%.3f", pool_gib(bytes), total_buffers,
             pool_gib(total_bytes));
    return ptr;
}

/* ---- waiting for the budget ------------------------------------------------ */

/* Cancel and stop flags are shared with the budget and the caller, who
 * read or write them under other locks (or none): atomic accesses. */
static int pool_flag(const atomic_int *f)
{
    return f && atomic_load_explicit(f, memory_order_acquire) != 0;
}

/* The budget's release listener (called after every release and wake_all,
 * without the budget's lock): a caller that set its cancel flag then called
 * budget_wake_all has only woken a budget_acquire that watches `stop`, so
 * carry the flag over and wake once more. The second call finds nothing
 * new, so the recursion ends there. */
static void pool_on_budget_event(void *ctx)
{
    pinned_pool *p = ctx;
    int changed = 0;
    pthread_mutex_lock(&p->mu);
    for (pool_waiter *w = p->waiters; w; w = w->next)
        if (!w->stop && pool_flag(w->cancel)) {
            atomic_store_explicit(&w->stop, 1, memory_order_release);
            changed = 1;
        }
    pthread_mutex_unlock(&p->mu);
    if (changed)
        budget_wake_all(p->budget);
}

static void pool_waiter_add_locked(pinned_pool *p, pool_waiter *w)
{
    pool_waiter **pp = &p->waiters;
    while (*pp)
        pp = &(*pp)->next;
    *pp = w;
}

static void pool_waiter_remove(pinned_pool *p, pool_waiter *w)
{
    pthread_mutex_lock(&p->mu);
    pool_waiter **pp = &p->waiters;
    while (*pp && *pp != w)
        pp = &(*pp)->next;
    if (*pp)
        *pp = w->next;
    pthread_mutex_unlock(&p->mu);
}

/* Stops the oldest waiter for `bytes`, if any: a buffer of its size is idle.
 * One buffer, one waiter: the others keep their place in the budget's queue. */
static int pool_waiter_stop_one_locked(pinned_pool *p, size_t bytes)
{
    for (pool_waiter *w = p->waiters; w; w = w->next)
        if (w->bytes == bytes && !w->stop) {
            atomic_store_explicit(&w->stop, 1, memory_order_release);
            return 1;
        }
    return 0;
}

/* Blocks in budget_acquire until `bytes` fit (0), a buffer of this size is
 * checked in (1: look again), or the caller cancels (-1); -2 if the budget
 * refused for another reason (it cannot, once bytes <= limit). Registering and
 * the last look at the idle stack happen under one lock hold, so a checkin
 * in between cannot be missed; *reused is set when that look found one. */
static int pool_wait_for_room(pinned_pool *p, size_t bytes, budget_class turn, const atomic_int *cancel,
                              void **reused, size_t *free_remaining)
{
    pool_waiter w = {.bytes = bytes, .cancel = cancel};
    pthread_mutex_lock(&p->mu);
    *reused = pool_take_idle_locked(p, bytes, free_remaining);
    if (!*reused) {
        w.stop = pool_flag(cancel); /* set before we were registered: no listener saw it */
        pool_waiter_add_locked(p, &w);
    }
    pthread_mutex_unlock(&p->mu);
    if (*reused)
        return 1;
    int rc = budget_acquire(p->budget, BUDGET_PINNED, turn, bytes, &w.stop);
    pool_waiter_remove(p, &w);
    if (rc == 0)
        return 0;
    if (pool_flag(cancel))
        return -1;
    return pool_flag(&w.stop) ? 1 : -2;
}

/* ---- API ---------------------------------------------------------------- */

pinned_pool *pool_create(cuzk_budget *budget, host_allocator alloc, double idle_timeout_s, cuzk_logger *log)
{
    if (!budget || !alloc.alloc || !alloc.free)
        return NULL;
    pinned_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return NULL;
    }
    p->budget = budget;
    p->alloc = alloc;
    p->idle_timeout_s = idle_timeout_s;
    p->log = log;
    budget_set_release_listener(budget, pool_on_budget_event, p);
    return p;
}

void pool_destroy(pinned_pool *p)
{
    if (!p)
        return;
    /* Returns once no call of the listener is still running: p can go. */
    budget_set_release_listener(p->budget, NULL, NULL);
    while (pool_free_oldest_idle(p, 0, INFINITY, 0.0))
        ;
    if (p->n_out) {
        uint64_t out_bytes = 0;
        for (size_t i = 0; i < p->n_out; i++)
            out_bytes += p->out[i].bytes;
        /* Leaked, and left charged to the budget: the memory is still in use. */
        CUZK_LOG(p->log, CUZK_LOG_ERROR, "pinned pool: destroyed with buffers checked out",
                 "buffers=%zu total_gib=%.3f", p->n_out, pool_gib(out_bytes));
    }
    for (size_t i = 0; i < p->n_classes; i++)
        free(p->classes[i].idle);
    free(p->classes);
    free(p->out);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* The bytes are charged: allocate, unless a buffer of this size came back
 * meanwhile (then reuse it and give the charge back, not allocate a twin). */
static void *pool_checkout_charged(pinned_pool *p, size_t bytes, uint64_t job_id, uint32_t partition)
{
    size_t free_remaining = 0;
    pthread_mutex_lock(&p->mu);
    void *ptr = pool_take_idle_locked(p, bytes, &free_remaining);
    pthread_mutex_unlock(&p->mu);
    if (ptr) {
        budget_release(p->budget, BUDGET_PINNED, bytes);
        pool_log_checkout(p, "pinned pool: checkout (reuse)", bytes, job_id, partition, free_remaining);
        return ptr;
    }
    ptr = pool_new_charged(p, bytes, 1, &free_remaining, &job_id, partition);
    if (ptr)
        pool_log_checkout(p, "pinned pool: checkout (alloc)", bytes, job_id, partition, free_remaining);
    return ptr;
}

void *pool_checkout(pinned_pool *p, size_t bytes, budget_class turn, uint64_t job_id, uint32_t partition,
                    const atomic_int *cancel)
{
    if (!p)
        return NULL;
    budget_stats bs;
    budget_get_stats(p->budget, &bs);
    if (bytes == 0 || bytes > bs.limit) {
        pool_fail(p, bytes, bytes ? "over_budget_limit" : "zero_size", &job_id, partition);
        return NULL;
    }
    for (;;) {
        size_t free_remaining = 0;
        int rc = 1;
        pthread_mutex_lock(&p->mu);
        void *ptr = pool_take_idle_locked(p, bytes, &free_remaining);
        pthread_mutex_unlock(&p->mu);
        if (!ptr) {
            if (pool_flag(cancel))
                rc = -1;
            else if (budget_try_acquire(p->budget, BUDGET_PINNED, turn, bytes) == 0)
                rc = 0;
            /* Under pressure, idle buffers of other sizes go first (oldest
             * first): they cannot serve this request, and waiting for the
             * idle timeout to free them would stall it. */
            else if (pool_free_oldest_idle(p, bytes, cuzk_now_s(), -INFINITY))
                continue;
            else
                rc = pool_wait_for_room(p, bytes, turn, cancel, &ptr, &free_remaining);
        }
        if (ptr) {
            pool_log_checkout(p, "pinned pool: checkout (reuse)", bytes, job_id, partition, free_remaining);
            return ptr;
        }
        if (rc == 0)
            return pool_checkout_charged(p, bytes, job_id, partition);
        if (rc == -1) {
            CUZK_LOG(p->log, CUZK_LOG_INFO, "pinned pool: checkout cancelled",
                     "size_gib=%.3f job_id=%" PRIu64 " partition=%" PRIu32, pool_gib(bytes), job_id, partition);
            return NULL;
        }
        if (rc == -2) {
            pool_fail(p, bytes, "budget_refused", &job_id, partition);
            return NULL;
        }
        /* rc == 1: a buffer of this size was checked in; look again. */
    }
}

void pool_checkin(pinned_pool *p, void *buf, uint64_t job_id, uint32_t partition)
{
    if (!p || !buf)
        return;
    pthread_mutex_lock(&p->mu);
    size_t i = 0;
    while (i < p->n_out && p->out[i].ptr != buf)
        i++;
    if (i == p->n_out) {
        pthread_mutex_unlock(&p->mu);
        CUZK_LOG(p->log, CUZK_LOG_ERROR, "pinned pool: checkin of unknown buffer",
                 "job_id=%" PRIu64 " partition=%" PRIu32, job_id, partition);
        return;
    }
    size_t bytes = p->out[i].bytes;
    p->out[i] = p->out[--p->n_out];
    pool_class *c = pool_class_find_locked(p, bytes); /* exists: the buffer was registered in it */
    pool_push_idle_locked(p, c, buf, cuzk_now_s());
    p->st.checkins++;
    size_t free_remaining = c->n_idle;
    int woke = pool_waiter_stop_one_locked(p, bytes);
    pthread_mutex_unlock(&p->mu);
    pool_log_checkout(p, "pinned pool: checkin", bytes, job_id, partition, free_remaining);
    if (woke)
        budget_wake_all(p->budget);
}

int pool_prewarm(pinned_pool *p, size_t bytes, int count)
{
    if (!p || bytes == 0)
        return 0;
    int added = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        pool_class *c = pool_class_find_locked(p, bytes);
        size_t have = c ? c->n_idle : 0;
        pthread_mutex_unlock(&p->mu);
        if (count < 0 || have >= (size_t)count)
            break;
        if (budget_try_acquire(p->budget, BUDGET_PINNED, BUDGET_CLASS_NEW, bytes) != 0) {
            /* Not a failure (the budget has no room now), but the first
             * checkouts of this size will allocate on the hot path: say so. */
            CUZK_LOG(p->log, CUZK_LOG_INFO, "pinned pool: prewarm stopped by budget",
                     "size_gib=%.3f wanted=%d added=%d", pool_gib(bytes), count, added);
            break;
        }
        size_t free_remaining;
        if (!pool_new_charged(p, bytes, 0, &free_remaining, NULL, 0))
            break;
        added++;
    }
    return added;
}

int pool_trim_idle(pinned_pool *p, double now)
{
    if (!p)
        return 0;
    /* One buffer per lock hold: freeing pinned memory is slow, and
     * checkouts must not wait behind it. */
    int freed = 0;
    while (pool_free_oldest_idle(p, 0, now, p->idle_timeout_s))
        freed++;
    return freed;
}

void pool_get_stats(pinned_pool *p, pool_stats *out)
{
    pthread_mutex_lock(&p->mu);
    *out = p->st;
    pthread_mutex_unlock(&p->mu);
}
