/* Public scalar multiplication by GLV/GLS and width-5 NAF (ec.inc's
 * jac_mul_public, src/ec/scalar_recode.c) against plain double-and-add
 * (jac_mul_var), on all four groups: the endomorphism's constants (e(G) =
 * lambda G), the split's identity and bounds on random scalars, and the
 * products on random and edge scalars (0, 1, small, lambda, r - 1, halves
 * at their bounds, and k >= r, where the split gives way to one NAF). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ec/ec.h"
#include "support.h"

/* k mod r as the product k G must match: jac_mul_var by all 256 bits */
#define GROUP_TESTS(G, R)                                                                               \
    static void G##_check(const G##_jac *base, const uint64_t k[4])                                    \
    {                                                                                                  \
        G##_jac fast, slow;                                                                            \
        G##_jac_mul_public(&fast, base, k);                                                            \
        G##_jac_mul_var(&slow, base, k, 256);                                                          \
        assert_true(G##_jac_eq(&fast, &slow));                                                         \
    }                                                                                                  \
    static void test_##G(void **state)                                                                 \
    {                                                                                                  \
        (void)state;                                                                                   \
        G##_affine ga;                                                                                 \
        G##_jac g, e, lg;                                                                              \
        G##_generator(&ga);                                                                            \
        G##_jac_from_affine(&g, &ga);                                                                  \
        G##_jac_endo(&e, &g);                                                                          \
        G##_jac_mul_var(&lg, &g, G##_glv.lambda, 256);                                                 \
        assert_true(G##_jac_eq(&e, &lg)); /* e acts as lambda */                                       \
        assert_false(G##_jac_eq(&e, &g));                                                              \
        uint64_t seed = 0x9e3779b97f4a7c15ULL, k[4];                                                   \
        /* a base other than the generator: 2^64 - 59 times it */                                      \
        uint64_t m = 0xffffffffffffffc5ULL;                                                            \
        G##_jac base;                                                                                  \
        G##_jac_mul_var(&base, &g, &m, 64);                                                            \
        for (int t = 0; t < 64; t++) {                                                                 \
            for (int i = 0; i < 4; i++) k[i] = xorshift64(&seed);                                      \
            k[3] &= (R)[3] >> 1; /* below r */                                                         \
            G##_check(t & 1 ? &base : &g, k);                                                          \
        }                                                                                              \
        const uint64_t edges[][4] = {                                                                  \
            {0, 0, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 0}, {15, 0, 0, 0}, {17, 0, 0, 0},                     \
            {0, 0, 1, 0}, {~0ULL, ~0ULL, 1, 0}, {0, 0, 0, 1},                                          \
            {(R)[0] - 1, (R)[1], (R)[2], (R)[3]}, {(R)[0] - 2, (R)[1], (R)[2], (R)[3]},                \
            {(R)[0], (R)[1], (R)[2], (R)[3]}, {~0ULL, ~0ULL, ~0ULL, ~0ULL}};                           \
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) G##_check(&base, edges[i]);        \
        G##_check(&base, G##_glv.lambda);                                                              \
    }

GROUP_TESTS(bn254_g1, bn254_fr_MODULUS)
GROUP_TESTS(bn254_g2, bn254_fr_MODULUS)
GROUP_TESTS(bls12_381_g1, bls12_381_fr_MODULUS)
GROUP_TESTS(bls12_381_g2, bls12_381_fr_MODULUS)

/* The split on many random k < r: k = s1 m1 + s2 m2 lambda mod r, both
 * halves below 2^129 (Fr arithmetic, Montgomery form). */
#define SPLIT_TEST(C)                                                                                   \
    static void test_split_##C(void **state)                                                           \
    {                                                                                                  \
        (void)state;                                                                                   \
        uint64_t seed = 12345, k[4], m1[CUZK_GLV_WORDS], m2[CUZK_GLV_WORDS];                           \
        C##_fr lam, a, b, want;                                                                        \
        memcpy(lam.l, C##_g1_glv.lambda, sizeof lam.l);                                                \
        C##_fr_to_mont(&lam, &lam);                                                                    \
        for (int t = 0; t < 20000; t++) {                                                              \
            for (int i = 0; i < 4; i++) k[i] = xorshift64(&seed);                                      \
            k[3] &= C##_fr_MODULUS[3] >> 1;                                                            \
            int n1, n2;                                                                                \
            assert_int_equal(cuzk_glv_split(&C##_g1_glv, k, m1, &n1, m2, &n2), 1);                     \
            assert_true(m1[2] < 2 && m2[2] < 2);                                                       \
            memset(&a, 0, sizeof a);                                                                   \
            memset(&b, 0, sizeof b);                                                                   \
            memcpy(a.l, m1, sizeof m1);                                                                \
            memcpy(b.l, m2, sizeof m2);                                                                \
            memcpy(want.l, k, sizeof want.l);                                                          \
            C##_fr_to_mont(&a, &a);                                                                    \
            C##_fr_to_mont(&b, &b);                                                                    \
            C##_fr_to_mont(&want, &want);                                                              \
            if (n1) C##_fr_neg(&a, &a);                                                                \
            if (n2) C##_fr_neg(&b, &b);                                                                \
            C##_fr_mul(&b, &b, &lam);                                                                  \
            C##_fr_add(&a, &a, &b);                                                                    \
            assert_true(C##_fr_eq(&a, &want));                                                         \
        }                                                                                              \
    }

SPLIT_TEST(bn254)
SPLIT_TEST(bls12_381)

/* The NAF's digits: odd, |d| < 16, four zeros after each non-zero one,
 * and they sum back to k. */
static void test_wnaf_digits(void **state)
{
    (void)state;
    uint64_t seed = 7, k[4];
    int8_t d[4 * 64 + 1];
    for (int t = 0; t < 2000; t++) {
        for (int i = 0; i < 4; i++) k[i] = t < 4 ? (t == 3 ? ~0ULL : (uint64_t)t) : xorshift64(&seed);
        int len = cuzk_wnaf5(k, 4, d), last = len + 5;
        /* sum d_i 2^i from the top, in 5 words with a sign by two's complement */
        uint64_t acc[5] = {0};
        for (int i = len - 1; i >= 0; i--) {
            for (int w = 4; w > 0; w--) acc[w] = acc[w] << 1 | acc[w - 1] >> 63;
            acc[0] <<= 1;
            int64_t v = d[i];
            uint64_t add = (uint64_t)v, carry = 0;
            for (int w = 0; w < 5; w++) {
                uint64_t ext = w ? (v < 0 ? ~0ULL : 0) : add;
                uint64_t s = acc[w] + ext, c1 = s < acc[w];
                acc[w] = s + carry;
                carry = c1 | (acc[w] < s);
            }
            if (v) {
                assert_true((v & 1) && v < 16 && v > -16);
                assert_true(last - i >= 5);
                last = i;
            }
        }
        assert_memory_equal(acc, k, sizeof k);
        assert_int_equal(acc[4], 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bn254_g1),      cmocka_unit_test(test_bn254_g2),
        cmocka_unit_test(test_bls12_381_g1),  cmocka_unit_test(test_bls12_381_g2),
        cmocka_unit_test(test_split_bn254),   cmocka_unit_test(test_split_bls12_381),
        cmocka_unit_test(test_wnaf_digits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
