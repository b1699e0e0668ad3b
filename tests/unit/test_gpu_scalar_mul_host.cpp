/* The device's scalar multiplication (src/gpu/scalar_mul.cuh: signed
 * windows, the GLV split on G1 and GLS on G2) run on the CPU (gpu_host_emul.h) and held
 * against src/ec's double-and-add, so that every machine, GPU or not,
 * tests it:
 *   - the GLV facts of glv_constants.cuh: beta^3 = 1 != beta in Fp,
 *     lambda^2 + lambda + 1 = 0 mod r, phi(G) = (beta x, y) = lambda G on
 *     both curves' G1 generators, and BLS12-381's beta is the one of
 *     src/ec/bls12_381_endo.c; on every group, the device's endomorphism
 *     (G2: psi or psi^2) of the generator is lambda G;
 *   - the split on all four groups' constants: k = s1 m1 + s2 m2 lambda
 *     mod r with m1, m2 < 2^129 for edge scalars (0, 1, r - 1, lambda,
 *     r - lambda, powers of two) and random ones;
 *   - k P on G1 and G2 of both curves, from affine points and from XYZZ
 *     points with ZZ != 1, equal to the CPU's product byte for byte (after
 *     the device's own batch conversion to affine), and by the windows
 *     alone (the path should a split fail): edge scalars (0, 1, windows of
 *     exactly +-16, carries through every window, r - 1) and random ones,
 *     infinity in, infinity out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
extern "C" {
#include <cmocka.h>
}

#include <string.h>

extern "C" {
#include "ec/bls12_381_endo.h"
#include "ec/ec.h"
}

#include "gpu_host_emul.h"
#include "gpu/scalar_mul.cuh"

#ifdef CUZK_VERIFY /* sanitizer build: fewer rounds */
#define RANDOM_SCALARS 3
#else
#define RANDOM_SCALARS 12
#endif

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t next64(void) { return xorshift64star(&rng_state); }

/* ---- scalars (4 little-endian 64-bit words, below r) ---- */

static void words_from_limbs(uint64_t k[4], uint32_t (*limb)(int))
{
    for (int i = 0; i < 4; i++)
        k[i] = (uint64_t)limb(2 * i) | (uint64_t)limb(2 * i + 1) << 32;
}

/* a - b mod 2^256 */
static void sub256(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 4; i++) {
        const unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (d >> 64) & 1;
    }
}

static int below(const uint64_t a[4], const uint64_t b[4])
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

enum { EDGE_SCALARS = 15 };

static void set_bit(uint64_t k[4], int b) { k[b / 64] |= 1ull << (b % 64); }

/* scalar number `which` below r (lambda: the curve's, or NULL): the edges
 * first, then random ones of full width */
static void scalar(uint64_t k[4], int which, const uint64_t r[4], const uint64_t *lambda)
{
    static const uint64_t one[4] = {1, 0, 0, 0};
    memset(k, 0, 4 * sizeof *k);
    switch (which) {
    case 0: break;
    case 1: k[0] = 1; break;
    case 2: k[0] = 16; break; /* one digit +16 */
    case 3: k[0] = 17; break; /* 17 = 32 - 15: a carry */
    case 4: sub256(k, r, one); break; /* -1 */
    case 5: k[2] = 1; break; /* 2^128 */
    case 6: k[2] = ~0ull, k[1] = ~0ull, k[0] = ~0ull; break; /* 2^192 - 1: a carry through every window */
    case 7: /* 16 in every window: the largest digit throughout */
        for (int b = 4; b < 250; b += 5)
            set_bit(k, b);
        break;
    case 8: /* 0b10001 in every window: digits 17 - 32, each carried */
        for (int b = 0; b < 245; b += 5) {
            set_bit(k, b);
            set_bit(k, b + 4);
        }
        break;
    case 9: /* (r - 1) / 2 */
        sub256(k, r, one);
        for (int i = 0; i < 4; i++)
            k[i] = k[i] >> 1 | (i < 3 ? k[i + 1] << 63 : 0);
        break;
    case 10:
        if (lambda)
            memcpy(k, lambda, 4 * sizeof *k);
        else
            k[3] = 1ull << 60;
        break;
    case 11:
        if (lambda)
            sub256(k, r, lambda);
        else
            k[0] = 0x1f;
        break;
    case 12: k[0] = 0xfedcba9876543210ull; break; /* 64 bits */
    case 13: k[2] = 0x3ull; break; /* 2^129 + 2^128 */
    case 14: sub256(k, r, one), k[0] -= 1; break; /* -2 */
    default:
        do {
            for (int i = 0; i < 4; i++)
                k[i] = next64();
            k[3] &= ~0ull >> 1;
        } while (!below(k, r));
    }
}

static void to_limbs(uint32_t out[8], const uint64_t k[4])
{
    for (int i = 0; i < 4; i++) {
        out[2 * i] = (uint32_t)k[i];
        out[2 * i + 1] = (uint32_t)(k[i] >> 32);
    }
}

/* ---- the GLV facts and the split ---- */

/* per curve: the CPU's Fr and G1 (C: the G1 constants) */
template <class C> struct glv_case;

#define GLV_CASE_(CURVE)                                                                                       \
    template <> struct glv_case<gpu::CURVE##_g1_glv_params> {                                                  \
        using fp = CURVE##_fp;                                                                                 \
        using fr = CURVE##_fr;                                                                                 \
        using F = gpu::CURVE##_fp_t;                                                                           \
        static const uint64_t *r() { return CURVE##_fr_MODULUS; }                                              \
        static void fr_of(fr *x, const uint64_t k[4])                                                          \
        {                                                                                                      \
            memcpy(x->l, k, 32);                                                                               \
            CURVE##_fr_to_mont(x, x);                                                                          \
        }                                                                                                      \
        static void fr_mul(fr *r, const fr *a, const fr *b) { CURVE##_fr_mul(r, a, b); }                       \
        static void fr_add(fr *r, const fr *a, const fr *b) { CURVE##_fr_add(r, a, b); }                       \
        static void fr_neg(fr *r, const fr *a) { CURVE##_fr_neg(r, a); }                                       \
        static int fr_is_zero(const fr *a) { return CURVE##_fr_is_zero(a); }                                   \
        static void fp_mul(fp *r, const fp *a, const fp *b) { CURVE##_fp_mul(r, a, b); }                       \
        static void fp_one(fp *r) { CURVE##_fp_set_one(r); }                                                   \
        static int fp_eq(const fp *a, const fp *b) { return CURVE##_fp_eq(a, b); }                             \
        static void lambda_g(CURVE##_g1_affine *out, const uint64_t lambda[4])                                 \
        {                                                                                                      \
            CURVE##_g1_affine g;                                                                               \
            CURVE##_g1_jac j;                                                                                  \
            CURVE##_g1_generator(&g);                                                                          \
            CURVE##_g1_jac_from_affine(&j, &g);                                                                \
            CURVE##_g1_jac_mul_var(&j, &j, lambda, 256);                                                       \
            CURVE##_g1_jac_to_affine(out, &j);                                                                 \
        }                                                                                                      \
        static void generator(CURVE##_g1_affine *g) { CURVE##_g1_generator(g); }                               \
        using g1 = CURVE##_g1_affine;                                                                          \
    };
GLV_CASE_(bn254)
GLV_CASE_(bls12_381)
#undef GLV_CASE_

template <class C> static void check_glv_facts(void)
{
    using T = glv_case<C>;
    typename T::fp beta, b2, b3, one;
    for (int i = 0; i < T::F::N; i++)
        ((uint32_t *)&beta)[i] = C::ex(i);
    T::fp_mul(&b2, &beta, &beta);
    T::fp_mul(&b3, &b2, &beta);
    T::fp_one(&one);
    assert_true(T::fp_eq(&b3, &one)); /* beta^3 = 1 */
    assert_false(T::fp_eq(&beta, &one));

    uint64_t lam[4];
    words_from_limbs(lam, C::lambda);
    typename T::fr l, l2, s;
    T::fr_of(&l, lam);
    T::fr_mul(&l2, &l, &l);
    T::fr_add(&s, &l2, &l);
    typename T::fr fr_one;
    const uint64_t one_w[4] = {1, 0, 0, 0};
    T::fr_of(&fr_one, one_w);
    T::fr_add(&s, &s, &fr_one);
    assert_true(T::fr_is_zero(&s)); /* lambda^2 + lambda + 1 = 0 */

    typename T::g1 g, lg, phi_g;
    T::generator(&g);
    T::lambda_g(&lg, lam);
    T::fp_mul(&phi_g.x, &g.x, &beta);
    phi_g.y = g.y;
    assert_memory_equal(&lg, &phi_g, sizeof lg); /* phi(G) = lambda G */
}

static void test_glv_facts(void **state)
{
    (void)state;
    check_glv_facts<gpu::bn254_g1_glv_params>();
    check_glv_facts<gpu::bls12_381_g1_glv_params>();
    bls12_381_fp endo_beta; /* the same cube root of unity as the subgroup check's */
    bls12_381_g1_endo_beta(&endo_beta);
    for (int i = 0; i < 12; i++)
        assert_int_equal(((uint32_t *)&endo_beta)[i], gpu::bls12_381_g1_glv_params::ex(i));
}

/* m (GLV_WORDS words, < 2^129) as a CPU Fr element, negated if neg */
template <class T> static void fr_of_half(typename T::fr *x, const uint32_t (&m)[gpu::GLV_WORDS], bool neg)
{
    uint64_t w[4] = {0, 0, 0, 0};
    for (int i = 0; i < gpu::GLV_WORDS; i++)
        w[i / 2] |= (uint64_t)m[i] << (32 * (i % 2));
    T::fr_of(x, w);
    if (neg)
        T::fr_neg(x, x);
}

/* the split of group constants C, on the curve of G1 constants C1 */
template <class C, class C1> static void check_split(void)
{
    using T = glv_case<C1>;
    uint64_t lam[4];
    words_from_limbs(lam, C::lambda);
    typename T::fr l;
    T::fr_of(&l, lam);
    for (int which = 0; which < EDGE_SCALARS + 200; which++) {
        uint64_t k[4];
        scalar(k, which, T::r(), lam);
        uint32_t kl[8], m1[gpu::GLV_WORDS], m2[gpu::GLV_WORDS];
        to_limbs(kl, k);
        bool n1, n2;
        assert_true(gpu::glv_split<C>(kl, m1, n1, m2, n2)); /* both halves under 2^129 */
        typename T::fr a, b, sum, want;
        fr_of_half<T>(&a, m1, n1);
        fr_of_half<T>(&b, m2, n2);
        T::fr_mul(&b, &b, &l);
        T::fr_add(&sum, &a, &b);
        T::fr_of(&want, k);
        assert_memory_equal(&sum, &want, sizeof sum); /* s1 m1 + s2 m2 lambda = k */
        if (which == 1 || which == 0) { /* small k: k1 = k, k2 = 0 */
            assert_int_equal(m1[0], (uint32_t)k[0]);
            assert_false(n1);
            for (int i = 0; i < gpu::GLV_WORDS; i++)
                assert_int_equal(m2[i], 0);
        }
    }
}

static void test_glv_split(void **state)
{
    (void)state;
    check_split<gpu::bn254_g1_glv_params, gpu::bn254_g1_glv_params>();
    check_split<gpu::bn254_g2_glv_params, gpu::bn254_g1_glv_params>();
    check_split<gpu::bls12_381_g1_glv_params, gpu::bls12_381_g1_glv_params>();
    check_split<gpu::bls12_381_g2_glv_params, gpu::bls12_381_g1_glv_params>();
}

/* ---- products against the CPU's ---- */

template <class F> struct group_case;

#define GROUP_CASE_(F_DEV, G, CURVE)                                                                           \
    template <> struct group_case<gpu::F_DEV> {                                                                \
        using aff = G##_affine;                                                                                \
        static const uint64_t *r() { return CURVE##_fr_MODULUS; }                                              \
        static void mul(aff *out, const aff *p, const uint64_t k[4])                                           \
        {                                                                                                      \
            G##_jac j;                                                                                         \
            G##_jac_from_affine(&j, p);                                                                        \
            G##_jac_mul_var(&j, &j, k, 256);                                                                   \
            G##_jac_to_affine(out, &j);                                                                        \
        }                                                                                                      \
        static void generator(aff *g) { G##_generator(g); }                                                    \
    };
GROUP_CASE_(bn254_fp_t, bn254_g1, bn254)
GROUP_CASE_(bn254_fp2_t, bn254_g2, bn254)
GROUP_CASE_(bls12_381_fp_t, bls12_381_g1, bls12_381)
GROUP_CASE_(bls12_381_fp2_t, bls12_381_g2, bls12_381)
#undef GROUP_CASE_

/* the device's XYZZ point made affine by its own batch conversion (m = 1) */
template <class F> static gpu::affine<F> device_affine(const gpu::xyzz<F> &acc)
{
    gpu::affine<F> out;
    F zz, zzz, pre_slot, pre = F::one();
    auto at = [](unsigned) { return 0u; };
    gpu::xyzz_batch_record(&out, &zz, &zzz, &pre_slot, acc, pre);
    gpu::xyzz_batch_affine(&out, at, &zz, &zzz, &pre_slot, at, 1, pre);
    return out;
}

template <class F> static void check_products(void)
{
    using T = group_case<F>;
    static_assert(sizeof(gpu::affine<F>) == sizeof(typename T::aff), "the same bytes");
    uint64_t lambda[4];
    words_from_limbs(lambda, gpu::glv_of<F>::C::lambda);
    /* the endomorphism on the generator: e(G) = lambda G */
    typename T::aff g, p, lg;
    T::generator(&g);
    T::mul(&lg, &g, lambda);
    gpu::affine<F> ga;
    memcpy(&ga, &g, sizeof g);
    gpu::xyzz<F> eg = {ga.x, ga.y, F::one(), F::one()};
    gpu::endo_map<F, typename gpu::glv_of<F>::C>::make().apply(eg);
    const gpu::affine<F> eg_affine = device_affine<F>(eg);
    if (memcmp(&eg_affine, &lg, sizeof lg) != 0)
        fail_msg("%zu-byte group: the endomorphism of G is not lambda G", sizeof lg);
    /* the base: a multiple of the generator, in both device forms */
    const uint64_t base_k[4] = {0x0123456789abcdefull, 0x5555, 0, 0};
    T::mul(&p, &g, base_k);
    gpu::affine<F> pa;
    memcpy(&pa, &p, sizeof p);
    F z = F::one() + F::one() + F::one(); /* ZZ = 9, ZZZ = 27: not the affine form */
    const F z2 = z.sqr(), z3 = z2 * z;
    const gpu::xyzz<F> px = {pa.x * z2, pa.y * z3, z2, z3};
    const gpu::affine<F> inf = {F::zero(), F::zero()};
    for (int which = 0; which < EDGE_SCALARS + RANDOM_SCALARS; which++) {
        uint64_t k[4];
        scalar(k, which, T::r(), lambda);
        uint32_t kl[8];
        to_limbs(kl, k);
        typename T::aff want;
        T::mul(&want, &p, k);
        const gpu::affine<F> from_affine = device_affine<F>(gpu::mul_scalar<F>(pa, kl));
        const gpu::affine<F> from_xyzz = device_affine<F>(gpu::mul_scalar<F>(px, kl));
        if (memcmp(&from_affine, &want, sizeof want) != 0)
            fail_msg("%zu-byte group: k P from an affine P differs from the CPU's (scalar %d)", sizeof want, which);
        if (memcmp(&from_xyzz, &want, sizeof want) != 0)
            fail_msg("%zu-byte group: k P from an XYZZ P differs from the CPU's (scalar %d)", sizeof want, which);
        const gpu::affine<F> zero = device_affine<F>(gpu::mul_scalar<F>(inf, kl));
        assert_true(zero.is_inf());
        gpu::xyzz<F> t[gpu::WIN_TABLE]; /* the path without the split (should it fail) */
        int8_t d[gpu::DIGITS_256];
        const gpu::affine<F> plain = device_affine<F>(gpu::mul_windowed<F>(t, d, px, kl));
        if (memcmp(&plain, &want, sizeof want) != 0)
            fail_msg("%zu-byte group: k P by windows alone differs from the CPU's (scalar %d)", sizeof want, which);
    }
}

static void test_products_match_cpu(void **state)
{
    (void)state;
    check_products<gpu::bn254_fp_t>();
    check_products<gpu::bls12_381_fp_t>();
    check_products<gpu::bn254_fp2_t>();
    check_products<gpu::bls12_381_fp2_t>();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glv_facts),
        cmocka_unit_test(test_glv_split),
        cmocka_unit_test(test_products_match_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
