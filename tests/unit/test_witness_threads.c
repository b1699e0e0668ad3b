/* circom's witness calculator on several threads at once
 * (src/witness/circom.c over the runtime of wasm_runtime.h): the witness
 * of the fixture's mul circuit equals snarkjs's .wtns on both curves, and
 * one loaded witness_checks circuit calculates on four threads at once,
 * good inputs (a recursion 2,500 calls deep: more calls in all than the
 * depth bound, so a count that is not given back shows) among failed
 * asserts and traps, each thread getting its own result: the runtime's
 * trap target is per thread, the call depth per instance. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/curve_id.h"
#include "support.h"
#include "witness/circom.h"

static char cache_dir[] = "/tmp/cuzk-wasm-threads-XXXXXX";

static cuzk_circom *load(const char *curve_dir, const char *name)
{
    cuzk_circom_options o = {.cache_dir = cache_dir};
    cuzk_circom *c = NULL;
    cuzk_error err = {0};
    if (cuzk_circom_load(&c, fixture_path(curve_dir, name), &o, &err))
        fail_msg("%s", err.msg);
    return c;
}

static void test_mul_equals_snarkjs(void **state)
{
    (void)state;
    static const char *const curves[] = {"bn128", "bls12381"};
    for (int i = 0; i < 2; i++) {
        cuzk_circom *c = load(curves[i], "mul.wasm");
        cuzk_wtns mine, theirs;
        cuzk_error err = {0};
        assert_int_equal(cuzk_circom_calculate_file(c, fixture_path(".", "input.json"), &mine, &err), CUZK_OK);
        assert_int_equal(cuzk_wtns_read(&theirs, fixture_path(curves[i], "mul.wtns"), &err), CUZK_OK);
        assert_int_equal(mine.curve, theirs.curve);
        assert_int_equal(mine.n_witness, theirs.n_witness);
        assert_memory_equal(mine.values, theirs.values, (size_t)mine.n_witness * 32);
        cuzk_wtns_free(&mine);
        cuzk_wtns_free(&theirs);
        cuzk_circom_free(c);
    }
}

enum { THREADS = 4, ROUNDS = 30, GOOD_DEPTH = 2500 };
typedef enum { GOOD, ASSERT, TRAP } kind;

typedef struct {
    cuzk_circom *c;
    int thread;
    const cuzk_wtns *expected; /* the witness of good_input(thread), calculated alone */
    int wrong;                 /* rounds whose outcome was not the expected one */
    char why[600];
} worker;

/* a good input differs per thread (so a result crossing threads shows); 13
 * fails the circuit's assert; a recursion of a million overruns its stack */
static int input_of(kind k, int thread, witness_input *in)
{
    char json[200];
    snprintf(json, sizeof json, "{\"a\": %d, \"b\": [[1, %d], [3, 4]], \"d\": %d}", k == ASSERT ? 13 : 20 + thread,
             thread, k == TRAP ? 1000000 : GOOD_DEPTH);
    cuzk_error err = {0};
    return witness_input_parse(in, json, strlen(json), "input", cuzk_curve_r(CUZK_CURVE_BN254), &err);
}

static void note(worker *w, int round, const char *what, const char *msg)
{
    if (!w->wrong++)
        snprintf(w->why, sizeof w->why, "thread %d round %d: %s: %.400s", w->thread, round, what, msg);
}

static void *work(void *arg)
{
    worker *w = arg;
    for (int round = 0; round < ROUNDS; round++) {
        kind k = (kind)((round + w->thread) % 3);
        witness_input in;
        if (input_of(k, w->thread, &in)) {
            note(w, round, "input", "not parsed");
            continue;
        }
        cuzk_wtns out;
        cuzk_error err = {0};
        int rc = cuzk_circom_calculate(w->c, &in, &out, &err);
        witness_input_free(&in);
        if (k == GOOD && (rc || memcmp(out.values, w->expected->values, (size_t)out.n_witness * 32)))
            note(w, round, "a good input", rc ? err.msg : "another witness");
        if (k == ASSERT && (rc != CUZK_ERR_UNSATISFIED || !strstr(err.msg, "Assert Failed")))
            note(w, round, "the assert", rc ? err.msg : "passed");
        if (k == TRAP && (rc != CUZK_ERR_FORMAT || !strstr(err.msg, "trapped")))
            note(w, round, "the trap", rc ? err.msg : "no trap");
        if (!rc)
            cuzk_wtns_free(&out);
    }
    return NULL;
}

static void test_threads_keep_their_own_state(void **state)
{
    (void)state;
    cuzk_circom *c = load("bn128", "witness_checks.wasm");
    cuzk_wtns expected[THREADS];
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        witness_input in;
        cuzk_error err = {0};
        assert_int_equal(input_of(GOOD, i, &in), CUZK_OK);
        assert_int_equal(cuzk_circom_calculate(c, &in, &expected[i], &err), CUZK_OK);
        witness_input_free(&in);
        w[i] = (worker){c, i, &expected[i], 0, ""};
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        if (w[i].wrong)
            fail_msg("%d rounds wrong; the first: %s", w[i].wrong, w[i].why);
        cuzk_wtns_free(&expected[i]);
    }
    cuzk_circom_free(c);
}

int main(void)
{
    if (wasm_tests_unavailable())
        return 77;
    if (!mkdtemp(cache_dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mul_equals_snarkjs),
        cmocka_unit_test(test_threads_keep_their_own_state),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    remove_tree(cache_dir);
    return failed;
}
