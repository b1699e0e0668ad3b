/* MSM tests on all four groups. Bases are generated as P_{i+1} = 2 P_i + Q
 * from random multiples of the generator, keeping each discrete log t_i,
 * so sum k_i P_i = (sum k_i t_i mod r) G gives a cheap independent oracle
 * at any size; small sizes are also checked against G_msm_naive. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "msm/msm.h"
#include "msm/msm_plan.h"
#include "support.h"
#include "util/random.h"

/* Both scalar fields are four 64-bit limbs: scalars and discrete logs use
 * this common layout through the table below. */
typedef struct {
    uint64_t l[4];
} fe;

typedef struct {
    const char *name;
    size_t affine_size, jac_size;
    unsigned r_bits;
    const uint64_t *r;
    /* bases[i] = t[i] G (t Montgomery form); P_{i+1} = 2 P_i + Q */
    void (*make_bases)(void *bases, fe *t, size_t n, uint64_t seed);
    /* res = (sum k_i t_i) G */
    void (*expect)(void *res, const fe *t, const fe *k, size_t n);
    int (*msm)(void *res, const void *bases, const fe *k, size_t n, int nthreads);
    void (*msm_naive)(void *res, const void *bases, const fe *k, size_t n);
    int (*jac_eq)(const void *a, const void *b);
    int (*jac_is_inf)(const void *a);
    void (*neg_t)(fe *r, const fe *a);
    void (*neg_base)(void *r, const void *a);
} group_ops;

/* Random integer below 2^(bits-1), hence below r. */
static void random_scalar(fe *k, unsigned bits, uint64_t *seed)
{
    for (int i = 0; i < 4; i++)
        k->l[i] = cuzk_splitmix64(seed);
    k->l[3] &= (1ULL << (bits - 1 - 192)) - 1;
}

#define GROUP_OPS(G, FR, FQ, UP)                                                                \
    _Static_assert(sizeof(FR) == sizeof(fe), "scalar fields are 4 limbs");                     \
    static void G##_t_make_bases(void *out, fe *t, size_t n, uint64_t seed)                     \
    {                                                                                          \
        G##_affine gen;                                                                        \
        G##_jac g, p, q, *jac = malloc((n ? n : 1) * sizeof *jac);                             \
        FQ *scratch = malloc((n ? n : 1) * sizeof *scratch);                                   \
        assert_non_null(jac);                                                                  \
        assert_non_null(scratch);                                                              \
        fe kp, kq;                                                                             \
        FR tp, tq;                                                                             \
        random_scalar(&kp, UP##_BITS, &seed);                                                  \
        random_scalar(&kq, UP##_BITS, &seed);                                                  \
        G##_generator(&gen);                                                                   \
        G##_jac_from_affine(&g, &gen);                                                         \
        G##_jac_mul_var(&p, &g, kp.l, 256);                                                    \
        G##_jac_mul_var(&q, &g, kq.l, 256);                                                    \
        FR##_to_mont(&tp, (const FR *)&kp);                                                    \
        FR##_to_mont(&tq, (const FR *)&kq);                                                    \
        for (size_t i = 0; i < n; i++) {                                                       \
            jac[i] = p;                                                                        \
            memcpy(&t[i], &tp, sizeof tp);                                                     \
            G##_jac_dbl_var(&p, &p);                                                               \
            G##_jac_add_var(&p, &p, &q);                                                           \
            FR##_dbl(&tp, &tp);                                                                \
            FR##_add(&tp, &tp, &tq);                                                           \
        }                                                                                      \
        G##_jac_batch_to_affine(out, jac, n, scratch);                                         \
        free(jac);                                                                             \
        free(scratch);                                                                         \
    }                                                                                          \
    static void G##_t_expect(void *res, const fe *t, const fe *k, size_t n)                    \
    {                                                                                          \
        FR s, km;                                                                              \
        FR##_set_zero(&s);                                                                     \
        for (size_t i = 0; i < n; i++) {                                                       \
            FR##_to_mont(&km, (const FR *)&k[i]);                                              \
            FR##_mul(&km, &km, (const FR *)&t[i]);                                             \
            FR##_add(&s, &s, &km);                                                             \
        }                                                                                      \
        FR##_from_mont(&s, &s);                                                                \
        G##_affine gen;                                                                        \
        G##_jac g;                                                                             \
        G##_generator(&gen);                                                                   \
        G##_jac_from_affine(&g, &gen);                                                         \
        G##_jac_mul_var(res, &g, s.l, 256);                                                    \
    }                                                                                          \
    static int G##_t_msm(void *res, const void *b, const fe *k, size_t n, int th)              \
    {                                                                                          \
        return G##_msm(res, b, (const FR *)k, n, th);                                          \
    }                                                                                          \
    static void G##_t_msm_naive(void *res, const void *b, const fe *k, size_t n)               \
    {                                                                                          \
        G##_msm_naive(res, b, (const FR *)k, n);                                               \
    }                                                                                          \
    static int G##_t_jac_eq(const void *a, const void *b) { return G##_jac_eq(a, b); }         \
    static int G##_t_jac_is_inf(const void *a) { return G##_jac_is_inf(a); }                   \
    static void G##_t_neg_t(fe *r, const fe *a) { FR##_neg((FR *)r, (const FR *)a); }         \
    static void G##_t_neg_base(void *r, const void *a) { G##_affine_neg(r, a); }                \
    static const group_ops G##_ops = {#G,                                                       \
                                      sizeof(G##_affine),                                      \
                                      sizeof(G##_jac),                                         \
                                      UP##_BITS,                                               \
                                      FR##_MODULUS,                                            \
                                      G##_t_make_bases,                                        \
                                      G##_t_expect,                                            \
                                      G##_t_msm,                                               \
                                      G##_t_msm_naive,                                         \
                                      G##_t_jac_eq,                                            \
                                      G##_t_jac_is_inf,                                        \
                                      G##_t_neg_t,                                             \
                                      G##_t_neg_base};

GROUP_OPS(bn254_g1, bn254_fr, bn254_fp, BN254_FR)
GROUP_OPS(bn254_g2, bn254_fr, bn254_fp2, BN254_FR)
GROUP_OPS(bls12_381_g1, bls12_381_fr, bls12_381_fp, BLS12_381_FR)
GROUP_OPS(bls12_381_g2, bls12_381_fr, bls12_381_fp2, BLS12_381_FR)

static const group_ops *const groups[] = {&bn254_g1_ops, &bn254_g2_ops, &bls12_381_g1_ops, &bls12_381_g2_ops};
#define NGROUPS (sizeof groups / sizeof groups[0])

/* One test instance: bases with their logs, scalars, room for results. */
typedef struct {
    const group_ops *g;
    size_t n;
    unsigned char *bases;
    fe *t, *k;
    unsigned char res[2][1024]; /* Jacobian results (G2 over BLS12-381 Fp2: 288 bytes) */
} msm_case;

static void *base_at(msm_case *c, size_t i) { return c->bases + i * c->g->affine_size; }

/* Random bases and scalars, with the awkward ones mixed in: zero scalars,
 * infinity bases, scalars 1, 2 and r-1, 2^j - 1 (a carry through every
 * window), repeated bases (doublings inside buckets) and negated bases
 * (P + -P = infinity inside buckets). */
static void case_init(msm_case *c, const group_ops *g, size_t n, uint64_t seed)
{
    c->g = g;
    c->n = n;
    c->bases = malloc((n ? n : 1) * g->affine_size);
    c->t = malloc((n ? n : 1) * sizeof *c->t);
    c->k = malloc((n ? n : 1) * sizeof *c->k);
    assert_non_null(c->bases);
    assert_non_null(c->t);
    assert_non_null(c->k);
    g->make_bases(c->bases, c->t, n, seed);
    for (size_t i = 0; i < n; i++) {
        random_scalar(&c->k[i], g->r_bits, &seed);
        uint64_t pick = cuzk_splitmix64(&seed) % 16;
        if (pick == 0)
            memset(&c->k[i], 0, sizeof c->k[i]);
        else if (pick == 1) {
            memset(base_at(c, i), 0, g->affine_size);
            memset(&c->t[i], 0, sizeof c->t[i]);
        } else if (pick == 2) {
            memcpy(&c->k[i], g->r, sizeof c->k[i]);
            c->k[i].l[0] -= 1; /* r - 1 (r is odd) */
        } else if (pick == 3) {
            memset(&c->k[i], 0, sizeof c->k[i]);
            c->k[i].l[0] = 1 + (cuzk_splitmix64(&seed) & 1);
        } else if (pick == 4) {
            unsigned bits = 1 + (unsigned)(cuzk_splitmix64(&seed) % (g->r_bits - 1));
            memset(&c->k[i], 0, sizeof c->k[i]);
            for (unsigned j = 0; j < bits; j++)
                c->k[i].l[j / 64] |= 1ULL << (j % 64);
        } else if ((pick == 5 || pick == 6) && i > 0) {
            size_t j = cuzk_splitmix64(&seed) % i;
            memcpy(base_at(c, i), base_at(c, j), g->affine_size);
            c->t[i] = c->t[j];
            if (pick == 6) {
                g->neg_base(base_at(c, i), base_at(c, j));
                g->neg_t(&c->t[i], &c->t[j]);
            }
            if (cuzk_splitmix64(&seed) & 1)
                c->k[i] = c->k[j];
        }
    }
}

static void case_free(msm_case *c)
{
    free(c->bases);
    free(c->t);
    free(c->k);
}

/* msm with each thread count equals the oracle (and msm_naive if asked). */
static void case_check(msm_case *c, int with_naive)
{
    const group_ops *g = c->g;
    g->expect(c->res[0], c->t, c->k, c->n);
    if (with_naive) {
        g->msm_naive(c->res[1], c->bases, c->k, c->n);
        assert_true(g->jac_eq(c->res[1], c->res[0]));
    }
    for (int th = 1; th <= 3; th++) {
        assert_int_equal(g->msm(c->res[1], c->bases, c->k, c->n, th), 0);
        if (!g->jac_eq(c->res[1], c->res[0]))
            fail_msg("%s: msm of %zu points with %d threads is wrong", g->name, c->n, th);
    }
}

/* Sizes: up to 1000 points an MSM uses Jacobian buckets, from 2500 up
 * batch-affine ones (msm_plan.h: MSM_AFFINE_MIN = 2048 points per task);
 * LARGE_N puts more than one chunk (16 points a bucket, 2^MSM_CHUNK_MIN_LOG
 * points at least) into a task of one thread. */
#define AFFINE_N 2500
#ifdef CUZK_VERIFY
#define LARGE_N AFFINE_N /* sanitizer build: keep the binary quick */
#else
#define LARGE_N 20000
#endif

static void test_small_vs_naive(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 2, 3, 17, 100};
    for (size_t gi = 0; gi < NGROUPS; gi++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            msm_case c;
            case_init(&c, groups[gi], sizes[s], 1 + s);
            case_check(&c, 1);
            case_free(&c);
        }
}

/* 1000 points, and a few thousand (the batch-affine path). */
static void test_large(void **state)
{
    (void)state;
    const size_t sizes[] = {1000, LARGE_N};
    for (size_t gi = 0; gi < NGROUPS; gi++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            msm_case c;
            case_init(&c, groups[gi], sizes[s], 77 + s);
            case_check(&c, 0);
            case_free(&c);
        }
}

/* The same base everywhere: every bucket sums equal points (doublings). */
static void test_one_base(void **state)
{
    (void)state;
    for (size_t gi = 0; gi < NGROUPS; gi++) {
        msm_case c;
        case_init(&c, groups[gi], AFFINE_N, 5);
        for (size_t i = 1; i < c.n; i++) {
            memcpy(base_at(&c, i), base_at(&c, 0), c.g->affine_size);
            c.t[i] = c.t[0];
        }
        case_check(&c, 0);
        case_free(&c);
    }
}

/* Scalars all 1 (one bucket holds every point), then all r - 1. With
 * LARGE_N points the one bucket overflows the group a chunk is summed in
 * (MSM_TREE_BYTES: 8192 G1 points or fewer), so its sum is carried from
 * group to group. */
static void test_uniform_scalars(void **state)
{
    (void)state;
    for (size_t gi = 0; gi < NGROUPS; gi++) {
        msm_case c;
        case_init(&c, groups[gi], LARGE_N, 9);
        for (size_t i = 0; i < c.n; i++) {
            memset(&c.k[i], 0, sizeof c.k[i]);
            c.k[i].l[0] = 1;
        }
        case_check(&c, 0);
        for (size_t i = 0; i < c.n; i++) {
            memcpy(&c.k[i], c.g->r, sizeof c.k[i]);
            c.k[i].l[0] -= 1;
        }
        case_check(&c, 0);
        case_free(&c);
    }
}

/* A bit-heavy witness's scalars (59 % zero, 38 % one, the rest small or
 * of every length): the plan is fitted to them (msm_plan_fitted: narrower
 * windows), Jacobian and batch-affine buckets. */
static void test_bit_heavy(void **state)
{
    (void)state;
    const size_t sizes[] = {1000, LARGE_N};
    for (size_t gi = 0; gi < NGROUPS; gi++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            msm_case c;
            uint64_t seed = 21 + s;
            case_init(&c, groups[gi], sizes[s], seed);
            for (size_t i = 0; i < c.n; i++) {
                uint64_t pick = cuzk_splitmix64(&seed) % 100;
                if (pick < 97) {
                    memset(&c.k[i], 0, sizeof c.k[i]);
                    c.k[i].l[0] = pick >= 59;
                } else if (pick == 97) {
                    memset(&c.k[i], 0, sizeof c.k[i]);
                    c.k[i].l[0] = cuzk_splitmix64(&seed) >> 32;
                }
            }
            msm_plan plan = msm_plan_choose(c.n, c.g->r_bits, 2), fitted;
            uint64_t lengths[MSM_LENGTHS] = {0};
            for (size_t i = 0; i < c.n; i++)
                lengths[msm_scalar_length(c.k[i].l)]++;
            fitted = msm_plan_fitted(c.n, c.g->r_bits, 2, lengths);
            assert_true(fitted.c < plan.c);
            case_check(&c, 0);
            case_free(&c);
        }
}

/* Zero scalars, or infinity bases, or n = 0: the result is infinity. */
static void test_all_zero(void **state)
{
    (void)state;
    for (size_t gi = 0; gi < NGROUPS; gi++) {
        const group_ops *g = groups[gi];
        const size_t sizes[] = {0, 5, 700, AFFINE_N};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            msm_case c;
            case_init(&c, g, sizes[s], 3);
            memset(c.k, 0, c.n * sizeof *c.k);
            for (int th = 1; th <= 3; th++) {
                assert_int_equal(g->msm(c.res[0], c.bases, c.k, c.n, th), 0);
                assert_true(g->jac_is_inf(c.res[0]));
            }
            for (size_t i = 0; i < c.n; i++)
                random_scalar(&c.k[i], g->r_bits, &(uint64_t){i});
            memset(c.bases, 0, c.n * g->affine_size);
            for (int th = 1; th <= 3; th++) {
                assert_int_equal(g->msm(c.res[0], c.bases, c.k, c.n, th), 0);
                assert_true(g->jac_is_inf(c.res[0]));
            }
            case_free(&c);
        }
    }
}

/* msm_digit, one window alone, against msm_recode's carry chain over all
 * windows, for every window size: random scalars, and scalars whose low c w
 * bits sit at the carry threshold T_w, one below and one above it (the
 * cases the comparison decides), under random high bits. */
static void test_window_digits(void **state)
{
    (void)state;
    uint64_t seed = 11;
    for (unsigned bits = 254; bits <= 255; bits++) {
        for (unsigned c = 2; c <= 24; c++) {
            unsigned nwin = bits / c + 1;
            uint32_t want[256];
            uint64_t thr[4];
            for (int trial = 0; trial < 40; trial++) {
                fe k;
                random_scalar(&k, bits + 1, &seed); /* < 2^bits */
                unsigned w_edge = (unsigned)trial % nwin;
                if (trial >= 10 && w_edge > 0) {
                    /* low c w bits = T_w - 1, T_w or T_w + 1 */
                    msm_carry_threshold(thr, c, w_edge);
                    unsigned low = c * w_edge;
                    uint64_t t[4] = {thr[0], thr[1], thr[2], thr[3]};
                    int delta = trial % 3 - 1;
                    for (int i = 0; i < 4 && delta; i++) { /* t += delta, low words only */
                        uint64_t before = t[i];
                        t[i] += (uint64_t)(int64_t)delta;
                        if (delta > 0 ? t[i] > before : t[i] < before)
                            break;
                    }
                    for (unsigned i = 0; i < 4; i++) {
                        uint64_t mask = low >= 64 * (i + 1) ? ~0ULL : low <= 64 * i ? 0 : (1ULL << (low % 64)) - 1;
                        k.l[i] = (k.l[i] & ~mask) | (t[i] & mask);
                    }
                }
                if (trial == 1)
                    memset(&k, 0, sizeof k);
                msm_recode(k.l, c, nwin, want, 1);
                for (unsigned w = 0; w < nwin; w++) {
                    msm_carry_threshold(thr, c, w);
                    assert_int_equal(msm_digit(k.l, c, w, thr), want[w]);
                }
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_vs_naive), cmocka_unit_test(test_large),
        cmocka_unit_test(test_one_base),       cmocka_unit_test(test_uniform_scalars),
        cmocka_unit_test(test_bit_heavy),
        cmocka_unit_test(test_all_zero),       cmocka_unit_test(test_window_digits),
    };
    int failed = 0;
    for (int path = 0; path < arith_paths(); path++)
        failed += cmocka_run_group_tests_name(arith_path_select(path), tests, NULL, NULL);
    return failed;
}
