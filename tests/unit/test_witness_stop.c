/* Stopping a witness calculation that would never end (src/witness/circom.c
 * with the polls of wasm_poll_points.h and the glue's cuzk_glue_poll): the
 * fixture loops.wasm counts its input down to 0, so n = p - 1 runs for
 * good.
 *   - a calculation under way (it has logged "spinning") ends when its
 *     stop flag is set, with CUZK_ERR_CANCELLED saying it was cancelled
 *   - one with a deadline ends once the deadline passes, saying it ran past
 *     its time limit
 *   - the circuit stays usable: a short input calculates after either, and
 *     a stop that never comes changes nothing */
#define _GNU_SOURCE /* pthread_timedjoin_np */
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

#include "codec/curve_id.h"
#include "support.h"
#include "util/timer.h"
#include "witness/circom.h"

static char cache_dir[] = "/tmp/cuzk-wasm-stop-XXXXXX";

/* bn128's r - 1 */
static const char forever[] = "{\"n\": "
                              "\"21888242871839275222246405745257275088548364400416034343698204186575808495616\"}";

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int spinning;
} spin_sign;

static spin_sign sign = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};

static void on_log(void *ctx, const char *line)
{
    spin_sign *s = ctx;
    if (strcmp(line, "spinning")) return;
    pthread_mutex_lock(&s->lock);
    s->spinning = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
}

static cuzk_circom *load_loops(void)
{
    cuzk_circom_options o = {.cache_dir = cache_dir, .log = on_log, .ctx = &sign};
    cuzk_circom *c = NULL;
    cuzk_error err = {0};
    if (cuzk_circom_load(&c, fixture_path("bn128", "loops.wasm"), &o, &err))
        fail_msg("%s", err.msg);
    return c;
}

static void parse(const char *json, witness_input *in)
{
    cuzk_error err = {0};
    if (witness_input_parse(in, json, strlen(json), "input", cuzk_curve_r(CUZK_CURVE_BN254), &err))
        fail_msg("%s", err.msg);
}

/* n = 5 calculates: k = 5, c = 25 (the witness: 1, c, n, k) */
static void short_input_calculates(cuzk_circom *c)
{
    witness_input in;
    cuzk_wtns w;
    cuzk_error err = {0};
    atomic_int never = 0;
    cuzk_circom_stop stop = {&never, cuzk_now_s() + 3600, 3600};
    parse("{\"n\": 5}", &in);
    assert_int_equal(cuzk_circom_calculate_until(c, &in, &stop, &w, &err), CUZK_OK);
    assert_int_equal(w.n_witness, 4);
    assert_int_equal(w.values[4], 25);
    assert_int_equal(w.values[12], 5);
    cuzk_wtns_free(&w);
    witness_input_free(&in);
}

typedef struct {
    cuzk_circom *c;
    cuzk_circom_stop stop;
    int rc;
    cuzk_error err;
} calc;

static void *run_calc(void *arg)
{
    calc *k = arg;
    witness_input in;
    cuzk_wtns w;
    parse(forever, &in);
    k->rc = cuzk_circom_calculate_until(k->c, &in, &k->stop, &w, &k->err);
    if (!k->rc) cuzk_wtns_free(&w);
    witness_input_free(&in);
    return NULL;
}

/* joins t, failing after a minute: without the polls it never ends */
static void join_or_fail(pthread_t t)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    if (pthread_timedjoin_np(t, NULL, &until)) fail_msg("the calculation did not stop");
}

static void test_flag_stops_a_calculation_under_way(void **state)
{
    (void)state;
    cuzk_circom *c = load_loops();
    short_input_calculates(c);
    atomic_int flag = 0;
    calc k = {c, {&flag, 0, 0}, -1, {0}};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, run_calc, &k), 0);
    pthread_mutex_lock(&sign.lock);
    while (!sign.spinning) pthread_cond_wait(&sign.cv, &sign.lock);
    pthread_mutex_unlock(&sign.lock);
    atomic_store(&flag, 1);
    join_or_fail(t);
    assert_int_equal(k.rc, CUZK_ERR_CANCELLED);
    if (!strstr(k.err.msg, "was cancelled")) fail_msg("the message: %s", k.err.msg);
    short_input_calculates(c);
    cuzk_circom_free(c);
}

static void test_deadline_stops_a_calculation(void **state)
{
    (void)state;
    cuzk_circom *c = load_loops();
    calc k = {c, {NULL, cuzk_now_s() + 0.2, 0.2}, -1, {0}};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, run_calc, &k), 0);
    join_or_fail(t);
    assert_int_equal(k.rc, CUZK_ERR_CANCELLED);
    if (!strstr(k.err.msg, "ran past its time limit of 0.2 s")) fail_msg("the message: %s", k.err.msg);
    short_input_calculates(c);
    cuzk_circom_free(c);
}

int main(void)
{
    if (wasm_tests_unavailable())
        return 77;
    if (!mkdtemp(cache_dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flag_stops_a_calculation_under_way),
        cmocka_unit_test(test_deadline_stops_a_calculation),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    remove_tree(cache_dir);
    return failed;
}
