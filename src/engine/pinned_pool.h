/* The pinned host-buffer pool that feeds the GPUs.
 *
 * - Exact size classes: a buffer is only ever reused for a request of the
 *   same size (no big buffer handed to a small job, no growth under mixed
 *   workloads).
 * - Bounded by the budget: every buffer, idle or checked out, is counted
 *   under BUDGET_PINNED from allocation to free; a checkout that needs a
 *   new buffer waits in budget_acquire instead of exceeding the budget.
 * - Prewarmed off the hot path (pool_prewarm when a circuit is registered).
 * - Shrinks: buffers idle longer than idle_timeout_s are freed by
 *   pool_trim_idle (the engine calls it periodically).
 * - Allocation goes through host_allocator: cudaHostAlloc on GPU hosts,
 *   ordinary pages elsewhere; the pool's code is the same.
 * - Every event is logged with these exact texts and key=value fields, and
 *   counted:
 *     "pinned pool: allocated new buffer"  size_gib total_buffers total_gib
 *     "pinned pool: checkout (reuse)"      size_gib job_id partition free_remaining
 *     "pinned pool: checkout (alloc)"      size_gib job_id partition free_remaining
 *     "pinned pool: checkin"               size_gib job_id partition free_remaining
 *     "pinned pool: freed idle buffer"     size_gib total_buffers total_gib
 *   (free_remaining: idle buffers of that size class left in the pool). */
#ifndef CUZK_ENGINE_PINNED_POOL_H
#define CUZK_ENGINE_PINNED_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "backend/host_alloc.h"
#include "engine/budget.h"
#include "util/log.h"

typedef struct {
    uint64_t allocations, reuses, checkins, frees, alloc_failures;
    uint64_t buffers_total, buffers_idle;
    uint64_t bytes_total, bytes_peak;
} pool_stats;

typedef struct pinned_pool pinned_pool;

pinned_pool *pool_create(cuzk_budget *budget, host_allocator alloc, double idle_timeout_s, cuzk_logger *log);
/* Frees every idle buffer; buffers still checked out are a caller bug
 * (logged and leaked rather than freed under a user). */
void pool_destroy(pinned_pool *p);

/* A buffer of exactly `bytes`: an idle one of that size (reuse) or a new one
 * (budget acquired first, waiting if needed). NULL when the allocation
 * fails, the request exceeds the budget's limit, or *cancel is set while
 * waiting. job_id/partition are for the log only. */
void *pool_checkout(pinned_pool *p, size_t bytes, budget_class turn, uint64_t job_id, uint32_t partition,
                    const atomic_int *cancel);
void pool_checkin(pinned_pool *p, void *buf, uint64_t job_id, uint32_t partition);

/* Makes sure `count` idle buffers of `bytes` exist (allocating only what is
 * missing, only if the budget has room now); returns how many it added. */
int pool_prewarm(pinned_pool *p, size_t bytes, int count);
/* Frees buffers idle for longer than the timeout (now from cuzk_now_s()). */
int pool_trim_idle(pinned_pool *p, double now);
void pool_get_stats(pinned_pool *p, pool_stats *out);

#endif
