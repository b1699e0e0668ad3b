/* The memory budget: one ledger for every byte the engine holds, by
 * category, never exceeded. Each byte is counted exactly once: whoever
 * allocates acquires, whoever frees releases (the pinned pool acquires for
 * its buffers; a partition's working set is what it holds beyond them).
 *
 * Who is served, when memory is short. Each request names its class:
 * ADMITTED for more memory for work that already holds some (the later
 * partitions of a job under way, a partition's working set beside its
 * buffer), NEW for anything else (a job's first partition, a key, a PCE).
 * Waiters queue in one FIFO per class, and the next served is the oldest
 * ADMITTED waiter, else the oldest NEW one, as soon as its request fits;
 * nobody passes it meanwhile (a request that fits is granted at once only
 * when no waiter of its class, or of a class served before it, waits).
 * So a new job's big first partition does not hold up a running job's
 * partitions, which hold memory that only their progress gives back (with
 * one FIFO for all the two could wait for each other), and within a class
 * a large request is not starved by small ones behind it.
 * The bound: ADMITTED grants made while a NEW waiter is the oldest of its
 * class count as passing it; after BUDGET_MAX_PASSES of them it joins the
 * ADMITTED queue's tail, so ADMITTED work arriving later waits behind it
 * (work admitted without the budget, a first partition reusing an idle
 * pooled buffer, could otherwise pass it forever).
 * An evictor callback (the key cache's LRU) is asked to free memory before
 * the next-served waiter sleeps. */
#ifndef CUZK_ENGINE_BUDGET_H
#define CUZK_ENGINE_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

typedef enum {
    BUDGET_KEYS = 0,       /* proving keys resident in host memory */
    BUDGET_PCE = 1,        /* compiled constraint matrices */
    BUDGET_PINNED = 2,     /* pinned pool buffers, idle or checked out */
    BUDGET_PARTITIONS = 3, /* per-partition working set outside the pool */
    BUDGET_N_CATEGORIES
} budget_category;

const char *budget_category_name(budget_category c); /* "keys", "pce", "pinned", "partitions" */

typedef enum {
    BUDGET_CLASS_ADMITTED = 0, /* served first: work that already holds memory */
    BUDGET_CLASS_NEW = 1,
    BUDGET_N_CLASSES
} budget_class;

/* ADMITTED grants that may pass the oldest NEW waiter before it is served
 * as ADMITTED itself. */
enum { BUDGET_MAX_PASSES = 8 };

typedef struct {
    uint64_t limit;
    uint64_t used;                         /* sum of by_category */
    uint64_t by_category[BUDGET_N_CATEGORIES];
    uint64_t high_water;                   /* max of used over the budget's life */
    uint32_t waiters;                      /* callers blocked in budget_acquire now */
    uint32_t waiting[BUDGET_N_CATEGORIES]; /* of those, by what they ask memory for */
} budget_stats;

typedef struct cuzk_budget cuzk_budget;

/* Asked, without the budget's lock held, to free at least `need` bytes
 * (by calling budget_release); returns the bytes it freed (0: nothing). */
typedef uint64_t (*budget_evict_fn)(void *ctx, uint64_t need);

cuzk_budget *budget_create(uint64_t limit_bytes);
void budget_destroy(cuzk_budget *b);
void budget_set_evictor(cuzk_budget *b, budget_evict_fn fn, void *ctx);

/* Blocks until `bytes` fit and it is this request's turn (above); returns
 * 0, or -1 at once when bytes > limit (it could never fit), for a class
 * or category out of range, or when *cancel becomes non-zero while waiting
 * (cancel may be NULL; wake waiters with budget_wake_all after setting it). */
int budget_acquire(cuzk_budget *b, budget_category c, budget_class cls, uint64_t bytes, const atomic_int *cancel);
/* Takes the bytes only if they fit now and budget_acquire would not wait
 * for its turn; 0 or -1. */
int budget_try_acquire(cuzk_budget *b, budget_category c, budget_class cls, uint64_t bytes);
void budget_release(cuzk_budget *b, budget_category c, uint64_t bytes);
void budget_wake_all(cuzk_budget *b);
/* fn(ctx) is called, without the budget's lock, after every release and
 * every wake_all: how the pinned pool learns that a caller cancelled while
 * its checkout waits in budget_acquire on a flag of the pool's own. One
 * listener; NULL removes it. Returns once calls already running have
 * finished, so the old ctx may be freed then (never call it from fn). */
void budget_set_release_listener(cuzk_budget *b, void (*fn)(void *ctx), void *ctx);
void budget_get_stats(cuzk_budget *b, budget_stats *out);

#endif
