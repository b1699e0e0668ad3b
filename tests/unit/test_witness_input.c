/* The input JSON of circom's witness calculator (src/witness/input.c):
 * FNV-1a against the reference vectors, nested arrays flattened in
 * circom's order, values read as JavaScript's BigInt() reads them and
 * reduced mod p on both curves, and every refusal with its message and
 * nothing left allocated. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "codec/curve_id.h"
#include "codec/decimal.h"
#include "witness/input.h"

static void test_fnv1a64(void **state)
{
    (void)state;
    /* the FNV reference test vectors */
    assert_true(witness_fnv1a64("", 0) == 0xcbf29ce484222325ull);
    assert_true(witness_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
    assert_true(witness_fnv1a64("foobar", 6) == 0x85944171f73967e8ull);
}

static int parse(witness_input *in, const char *json, const uint64_t *p, cuzk_error *err)
{
    memset(err, 0, sizeof *err);
    return witness_input_parse(in, json, strlen(json), "in.json", p, err);
}

static void check_value(const witness_input_signal *s, uint32_t i, uint64_t w0, uint64_t w1, uint64_t w2,
                         uint64_t w3)
{
    assert_true(i < s->n_values);
    assert_true(s->values[i][0] == w0 && s->values[i][1] == w1 && s->values[i][2] == w2 && s->values[i][3] == w3);
}

static void test_flattening_and_values(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        const uint64_t *p = cuzk_curve_r((cuzk_curve_id)curve);
        witness_input in;
        cuzk_error err;
        assert_int_equal(parse(&in,
                               "{\"a\": \"3\", \"m\": [[\"1\", 2], [\"-1\", \"0x1f\"], [[true, false]]], \"e\": [],"
                               " \"s\": [\" 7 \", \"0b101\", \"0o17\", \"+4\", \"-0\", -5, 1e3, \"0XfF\"]}",
                               p, &err),
                         CUZK_OK);
        assert_int_equal(in.n_signals, 4);
        const char *names[] = {"a", "m", "e", "s"};
        for (int i = 0; i < 4; i++) {
            assert_string_equal(in.signals[i].name, names[i]);
            assert_true(in.signals[i].hash == witness_fnv1a64(names[i], 1));
        }
        assert_int_equal(in.signals[0].n_values, 1);
        check_value(&in.signals[0], 0, 3, 0, 0, 0);
        const witness_input_signal *m = &in.signals[1];
        assert_int_equal(m->n_values, 6);
        check_value(m, 0, 1, 0, 0, 0);
        check_value(m, 1, 2, 0, 0, 0);
        check_value(m, 2, p[0] - 1, p[1], p[2], p[3]); /* r's lowest word is odd */
        check_value(m, 3, 31, 0, 0, 0);
        check_value(m, 4, 1, 0, 0, 0);
        check_value(m, 5, 0, 0, 0, 0);
        assert_int_equal(in.signals[2].n_values, 0);
        const witness_input_signal *s = &in.signals[3];
        assert_int_equal(s->n_values, 8);
        uint64_t want[] = {7, 5, 15, 4, 0, 0, 1000, 255};
        for (uint32_t i = 0; i < 8; i++)
            if (i != 5) check_value(s, i, want[i], 0, 0, 0);
        check_value(s, 5, p[0] - 5, p[1], p[2], p[3]);
        witness_input_free(&in);
    }
}

/* p + 5, 10p + 3 and -(p + 1) as decimal strings, p itself in hex. */
static void test_values_mod_p(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        const uint64_t *p = cuzk_curve_r((cuzk_curve_id)curve);
        uint64_t p5[4];
        unsigned __int128 carry = 5;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 t = (unsigned __int128)p[i] + carry;
            p5[i] = (uint64_t)t;
            carry = t >> 64;
        }
        char dec_p[CUZK_DEC_CAP(4)], dec_p5[CUZK_DEC_CAP(4)], json[512];
        cuzk_dec_format(p, 4, dec_p, sizeof dec_p);
        cuzk_dec_format(p5, 4, dec_p5, sizeof dec_p5);
        snprintf(json, sizeof json, "{\"x\": [\"%s\", \"%s3\", \"-%s1\", \"0x%016llx%016llx%016llx%016llx\"]}",
                 dec_p5, dec_p, dec_p, (unsigned long long)p[3], (unsigned long long)p[2],
                 (unsigned long long)p[1], (unsigned long long)p[0]);
        /* "-<p>1" is -(10p + 1): p - 1 mod p */
        witness_input in;
        cuzk_error err;
        assert_int_equal(parse(&in, json, p, &err), CUZK_OK);
        const witness_input_signal *x = &in.signals[0];
        check_value(x, 0, 5, 0, 0, 0);
        check_value(x, 1, 3, 0, 0, 0);
        check_value(x, 2, p[0] - 1, p[1], p[2], p[3]);
        check_value(x, 3, 0, 0, 0, 0);
        witness_input_free(&in);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *json, *says;
    } cases[] = {
        {"{\"a\": \"\"}", "input signal 'a', value 0: an empty string is not a number"},
        {"{\"a\": [\"1\", \"-\"]}", "input signal 'a', value 1: a sign alone"},
        {"{\"a\": \"1.5\"}", "not an integer"},
        {"{\"a\": \"1e3\"}", "not an integer"},
        {"{\"a\": \"-0x5\"}", "not an integer"},
        {"{\"a\": \"0x\"}", "not an integer"},
        {"{\"a\": \"0b102\"}", "not an integer"},
        {"{\"a\": [[1, 2], [3, 1.5]]}", "input signal 'a', value 3: not an integer"},
        {"{\"a\": null}", "null is not a number"},
        {"{\"a\": 9007199254740993}", "beyond 2^53"},
        {"{\"a\": -1e300}", "beyond 2^53"},
        {"{\"a\": 123456789012345678901234567890}", "write big values as strings"},
        {"{\"ok\": 1, \"a\": [{\"b\": 1}]}", "input signal 'a', value 0: an object is not a number"},
        {"[1, 2]", "must be a JSON object"},
        {"{\"a\": 1", "not JSON"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        witness_input in;
        cuzk_error err;
        int rc = parse(&in, cases[k].json, cuzk_curve_r(CUZK_CURVE_BN254), &err);
        if (rc != CUZK_ERR_FORMAT || !strstr(err.msg, cases[k].says) || !strstr(err.msg, "in.json"))
            fail_msg("%s: rc %d, message '%s', expected '%s'", cases[k].json, rc, err.msg, cases[k].says);
        assert_int_equal(in.n_signals, 0);
        assert_null(in.signals);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fnv1a64),
        cmocka_unit_test(test_flattening_and_values),
        cmocka_unit_test(test_values_mod_p),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
