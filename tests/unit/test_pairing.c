/* The optimal ate pairing on both curves: bilinearity
 * e(aP, bQ) = e(P, Q)^(ab), non-degeneracy, order r, the product form used
 * by verification, and infinity contributing 1. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "pairing/pairing.h"
#include "support.h"

static uint64_t rng_state = 0x1234567;

static uint64_t rnd(void) { return xorshift64(&rng_state); }

#define PAIRING_TESTS(C)                                                                            \
    static void C##_scaled(C##_g1_affine *P, C##_g2_affine *Q, uint64_t a, uint64_t b)             \
    {                                                                                               \
        C##_g1_affine g1;                                                                           \
        C##_g2_affine g2;                                                                           \
        C##_g1_jac j1;                                                                              \
        C##_g2_jac j2;                                                                              \
        C##_g1_generator(&g1);                                                                      \
        C##_g2_generator(&g2);                                                                      \
        C##_g1_jac_from_affine(&j1, &g1);                                                           \
        C##_g2_jac_from_affine(&j2, &g2);                                                           \
        C##_g1_jac_mul_var(&j1, &j1, &a, 64);                                                       \
        C##_g2_jac_mul_var(&j2, &j2, &b, 64);                                                       \
        C##_g1_jac_to_affine(P, &j1);                                                               \
        C##_g2_jac_to_affine(Q, &j2);                                                               \
    }                                                                                               \
    static void test_##C##_bilinear(void **state)                                                   \
    {                                                                                               \
        (void)state;                                                                                \
        for (int round = 0; round < 2; round++) {                                                   \
            uint64_t a = rnd() >> 33, b = rnd() >> 33, ab = a * b;                                  \
            C##_g1_affine P, aP;                                                                    \
            C##_g2_affine Q, bQ;                                                                    \
            C##_scaled(&P, &Q, 1, 1);                                                               \
            C##_scaled(&aP, &bQ, a, b);                                                             \
            C##_fp12 lhs, base, rhs;                                                                \
            C##_pairing(&lhs, &aP, &bQ);                                                            \
            C##_pairing(&base, &P, &Q);                                                             \
            C##_fp12_pow(&rhs, &base, &ab, 64);                                                     \
            assert_true(C##_fp12_eq(&lhs, &rhs));                                                   \
            assert_false(C##_fp12_is_one(&base));                                                   \
            C##_fp12 r_pow;                                                                         \
            C##_fp12_pow(&r_pow, &base, C##_fr_MODULUS, 256);                                       \
            assert_true(C##_fp12_is_one(&r_pow));                                                   \
        }                                                                                           \
    }                                                                                               \
    /* e(-aP, bQ) e(abP, Q) = 1, and an infinity pair contributes 1 */                             \
    static void test_##C##_product(void **state)                                                    \
    {                                                                                               \
        (void)state;                                                                                \
        uint64_t a = rnd() >> 33, b = rnd() >> 33;                                                  \
        C##_g1_affine P[3];                                                                         \
        C##_g2_affine Q[3];                                                                         \
        C##_scaled(&P[0], &Q[0], a, b);                                                             \
        C##_g1_affine_neg(&P[0], &P[0]);                                                            \
        C##_scaled(&P[1], &Q[1], a * b, 1);                                                         \
        C##_g1_affine_set_inf(&P[2]);                                                               \
        C##_scaled(&P[2], &Q[2], 0, 5);                                                             \
        C##_g1_affine_set_inf(&P[2]);                                                               \
        C##_fp12 e;                                                                                 \
        C##_pairing_product(&e, P, Q, 3);                                                           \
        assert_true(C##_fp12_is_one(&e));                                                           \
        C##_scaled(&P[1], &Q[1], a * b + 1, 1); /* off by one: not 1 */                            \
        C##_pairing_product(&e, P, Q, 2);                                                           \
        assert_false(C##_fp12_is_one(&e));                                                          \
    }

PAIRING_TESTS(bn254)
PAIRING_TESTS(bls12_381)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bn254_bilinear),
        cmocka_unit_test(test_bn254_product),
        cmocka_unit_test(test_bls12_381_bilinear),
        cmocka_unit_test(test_bls12_381_product),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
