/* The device field arithmetic (src/gpu/ff.cuh) run on the CPU and checked
 * against the CPU's fields (src/ff), so that every machine, GPU or not,
 * tests it: the Montgomery products (CIOS), the squares (double-width
 * square and a separate reduction for BLS12-381's Fp), a double-width
 * product reduced apart, Shoup's products by a fixed factor, the Fp2
 * products with one reduction per coefficient, sums and differences.
 *
 * ff.cuh's carry chains are PTX instructions that share the carry flag
 * between asm statements; here each is a function over an emulated flag
 * (gpu_host_emul.h). Elements have the same bytes on
 * both sides (little-endian limbs), so results are compared bytewise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
extern "C" {
#include <cmocka.h>
}

#include <string.h>

extern "C" {
#include "ff/field.h"
}

#include "gpu_host_emul.h"

#ifdef CUZK_VERIFY /* sanitizer build: fewer rounds */
#define ROUNDS 2000
#else
#define ROUNDS 20000
#endif

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t next64(void) { return xorshift64star(&rng_state); }

/* A limb pattern that reaches the carries' edges: zero and all-ones limbs
 * among random ones */
static uint32_t edgy_limb(void)
{
    const uint64_t r = next64();
    switch (r & 7) {
    case 0: return 0;
    case 1: return 0xffffffffu;
    default: return (uint32_t)(r >> 32);
    }
}

/* One device field against its CPU twin C (the same bytes). */
template <class D, class C> struct field_pair {
    static constexpr int N = D::N;
    static_assert(sizeof(D) == sizeof(C), "the same bytes");

    /* operand k of a run: 0, 1 (Montgomery), m - 1, then below m at random */
    static void element(int k, D &d, C &c, int (*canonical)(const C *))
    {
        if (k < 3) {
            d = k == 0 ? D::zero() : k == 1 ? D::one() : D::raw_sub(D::modulus(), D::one().from_mont());
        } else {
            do {
                for (int i = 0; i < N; i++)
                    d.v[i] = edgy_limb();
                d.v[N - 1] &= (1u << (32 - __builtin_clz(D::modulus().v[N - 1]))) - 1;
                memcpy(&c, &d, sizeof c);
            } while (!canonical(&c));
        }
        memcpy(&c, &d, sizeof c);
    }
    static void same(const D &d, const C &c, const char *what, int k)
    {
        if (memcmp(&d, &c, sizeof c) != 0)
            fail_msg("%d-limb field: %s differs from the CPU's (round %d)", N, what, k);
    }
    static void run(void (*mul)(C *, const C *, const C *), void (*add)(C *, const C *, const C *),
                    void (*sub)(C *, const C *, const C *), void (*neg)(C *, const C *), int (*canonical)(const C *))
    {
        const D raw_one = D::raw_one(); /* the integer 1, which from_mont multiplies by */
        for (int i = 0; i < N; i++)
            if (raw_one.v[i] != (i == 0 ? 1u : 0u))
                fail_msg("%d-limb field: raw_one's limb %d is %u", N, i, raw_one.v[i]);
        C c_raw_one;
        memcpy(&c_raw_one, &raw_one, sizeof c_raw_one);
        for (int k = 0; k < ROUNDS; k++) {
            D a, b;
            C ca, cb, want;
            element(k % 7, a, ca, canonical); /* the edge values against everything */
            element(k, b, cb, canonical);
            C ab;
            mul(&ab, &ca, &cb);
            same(a * b, ab, "a b", k);
            C a_normal;
            mul(&a_normal, &ca, &c_raw_one);
            same(a.from_mont(), a_normal, "a R^-1", k);
            same(a * b.to_shoup(), ab, "a b (Shoup)", k);
            uint32_t wide[2 * N];
            D::mul_wide(wide, a, b);
            same(D::redc(wide), ab, "redc(a b)", k);
            D c, d;
            C cc, cd, cdp;
            element(k % 5, c, cc, canonical);
            element(k % 11, d, cd, canonical); /* d = 0 too: c (m - 0) */
            mul(&cdp, &cc, &cd);
            sub(&want, &ab, &cdp);
            same(D::mul_sub(a, b, c, d), want, "a b - c d", k);
            /* the lock-step pairs, called directly: every limb count */
            const typename D::pair two = D::mul2_outline(a, b, c, d);
            same(two.first, ab, "a b of mul2", k);
            same(two.second, cdp, "c d of mul2", k);
            const typename D::pair squares = D::sqr2_outline(a, b);
            mul(&want, &cb, &cb);
            same(squares.second, want, "b^2 of sqr2", k);
            mul(&want, &ca, &ca);
            same(squares.first, want, "a^2 of sqr2", k);
            same(a.sqr(), want, "a^2", k);
            add(&want, &ca, &cb);
            same(a + b, want, "a + b", k);
            sub(&want, &ca, &cb);
            same(a - b, want, "a - b", k);
            neg(&want, &cb);
            same(b.neg(), want, "-b", k);
        }
    }
};

static void test_bn254(void **state)
{
    (void)state;
    field_pair<gpu::bn254_fp_t, bn254_fp>::run(bn254_fp_mul, bn254_fp_add, bn254_fp_sub, bn254_fp_neg,
                                               bn254_fp_is_canonical);
    field_pair<gpu::bn254_fr_t, bn254_fr>::run(bn254_fr_mul, bn254_fr_add, bn254_fr_sub, bn254_fr_neg,
                                               bn254_fr_is_canonical);
}

static void test_bls12_381(void **state)
{
    (void)state;
    field_pair<gpu::bls12_381_fp_t, bls12_381_fp>::run(bls12_381_fp_mul, bls12_381_fp_add, bls12_381_fp_sub,
                                                       bls12_381_fp_neg, bls12_381_fp_is_canonical);
    field_pair<gpu::bls12_381_fr_t, bls12_381_fr>::run(bls12_381_fr_mul, bls12_381_fr_add, bls12_381_fr_sub,
                                                       bls12_381_fr_neg, bls12_381_fr_is_canonical);
}

/* Fp2 products and squares against the CPU's (c0, c1 as 2N words) */
template <class D2, class C>
static void check_fp2(void (*mul_u2)(uint64_t *, const uint64_t *, const uint64_t *),
                      void (*sqr_u2)(uint64_t *, const uint64_t *), int (*canonical)(const C *))
{
    using D = typename D2::base;
    for (int k = 0; k < ROUNDS; k++) {
        D2 a, b;
        C c[4];
        field_pair<D, C>::element(k % 5, a.c0, c[0], canonical);
        field_pair<D, C>::element(k + 1, a.c1, c[1], canonical);
        field_pair<D, C>::element(k + 2, b.c0, c[2], canonical);
        field_pair<D, C>::element(k % 3, b.c1, c[3], canonical);
        uint64_t ca[D::N], cb[D::N], want[D::N]; /* two coefficients of N / 2 words */
        memcpy(ca, &a, sizeof a);
        memcpy(cb, &b, sizeof b);
        mul_u2(want, ca, cb);
        D2 got = a * b;
        if (memcmp(&got, want, sizeof got) != 0)
            fail_msg("%d-limb Fp2 product differs from the CPU's (round %d)", D::N, k);
        sqr_u2(want, ca);
        got = a.sqr();
        if (memcmp(&got, want, sizeof got) != 0)
            fail_msg("%d-limb Fp2 square differs from the CPU's (round %d)", D::N, k);
    }
}

static void test_fp2(void **state)
{
    (void)state;
    check_fp2<gpu::bn254_fp2_t, bn254_fp>(bn254_fp_mul_u2, bn254_fp_sqr_u2, bn254_fp_is_canonical);
    check_fp2<gpu::bls12_381_fp2_t, bls12_381_fp>(bls12_381_fp_mul_u2, bls12_381_fp_sqr_u2,
                                                  bls12_381_fp_is_canonical);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bn254),
        cmocka_unit_test(test_bls12_381),
        cmocka_unit_test(test_fp2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
