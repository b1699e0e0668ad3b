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

struct pinned_pool {
    pthread_mutex_t mu; /* guards what follows; never held across a buffer's allocation or free, nor a budget wait */
    cuzk_budget *budget;
    host_allocator alloc;
    double idle_timeout_s;
    cuzk_logger *log;
    pool_class *classes;
    size_t n_classes, cap_classes;
    pthread_cond_t changed; /* a checkin or a budget release: checkouts waiting for either look again */
    uint64_t generation;    /* bumped with each broadcast of changed */
    pool_out *out; /* cap_out >= st.buffers_total, so a reuse never needs memory */
    size_t n_out, cap_out;
    pool_stats st;
};

/* ---- host allocators ---------------------------------------------------- */

static void *pageable_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    size_t rounded = (bytes + 63) & ~(size_t)63; /* aligned_alloc wants a multiple of the alignment */
    if (bytes == 0 || rounded < bytes)
        return NULL;
    void *p = aligned_alloc(64, rounded);
    if (p)
        memset(p, 0, rounded); /* fault the pages in now, not on the hot path */
    return p;
}

static void pageable_free(void *ctx, void *p, size_t bytes)
{
    (void)ctx;
    (void)bytes;
    free(p);
}

host_allocator host_allocator_pageable(void)
{
    return (host_allocator){pageable_alloc, pageable_free, NULL};
}

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

/* Takes the longest-idle buffer (the bottom of a class's stack) if it has
 * been idle longer than the timeout; it leaves the pool's books here and is
 * freed by the caller without the lock. */
static int pool_take_expired_locked(pinned_pool *p, double now, void **ptr, size_t *bytes)
{
    for (size_t i = 0; i < p->n_classes; i++) {
        pool_class *c = &p->classes[i];
        if (c->n_idle == 0 || !(now - c->idle[0].last_used > p->idle_timeout_s))
            continue;
        *ptr = c->idle[0].ptr;
        *bytes = c->bytes;
        memmove(c->idle, c->idle + 1, (c->n_idle - 1) * sizeof *c->idle);
        c->n_idle--;
        c->n_total--;
        p->st.buffers_idle--;
        p->st.buffers_total--;
        p->st.bytes_total -= c->bytes;
        p->st.frees++;
        return 1;
    }
    return 0;
}

/* ---- events -------------------------------------------------------------- */

static void pool_log_freed(pinned_pool *p, size_t bytes, uint64_t total_buffers, uint64_t total_bytes)
{
    CUZK_LOG(p->log, CUZK_LOG_INFO, "pinned pool: freed idle buffer",
             "size_gib=%.3f total_buffers=%" PRIu64 " total_gib=%.3f",
             pool_gib(bytes), total_buffers, pool_gib(total_bytes));
}

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
             "size_gib=%.3f total_buffers=%" PRIu64 " total_gib=%.3f",
             pool_gib(bytes), total_buffers, pool_gib(total_bytes));
    return ptr;
}

/* Pops the most recently used idle buffer of exactly `bytes`, if any. */
static void *pool_take_idle(pinned_pool *p, size_t bytes, uint64_t job_id, uint32_t partition)
{
    pthread_mutex_lock(&p->mu);
    pool_class *c = pool_class_find_locked(p, bytes);
    if (!c || c->n_idle == 0) {
        pthread_mutex_unlock(&p->mu);
        return NULL;
    }
    void *ptr = c->idle[--c->n_idle].ptr;
    p->out[p->n_out++] = (pool_out){ptr, bytes};
    p->st.buffers_idle--;
    p->st.reuses++;
    size_t free_remaining = c->n_idle;
    pthread_mutex_unlock(&p->mu);
    CUZK_LOG(p->log, CUZK_LOG_INFO, "pinned pool: checkout (reuse)",
             "size_gib=%.3f job_id=%" PRIu64 " partition=%" PRIu32 " free_remaining=%zu", pool_gib(bytes), job_id,
             partition, free_remaining);
    return ptr;
}

/* Wakes checkouts waiting for a buffer or for budget room. */
static void pool_wake(void *vp)
{
    pinned_pool *p = vp;
    pthread_mutex_lock(&p->mu);
    p->generation++;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mu);
}

/* Frees one idle buffer of a size other than `bytes` (under budget
 * pressure those cannot serve the waiter); 1 when one was freed. */
static int pool_free_other_idle(pinned_pool *p, size_t bytes)
{
    pthread_mutex_lock(&p->mu);
    void *ptr = NULL;
    size_t freed_bytes = 0;
    for (size_t i = 0; i < p->n_classes && !ptr; i++) {
        pool_class *c = &p->classes[i];
        if (c->bytes == bytes || c->n_idle == 0)
            continue;
        ptr = c->idle[0].ptr;
        freed_bytes = c->bytes;
        memmove(c->idle, c->idle + 1, (c->n_idle - 1) * sizeof *c->idle);
        c->n_idle--;
        c->n_total--;
        p->st.buffers_idle--;
        p->st.buffers_total--;
        p->st.bytes_total -= c->bytes;
        p->st.frees++;
    }
    uint64_t total_buffers = p->st.buffers_total, total_bytes = p->st.bytes_total;
    pthread_mutex_unlock(&p->mu);
    if (!ptr)
        return 0;
    p->alloc.free(p->alloc.ctx, ptr, freed_bytes);
    pool_log_freed(p, freed_bytes, total_buffers, total_bytes);
    budget_release(p->budget, BUDGET_PINNED, freed_bytes);
    return 1;
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
    pthread_cond_init(&p->changed, NULL);
    p->budget = budget;
    p->alloc = alloc;
    p->idle_timeout_s = idle_timeout_s;
    p->log = log;
    budget_set_release_listener(budget, pool_wake, p);
    return p;
}

void pool_destroy(pinned_pool *p)
{
    if (!p)
        return;
    void *ptr;
    size_t bytes;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int got = pool_take_expired_locked(p, INFINITY, &ptr, &bytes); /* every idle buffer */
        uint64_t total_buffers = p->st.buffers_total, total_bytes = p->st.bytes_total;
        pthread_mutex_unlock(&p->mu);
        if (!got)
            break;
        p->alloc.free(p->alloc.ctx, ptr, bytes);
        budget_release(p->budget, BUDGET_PINNED, bytes);
        pool_log_freed(p, bytes, total_buffers, total_bytes);
    }
    if (p->n_out) {
        uint64_t out_bytes = 0;
        for (size_t i = 0; i < p->n_out; i++)
            out_bytes += p->out[i].bytes;
        /* Leaked, and left charged to the budget: the memory is still in use. */
        CUZK_LOG(p->log, CUZK_LOG_ERROR, "pinned pool: destroyed with buffers checked out",
                 "buffers=%zu total_gib=%.3f", p->n_out, pool_gib(out_bytes));
    }
    budget_set_release_listener(p->budget, NULL, NULL);
    for (size_t i = 0; i < p->n_classes; i++)
        free(p->classes[i].idle);
    free(p->classes);
    free(p->out);
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

void *pool_checkout(pinned_pool *p, size_t bytes, uint64_t job_id, uint32_t partition, const volatile int *cancel)
{
    if (!p)
        return NULL;
    if (bytes == 0) {
        pool_fail(p, bytes, "zero_size", &job_id, partition);
        return NULL;
    }
    budget_stats bs;
    budget_get_stats(p->budget, &bs);
    if (bytes > bs.limit) {
        pool_fail(p, bytes, "over_budget_limit", &job_id, partition);
        return NULL;
    }
    /* Either an idle buffer of this size comes back or the budget makes
     * room: wait for whichever happens first (a checkout that waited only
     * in the budget would sleep next to an idle twin and deadlock). */
    void *ptr;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        uint64_t seen = p->generation;
        pthread_mutex_unlock(&p->mu);
        if ((ptr = pool_take_idle(p, bytes, job_id, partition)))
            return ptr;
        if (budget_try_acquire(p->budget, BUDGET_PINNED, bytes) == 0)
            break;
        if (cancel && *cancel) {
            CUZK_LOG(p->log, CUZK_LOG_INFO, "pinned pool: checkout cancelled",
                     "size_gib=%.3f job_id=%" PRIu64 " partition=%" PRIu32, pool_gib(bytes), job_id, partition);
            return NULL;
        }
        if (pool_free_other_idle(p, bytes))
            continue;
        pthread_mutex_lock(&p->mu);
        while (p->generation == seen && !(cancel && *cancel))
            pthread_cond_wait(&p->changed, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
    size_t free_remaining = 0;
    ptr = pool_new_charged(p, bytes, 1, &free_remaining, &job_id, partition);
    if (ptr)
        CUZK_LOG(p->log, CUZK_LOG_INFO, "pinned pool: checkout (alloc)",
                 "size_gib=%.3f job_id=%" PRIu64 " partition=%" PRIu32 " free_remaining=%zu", pool_gib(bytes), job_id,
                 partition, free_remaining);
    return ptr;
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
    p->generation++;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mu);
    CUZK_LOG(p->log, CUZK_LOG_INFO, "pinned pool: checkin",
             "size_gib=%.3f job_id=%" PRIu64 " partition=%" PRIu32 " free_remaining=%zu", pool_gib(bytes), job_id,
             partition, free_remaining);
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
        if (budget_try_acquire(p->budget, BUDGET_PINNED, bytes) != 0) {
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
    int freed = 0;
    void *ptr;
    size_t bytes;
    /* One buffer per lock hold: freeing pinned memory is slow, and
     * checkouts of other buffers must not wait behind it. */
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int got = pool_take_expired_locked(p, now, &ptr, &bytes);
        uint64_t total_buffers = p->st.buffers_total, total_bytes = p->st.bytes_total;
        pthread_mutex_unlock(&p->mu);
        if (!got)
            break;
        p->alloc.free(p->alloc.ctx, ptr, bytes);
        budget_release(p->budget, BUDGET_PINNED, bytes);
        pool_log_freed(p, bytes, total_buffers, total_bytes);
        freed++;
    }
    return freed;
}

void pool_get_stats(pinned_pool *p, pool_stats *out)
{
    pthread_mutex_lock(&p->mu);
    *out = p->st;
    pthread_mutex_unlock(&p->mu);
}
