#include "engine/budget.h"

#include <pthread.h>
#include <stdlib.h>

#include "util/verify.h"

/* Invariant checks of the checked build (util/verify.h): a broken ledger
 * stops the test run where it breaks instead of showing up later as a
 * silent overcommit. */
/* One blocked budget_acquire: a ticket in its class's FIFO queue, on its
 * caller's stack. */
typedef struct budget_waiter {
    uint64_t bytes;
    budget_class cls; /* its queue: NEW until promoted */
    struct budget_waiter *next;
} budget_waiter;

struct cuzk_budget {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* broadcast when bytes are released, the queue head changes, or on wake_all */
    uint64_t limit, used, high_water;
    uint64_t by_category[BUDGET_N_CATEGORIES];
    budget_waiter *head[BUDGET_N_CLASSES], *tail[BUDGET_N_CLASSES]; /* each in arrival order */
    uint32_t waiters, waiting[BUDGET_N_CATEGORIES];
    uint32_t passes; /* ADMITTED grants since the oldest NEW waiter became the oldest */
    budget_evict_fn evict;
    void *evict_ctx;
    void (*listener)(void *ctx); /* told of every release and wake_all */
    void *listener_ctx;
    uint32_t listener_calls;     /* calls of it running now, without the lock */
    pthread_cond_t listener_cv;  /* broadcast when listener_calls drops to 0 */
};

static const char *const budget_category_names[BUDGET_N_CATEGORIES] = {"keys", "pce", "pinned", "partitions"};

const char *budget_category_name(budget_category c)
{
    return (unsigned)c < BUDGET_N_CATEGORIES ? budget_category_names[c] : "unknown";
}

cuzk_budget *budget_create(uint64_t limit_bytes)
{
    cuzk_budget *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    if (pthread_mutex_init(&b->mu, NULL) != 0) {
        free(b);
        return NULL;
    }
    if (pthread_cond_init(&b->cv, NULL) != 0) {
        pthread_mutex_destroy(&b->mu);
        free(b);
        return NULL;
    }
    if (pthread_cond_init(&b->listener_cv, NULL) != 0) {
        pthread_cond_destroy(&b->cv);
        pthread_mutex_destroy(&b->mu);
        free(b);
        return NULL;
    }
    b->limit = limit_bytes;
    return b;
}

void budget_destroy(cuzk_budget *b)
{
    if (!b)
        return;
    CUZK_VERIFY_CHECK(b->waiters == 0);
    pthread_cond_destroy(&b->listener_cv);
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
    free(b);
}

void budget_set_evictor(cuzk_budget *b, budget_evict_fn fn, void *ctx)
{
    pthread_mutex_lock(&b->mu);
    b->evict = fn;
    b->evict_ctx = ctx;
    pthread_mutex_unlock(&b->mu);
}

/* The flag is set by other threads without our lock. */
static int budget_cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_acquire) != 0;
}

static int budget_fits_locked(const cuzk_budget *b, uint64_t bytes)
{
    return bytes <= b->limit - b->used;
}

/* The waiter served next: the oldest ADMITTED one, else the oldest NEW one. */
static budget_waiter *budget_next_locked(const cuzk_budget *b)
{
    return b->head[BUDGET_CLASS_ADMITTED] ? b->head[BUDGET_CLASS_ADMITTED] : b->head[BUDGET_CLASS_NEW];
}

/* Whether a request of class cls that fits may be granted without waiting:
 * nobody of its class or of a class served before it waits. */
static int budget_turn_now_locked(const cuzk_budget *b, budget_class cls)
{
    for (int k = 0; k <= (int)cls; k++)
        if (b->head[k])
            return 0;
    return 1;
}

static void budget_enqueue_locked(cuzk_budget *b, budget_waiter *w)
{
    w->next = NULL;
    if (b->tail[w->cls])
        b->tail[w->cls]->next = w;
    else
        b->head[w->cls] = w;
    b->tail[w->cls] = w;
}

/* Removes w from its queue wherever it is (a cancelled waiter may leave
 * from the middle); a new oldest NEW waiter starts its count of passes. */
static void budget_unlink_locked(cuzk_budget *b, budget_waiter *w)
{
    budget_waiter **pp = &b->head[w->cls], *prev = NULL;
    while (*pp && *pp != w) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    CUZK_VERIFY_CHECK(*pp == w);
    if (!*pp)
        return;
    *pp = w->next;
    if (b->tail[w->cls] == w)
        b->tail[w->cls] = prev;
    if (w->cls == BUDGET_CLASS_NEW && !prev)
        b->passes = 0;
}

/* An ADMITTED grant while a NEW waiter waits passes it; the last pass
 * allowed moves it to the ADMITTED queue's tail. */
static void budget_count_pass_locked(cuzk_budget *b)
{
    budget_waiter *oldest_new = b->head[BUDGET_CLASS_NEW];
    if (!oldest_new || ++b->passes < BUDGET_MAX_PASSES)
        return;
    budget_unlink_locked(b, oldest_new);
    oldest_new->cls = BUDGET_CLASS_ADMITTED;
    budget_enqueue_locked(b, oldest_new);
    pthread_cond_broadcast(&b->cv);
}

static void budget_take_locked(cuzk_budget *b, budget_category c, budget_class cls, uint64_t bytes)
{
    if (cls == BUDGET_CLASS_ADMITTED && bytes)
        budget_count_pass_locked(b);
    b->by_category[c] += bytes;
    b->used += bytes;
    if (b->used > b->high_water)
        b->high_water = b->used;
    CUZK_VERIFY_CHECK(b->used <= b->limit);
#ifdef CUZK_VERIFY
    uint64_t sum = 0;
    for (int i = 0; i < BUDGET_N_CATEGORIES; i++)
        sum += b->by_category[i];
    CUZK_VERIFY_CHECK(sum == b->used);
#endif
}

int budget_acquire(cuzk_budget *b, budget_category c, budget_class cls, uint64_t bytes, const atomic_int *cancel)
{
    if (!b || (unsigned)c >= BUDGET_N_CATEGORIES || (unsigned)cls >= BUDGET_N_CLASSES)
        return -1;
    pthread_mutex_lock(&b->mu);
    if (bytes > b->limit || budget_cancelled(cancel)) {
        pthread_mutex_unlock(&b->mu);
        return -1;
    }
    if (bytes == 0 || (budget_turn_now_locked(b, cls) && budget_fits_locked(b, bytes))) {
        budget_take_locked(b, c, cls, bytes);
        pthread_mutex_unlock(&b->mu);
        return 0;
    }

    budget_waiter self = {.bytes = bytes, .cls = cls};
    budget_enqueue_locked(b, &self);
    b->waiters++;
    b->waiting[c]++;
    int evict_tried = 0;
    int rc;
    for (;;) {
        if (budget_cancelled(cancel)) {
            rc = -1;
            break;
        }
        /* unlinked first: a grant to an ADMITTED waiter counts a pass
         * against the oldest NEW one, which must not be itself */
        if (budget_next_locked(b) == &self && budget_fits_locked(b, bytes)) {
            budget_unlink_locked(b, &self);
            budget_take_locked(b, c, self.cls, bytes);
            rc = 0;
            break;
        }
        /* Only the next-served can be served, so only it asks the evictor,
         * again while it makes progress, then once per wake-up. It runs
         * without the lock (it releases through budget_release); the loop
         * checks again before sleeping, so a release made meanwhile is not
         * missed, and nobody else can take what it frees: newcomers of
         * either class wait for their turn behind it, and try_acquire fails. */
        if (budget_next_locked(b) == &self && b->evict && !evict_tried) {
            budget_evict_fn fn = b->evict;
            void *ctx = b->evict_ctx;
            uint64_t need = bytes - (b->limit - b->used);
            pthread_mutex_unlock(&b->mu);
            uint64_t freed = fn(ctx, need);
            pthread_mutex_lock(&b->mu);
            evict_tried = freed == 0;
            continue;
        }
        pthread_cond_wait(&b->cv, &b->mu);
        evict_tried = 0;
    }
    if (rc)
        budget_unlink_locked(b, &self);
    b->waiters--;
    b->waiting[c]--;
    pthread_cond_broadcast(&b->cv); /* who is served next may have changed */
    pthread_mutex_unlock(&b->mu);
    return rc;
}

int budget_try_acquire(cuzk_budget *b, budget_category c, budget_class cls, uint64_t bytes)
{
    if (!b || (unsigned)c >= BUDGET_N_CATEGORIES || (unsigned)cls >= BUDGET_N_CLASSES)
        return -1;
    pthread_mutex_lock(&b->mu);
    int ok = bytes == 0 || (budget_turn_now_locked(b, cls) && budget_fits_locked(b, bytes));
    if (ok)
        budget_take_locked(b, c, cls, bytes);
    pthread_mutex_unlock(&b->mu);
    return ok ? 0 : -1;
}

/* Drops the lock (held on entry), then tells the listener, if any. */
static void budget_notify_unlock(cuzk_budget *b)
{
    void (*fn)(void *) = b->listener;
    void *ctx = b->listener_ctx;
    if (!fn) {
        pthread_mutex_unlock(&b->mu);
        return;
    }
    b->listener_calls++;
    pthread_mutex_unlock(&b->mu);
    fn(ctx);
    pthread_mutex_lock(&b->mu);
    if (--b->listener_calls == 0)
        pthread_cond_broadcast(&b->listener_cv);
    pthread_mutex_unlock(&b->mu);
}

void budget_release(cuzk_budget *b, budget_category c, uint64_t bytes)
{
    if (!b || (unsigned)c >= BUDGET_N_CATEGORIES || bytes == 0)
        return;
    pthread_mutex_lock(&b->mu);
    /* Releasing more than was acquired is a caller bug; the checked build
     * stops on it, the release build clamps so the ledger cannot wrap. */
    CUZK_VERIFY_CHECK(bytes <= b->by_category[c]);
    if (bytes > b->by_category[c])
        bytes = b->by_category[c];
    b->by_category[c] -= bytes;
    b->used -= bytes;
    if (b->waiters)
        pthread_cond_broadcast(&b->cv);
    budget_notify_unlock(b);
}

void budget_wake_all(cuzk_budget *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&b->mu);
    pthread_cond_broadcast(&b->cv);
    budget_notify_unlock(b);
}

void budget_set_release_listener(cuzk_budget *b, void (*fn)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&b->mu);
    b->listener = fn;
    b->listener_ctx = ctx;
    /* After this returns the old ctx may be freed: wait out calls that
     * started before the change and may still be running on it. */
    while (b->listener_calls)
        pthread_cond_wait(&b->listener_cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

void budget_get_stats(cuzk_budget *b, budget_stats *out)
{
    pthread_mutex_lock(&b->mu);
    out->limit = b->limit;
    out->used = b->used;
    for (int i = 0; i < BUDGET_N_CATEGORIES; i++) {
        out->by_category[i] = b->by_category[i];
        out->waiting[i] = b->waiting[i];
    }
    out->high_water = b->high_water;
    out->waiters = b->waiters;
    pthread_mutex_unlock(&b->mu);
}
