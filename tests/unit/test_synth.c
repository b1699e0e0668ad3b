/* Synthetic circuits (src/groth16/synth.c) and development setups
 * (src/groth16/setup.inc) on the CPU:
 *   - every shape on both curves gives a circuit its witness satisfies; the
 *     same seed gives the same circuit; zero-witness gives zeros
 *   - the bit-heavy shape's witness has the mix it promises (synth.h), the
 *     random one is full-size
 *   - the witness-mix counter on values at each class boundary
 *   - setups from the same toxic waste are the same key, byte for byte,
 *     on 1 and 3 threads; a proof with that key verifies; bad toxic waste
 *     and shape names are refused
 *   - bad parameters (curve, shape, size) are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "ff/fr_any.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support.h"

static cuzk_synth_params params(cuzk_curve_id curve, cuzk_synth_shape shape, uint32_t m)
{
    return (cuzk_synth_params){.curve = curve, .n_constraints = m, .n_public = 2, .seed = 9, .shape = shape};
}

static void test_shapes_satisfied(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++)
        for (int shape = 0; shape < CUZK_SHAPES; shape++)
            for (int zero = 0; zero < 2; zero++) {
                cuzk_error err = {0};
                cuzk_synth_params sp = params((cuzk_curve_id)curve, (cuzk_synth_shape)shape, 4000);
                sp.zero_witness = zero;
                cuzk_r1cs r;
                cuzk_wtns w;
                assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
                int rc = cuzk_r1cs_check_witness(&r, &w, &err);
                if (rc)
                    print_message("%s: %s\n", cuzk_synth_shape_name(sp.shape), err.msg);
                assert_int_equal(rc, CUZK_OK);
                cuzk_witness_mix m;
                cuzk_witness_mix_count(&w, &m);
                if (zero)
                    assert_int_equal(m.zeros, w.n_witness - 1); /* all but the constant 1 */
                cuzk_r1cs_free(&r);
                cuzk_wtns_free(&w);
            }
}

/* Parameters out of range are refused with a message, nothing made. */
static void test_bad_params_refused(void **state)
{
    (void)state;
    cuzk_synth_params bad[] = {params((cuzk_curve_id)CUZK_N_CURVES, CUZK_SHAPE_RANDOM, 10),
                               params(CUZK_CURVE_BN254, CUZK_SHAPES, 10), params(CUZK_CURVE_BN254, CUZK_SHAPE_RANDOM, 0)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cuzk_error err = {0};
        cuzk_r1cs r;
        cuzk_wtns w;
        assert_int_equal(cuzk_circuit_synth(&bad[i], &r, &w, &err), CUZK_ERR_ARG);
        assert_true(err.msg[0] != 0);
        assert_null(w.values);
    }
}

static void test_same_seed_same_circuit(void **state)
{
    (void)state;
    cuzk_error err = {0};
    cuzk_r1cs r1, r2;
    cuzk_wtns w1, w2;
    cuzk_synth_params sp = params(CUZK_CURVE_BLS12_381, CUZK_SHAPE_MIXED, 3000);
    assert_int_equal(cuzk_circuit_synth(&sp, &r1, &w1, &err), CUZK_OK);
    assert_int_equal(cuzk_circuit_synth(&sp, &r2, &w2, &err), CUZK_OK);
    assert_memory_equal(w1.values, w2.values, (size_t)w1.n_witness * 32);
    for (int k = 0; k < 3; k++) {
        assert_memory_equal(r1.row_start[k], r2.row_start[k], ((size_t)r1.n_constraints + 1) * 4);
        assert_memory_equal(r1.terms[k], r2.terms[k], (size_t)r1.row_start[k][r1.n_constraints] * sizeof *r1.terms[k]);
    }
    cuzk_r1cs_free(&r1);
    cuzk_r1cs_free(&r2);
    cuzk_wtns_free(&w1);
    cuzk_wtns_free(&w2);
}

/* share of n in per cent */
static double pct(uint64_t k, uint32_t n)
{
    return 100.0 * (double)k / n;
}

static void test_bit_heavy_mix(void **state)
{
    (void)state;
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_witness_mix m;
    cuzk_synth_params sp = params(CUZK_CURVE_BLS12_381, CUZK_SHAPE_BITS, 1 << 16);
    assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
    cuzk_witness_mix_count(&w, &m);
    assert_true(pct(m.zeros, w.n_witness) > 55 && pct(m.zeros, w.n_witness) < 63);
    assert_true(pct(m.ones, w.n_witness) > 34 && pct(m.ones, w.n_witness) < 43);
    assert_true(pct(m.small, w.n_witness) > 0.4 && pct(m.small, w.n_witness) < 2);
    assert_true(pct(m.full, w.n_witness) > 0.8 && pct(m.full, w.n_witness) < 2.5);
    /* ~5 non-zeros per constraint, as SHA-256's */
    uint64_t terms = 0;
    for (int k = 0; k < 3; k++)
        terms += r.row_start[k][r.n_constraints];
    assert_true(terms > 4 * (uint64_t)r.n_constraints && terms < 6 * (uint64_t)r.n_constraints);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
    sp.shape = CUZK_SHAPE_RANDOM;
    assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
    cuzk_witness_mix_count(&w, &m);
    assert_true(pct(m.full, w.n_witness) > 90);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

static void test_mix_boundaries(void **state)
{
    (void)state;
    const uint64_t *q = fr_any_of(CUZK_CURVE_BN254).modulus;
    /* 0, 1, 2, 2^32 - 1 | 2^32, r - 2^32 | r - 2^32 + 1, r - 1 | 2^64 */
    uint64_t v[9][4] = {{0}, {1}, {2}, {0xffffffffULL}, {1ULL << 32}, {0}, {0}, {0}, {0, 1}};
    memcpy(v[5], q, 32);
    memcpy(v[6], q, 32);
    memcpy(v[7], q, 32);
    v[5][0] -= 1ULL << 32; /* r's low word is large: no borrows */
    v[6][0] -= (1ULL << 32) - 1;
    v[7][0] -= 1;
    cuzk_wtns w = {CUZK_CURVE_BN254, 9, &v[0][0]};
    cuzk_witness_mix m;
    cuzk_witness_mix_count(&w, &m);
    assert_int_equal(m.zeros, 1);
    assert_int_equal(m.ones, 1);
    assert_int_equal(m.small, 4); /* 2, 2^32 - 1, r - 2^32 + 1, r - 1 */
    assert_int_equal(m.full, 3);  /* 2^32, r - 2^32, 2^64 */
    cuzk_synth_shape s;
    assert_int_equal(cuzk_synth_shape_from_name("bits", &s), 0);
    assert_int_equal(s, CUZK_SHAPE_BITS);
    assert_int_equal(cuzk_synth_shape_from_name("sha", &s), -1);
    for (int i = 0; i < CUZK_SHAPES; i++) { /* the names, the choices and the ids are one list */
        const char *name = cuzk_synth_shape_name((cuzk_synth_shape)i);
        assert_int_equal(cuzk_synth_shape_from_name(name, &s), 0);
        assert_int_equal(s, i);
        assert_non_null(strstr(CUZK_SHAPE_CHOICES, name));
    }
    assert_string_equal(CUZK_SHAPE_CHOICES, "random|bits|mixed");
}

static void test_setup_same_key_any_threads(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        cuzk_error err = {0};
        cuzk_synth_params sp = params((cuzk_curve_id)curve, CUZK_SHAPE_BITS, 3000);
        cuzk_r1cs r;
        cuzk_wtns w;
        cuzk_zkey one, three;
        assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
        assert_int_equal(cuzk_groth16_setup_with(&r, &(cuzk_setup_options){.nthreads = 1, .toxic = test_toxic}, &one,
                                                 &err),
                         CUZK_OK);
        assert_int_equal(cuzk_groth16_setup_with(&r, &(cuzk_setup_options){.nthreads = 3, .toxic = test_toxic},
                                                 &three, &err),
                         CUZK_OK);
        assert_true(zkeys_equal(&one, &three));
        /* the key proves */
        cuzk_backend *b = backend_cpu_create(2);
        cuzk_proof proof;
        cuzk_vk vk;
        uint64_t pub[2][4];
        assert_int_equal(backend_prove(b, &three, &w, 2, &proof, pub, NULL, &err), CUZK_OK);
        assert_int_equal(cuzk_groth16_export_vk(&three, &vk, &err), CUZK_OK);
        assert_int_equal(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, three.n_public, &proof, &err), CUZK_OK);
        /* other toxic waste, another key */
        uint64_t other[5][4];
        memcpy(other, test_toxic, sizeof other);
        other[0][0] ^= 2;
        cuzk_zkey z2;
        assert_int_equal(cuzk_groth16_setup_with(&r, &(cuzk_setup_options){.nthreads = 2, .toxic = other}, &z2, &err),
                         CUZK_OK);
        assert_memory_not_equal(z2.a, three.a, 2 * (size_t)three.n8q * three.n_vars);
        /* toxic waste must be in [1, r) */
        memset(other[3], 0, sizeof other[3]);
        cuzk_zkey bad;
        assert_int_equal(cuzk_groth16_setup_with(&r, &(cuzk_setup_options){.nthreads = 2, .toxic = other}, &bad, &err),
                         CUZK_ERR_ARG);
        b->destroy(b);
        cuzk_vk_free(&vk);
        cuzk_zkey_free(&one);
        cuzk_zkey_free(&three);
        cuzk_zkey_free(&z2);
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes_satisfied),
        cmocka_unit_test(test_bad_params_refused),
        cmocka_unit_test(test_same_seed_same_circuit),
        cmocka_unit_test(test_bit_heavy_mix),
        cmocka_unit_test(test_mix_boundaries),
        cmocka_unit_test(test_setup_same_key_any_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
