/* Memory budget tests: accounting per category, high-water mark, requests
 * that can never fit, FIFO service (a small request never overtakes a large
 * one at the head), admitted work before new work and the bound on how
 * often it passes, try_acquire behind waiters, cancellation, the evictor,
 * the release listener, and a many-thread hammer that must never see the
 * limit exceeded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>

#include "engine/budget.h"
#include "support.h"

/* ---- helpers ------------------------------------------------------------ */

static budget_stats stats_of(cuzk_budget *b)
{
    budget_stats s;
    budget_get_stats(b, &s);
    return s;
}

typedef struct {
    cuzk_budget *b;
    budget_category cat;
    budget_class cls;
    uint64_t bytes;
    const atomic_int *cancel;
    int rc;
    pthread_t th;
} acquirer;

static void *acquirer_run(void *arg)
{
    acquirer *a = arg;
    a->rc = budget_acquire(a->b, a->cat, a->cls, a->bytes, a->cancel);
    return NULL;
}

static void acquirer_start_as(acquirer *a, cuzk_budget *b, budget_category cat, budget_class cls, uint64_t bytes,
                              const atomic_int *cancel)
{
    *a = (acquirer){.b = b, .cat = cat, .cls = cls, .bytes = bytes, .cancel = cancel, .rc = 99};
    assert_int_equal(pthread_create(&a->th, NULL, acquirer_run, a), 0);
}

static void acquirer_start(acquirer *a, cuzk_budget *b, budget_category cat, uint64_t bytes, const atomic_int *cancel)
{
    acquirer_start_as(a, b, cat, BUDGET_CLASS_NEW, bytes, cancel);
}

static int acquirer_join(acquirer *a)
{
    pthread_join(a->th, NULL);
    return a->rc;
}

/* ---- accounting ---------------------------------------------------------- */

static void test_category_names(void **state)
{
    (void)state;
    assert_string_equal(budget_category_name(BUDGET_KEYS), "keys");
    assert_string_equal(budget_category_name(BUDGET_PCE), "pce");
    assert_string_equal(budget_category_name(BUDGET_PINNED), "pinned");
    assert_string_equal(budget_category_name(BUDGET_PARTITIONS), "partitions");
    assert_string_equal(budget_category_name((budget_category)17), "unknown");
}

static void test_accounting_per_category(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(1000);
    assert_non_null(b);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 100, NULL), 0);
    assert_int_equal(budget_acquire(b, BUDGET_PCE, BUDGET_CLASS_NEW, 200, NULL), 0);
    assert_int_equal(budget_try_acquire(b, BUDGET_PINNED, BUDGET_CLASS_NEW, 300), 0);
    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 50, NULL), 0);
    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 25, NULL), 0);

    budget_stats s = stats_of(b);
    assert_int_equal(s.limit, 1000);
    assert_int_equal(s.used, 675);
    assert_int_equal(s.by_category[BUDGET_KEYS], 100);
    assert_int_equal(s.by_category[BUDGET_PCE], 200);
    assert_int_equal(s.by_category[BUDGET_PINNED], 300);
    assert_int_equal(s.by_category[BUDGET_PARTITIONS], 75);
    assert_int_equal(s.waiters, 0);

    budget_release(b, BUDGET_PCE, 200);
    budget_release(b, BUDGET_PARTITIONS, 50);
    s = stats_of(b);
    assert_int_equal(s.used, 425);
    assert_int_equal(s.by_category[BUDGET_PCE], 0);
    assert_int_equal(s.by_category[BUDGET_PARTITIONS], 25);

    /* Exactly up to the limit is allowed; one byte more is not. */
    assert_int_equal(budget_try_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 575), 0);
    assert_int_equal(budget_try_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 1), -1);
    assert_int_equal(stats_of(b).used, 1000);

    /* Bad categories are refused, not trusted. */
    assert_int_equal(budget_acquire(b, BUDGET_N_CATEGORIES, BUDGET_CLASS_NEW, 1, NULL), -1);
    assert_int_equal(budget_try_acquire(b, BUDGET_N_CATEGORIES, BUDGET_CLASS_NEW, 1), -1);

    budget_release(b, BUDGET_KEYS, 100);
    budget_release(b, BUDGET_PINNED, 300);
    budget_release(b, BUDGET_PARTITIONS, 600);
    assert_int_equal(stats_of(b).used, 0);
    budget_destroy(b);
}

static void test_high_water(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 30, NULL), 0);
    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 50, NULL), 0);
    budget_release(b, BUDGET_KEYS, 30);
    assert_int_equal(budget_acquire(b, BUDGET_PINNED, BUDGET_CLASS_NEW, 10, NULL), 0);
    budget_stats s = stats_of(b);
    assert_int_equal(s.high_water, 80);
    assert_int_equal(s.used, 60);
    budget_release(b, BUDGET_PARTITIONS, 50);
    budget_release(b, BUDGET_PINNED, 10);
    s = stats_of(b);
    assert_int_equal(s.used, 0);
    assert_int_equal(s.high_water, 80);
    budget_destroy(b);
}

static void test_over_limit_fails_at_once(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    /* Even with nothing held, a request above the limit could never fit:
     * it must fail rather than wait forever. */
    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 101, NULL), -1);
    assert_int_equal(budget_try_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 101), -1);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 60, NULL), 0);
    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 101, NULL), -1);
    budget_stats s = stats_of(b);
    assert_int_equal(s.used, 60);
    assert_int_equal(s.waiters, 0);
    budget_release(b, BUDGET_KEYS, 60);
    budget_destroy(b);
}

/* ---- FIFO, try_acquire, cancel ------------------------------------------- */

static void test_fifo_small_waits_behind_big(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 60, NULL), 0);

    acquirer big, small;
    acquirer_start(&big, b, BUDGET_PARTITIONS, 50, NULL); /* 60 + 50 > 100: waits */
    assert_true(budget_waiters_reach(b, 1));
    acquirer_start(&small, b, BUDGET_PINNED, 30, NULL); /* 60 + 30 fits, but big is first */
    assert_true(budget_waiters_reach(b, 2));
    assert_int_equal(stats_of(b).used, 60);

    /* try_acquire never jumps the queue either, even for a byte. */
    assert_int_equal(budget_try_acquire(b, BUDGET_PINNED, BUDGET_CLASS_NEW, 1), -1);

    /* Free just enough for big: big gets 50 (used 90); small's 30 no longer fits. */
    budget_release(b, BUDGET_KEYS, 20);
    assert_int_equal(acquirer_join(&big), 0);
    assert_true(budget_waiters_reach(b, 1));
    budget_stats s = stats_of(b);
    assert_int_equal(s.used, 90);
    assert_int_equal(s.by_category[BUDGET_PARTITIONS], 50);
    assert_int_equal(s.by_category[BUDGET_PINNED], 0);

    budget_release(b, BUDGET_KEYS, 40);
    assert_int_equal(acquirer_join(&small), 0);
    s = stats_of(b);
    assert_int_equal(s.used, 80);
    assert_int_equal(s.by_category[BUDGET_PINNED], 30);
    assert_int_equal(s.waiters, 0);
    assert_int_equal(budget_try_acquire(b, BUDGET_PINNED, BUDGET_CLASS_NEW, 20), 0); /* queue empty again */

    budget_release(b, BUDGET_PARTITIONS, 50);
    budget_release(b, BUDGET_PINNED, 50);
    budget_destroy(b);
}

/* A new job's big first partition waits; a running job's partitions, which
 * fit, are not held up behind it, whether they fit at once or wait too. */
static void test_admitted_goes_before_new(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 60, NULL), 0);
    acquirer big, later;
    acquirer_start_as(&big, b, BUDGET_PINNED, BUDGET_CLASS_NEW, 50, NULL); /* 60 + 50 > 100 */
    assert_true(budget_waiters_reach(b, 1));

    assert_int_equal(budget_try_acquire(b, BUDGET_PINNED, BUDGET_CLASS_ADMITTED, 30), 0); /* fits: served */
    assert_int_equal(budget_try_acquire(b, BUDGET_PINNED, BUDGET_CLASS_NEW, 5), -1);      /* behind big */
    budget_release(b, BUDGET_PINNED, 30);

    /* both wait, big first; room for either but not both: admitted work wins */
    acquirer_start_as(&later, b, BUDGET_PINNED, BUDGET_CLASS_ADMITTED, 45, NULL);
    assert_true(budget_waiters_reach(b, 2));
    budget_release(b, BUDGET_KEYS, 20);
    assert_int_equal(acquirer_join(&later), 0);
    assert_true(budget_waiters_reach(b, 1));
    assert_int_equal(stats_of(b).used, 85);
    budget_release(b, BUDGET_PINNED, 45);
    assert_int_equal(acquirer_join(&big), 0);
    assert_int_equal(stats_of(b).used, 90);
    budget_release(b, BUDGET_PINNED, 50);
    budget_release(b, BUDGET_KEYS, 40);
    budget_destroy(b);
}

/* Admitted work passes a waiting new request BUDGET_MAX_PASSES times; then
 * the new request is served before admitted work arriving later. */
static void test_new_waiter_not_passed_forever(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 60, NULL), 0);
    acquirer big;
    acquirer_start_as(&big, b, BUDGET_PINNED, BUDGET_CLASS_NEW, 50, NULL);
    assert_true(budget_waiters_reach(b, 1));
    for (int i = 0; i < BUDGET_MAX_PASSES; i++)
        if (budget_try_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_ADMITTED, 1))
            fail_msg("pass %d of %d was refused", i + 1, BUDGET_MAX_PASSES);
    assert_int_equal(budget_try_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_ADMITTED, 1), -1); /* big's turn */
    assert_int_equal(stats_of(b).waiters, 1);
    budget_release(b, BUDGET_KEYS, 60);
    assert_int_equal(acquirer_join(&big), 0);
    assert_int_equal(budget_try_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_ADMITTED, 1), 0);
    budget_release(b, BUDGET_PINNED, 50);
    budget_release(b, BUDGET_PARTITIONS, BUDGET_MAX_PASSES + 1);
    budget_destroy(b);
}

static void test_cancel_wakes_and_fails(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 100, NULL), 0);

    atomic_int cancel = 0;
    acquirer a;
    acquirer_start(&a, b, BUDGET_PARTITIONS, 10, &cancel);
    assert_true(budget_waiters_reach(b, 1));
    budget_stats w = stats_of(b); /* the waiter counted by what it asks memory for */
    assert_int_equal(w.waiting[BUDGET_PARTITIONS], 1);
    assert_int_equal(w.waiting[BUDGET_KEYS] + w.waiting[BUDGET_PCE] + w.waiting[BUDGET_PINNED], 0);
    cancel = 1;
    budget_wake_all(b);
    assert_int_equal(acquirer_join(&a), -1);
    budget_stats s = stats_of(b);
    assert_int_equal(s.waiters, 0);
    assert_int_equal(s.waiting[BUDGET_PARTITIONS], 0);
    assert_int_equal(s.used, 100);
    assert_int_equal(s.by_category[BUDGET_PARTITIONS], 0);

    /* Already cancelled: fails without waiting, even when it would fit. */
    budget_release(b, BUDGET_KEYS, 100);
    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 10, &cancel), -1);
    assert_int_equal(stats_of(b).used, 0);
    budget_destroy(b);
}

static void test_cancelled_head_lets_next_through(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 60, NULL), 0);

    atomic_int cancel_big = 0;
    acquirer big, small;
    acquirer_start(&big, b, BUDGET_PARTITIONS, 50, &cancel_big);
    assert_true(budget_waiters_reach(b, 1));
    acquirer_start(&small, b, BUDGET_PINNED, 30, NULL);
    assert_true(budget_waiters_reach(b, 2));
    assert_int_equal(stats_of(b).used, 60);

    cancel_big = 1;
    budget_wake_all(b);
    assert_int_equal(acquirer_join(&big), -1);
    assert_int_equal(acquirer_join(&small), 0); /* it fits once nobody is ahead */
    budget_stats s = stats_of(b);
    assert_int_equal(s.used, 90);
    assert_int_equal(s.waiters, 0);
    budget_release(b, BUDGET_KEYS, 60);
    budget_release(b, BUDGET_PINNED, 30);
    budget_destroy(b);
}

/* ---- evictor ------------------------------------------------------------- */

/* A stand-in for the key cache: holds `held` bytes under BUDGET_KEYS and
 * gives up to `give` of them back per call. */
typedef struct {
    cuzk_budget *b;
    uint64_t held, give;
    int calls;
    uint64_t last_need;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} fake_cache;

static uint64_t fake_cache_evict(void *ctx, uint64_t need)
{
    fake_cache *c = ctx;
    /* Called without the budget's lock: reading the stats here would
     * deadlock otherwise. */
    budget_stats s;
    budget_get_stats(c->b, &s);
    uint64_t n = c->give < c->held ? c->give : c->held;
    if (n) {
        c->held -= n;
        budget_release(c->b, BUDGET_KEYS, n);
    }
    pthread_mutex_lock(&c->mu);
    c->calls++;
    c->last_need = need;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return n;
}

static void fake_cache_init(fake_cache *c, cuzk_budget *b, uint64_t held, uint64_t give)
{
    *c = (fake_cache){.b = b, .held = held, .give = give};
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, held, NULL), 0);
    budget_set_evictor(b, fake_cache_evict, c);
}

static void fake_cache_wait_calls(fake_cache *c, int calls)
{
    pthread_mutex_lock(&c->mu);
    while (c->calls < calls)
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

static void fake_cache_fini(fake_cache *c)
{
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
}

static void test_evictor_release_satisfies_waiter(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    fake_cache c;
    fake_cache_init(&c, b, 70, 70);
    /* 70 + 50 > 100: the evictor is asked for the 20 missing bytes, frees
     * its 70, and the request is served without sleeping. */
    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 50, NULL), 0);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.last_need, 20);
    budget_stats s = stats_of(b);
    assert_int_equal(s.by_category[BUDGET_KEYS], 0);
    assert_int_equal(s.by_category[BUDGET_PARTITIONS], 50);
    assert_int_equal(s.waiters, 0);

    /* A fitting request never calls it. */
    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 50, NULL), 0);
    assert_int_equal(c.calls, 1);
    budget_release(b, BUDGET_PARTITIONS, 100);
    budget_destroy(b);
    fake_cache_fini(&c);
}

static void test_evictor_called_again_while_it_progresses(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    fake_cache c;
    fake_cache_init(&c, b, 90, 10); /* frees 10 per call */
    assert_int_equal(budget_acquire(b, BUDGET_PARTITIONS, BUDGET_CLASS_NEW, 40, NULL), 0);
    assert_int_equal(c.calls, 3); /* needs 30: 30, then 20, then 10 */
    assert_int_equal(c.last_need, 10);
    assert_int_equal(stats_of(b).by_category[BUDGET_KEYS], 60);
    budget_set_evictor(b, NULL, NULL);
    budget_release(b, BUDGET_PARTITIONS, 40);
    budget_release(b, BUDGET_KEYS, 60);
    budget_destroy(b);
    fake_cache_fini(&c);
}

static void test_evictor_empty_then_waiter_sleeps(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    fake_cache c;
    fake_cache_init(&c, b, 100, 0); /* can free nothing */
    acquirer a;
    acquirer_start(&a, b, BUDGET_PARTITIONS, 30, NULL);
    fake_cache_wait_calls(&c, 1); /* the waiter asked before sleeping */
    assert_int_equal(c.last_need, 30);
    assert_int_equal(stats_of(b).by_category[BUDGET_PARTITIONS], 0);
    budget_release(b, BUDGET_KEYS, 40); /* someone else frees */
    assert_int_equal(acquirer_join(&a), 0);
    budget_stats s = stats_of(b);
    assert_int_equal(s.by_category[BUDGET_PARTITIONS], 30);
    assert_int_equal(s.used, 90);
    assert_true(c.calls >= 1);
    budget_set_evictor(b, NULL, NULL);
    budget_release(b, BUDGET_PARTITIONS, 30);
    budget_release(b, BUDGET_KEYS, 60);
    budget_destroy(b);
    fake_cache_fini(&c);
}

/* ---- release listener ---------------------------------------------------- */

typedef struct {
    cuzk_budget *b;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls, entered, gate_open, finished;
    int block; /* hold the first call until the gate opens */
} listener_probe;

static void listener_probe_fn(void *ctx)
{
    listener_probe *l = ctx;
    budget_stats s;
    budget_get_stats(l->b, &s); /* called without the budget's lock */
    pthread_mutex_lock(&l->mu);
    l->calls++;
    l->entered = 1;
    pthread_cond_broadcast(&l->cv);
    while (l->block && !l->gate_open)
        pthread_cond_wait(&l->cv, &l->mu);
    l->finished = l->calls;
    pthread_mutex_unlock(&l->mu);
}

static void test_release_listener_calls(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    listener_probe l = {.b = b};
    pthread_mutex_init(&l.mu, NULL);
    pthread_cond_init(&l.cv, NULL);
    budget_set_release_listener(b, listener_probe_fn, &l);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 10, NULL), 0);
    assert_int_equal(l.calls, 0); /* acquiring tells nobody */
    budget_release(b, BUDGET_KEYS, 4);
    budget_release(b, BUDGET_KEYS, 6);
    assert_int_equal(l.calls, 2);
    budget_wake_all(b);
    assert_int_equal(l.calls, 3);
    budget_set_release_listener(b, NULL, NULL);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 10, NULL), 0);
    budget_release(b, BUDGET_KEYS, 10);
    budget_wake_all(b);
    assert_int_equal(l.calls, 3);
    budget_destroy(b);
    pthread_mutex_destroy(&l.mu);
    pthread_cond_destroy(&l.cv);
}

typedef struct {
    cuzk_budget *b;
    listener_probe *l;
    int finished_seen;
} remover_arg;

static void *releaser_run(void *arg)
{
    budget_release(arg, BUDGET_KEYS, 10);
    return NULL;
}

static void *remover_run(void *arg)
{
    remover_arg *r = arg;
    budget_set_release_listener(r->b, NULL, NULL);
    pthread_mutex_lock(&r->l->mu);
    r->finished_seen = r->l->finished;
    pthread_mutex_unlock(&r->l->mu);
    return NULL;
}

/* Removing the listener waits for a call still running on it, so its
 * context may be freed right after: whatever the interleaving, the
 * remover returns only after the running call finished. */
static void test_listener_removal_waits_for_running_call(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(100);
    listener_probe l = {.b = b, .block = 1};
    pthread_mutex_init(&l.mu, NULL);
    pthread_cond_init(&l.cv, NULL);
    budget_set_release_listener(b, listener_probe_fn, &l);
    assert_int_equal(budget_acquire(b, BUDGET_KEYS, BUDGET_CLASS_NEW, 10, NULL), 0);

    pthread_t releaser, remover;
    assert_int_equal(pthread_create(&releaser, NULL, releaser_run, b), 0);
    pthread_mutex_lock(&l.mu);
    while (!l.entered)
        pthread_cond_wait(&l.cv, &l.mu);
    pthread_mutex_unlock(&l.mu);
    remover_arg r = {.b = b, .l = &l};
    assert_int_equal(pthread_create(&remover, NULL, remover_run, &r), 0);
    pthread_mutex_lock(&l.mu);
    l.gate_open = 1;
    pthread_cond_broadcast(&l.cv);
    pthread_mutex_unlock(&l.mu);
    pthread_join(remover, NULL);
    pthread_join(releaser, NULL);
    assert_int_equal(r.finished_seen, 1);
    assert_int_equal(l.calls, 1);
    budget_destroy(b);
    pthread_mutex_destroy(&l.mu);
    pthread_cond_destroy(&l.cv);
}

/* ---- hammer -------------------------------------------------------------- */

#define HAMMER_THREADS 4
#define HAMMER_ROUNDS 1500
#define HAMMER_LIMIT 100

typedef struct {
    cuzk_budget *b;
    uint32_t seed;
    int violations, failures, tries_ok;
} hammer_arg;

static uint32_t xorshift32(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static void *hammer_run(void *arg)
{
    hammer_arg *h = arg;
    for (int i = 0; i < HAMMER_ROUNDS; i++) {
        uint32_t r = xorshift32(&h->seed);
        budget_category cat = (budget_category)(r % BUDGET_N_CATEGORIES);
        uint64_t bytes = 1 + (r >> 8) % 40;
        budget_class cls = (budget_class)((r >> 6) % BUDGET_N_CLASSES);
        int got;
        if ((r >> 4) % 4 == 0) {
            got = budget_try_acquire(h->b, cat, cls, bytes) == 0;
            h->tries_ok += got;
        } else {
            got = budget_acquire(h->b, cat, cls, bytes, NULL) == 0;
            h->failures += !got;
        }
        if (!got)
            continue;
        budget_stats s;
        budget_get_stats(h->b, &s);
        uint64_t sum = 0;
        for (int k = 0; k < BUDGET_N_CATEGORIES; k++)
            sum += s.by_category[k];
        if (s.used > s.limit || s.used < bytes || sum != s.used || s.high_water > s.limit ||
            s.by_category[cat] < bytes)
            h->violations++;
        budget_release(h->b, cat, bytes);
    }
    return NULL;
}

static void test_hammer_never_exceeds_limit(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(HAMMER_LIMIT);
    pthread_t th[HAMMER_THREADS];
    hammer_arg args[HAMMER_THREADS];
    for (int i = 0; i < HAMMER_THREADS; i++) {
        args[i] = (hammer_arg){.b = b, .seed = 0x9e3779b9u * (uint32_t)(i + 1)};
        assert_int_equal(pthread_create(&th[i], NULL, hammer_run, &args[i]), 0);
    }
    for (int i = 0; i < HAMMER_THREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < HAMMER_THREADS; i++) {
        assert_int_equal(args[i].violations, 0);
        assert_int_equal(args[i].failures, 0); /* nothing was cancelled or over the limit */
    }
    budget_stats s = stats_of(b);
    assert_int_equal(s.used, 0);
    assert_int_equal(s.waiters, 0);
    assert_true(s.high_water > 0 && s.high_water <= HAMMER_LIMIT);
    for (int k = 0; k < BUDGET_N_CATEGORIES; k++)
        assert_int_equal(s.by_category[k], 0);
    budget_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_category_names),
        cmocka_unit_test(test_accounting_per_category),
        cmocka_unit_test(test_high_water),
        cmocka_unit_test(test_over_limit_fails_at_once),
        cmocka_unit_test(test_fifo_small_waits_behind_big),
        cmocka_unit_test(test_admitted_goes_before_new),
        cmocka_unit_test(test_new_waiter_not_passed_forever),
        cmocka_unit_test(test_cancel_wakes_and_fails),
        cmocka_unit_test(test_cancelled_head_lets_next_through),
        cmocka_unit_test(test_evictor_release_satisfies_waiter),
        cmocka_unit_test(test_evictor_called_again_while_it_progresses),
        cmocka_unit_test(test_evictor_empty_then_waiter_sleeps),
        cmocka_unit_test(test_release_listener_calls),
        cmocka_unit_test(test_listener_removal_waits_for_running_call),
        cmocka_unit_test(test_hammer_never_exceeds_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
