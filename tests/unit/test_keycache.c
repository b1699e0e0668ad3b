/* Key cache tests: tiers (cold -> hot on acquire, hot -> warm -> cold on
 * evict), references that pin a key against eviction, LRU eviction by the
 * budget's evictor under a budget that holds one or two keys, bytes counted
 * under BUDGET_KEYS exactly while a key is hot, and refusals with clear
 * messages. The keys are real: development keys of one small synthetic
 * circuit, written once into a temporary directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/keycache.h"
#include "support.h"

#define N_KEYS 3

/* Three key files of one circuit (different toxic waste), so one size. */
static char key_dir[32];
static char key_path[N_KEYS][64];
static uint64_t key_bytes;

static int make_key_files(void **state)
{
    (void)state;
    snprintf(key_dir, sizeof key_dir, "/tmp/cuzk-keycache-XXXXXX");
    if (!mkdtemp(key_dir))
        return -1;
    for (int i = 0; i < N_KEYS; i++) {
        snprintf(key_path[i], sizeof key_path[i], "%s/key%d.zkey", key_dir, i);
        struct stat st;
        if (write_dev_key(key_path[i], NULL, CUZK_CURVE_BN254, 64, 1, NULL) || stat(key_path[i], &st))
            return -1;
        if (i > 0 && (uint64_t)st.st_size != key_bytes)
            return -1;
        key_bytes = (uint64_t)st.st_size;
    }
    return 0;
}

static int remove_key_files(void **state)
{
    (void)state;
    return remove_tree(key_dir);
}

/* A cache over the three key files under a budget of budget_bytes, with
 * its LRU evictor installed as the engine installs it. */
typedef struct {
    cuzk_budget *budget;
    keycache *kc;
    key_entry *k[N_KEYS];
} cache;

static void cache_open(cache *c, uint64_t budget_bytes)
{
    c->budget = budget_create(budget_bytes);
    assert_non_null(c->budget);
    c->kc = keycache_create(c->budget, NULL);
    assert_non_null(c->kc);
    budget_set_evictor(c->budget, keycache_evict_lru, c->kc);
    for (int i = 0; i < N_KEYS; i++) {
        cuzk_error err = {0};
        c->k[i] = keycache_add(c->kc, key_path[i], &err);
        assert_non_null(c->k[i]);
    }
}

static void cache_close(cache *c)
{
    keycache_destroy(c->kc);
    budget_stats s;
    budget_get_stats(c->budget, &s);
    assert_int_equal(s.used, 0); /* destroying the cache gave back every hot key's bytes */
    budget_destroy(c->budget);
}

static key_info info_of(cache *c, int i)
{
    key_info in;
    keycache_info(c->kc, c->k[i], &in);
    return in;
}

static uint64_t keys_counted(cache *c)
{
    budget_stats s;
    budget_get_stats(c->budget, &s);
    assert_int_equal(s.used, s.by_category[BUDGET_KEYS]); /* nothing else is charged here */
    return s.by_category[BUDGET_KEYS];
}

static const cuzk_zkey *acquire(cache *c, int i)
{
    const cuzk_zkey *z = NULL;
    cuzk_error err = {0};
    assert_int_equal(keycache_acquire(c->kc, c->k[i], &z, NULL, &err), CUZK_OK);
    assert_non_null(z);
    return z;
}

static void preload(cache *c, int i)
{
    cuzk_error err = {0};
    assert_int_equal(keycache_preload(c->kc, c->k[i], NULL, &err), CUZK_OK);
}

/* ---- tiers ---------------------------------------------------------------- */

/* Acquire loads a cold key (once, however many references) and counts its
 * file size under BUDGET_KEYS; releasing keeps it hot and counted. */
static void test_acquire_makes_hot(void **state)
{
    (void)state;
    cache c;
    cache_open(&c, 16 * key_bytes);
    key_info in = info_of(&c, 0);
    assert_int_equal(in.tier, KEY_COLD);
    assert_int_equal(in.refs, 0);
    assert_int_equal(in.bytes, key_bytes);
    assert_int_equal(in.loads, 0);
    assert_int_equal(keys_counted(&c), 0);

    const cuzk_zkey *z = acquire(&c, 0);
    assert_int_equal(z->curve, CUZK_CURVE_BN254);
    assert_true(z->domain_size >= 64);
    in = info_of(&c, 0);
    assert_int_equal(in.tier, KEY_HOT);
    assert_int_equal(in.refs, 1);
    assert_int_equal(in.loads, 1);
    assert_int_equal(keys_counted(&c), key_bytes);

    assert_ptr_equal(acquire(&c, 0), z); /* a second reference, no second load */
    in = info_of(&c, 0);
    assert_int_equal(in.refs, 2);
    assert_int_equal(in.loads, 1);
    assert_int_equal(keys_counted(&c), key_bytes);

    keycache_release(c.kc, c.k[0]);
    keycache_release(c.kc, c.k[0]);
    in = info_of(&c, 0);
    assert_int_equal(in.tier, KEY_HOT);
    assert_int_equal(in.refs, 0);
    assert_int_equal(keys_counted(&c), key_bytes);

    preload(&c, 1);
    in = info_of(&c, 1);
    assert_int_equal(in.tier, KEY_HOT);
    assert_int_equal(in.refs, 0);
    assert_int_equal(keys_counted(&c), 2 * key_bytes);
    assert_int_equal(info_of(&c, 2).tier, KEY_COLD);
    cache_close(&c);
}

/* Evict demotes hot -> warm (the file stays mapped, the bytes go back),
 * drop demotes to cold; a warm key is loaded again on the next acquire. */
static void test_evict_demotes(void **state)
{
    (void)state;
    cache c;
    cache_open(&c, 16 * key_bytes);
    preload(&c, 0);
    assert_int_equal(keycache_evict(c.kc, c.k[0], 0), CUZK_OK);
    key_info in = info_of(&c, 0);
    assert_int_equal(in.tier, KEY_WARM);
    assert_int_equal(in.evictions, 1);
    assert_int_equal(keys_counted(&c), 0);

    preload(&c, 0);
    in = info_of(&c, 0);
    assert_int_equal(in.tier, KEY_HOT);
    assert_int_equal(in.loads, 2);
    assert_int_equal(keys_counted(&c), key_bytes);

    assert_int_equal(keycache_evict(c.kc, c.k[0], 1), CUZK_OK);
    in = info_of(&c, 0);
    assert_int_equal(in.tier, KEY_COLD);
    assert_int_equal(in.evictions, 2);
    assert_int_equal(keys_counted(&c), 0);

    /* evicting what holds nothing changes nothing */
    assert_int_equal(keycache_evict(c.kc, c.k[0], 1), CUZK_OK);
    assert_int_equal(keycache_evict(c.kc, c.k[1], 0), CUZK_OK);
    assert_int_equal(info_of(&c, 0).evictions, 2);
    assert_int_equal(info_of(&c, 1).tier, KEY_COLD);
    assert_int_equal(keys_counted(&c), 0);
    cache_close(&c);
}

/* ---- references and LRU --------------------------------------------------- */

/* A referenced key refuses evict and is passed over by the evictor. */
static void test_referenced_key_never_evicted(void **state)
{
    (void)state;
    cache c;
    cache_open(&c, 16 * key_bytes);
    acquire(&c, 0);
    assert_int_equal(keycache_evict(c.kc, c.k[0], 0), CUZK_ERR_ARG);
    assert_int_equal(keycache_evict_lru(c.kc, UINT64_MAX), 0);
    assert_int_equal(info_of(&c, 0).tier, KEY_HOT);
    assert_int_equal(keys_counted(&c), key_bytes);

    keycache_release(c.kc, c.k[0]);
    assert_int_equal(keycache_evict_lru(c.kc, 1), key_bytes);
    assert_int_equal(info_of(&c, 0).tier, KEY_WARM);
    assert_int_equal(keys_counted(&c), 0);
    cache_close(&c);
}

/* Room for two keys: loading a third evicts the least recently used idle
 * one, and the evictor frees no more than it is asked for. */
static void test_lru_under_budget(void **state)
{
    (void)state;
    cache c;
    cache_open(&c, 2 * key_bytes + key_bytes / 2);
    preload(&c, 0);
    preload(&c, 1);
    preload(&c, 0); /* 0 used last: 1 is now the least recently used */
    preload(&c, 2);
    assert_int_equal(info_of(&c, 0).tier, KEY_HOT);
    assert_int_equal(info_of(&c, 1).tier, KEY_WARM);
    assert_int_equal(info_of(&c, 2).tier, KEY_HOT);
    assert_int_equal(keys_counted(&c), 2 * key_bytes);

    preload(&c, 1); /* now 0 is the oldest */
    assert_int_equal(info_of(&c, 0).tier, KEY_WARM);
    assert_int_equal(info_of(&c, 1).tier, KEY_HOT);
    assert_int_equal(info_of(&c, 2).tier, KEY_HOT);
    assert_int_equal(info_of(&c, 1).loads, 2);

    /* asked for one key's worth plus a byte, the evictor takes two keys,
     * oldest first (2, then 1), and stops */
    assert_int_equal(keycache_evict_lru(c.kc, key_bytes + 1), 2 * key_bytes);
    for (int i = 0; i < N_KEYS; i++)
        assert_int_equal(info_of(&c, i).tier, KEY_WARM);
    budget_stats s;
    budget_get_stats(c.budget, &s);
    assert_true(s.high_water <= s.limit);
    assert_int_equal(s.high_water, 2 * key_bytes);
    cache_close(&c);
}

typedef struct {
    cache *c;
    int key, rc;
    pthread_t th;
} acquirer;

static void *acquirer_run(void *arg)
{
    acquirer *a = arg;
    const cuzk_zkey *z;
    cuzk_error err = {0};
    a->rc = keycache_acquire(a->c->kc, a->c->k[a->key], &z, NULL, &err);
    return NULL;
}

/* Room for one key: an acquire of another waits while the hot one is
 * referenced, and takes its place once the last reference goes. */
static void test_waiter_gets_room_on_release(void **state)
{
    (void)state;
    cache c;
    cache_open(&c, key_bytes + key_bytes / 2);
    acquire(&c, 0);
    acquirer a = {&c, 1, -1, 0};
    assert_int_equal(pthread_create(&a.th, NULL, acquirer_run, &a), 0);
    assert_true(budget_waiters_reach(c.budget, 1));
    assert_int_equal(info_of(&c, 0).tier, KEY_HOT);
    assert_int_equal(info_of(&c, 1).tier, KEY_COLD);
    assert_int_equal(keys_counted(&c), key_bytes);

    keycache_release(c.kc, c.k[0]);
    assert_true(budget_waiters_reach(c.budget, 0));
    pthread_join(a.th, NULL);
    assert_int_equal(a.rc, CUZK_OK);
    assert_int_equal(info_of(&c, 0).tier, KEY_WARM);
    assert_int_equal(info_of(&c, 1).tier, KEY_HOT);
    assert_int_equal(info_of(&c, 1).refs, 1);
    assert_int_equal(keys_counted(&c), key_bytes);
    keycache_release(c.kc, c.k[1]);
    cache_close(&c);
}

/* Four threads acquiring one cold key at once: one load, four references. */
static void test_concurrent_acquires_load_once(void **state)
{
    (void)state;
    cache c;
    cache_open(&c, 16 * key_bytes);
    acquirer a[4];
    for (int t = 0; t < 4; t++) {
        a[t] = (acquirer){&c, 2, -1, 0};
        assert_int_equal(pthread_create(&a[t].th, NULL, acquirer_run, &a[t]), 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(a[t].th, NULL);
        assert_int_equal(a[t].rc, CUZK_OK);
    }
    key_info in = info_of(&c, 2);
    assert_int_equal(in.loads, 1);
    assert_int_equal(in.refs, 4);
    assert_int_equal(keys_counted(&c), key_bytes);
    for (int t = 0; t < 4; t++)
        keycache_release(c.kc, c.k[2]);
    cache_close(&c);
}

/* ---- refusals ------------------------------------------------------------- */

/* A missing file is refused when added, naming the file. */
static void test_missing_file_refused(void **state)
{
    (void)state;
    cuzk_budget *b = budget_create(1 << 20);
    keycache *kc = keycache_create(b, NULL);
    char path[96];
    snprintf(path, sizeof path, "%s/no-such.zkey", key_dir);
    cuzk_error err = {0};
    assert_null(keycache_add(kc, path, &err));
    assert_int_equal(err.code, CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "cannot read the proving key"));
    keycache_destroy(kc);
    budget_destroy(b);
}

/* A key larger than the whole budget, or a file that is not a key, fails
 * its acquire with a message; no reference or byte is left behind. */
static void test_failed_load_leaves_nothing(void **state)
{
    (void)state;
    cache c;
    cache_open(&c, key_bytes / 2);
    const cuzk_zkey *z;
    cuzk_error err = {0};
    assert_int_equal(keycache_acquire(c.kc, c.k[0], &z, NULL, &err), CUZK_ERR_NOMEM);
    assert_non_null(strstr(err.msg, key_path[0]));
    assert_non_null(strstr(err.msg, "does not fit in the memory budget"));
    key_info in = info_of(&c, 0);
    assert_int_equal(in.tier, KEY_COLD);
    assert_int_equal(in.refs, 0);
    assert_int_equal(keys_counted(&c), 0);
    cache_close(&c);

    char junk[96];
    snprintf(junk, sizeof junk, "%s/junk.zkey", key_dir);
    FILE *f = fopen(junk, "w");
    assert_non_null(f);
    fputs("not a zkey\n", f);
    fclose(f);
    cuzk_budget *b = budget_create(1 << 20);
    keycache *kc = keycache_create(b, NULL);
    key_entry *k = keycache_add(kc, junk, &err);
    assert_non_null(k);
    memset(&err, 0, sizeof err);
    assert_int_not_equal(keycache_acquire(kc, k, &z, NULL, &err), CUZK_OK);
    assert_non_null(strstr(err.msg, "junk.zkey"));
    keycache_info(kc, k, &in);
    assert_int_equal(in.tier, KEY_COLD);
    assert_int_equal(in.refs, 0);
    budget_stats s;
    budget_get_stats(b, &s);
    assert_int_equal(s.used, 0);
    keycache_destroy(kc);
    budget_destroy(b);
    remove(junk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_acquire_makes_hot),
        cmocka_unit_test(test_evict_demotes),
        cmocka_unit_test(test_referenced_key_never_evicted),
        cmocka_unit_test(test_lru_under_budget),
        cmocka_unit_test(test_waiter_gets_room_on_release),
        cmocka_unit_test(test_concurrent_acquires_load_once),
        cmocka_unit_test(test_missing_file_refused),
        cmocka_unit_test(test_failed_load_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, make_key_files, remove_key_files);
}
