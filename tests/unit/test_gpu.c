/* The CUDA backend (src/gpu/gpu.h) against the CPU backend, bit for bit, on
 * fresh random inputs: NTTs of 2^0..2^20 points both ways, the prover's
 * coset chain, and MSMs on the four groups with zero scalars, infinity
 * bases, repeated and opposite bases mixed in, plain and over window
 * tables.
 *
 * Without a usable GPU (or in a build without CUDA) the program prints
 * "SKIP: no GPU" and exits 77, which tests/run-all counts as skipped; under
 * AddressSanitizer too, since the CUDA runtime and ASan's shadow memory do
 * not mix. The random seed is printed; CUZK_TEST_SEED=<n> repeats a run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/random.h"
#include "support.h"

static cuzk_gpu *gpu;
static uint64_t seed_state;
static int nthreads = 1;

/* Both scalar fields are four 64-bit words. */
typedef struct {
    uint64_t l[4];
} fe;

/* A random integer below 2^(bits-1), hence below r. */
static void random_fe(fe *k, unsigned bits)
{
    for (int i = 0; i < 4; i++)
        k->l[i] = cuzk_splitmix64(&seed_state);
    k->l[3] &= (1ULL << (bits - 1 - 192)) - 1;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    return p;
}

static void expect_ok(int rc, const cuzk_error *err, const char *what)
{
    if (rc)
        fail_msg("%s: status %d: %s", what, rc, err->msg);
}

/* ---- NTT and coset chain, per scalar field ---- */

typedef struct {
    const char *name;
    cuzk_curve_id curve;
    unsigned bits, two_adicity;
    int (*ntt)(void *a, size_t n, int nthreads);
    int (*intt)(void *a, size_t n, int nthreads);
    void (*coset_h)(void *a, void *b, void *c, unsigned lg); /* the CPU chain */
} field_ops;

#define FIELD_OPS(F, UP, CURVE)                                                                 \
    static int F##_t_ntt(void *a, size_t n, int t) { return F##_ntt(a, n, t); }                 \
    static int F##_t_intt(void *a, size_t n, int t) { return F##_intt(a, n, t); }               \
    /* src/groth16/prove.inc: compute_h after a, b, c */                                        \
    static void F##_t_coset_h(void *va, void *vb, void *vc, unsigned lg)                        \
    {                                                                                          \
        F *v[3] = {va, vb, vc};                                                                \
        F shift;                                                                               \
        size_t n = (size_t)1 << lg;                                                            \
        F##_ntt_root(&shift, lg + 1);                                                          \
        for (int k = 0; k < 3; k++) {                                                          \
            assert_int_equal(F##_intt(v[k], n, nthreads), 0);                                  \
            F##_scale_by_powers(v[k], n, &shift, nthreads);                                    \
            assert_int_equal(F##_ntt(v[k], n, nthreads), 0);                                   \
        }                                                                                      \
        for (size_t i = 0; i < n; i++) {                                                       \
            F t;                                                                               \
            F##_mul(&t, &v[0][i], &v[1][i]);                                                   \
            F##_sub(&t, &t, &v[2][i]);                                                         \
            F##_from_mont(&v[0][i], &t);                                                       \
        }                                                                                      \
    }                                                                                          \
    static const field_ops F##_field = {#F,          CURVE,        UP##_BITS,      UP##_TWO_ADICITY, \
                                        F##_t_ntt,   F##_t_intt,   F##_t_coset_h};

FIELD_OPS(bn254_fr, BN254_FR, CUZK_CURVE_BN254)
FIELD_OPS(bls12_381_fr, BLS12_381_FR, CUZK_CURVE_BLS12_381)

static fe *random_fes(size_t n, unsigned bits)
{
    fe *v = xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        random_fe(&v[i], bits);
    return v;
}

/* the GPU's NTT (or iNTT) of cpu[0..2^lg) equals the CPU's; frees cpu */
static void check_ntt_of(const field_ops *f, unsigned lg, int inverse, fe *cpu)
{
    size_t n = (size_t)1 << lg;
    fe *dev = xmalloc(n * sizeof *dev);
    memcpy(dev, cpu, n * sizeof *dev);
    assert_int_equal((inverse ? f->intt : f->ntt)(cpu, n, nthreads), 0);
    cuzk_error err = {0};
    expect_ok(cuzk_gpu_ntt(gpu, f->curve, dev, n, inverse, &err), &err, "cuzk_gpu_ntt");
    if (memcmp(cpu, dev, n * sizeof *dev) != 0) {
        size_t i = 0;
        while (memcmp(&cpu[i], &dev[i], sizeof *dev) == 0)
            i++;
        fail_msg("%s %s 2^%u: element %zu differs (cpu %016llx.. gpu %016llx..)", f->name, inverse ? "iNTT" : "NTT",
                 lg, i, (unsigned long long)cpu[i].l[0], (unsigned long long)dev[i].l[0]);
    }
    free(cpu);
    free(dev);
}

static void check_ntt(const field_ops *f, unsigned lg, int inverse)
{
    check_ntt_of(f, lg, inverse, random_fes((size_t)1 << lg, f->bits));
}

static void test_ntt(void **state)
{
    const field_ops *f = *state;
    for (unsigned lg = 0; lg <= 20; lg++) {
        check_ntt(f, lg, 0);
        check_ntt(f, lg, 1);
    }
}

static void test_coset_h(void **state)
{
    const field_ops *f = *state;
    static const unsigned sizes[] = {0, 1, 2, 3, 5, 10, 11, 13, 16, 18};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        unsigned lg = sizes[s];
        size_t n = (size_t)1 << lg, bytes = n * sizeof(fe);
        fe *a = random_fes(n, f->bits), *b = random_fes(n, f->bits), *c = random_fes(n, f->bits);
        fe *ga = xmalloc(bytes), *gb = xmalloc(bytes), *gc = xmalloc(bytes);
        memcpy(ga, a, bytes);
        memcpy(gb, b, bytes);
        memcpy(gc, c, bytes);
        cuzk_error err = {0};
        expect_ok(cuzk_gpu_coset_h(gpu, f->curve, ga, gb, gc, n, &err), &err, "cuzk_gpu_coset_h");
        assert_memory_equal(gb, b, bytes); /* inputs b, c untouched */
        assert_memory_equal(gc, c, bytes);
        f->coset_h(a, b, c, lg);
        if (memcmp(a, ga, bytes) != 0)
            fail_msg("%s coset h 2^%u differs from the CPU", f->name, lg);
        free(a), free(b), free(c), free(ga), free(gb), free(gc);
    }
}

/* The twiddle products (Shoup's, src/gpu/ff.cuh) estimate their quotient
 * from the high limbs of a W only, one low about once in 2^28 products,
 * too rarely for random inputs to meet. Here the forward NTT of (0, a, 0,
 * 0) multiplies a by w_4 once, with a chosen (tools/gen_shoup_vectors.py)
 * so that a W mod 2^256 is tiny and the estimate is one low, and a w_4 - q r
 * lands above r: the path through the final subtraction. */
static void test_ntt_low_quotient(void **state)
{
    const field_ops *f = *state;
    static const fe a[CUZK_N_CURVES] = {
        [CUZK_CURVE_BN254] = {{0xfb7276fd79b1fee8ULL, 0xe85fa2c80b3b6beaULL, 0x1382afe940f17d57ULL,
                               0x1b086497dc6085efULL}},
        [CUZK_CURVE_BLS12_381] = {{0xac1d5caafcd2e6afULL, 0x21ad8820ed0bb8dcULL, 0x950db8bbb61010ddULL,
                                   0x704ee35957c78774ULL}},
    };
    fe *v = xmalloc(4 * sizeof *v);
    memset(v, 0, 4 * sizeof *v);
    v[1] = a[f->curve];
    if (!(v[1].l[0] | v[1].l[1] | v[1].l[2] | v[1].l[3]))
        fail_msg("no low-quotient vector for this curve: tools/gen_shoup_vectors.py makes one");
    check_ntt_of(f, 2, 0, v);
}

/* without a context: a temporary one; bad arguments are refused */
static void test_ntt_edges(void **state)
{
    (void)state;
    fe v[8], w[8];
    for (int i = 0; i < 8; i++)
        random_fe(&v[i], BN254_FR_BITS);
    memcpy(w, v, sizeof v);
    cuzk_error err = {0};
    expect_ok(cuzk_gpu_ntt(NULL, CUZK_CURVE_BN254, v, 8, 0, &err), &err, "cuzk_gpu_ntt without a context");
    assert_int_equal(bn254_fr_ntt((bn254_fr *)w, 8, 1), 0);
    assert_memory_equal(v, w, sizeof v);
    assert_int_equal(cuzk_gpu_ntt(gpu, CUZK_CURVE_BN254, v, 6, 0, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_ntt(gpu, CUZK_CURVE_BN254, v, 0, 0, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_ntt(gpu, (cuzk_curve_id)7, v, 8, 0, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_ntt(gpu, CUZK_CURVE_BN254, v, (size_t)1 << 29, 0, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_coset_h(gpu, CUZK_CURVE_BN254, v, w, w, (size_t)1 << 28, &err), CUZK_ERR_ARG);
}

/* ---- MSM, per group ---- */

typedef struct {
    const char *name;
    cuzk_curve_id curve;
    int g2;
    size_t affine_size, jac_size;
    unsigned bits;
    const uint64_t *r;
    void (*make_bases)(void *bases, size_t n); /* distinct random points */
    int (*cpu_msm)(void *res, const void *bases, const fe *k, size_t n);
    void (*to_affine)(void *aff, const void *jac);
    void (*neg)(void *r, const void *a);
} group_ops;

#define GROUP_OPS(G, FQ, FR, UP, CURVE, IS_G2)                                                  \
    /* P_{i+1} = 2 P_i + Q from random multiples of the generator */                            \
    static void G##_t_make_bases(void *out, size_t n)                                           \
    {                                                                                          \
        G##_affine gen;                                                                        \
        G##_jac g, p, q, *jac = xmalloc(n * sizeof *jac);                                      \
        FQ *scratch = xmalloc(n * sizeof *scratch);                                            \
        fe kp, kq;                                                                             \
        random_fe(&kp, UP##_BITS);                                                             \
        random_fe(&kq, UP##_BITS);                                                             \
        G##_generator(&gen);                                                                   \
        G##_jac_from_affine(&g, &gen);                                                         \
        G##_jac_mul_var(&p, &g, kp.l, 256);                                                    \
        G##_jac_mul_var(&q, &g, kq.l, 256);                                                    \
        for (size_t i = 0; i < n; i++) {                                                       \
            jac[i] = p;                                                                        \
            G##_jac_dbl_var(&p, &p);                                                               \
            G##_jac_add_var(&p, &p, &q);                                                           \
        }                                                                                      \
        G##_jac_batch_to_affine(out, jac, n, scratch);                                         \
        free(jac);                                                                             \
        free(scratch);                                                                         \
    }                                                                                          \
    static int G##_t_msm(void *res, const void *bases, const fe *k, size_t n)                   \
    {                                                                                          \
        return G##_msm(res, bases, (const FR *)k, n, nthreads);                                \
    }                                                                                          \
    static void G##_t_to_affine(void *aff, const void *jac) { G##_jac_to_affine(aff, jac); }   \
    static void G##_t_neg(void *r, const void *a) { G##_affine_neg(r, a); }                    \
    static const group_ops G##_group = {#G,                  CURVE,            IS_G2,          \
                                        sizeof(G##_affine),  sizeof(G##_jac),  UP##_BITS,      \
                                        FR##_MODULUS,        G##_t_make_bases, G##_t_msm,      \
                                        G##_t_to_affine,     G##_t_neg};

GROUP_OPS(bn254_g1, bn254_fp, bn254_fr, BN254_FR, CUZK_CURVE_BN254, 0)
GROUP_OPS(bn254_g2, bn254_fp2, bn254_fr, BN254_FR, CUZK_CURVE_BN254, 1)
GROUP_OPS(bls12_381_g1, bls12_381_fp, bls12_381_fr, BLS12_381_FR, CUZK_CURVE_BLS12_381, 0)
GROUP_OPS(bls12_381_g2, bls12_381_fp2, bls12_381_fr, BLS12_381_FR, CUZK_CURVE_BLS12_381, 1)

/* The MSM of the first n scalars on the GPU: plain (table_rows 0) or over a
 * window table made of the first table_rows >= n bases. */
static int gpu_msm(const group_ops *G, void *got, const void *bases, const fe *k, size_t n, size_t table_rows,
                   cuzk_error *err)
{
    if (!table_rows)
        return (G->g2 ? cuzk_gpu_msm_g2 : cuzk_gpu_msm_g1)(gpu, G->curve, got, bases, k, n, err);
    cuzk_gpu_msm_table *t = NULL;
    void *dk = NULL;
    int rc = cuzk_gpu_msm_table_make(gpu, G->curve, G->g2, bases, table_rows, &t, err);
    if (!rc)
        rc = cuzk_gpu_alloc(gpu, &dk, n * sizeof *k, err);
    if (!rc)
        rc = cuzk_gpu_upload(gpu, dk, k, n * sizeof *k, err);
    if (!rc)
        rc = cuzk_gpu_msm_table_run(gpu, t, got, dk, n, err);
    cuzk_gpu_free(gpu, dk);
    cuzk_gpu_msm_table_free(t);
    return rc;
}

/* The GPU's sum (see gpu_msm) equals the CPU's as a point. */
static void check_msm_table(const group_ops *G, const void *bases, const fe *k, size_t n, size_t table_rows,
                            const char *what)
{
    unsigned char want[1024], got[1024], wa[512], ga[512];
    assert_true(G->jac_size <= sizeof want && G->affine_size <= sizeof wa);
    memset(got, 0xa5, sizeof got); /* poison: every byte must be written */
    assert_int_equal(G->cpu_msm(want, bases, k, n), 0);
    cuzk_error err = {0};
    int rc = gpu_msm(G, got, bases, k, n, table_rows, &err);
    if (rc)
        fail_msg("%s MSM (%s, n = %zu, table of %zu): status %d: %s", G->name, what, n, table_rows, rc, err.msg);
    G->to_affine(wa, want);
    G->to_affine(ga, got);
    if (memcmp(wa, ga, G->affine_size) != 0)
        fail_msg("%s MSM (%s, n = %zu, table of %zu) differs from the CPU", G->name, what, n, table_rows);
}

static void check_msm(const group_ops *G, const void *bases, const fe *k, size_t n, const char *what)
{
    check_msm_table(G, bases, k, n, 0, what);
}

/* scalar i of a mixed set: zero, one, r - 1, small, or random */
static void mixed_scalar(const group_ops *G, fe *k)
{
    uint64_t pick = cuzk_splitmix64(&seed_state) % 16;
    memset(k, 0, sizeof *k);
    if (pick < 2)
        return; /* zero */
    if (pick == 2) {
        k->l[0] = 1;
    } else if (pick == 3) {
        memcpy(k->l, G->r, sizeof k->l);
        k->l[0] -= 1; /* r - 1: r is odd */
    } else if (pick == 4) {
        k->l[0] = cuzk_splitmix64(&seed_state) % 1000;
    } else {
        random_fe(k, G->bits);
    }
}

/* a bit-heavy witness's scalar (synth.h): 59 % zero, 38 % one, else
 * small, r - 1 or random; most digits zero, so the MSM keeps only the
 * non-zero ones (msm_prepare's compaction) */
static void bit_scalar(const group_ops *G, fe *k)
{
    uint64_t pick = cuzk_splitmix64(&seed_state) % 100;
    memset(k, 0, sizeof *k);
    if (pick < 59)
        return;
    if (pick < 97)
        k->l[0] = 1;
    else if (pick == 97)
        k->l[0] = cuzk_splitmix64(&seed_state) >> 32;
    else if (pick == 98) {
        memcpy(k->l, G->r, sizeof k->l);
        k->l[0] -= 1; /* r - 1: r is odd */
    } else {
        random_fe(k, G->bits);
    }
}

static void test_msm(void **state)
{
    const group_ops *G = *state;
    static const size_t sizes[] = {1, 2, 3, 100, 4096, 65536};
    const size_t nmax = 65536, as = G->affine_size;
    unsigned char *bases = xmalloc(nmax * as), *mixed = xmalloc(nmax * as);
    fe *k = xmalloc(nmax * sizeof *k);
    G->make_bases(bases, nmax);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        /* uniform random scalars, distinct bases */
        for (size_t i = 0; i < n; i++)
            random_fe(&k[i], G->bits);
        check_msm(G, bases, k, n, "random");
        /* zero / one / r - 1 / small scalars, one base in eight at infinity */
        memcpy(mixed, bases, n * as);
        for (size_t i = 0; i < n; i++) {
            mixed_scalar(G, &k[i]);
            if (cuzk_splitmix64(&seed_state) % 8 == 0)
                memset(mixed + i * as, 0, as);
        }
        check_msm(G, mixed, k, n, "mixed");
        /* a bit-heavy witness, plain and over a table */
        for (size_t i = 0; i < n; i++)
            bit_scalar(G, &k[i]);
        check_msm(G, mixed, k, n, "bit-heavy");
        check_msm_table(G, mixed, k, n, n, "bit-heavy");
    }
    free(bases);
    free(mixed);
    free(k);
}

/* Inputs that hit the exceptional additions: equal and opposite bases with
 * equal scalars (P + P and P - P inside buckets and partial sums), all
 * zero scalars, all infinity bases, n = 0; plain and over window tables
 * (where every window's multiples of one base meet in the same buckets). */
static void test_msm_degenerate(void **state)
{
    const group_ops *G = *state;
    const size_t n = 5000, as = G->affine_size;
    unsigned char *base = xmalloc(2 * as), *bases = xmalloc(n * as);
    fe *k = xmalloc(n * sizeof *k), same;
    G->make_bases(base, 1);
    G->neg(base + as, base);
    random_fe(&same, G->bits);
    for (size_t table = 0; table <= n; table += n) {
        for (size_t i = 0; i < n; i++) {
            int opposite = cuzk_splitmix64(&seed_state) % 3 == 0;
            memcpy(bases + i * as, base + (opposite ? as : 0), as);
            k[i] = same;
        }
        check_msm_table(G, bases, k, n, table, "equal and opposite bases");
        for (size_t i = 0; i < n; i++)
            k[i].l[0] = cuzk_splitmix64(&seed_state) % 4; /* few distinct digits: long runs */
        check_msm_table(G, bases, k, n, table, "equal bases, tiny scalars");
        memset(k, 0, n * sizeof *k);
        check_msm_table(G, bases, k, n, table, "zero scalars");
        for (size_t i = 0; i < n; i++)
            random_fe(&k[i], G->bits);
        memset(bases, 0, n * as);
        check_msm_table(G, bases, k, n, table, "infinity bases");
        check_msm_table(G, bases, k, 0, table, "empty");
    }
    free(base);
    free(bases);
    free(k);
}

/* Forced window sizes (cuzk_gpu_set_msm_window): many tiny windows, and
 * the large windows the cost model picks only for millions of points;
 * plain and over window tables (cuzk_gpu_msm_table_*: window 2 makes 128
 * rows, 24 makes 11 rows of 2^23 buckets), also over a prefix of a
 * table's bases; one base in eight at infinity. */
static void test_msm_windows(void **state)
{
    const group_ops *G = *state;
    const unsigned windows[] = {0, 2, 11, 20, 24};
    const size_t n = 4096, as = G->affine_size;
    unsigned char *bases = xmalloc(n * as);
    fe *k = xmalloc(n * sizeof *k);
    G->make_bases(bases, n);
    for (size_t i = 0; i < n; i++)
        if (cuzk_splitmix64(&seed_state) % 8 == 0)
            memset(bases + i * as, 0, as);
    cuzk_error err = {0};
    for (size_t w = 0; w < sizeof windows / sizeof *windows; w++) {
        if (G->g2 && windows[w] > 20)
            continue; /* 2^23 G2 buckets a window: slow, adds nothing */
        expect_ok(cuzk_gpu_set_msm_window(gpu, windows[w], &err), &err, "cuzk_gpu_set_msm_window");
        for (size_t i = 0; i < n; i++) {
            mixed_scalar(G, &k[i]);
            if (i % 3 == 0)
                random_fe(&k[i], G->bits);
        }
        char what[32];
        snprintf(what, sizeof what, "window %u", windows[w]);
        check_msm(G, bases, k, n, what);
        check_msm_table(G, bases, k, n, n, what);
        check_msm_table(G, bases, k, n / 3, n, what);
    }
    expect_ok(cuzk_gpu_set_msm_window(gpu, 0, &err), &err, "cuzk_gpu_set_msm_window");
    assert_int_equal(cuzk_gpu_set_msm_window(gpu, 1, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_set_msm_window(gpu, CUZK_GPU_MSM_WINDOW_MAX + 1, &err), CUZK_ERR_ARG);
    /* more scalars than a table has bases; an unknown curve */
    cuzk_gpu_msm_table *t = NULL;
    void *dk = NULL;
    unsigned char got[1024];
    expect_ok(cuzk_gpu_msm_table_make(gpu, G->curve, G->g2, bases, 10, &t, &err), &err, "cuzk_gpu_msm_table_make");
    expect_ok(cuzk_gpu_alloc(gpu, &dk, 11 * sizeof *k, &err), &err, "cuzk_gpu_alloc");
    assert_int_equal(cuzk_gpu_msm_table_run(gpu, t, got, dk, 11, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_msm_table_make(gpu, (cuzk_curve_id)7, G->g2, bases, 10, &t, &err), CUZK_ERR_ARG);
    cuzk_gpu_free(gpu, dk);
    cuzk_gpu_msm_table_free(t);
    free(bases);
    free(k);
}

/* The first bucket pass in affine lanes (cuzk_gpu_set_msm_lanes), forced
 * at sizes where the automatic choice keeps the XYZZ walk, against the
 * CPU: one lane (an inversion an addition), a few (a lane's chunk crosses
 * buckets and chunks), many (most lanes idle); random, mixed and
 * bit-heavy scalars, plain and over a table; equal and opposite bases
 * with equal scalars (doublings and cancellations inside a lane's run)
 * and tiny scalars (runs longer than a chunk). */
static void test_msm_lanes(void **state)
{
    const group_ops *G = *state;
    const int lanes[] = {1, 3, 64, CUZK_GPU_MSM_LANES_XYZZ};
    const size_t n = 4096, as = G->affine_size;
    unsigned char *bases = xmalloc(n * as), *equal = xmalloc(n * as), *opposite = xmalloc(as);
    fe *k = xmalloc(n * sizeof *k), same;
    G->make_bases(bases, n);
    G->neg(opposite, bases);
    random_fe(&same, G->bits);
    cuzk_error err = {0};
    for (size_t c = 0; c < sizeof lanes / sizeof *lanes; c++) {
        expect_ok(cuzk_gpu_set_msm_lanes(gpu, lanes[c], &err), &err, "cuzk_gpu_set_msm_lanes");
        char what[64];
        snprintf(what, sizeof what, "%d lanes, random", lanes[c]);
        for (size_t i = 0; i < n; i++)
            random_fe(&k[i], G->bits);
        check_msm(G, bases, k, n, what);
        snprintf(what, sizeof what, "%d lanes, mixed", lanes[c]);
        for (size_t i = 0; i < n; i++)
            mixed_scalar(G, &k[i]);
        check_msm(G, bases, k, n, what);
        check_msm_table(G, bases, k, n, n, what);
        snprintf(what, sizeof what, "%d lanes, bit-heavy", lanes[c]);
        for (size_t i = 0; i < n; i++)
            bit_scalar(G, &k[i]);
        check_msm(G, bases, k, n, what);
        snprintf(what, sizeof what, "%d lanes, equal and opposite bases", lanes[c]);
        for (size_t i = 0; i < n; i++) {
            memcpy(equal + i * as, cuzk_splitmix64(&seed_state) % 3 ? bases : opposite, as);
            if (cuzk_splitmix64(&seed_state) % 16 == 0)
                memset(equal + i * as, 0, as);
            k[i] = same;
        }
        check_msm(G, equal, k, n, what);
        snprintf(what, sizeof what, "%d lanes, tiny scalars", lanes[c]);
        for (size_t i = 0; i < n; i++)
            k[i].l[0] = cuzk_splitmix64(&seed_state) % 4;
        check_msm(G, equal, k, n, what);
    }
    expect_ok(cuzk_gpu_set_msm_lanes(gpu, CUZK_GPU_MSM_LANES_AUTO, &err), &err, "cuzk_gpu_set_msm_lanes");
    assert_int_equal(cuzk_gpu_set_msm_lanes(gpu, CUZK_GPU_MSM_LANES_XYZZ - 1, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_set_msm_lanes(gpu, CUZK_GPU_MSM_LANES_MAX + 1, &err), CUZK_ERR_ARG);
    free(bases);
    free(equal);
    free(opposite);
    free(k);
}

int main(void)
{
    if (gpu_tests_unavailable())
        return 77;
    const char *s = getenv("CUZK_TEST_SEED");
    seed_state = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
    printf("CUZK_TEST_SEED=%llu\n", (unsigned long long)seed_state);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    nthreads = cpus > 0 ? (int)cpus : 1;
    cuzk_error err = {0};
    if (cuzk_gpu_open(&gpu, 0, &err)) {
        printf("cannot open the GPU: %s\n", err.msg);
        return 1;
    }

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ntt_edges),
        cmocka_unit_test_prestate(test_ntt, (void *)&bn254_fr_field),
        cmocka_unit_test_prestate(test_ntt, (void *)&bls12_381_fr_field),
        cmocka_unit_test_prestate(test_ntt_low_quotient, (void *)&bn254_fr_field),
        cmocka_unit_test_prestate(test_ntt_low_quotient, (void *)&bls12_381_fr_field),
        cmocka_unit_test_prestate(test_coset_h, (void *)&bn254_fr_field),
        cmocka_unit_test_prestate(test_coset_h, (void *)&bls12_381_fr_field),
        cmocka_unit_test_prestate(test_msm, (void *)&bn254_g1_group),
        cmocka_unit_test_prestate(test_msm, (void *)&bn254_g2_group),
        cmocka_unit_test_prestate(test_msm, (void *)&bls12_381_g1_group),
        cmocka_unit_test_prestate(test_msm, (void *)&bls12_381_g2_group),
        cmocka_unit_test_prestate(test_msm_windows, (void *)&bn254_g1_group),
        cmocka_unit_test_prestate(test_msm_windows, (void *)&bn254_g2_group),
        cmocka_unit_test_prestate(test_msm_windows, (void *)&bls12_381_g1_group),
        cmocka_unit_test_prestate(test_msm_windows, (void *)&bls12_381_g2_group),
        cmocka_unit_test_prestate(test_msm_lanes, (void *)&bn254_g1_group),
        cmocka_unit_test_prestate(test_msm_lanes, (void *)&bn254_g2_group),
        cmocka_unit_test_prestate(test_msm_lanes, (void *)&bls12_381_g1_group),
        cmocka_unit_test_prestate(test_msm_lanes, (void *)&bls12_381_g2_group),
        cmocka_unit_test_prestate(test_msm_degenerate, (void *)&bn254_g1_group),
        cmocka_unit_test_prestate(test_msm_degenerate, (void *)&bn254_g2_group),
        cmocka_unit_test_prestate(test_msm_degenerate, (void *)&bls12_381_g1_group),
        cmocka_unit_test_prestate(test_msm_degenerate, (void *)&bls12_381_g2_group),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cuzk_gpu_close(gpu);
    return failed ? 1 : 0;
}
