/* NTT tests for both scalar fields: the transform against an O(n^2) DFT,
 * spot checks of large transforms by Horner evaluation, round trips, the
 * coset shift, the coset chain (plans, to_coset) against Horner and against
 * intt / shift / ntt, thread-count independence and argument checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "poly/ntt.h"
#include "support.h"
#include "util/random.h"

/* Both scalar fields are four 64-bit limbs; the tests run on this common
 * layout through a table of the field's operations. */
typedef struct {
    uint64_t l[4];
} fe;

typedef struct {
    const char *name;
    unsigned two_adicity, bits;
    void (*mul)(fe *r, const fe *a, const fe *b);
    void (*add)(fe *r, const fe *a, const fe *b);
    void (*to_mont)(fe *r, const fe *a);
    void (*set_one)(fe *r);
    void (*ntt_root)(fe *w, unsigned log_n);
    int (*ntt)(fe *a, size_t n, int nthreads);
    int (*intt)(fe *a, size_t n, int nthreads);
    void (*scale_by_powers)(fe *a, size_t n, const fe *g, int nthreads);
    int (*plan_new)(void **plan, size_t n, const fe *g, int nthreads);
    void (*plan_free)(void *plan);
    int (*to_coset)(const void *plan, fe *a, int nthreads);
} field_ops;

#define FIELD_OPS(F, UP)                                                                        \
    _Static_assert(sizeof(F) == sizeof(fe), "scalar fields are 4 limbs");                      \
    static void F##_t_mul(fe *r, const fe *a, const fe *b) { F##_mul((F *)r, (const F *)a, (const F *)b); } \
    static void F##_t_add(fe *r, const fe *a, const fe *b) { F##_add((F *)r, (const F *)a, (const F *)b); } \
    static void F##_t_to_mont(fe *r, const fe *a) { F##_to_mont((F *)r, (const F *)a); }         \
    static void F##_t_set_one(fe *r) { F##_set_one((F *)r); }                                    \
    static void F##_t_ntt_root(fe *w, unsigned k) { F##_ntt_root((F *)w, k); }                  \
    static int F##_t_ntt(fe *a, size_t n, int t) { return F##_ntt((F *)a, n, t); }              \
    static int F##_t_intt(fe *a, size_t n, int t) { return F##_intt((F *)a, n, t); }            \
    static void F##_t_scale(fe *a, size_t n, const fe *g, int t) { F##_scale_by_powers((F *)a, n, (const F *)g, t); } \
    static int F##_t_plan_new(void **p, size_t n, const fe *g, int t)                           \
    {                                                                                          \
        F##_ntt_plan *plan = (F##_ntt_plan *)1; /* overwritten on every return */             \
        int rc = F##_ntt_plan_new(&plan, n, (const F *)g, t);                                   \
        *p = plan;                                                                             \
        return rc;                                                                             \
    }                                                                                          \
    static void F##_t_plan_free(void *p) { F##_ntt_plan_free(p); }                              \
    static int F##_t_to_coset(const void *p, fe *a, int t) { return F##_ntt_to_coset(p, (F *)a, t); } \
    static const field_ops F##_ops = {#F, UP##_TWO_ADICITY, UP##_BITS, F##_t_mul, F##_t_add,    \
                                      F##_t_to_mont, F##_t_set_one, F##_t_ntt_root, F##_t_ntt,  \
                                      F##_t_intt, F##_t_scale, F##_t_plan_new, F##_t_plan_free, \
                                      F##_t_to_coset};

FIELD_OPS(bn254_fr, BN254_FR)
FIELD_OPS(bls12_381_fr, BLS12_381_FR)

/* Largest size of the round-trip and spot-check tests: past the first
 * cache-blocked pass (2^13), so both pass kinds run. */
#define BIG_LOG 16

/* ---- helpers ---- */

/* Random limbs below 2^(bits-1) < modulus, then into Montgomery form. */
static void random_fe(const field_ops *f, fe *r, uint64_t *seed)
{
    fe raw;
    for (int i = 0; i < 4; i++)
        raw.l[i] = cuzk_splitmix64(seed);
    raw.l[3] &= (1ULL << (f->bits - 1 - 192)) - 1;
    f->to_mont(r, &raw);
}

static fe *random_vec(const field_ops *f, size_t n, uint64_t seed)
{
    fe *v = malloc((n ? n : 1) * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        random_fe(f, &v[i], &seed);
    return v;
}

static fe *copy_vec(const fe *v, size_t n)
{
    fe *c = malloc((n ? n : 1) * sizeof *c);
    assert_non_null(c);
    memcpy(c, v, n * sizeof *c);
    return c;
}

/* sum_j a[j] x^j by Horner. */
static void horner(const field_ops *f, fe *r, const fe *a, size_t n, const fe *x)
{
    memset(r, 0, sizeof *r);
    for (size_t j = n; j-- > 0;) {
        f->mul(r, r, x);
        f->add(r, r, &a[j]);
    }
}

/* out[i] = c(x0 w^i), i < n, by Horner: the O(n^2) DFT (on a coset). */
static void eval_points(const field_ops *f, fe *out, const fe *c, size_t n, const fe *x0, const fe *w)
{
    fe x = *x0;
    for (size_t i = 0; i < n; i++) {
        horner(f, &out[i], c, n, &x);
        f->mul(&x, &x, w);
    }
}

static void power(const field_ops *f, fe *r, const fe *x, uint64_t e)
{
    fe base = *x;
    f->set_one(r);
    for (; e; e >>= 1) {
        if (e & 1)
            f->mul(r, r, &base);
        f->mul(&base, &base, &base);
    }
}

static const field_ops *const fields[] = {&bn254_fr_ops, &bls12_381_fr_ops};

/* ---- tests ---- */

/* w_k^(2^k) = 1 and w_k^(2^(k-1)) != 1: primitive. */
static void test_root_is_primitive(void **state)
{
    (void)state;
    for (int fi = 0; fi < 2; fi++) {
        const field_ops *f = fields[fi];
        fe one, w, t;
        f->set_one(&one);
        f->ntt_root(&w, 0);
        assert_memory_equal(&w, &one, sizeof w);
        for (unsigned k = 1; k <= f->two_adicity; k++) {
            f->ntt_root(&w, k);
            t = w;
            for (unsigned i = 1; i < k; i++)
                f->mul(&t, &t, &t);
            assert_memory_not_equal(&t, &one, sizeof t);
            f->mul(&t, &t, &t);
            assert_memory_equal(&t, &one, sizeof t);
        }
    }
}

/* ntt (1 and 3 threads) against the O(n^2) DFT, n = 2^0..2^10. */
static void test_ntt_vs_dft(void **state)
{
    (void)state;
    for (int fi = 0; fi < 2; fi++) {
        const field_ops *f = fields[fi];
        for (unsigned k = 0; k <= 10; k++) {
            size_t n = (size_t)1 << k;
            fe *a = random_vec(f, n, 100 + k), *b = copy_vec(a, n), *want = malloc(n * sizeof *want);
            assert_non_null(want);
            fe w, one;
            f->ntt_root(&w, k);
            f->set_one(&one);
            eval_points(f, want, a, n, &one, &w); /* a(w^i) */
            assert_int_equal(f->ntt(a, n, 1), 0);
            assert_memory_equal(a, want, n * sizeof *a);
            assert_int_equal(f->ntt(b, n, 3), 0);
            assert_memory_equal(b, want, n * sizeof *b);
            free(a);
            free(b);
            free(want);
        }
    }
}

/* Large transforms (several cache-blocked passes): a few outputs checked
 * by Horner evaluation, and 1 vs 3 threads identical. */
static void test_ntt_large_spot_check(void **state)
{
    (void)state;
    for (int fi = 0; fi < 2; fi++) {
        const field_ops *f = fields[fi];
        unsigned k = BIG_LOG;
        size_t n = (size_t)1 << k;
        const size_t idx[] = {0, 1, 2, 7, n / 2 - 1, n / 2, n / 3, n - 1};
        fe *orig = random_vec(f, n, 7), *a = copy_vec(orig, n), *b = copy_vec(orig, n);
        fe w, x, want;
        f->ntt_root(&w, k);
        assert_int_equal(f->ntt(a, n, 1), 0);
        assert_int_equal(f->ntt(b, n, 3), 0);
        assert_memory_equal(a, b, n * sizeof *a);
        for (size_t t = 0; t < sizeof idx / sizeof idx[0]; t++) {
            power(f, &x, &w, idx[t]);
            horner(f, &want, orig, n, &x);
            assert_memory_equal(&a[idx[t]], &want, sizeof want);
        }
        /* the inverse, 1 vs 3 threads, back to the input */
        assert_int_equal(f->intt(a, n, 1), 0);
        assert_int_equal(f->intt(b, n, 3), 0);
        assert_memory_equal(a, b, n * sizeof *a);
        assert_memory_equal(a, orig, n * sizeof *a);
        free(orig);
        free(a);
        free(b);
    }
}

/* intt(ntt(x)) == x and ntt(intt(x)) == x, n = 2^0..2^BIG_LOG. */
static void test_round_trip(void **state)
{
    (void)state;
    for (int fi = 0; fi < 2; fi++) {
        const field_ops *f = fields[fi];
        for (unsigned k = 0; k <= BIG_LOG; k++) {
            size_t n = (size_t)1 << k;
            fe *orig = random_vec(f, n, 1000 + k), *a = copy_vec(orig, n);
            assert_int_equal(f->ntt(a, n, 2), 0);
            assert_int_equal(f->intt(a, n, 2), 0);
            assert_memory_equal(a, orig, n * sizeof *a);
            assert_int_equal(f->intt(a, n, 3), 0);
            assert_int_equal(f->ntt(a, n, 1), 0);
            assert_memory_equal(a, orig, n * sizeof *a);
            free(orig);
            free(a);
        }
    }
}

/* a[i] g^i against powers computed one by one; 1 and 3 threads. */
static void test_scale_by_powers(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 2, 5, 4096, 10007};
    for (int fi = 0; fi < 2; fi++) {
        const field_ops *f = fields[fi];
        for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
            size_t n = sizes[t];
            uint64_t seed = 55;
            fe g, x;
            random_fe(f, &g, &seed);
            fe *a = random_vec(f, n, 9 + t), *b = copy_vec(a, n), *want = copy_vec(a, n);
            f->set_one(&x);
            for (size_t i = 0; i < n; i++) {
                f->mul(&want[i], &want[i], &x);
                f->mul(&x, &x, &g);
            }
            f->scale_by_powers(a, n, &g, 1);
            f->scale_by_powers(b, n, &g, 3);
            assert_memory_equal(a, want, n * sizeof *a);
            assert_memory_equal(b, want, n * sizeof *b);
            free(a);
            free(b);
            free(want);
        }
    }
}

/* to_coset against Horner: random coefficients c, a[i] = c(w^i) in, c(g w^i)
 * out, g = w_2n (the prover's shift) and a random g; n = 2^0..2^10, one plan
 * for two vectors, 1 and 3 threads. */
static void test_to_coset_vs_horner(void **state)
{
    (void)state;
    for (int fi = 0; fi < 2; fi++) {
        const field_ops *f = fields[fi];
        for (unsigned k = 0; k <= 10; k++) {
            size_t n = (size_t)1 << k;
            uint64_t seed = 77 + k;
            fe g[2], w, one;
            f->ntt_root(&g[0], k + 1);
            random_fe(f, &g[1], &seed);
            f->ntt_root(&w, k);
            f->set_one(&one);
            for (int gi = 0; gi < 2; gi++) {
                void *plan;
                assert_int_equal(f->plan_new(&plan, n, &g[gi], 2), 0);
                for (int v = 0; v < 2; v++) {
                    fe *c = random_vec(f, n, 300 + 10 * k + v), *a = malloc(n * sizeof *a),
                       *want = malloc(n * sizeof *want);
                    assert_non_null(a);
                    assert_non_null(want);
                    eval_points(f, a, c, n, &one, &w);       /* c(w^i) */
                    eval_points(f, want, c, n, &g[gi], &w);  /* c(g w^i) */
                    fe *b = copy_vec(a, n);
                    assert_int_equal(f->to_coset(plan, a, 1), 0);
                    assert_memory_equal(a, want, n * sizeof *a);
                    assert_int_equal(f->to_coset(plan, b, 3), 0);
                    assert_memory_equal(b, want, n * sizeof *b);
                    free(c);
                    free(a);
                    free(b);
                    free(want);
                }
                f->plan_free(plan);
            }
        }
    }
}

/* to_coset against intt, scale_by_powers, ntt at n = 2^11..2^BIG_LOG (the
 * cache-blocked passes), g = w_2n; 1 and 3 threads identical. */
static void test_to_coset_large(void **state)
{
    (void)state;
    for (int fi = 0; fi < 2; fi++) {
        const field_ops *f = fields[fi];
        for (unsigned k = 11; k <= BIG_LOG; k++) {
            size_t n = (size_t)1 << k;
            fe g;
            void *plan;
            f->ntt_root(&g, k + 1);
            fe *a = random_vec(f, n, 500 + k), *b = copy_vec(a, n), *want = copy_vec(a, n);
            assert_int_equal(f->intt(want, n, 2), 0);
            f->scale_by_powers(want, n, &g, 2);
            assert_int_equal(f->ntt(want, n, 2), 0);
            assert_int_equal(f->plan_new(&plan, n, &g, 3), 0);
            assert_int_equal(f->to_coset(plan, a, 1), 0);
            assert_int_equal(f->to_coset(plan, b, 3), 0);
            f->plan_free(plan);
            assert_memory_equal(a, want, n * sizeof *a);
            assert_memory_equal(b, want, n * sizeof *b);
            free(a);
            free(b);
            free(want);
        }
    }
}

/* Not a power of two, or beyond the two-adicity: CUZK_ERR_ARG, input kept. */
static void test_bad_sizes(void **state)
{
    (void)state;
    for (int fi = 0; fi < 2; fi++) {
        const field_ops *f = fields[fi];
        fe *a = random_vec(f, 12, 3), *orig = copy_vec(a, 12);
        const size_t bad[] = {0, 3, 6, 12, (size_t)1 << (f->two_adicity + 1), SIZE_MAX};
        for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
            assert_int_equal(f->ntt(a, bad[t], 1), CUZK_ERR_ARG);
            assert_int_equal(f->intt(a, bad[t], 2), CUZK_ERR_ARG);
        }
        assert_memory_equal(a, orig, 12 * sizeof *a);
        assert_int_equal(f->ntt(NULL, 4, 1), CUZK_ERR_ARG);
        void *plan;
        fe g;
        f->set_one(&g);
        for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
            assert_int_equal(f->plan_new(&plan, bad[t], &g, 1), CUZK_ERR_ARG);
            assert_null(plan);
        }
        assert_int_equal(f->plan_new(&plan, 4, NULL, 1), CUZK_ERR_ARG);
        assert_null(plan);
        assert_int_equal(f->plan_new(&plan, 4, &g, 1), 0);
        assert_int_equal(f->to_coset(plan, NULL, 1), CUZK_ERR_ARG);
        assert_int_equal(f->to_coset(NULL, a, 1), CUZK_ERR_ARG);
        f->plan_free(plan);
        f->plan_free(NULL);
        fe w, zero = {{0}};
        f->ntt_root(&w, f->two_adicity + 1);
        assert_memory_equal(&w, &zero, sizeof w);
        free(a);
        free(orig);
    }
}

/* ntt_root_of: generator 5 gives ntt_root's table (snarkjs's roots) on both
 * fields; 7 on bls12_381_fr gives the 2^32-th root of bellman and blstrs,
 * 0x16a2a19e...439f0d2b (zkcrypto's ROOT_OF_UNITY, normal form). */
static void test_root_of_generator(void **state)
{
    (void)state;
    for (unsigned k = 0; k <= BLS12_381_FR_TWO_ADICITY + 1; k++) {
        bls12_381_fr a, b;
        bls12_381_fr_ntt_root(&a, k);
        bls12_381_fr_ntt_root_of(&b, k, 5);
        assert_memory_equal(&a, &b, sizeof a);
    }
    for (unsigned k = 0; k <= BN254_FR_TWO_ADICITY + 1; k++) {
        bn254_fr a, b;
        bn254_fr_ntt_root(&a, k);
        bn254_fr_ntt_root_of(&b, k, 5);
        assert_memory_equal(&a, &b, sizeof a);
    }
    static const bls12_381_fr blstrs_root = {
        {0x3829971f439f0d2bULL, 0xb63683508c2280b9ULL, 0xd09b681922c813b4ULL, 0x16a2a19edfe81f20ULL}};
    bls12_381_fr w, plain;
    bls12_381_fr_ntt_root_of(&w, BLS12_381_FR_TWO_ADICITY, 7);
    bls12_381_fr_from_mont(&plain, &w);
    assert_memory_equal(&plain, &blstrs_root, sizeof plain);
}

/* A plan on the domain of 7's roots (Filecoin's): to_coset with shift g = 7
 * gives c(g w^i) from c(w^i), and intt_scaled with shift g^-1 takes those
 * back to c's coefficients (bellman's coset FFT and its inverse), against
 * Horner; n = 2^0..2^10 and, past the first blocked pass, 2^14 as a round
 * trip; 1 and 3 threads. */
static void test_plan_on_other_roots(void **state)
{
    (void)state;
    const field_ops *f = &bls12_381_fr_ops;
    for (unsigned k = 0; k <= 14; k++) {
        if (k > 10 && k < 14)
            continue;
        size_t n = (size_t)1 << k;
        fe w, g, ginv, one;
        bls12_381_fr_ntt_root_of((bls12_381_fr *)&w, k, 7);
        bls12_381_fr_from_u64((bls12_381_fr *)&g, 7);
        bls12_381_fr_inv((bls12_381_fr *)&ginv, (const bls12_381_fr *)&g);
        f->set_one(&one);
        bls12_381_fr_ntt_plan *fwd, *back;
        assert_int_equal(bls12_381_fr_ntt_plan_new_root(&fwd, n, (bls12_381_fr *)&w, (bls12_381_fr *)&g, 2), 0);
        assert_int_equal(bls12_381_fr_ntt_plan_new_root(&back, n, (bls12_381_fr *)&w, (bls12_381_fr *)&ginv, 2), 0);
        fe *c = random_vec(f, n, 900 + k), *a = malloc(n * sizeof *a), *want = malloc(n * sizeof *want);
        assert_non_null(a);
        assert_non_null(want);
        if (k <= 10) {
            eval_points(f, a, c, n, &one, &w);
            eval_points(f, want, c, n, &g, &w);
        } else { /* values c; their coefficients on the 7-domain by a plan of shift 1 */
            bls12_381_fr_ntt_plan *plain;
            memcpy(a, c, n * sizeof *a);
            memcpy(want, c, n * sizeof *a);
            assert_int_equal(bls12_381_fr_ntt_plan_new_root(&plain, n, (bls12_381_fr *)&w, (bls12_381_fr *)&one, 2), 0);
            assert_int_equal(bls12_381_fr_intt_scaled(plain, (bls12_381_fr *)want, 2), 0);
            bls12_381_fr_ntt_plan_free(plain);
            memcpy(c, want, n * sizeof *c);
        }
        fe *b = copy_vec(a, n);
        assert_int_equal(bls12_381_fr_ntt_to_coset(fwd, (bls12_381_fr *)a, 1), 0);
        assert_int_equal(bls12_381_fr_ntt_to_coset(fwd, (bls12_381_fr *)b, 3), 0);
        assert_memory_equal(a, b, n * sizeof *a);
        if (k <= 10)
            assert_memory_equal(a, want, n * sizeof *a);
        assert_int_equal(bls12_381_fr_intt_scaled(back, (bls12_381_fr *)a, 1), 0);
        assert_int_equal(bls12_381_fr_intt_scaled(back, (bls12_381_fr *)b, 3), 0);
        assert_memory_equal(a, b, n * sizeof *a);
        assert_memory_equal(a, c, n * sizeof *a);
        assert_int_equal(bls12_381_fr_intt_scaled(NULL, (bls12_381_fr *)a, 1), CUZK_ERR_ARG);
        assert_int_equal(bls12_381_fr_intt_scaled(back, NULL, 1), CUZK_ERR_ARG);
        bls12_381_fr_ntt_plan_free(fwd);
        bls12_381_fr_ntt_plan_free(back);
        free(c);
        free(a);
        free(b);
        free(want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root_is_primitive),
        cmocka_unit_test(test_ntt_vs_dft),
        cmocka_unit_test(test_ntt_large_spot_check),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_scale_by_powers),
        cmocka_unit_test(test_to_coset_vs_horner),
        cmocka_unit_test(test_to_coset_large),
        cmocka_unit_test(test_bad_sizes),
        cmocka_unit_test(test_root_of_generator),
        cmocka_unit_test(test_plan_on_other_roots),
    };
    int failed = 0;
    for (int path = 0; path < arith_paths(); path++)
        failed += cmocka_run_group_tests_name(arith_path_select(path), tests, NULL, NULL);
    return failed;
}
