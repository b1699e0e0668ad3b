/* The ceremony's multiplications on the GPU (cuzk_gpu_ceremony_mul_make)
 * against the CPU's (cuzk_ceremony_cpu_mul), byte for byte, on both curves,
 * G1 and G2:
 *   - scale (pts[i] <- first inc^i pts[i]) on n = 0, 1 and sizes that cross
 *     a round's end, with points at infinity among them;
 *   - combine (sparse sums of k B) with outputs of no term, of one, of
 *     hundreds (crossing rounds and summed over several levels), scalars
 *     0, 1, small, r - 1 (the circuits' negatives), 16 in every 5-bit
 *     window (the device's signed digits at their largest), 130-bit ones,
 *     random full width,
 *     sums that cancel to infinity and sums that double a point;
 *   - ifft (prepare phase2's inverse FFT of points) on 1 to 1024 points,
 *     points at infinity among them;
 *   - whole steps: a powers-of-tau contribution, prepare phase2, zkey new
 *     and a zkey contribution with the same secret stream give the same
 *     files and keys with the GPU as with the CPU, zkey new also with
 *     its long outputs as the device's MSMs; the GPU's progress is
 *     reported up to the whole.
 * Skips (exit 77) without a usable GPU and under AddressSanitizer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ceremony/ceremony.h"
#include "codec/binfile.h"
#include "ec/ec.h"
#include "gpu/gpu.h"
#include "groth16/synth.h"
#include "poly/ntt.h"
#include "support.h"
#include "util/random.h"
#include "ceremony_test.h"

static cuzk_gpu *gpu;

typedef struct {
    cuzk_curve_id curve;
    int g2;
} group_case;

static const group_case groups[4] = {
    {CUZK_CURVE_BN254, 0}, {CUZK_CURVE_BN254, 1}, {CUZK_CURVE_BLS12_381, 0}, {CUZK_CURVE_BLS12_381, 1}};

static size_t point_bytes(const group_case *g)
{
    if (g->curve == CUZK_CURVE_BN254) return g->g2 ? sizeof(bn254_g2_affine) : sizeof(bn254_g1_affine);
    return g->g2 ? sizeof(bls12_381_g2_affine) : sizeof(bls12_381_g1_affine);
}

static const uint64_t *fr_modulus(cuzk_curve_id c)
{
    return c == CUZK_CURVE_BN254 ? bn254_fr_MODULUS : bls12_381_fr_MODULUS;
}

static void generator(const group_case *g, void *out)
{
    if (g->curve == CUZK_CURVE_BN254 && !g->g2) bn254_g1_generator(out);
    if (g->curve == CUZK_CURVE_BN254 && g->g2) bn254_g2_generator(out);
    if (g->curve == CUZK_CURVE_BLS12_381 && !g->g2) bls12_381_g1_generator(out);
    if (g->curve == CUZK_CURVE_BLS12_381 && g->g2) bls12_381_g2_generator(out);
}

/* a field element below both curves' r: top word under 2^61 */
static void random_fr(uint64_t k[4], uint64_t *seed)
{
    for (int i = 0; i < 4; i++) k[i] = cuzk_splitmix64(seed);
    k[3] &= (1ULL << 61) - 1;
}

/* n distinct points (first inc^i G, by the CPU), every `inf_every`-th at
 * infinity (0: none) */
static uint8_t *random_points(const group_case *g, size_t n, size_t inf_every, uint64_t seed)
{
    const size_t pb = point_bytes(g);
    uint8_t *p = cuzk_alloc_aligned(n * pb + 1, 0);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) generator(g, p + i * pb);
    cuzk_ceremony_mul cpu;
    cuzk_ceremony_cpu_mul(&cpu, 2);
    uint64_t first[4], inc[4];
    random_fr(first, &seed);
    random_fr(inc, &seed);
    cuzk_error err = {0};
    assert_int_equal(cpu.scale(cpu.ctx, g->curve, g->g2, p, n, first, inc, &(cuzk_ceremony_report){0}, &err), 0);
    for (size_t i = 0; inf_every && i < n; i += inf_every) memset(p + i * pb, 0, pb);
    return p;
}

typedef struct {
    uint64_t calls, last_done, last_total;
} progress_seen;

static void count_progress(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    progress_seen *s = ctx;
    assert_string_equal(stage, "test stage");
    assert_true(done <= total);
    assert_true(done >= s->last_done); /* it never goes back */
    s->calls++;
    s->last_done = done;
    s->last_total = total;
}

static void scale_case(const group_case *g, size_t n, size_t round)
{
    const size_t pb = point_bytes(g);
    uint8_t *want = random_points(g, n, 7, 11 + n), *got = cuzk_alloc_aligned(n * pb + 1, 0);
    assert_non_null(got);
    memcpy(got, want, n * pb);
    uint64_t seed = 99 + n, first[4], inc[4];
    random_fr(first, &seed);
    random_fr(inc, &seed);
    cuzk_ceremony_mul cpu, dev;
    cuzk_ceremony_cpu_mul(&cpu, 2);
    cuzk_error err = {0};
    assert_int_equal(cuzk_gpu_ceremony_mul_make(gpu, round, &dev, &err), 0);
    progress_seen seen = {0};
    const cuzk_ceremony_report report = {count_progress, &seen, "test stage"};
    assert_int_equal(cpu.scale(cpu.ctx, g->curve, g->g2, want, n, first, inc, &report, &err), 0);
    assert_int_equal(dev.scale(dev.ctx, g->curve, g->g2, got, n, first, inc, &report, &err), 0);
    if (n) assert_memory_equal(got, want, n * pb);
    if (n) {
        assert_int_equal(seen.last_done, n); /* the device's rounds, to the whole */
        assert_int_equal(seen.last_total, n);
        assert_true(seen.calls >= (n + (round ? round : n) - 1) / (round ? round : n));
    }
    cuzk_gpu_ceremony_mul_free(&dev);
    free(want);
    free(got);
}

static void test_scale_matches_cpu(void **state)
{
    (void)state;
    for (int i = 0; i < 4; i++) {
        scale_case(&groups[i], 0, 0);
        scale_case(&groups[i], 1, 0);
        scale_case(&groups[i], 1, 1);
        scale_case(&groups[i], 250, 64); /* 3 full rounds and a short one */
        scale_case(&groups[i], 256, 64); /* rounds that end exactly */
        scale_case(&groups[i], 3000, 0);
    }
}

/* the terms of n outputs over `tables` tables of `size` points: output i
 * has i % 5 terms, output 3 has `long_terms`, output 4 cancels (k B + (r -
 * k) B), output 6 doubles (B + B); scalars of every kind */
static void random_terms(const group_case *g, size_t n, size_t tables, size_t size, size_t long_terms,
                         uint64_t **start, cuzk_lc_term **terms)
{
    uint64_t seed = 5 + n, total = 0;
    *start = calloc(n + 1, sizeof **start);
    size_t cap = n * 5 + long_terms + 4;
    *terms = calloc(cap, sizeof **terms);
    assert_non_null(*start);
    assert_non_null(*terms);
    const uint64_t *r = fr_modulus(g->curve);
    (*start)[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t count = i == 3 ? long_terms : i == 4 || i == 6 ? 2 : i % 5;
        for (size_t t = 0; t < count; t++) {
            cuzk_lc_term *x = &(*terms)[total + t];
            x->table = (uint32_t)(cuzk_splitmix64(&seed) % tables);
            x->base = (uint32_t)(cuzk_splitmix64(&seed) % size);
            memset(x->k, 0, sizeof x->k);
            switch (cuzk_splitmix64(&seed) % 8) {
            case 0: x->k[0] = 1; break;
            case 1: x->k[0] = cuzk_splitmix64(&seed) % 100; break; /* 0 too */
            case 2: memcpy(x->k, r, sizeof x->k); x->k[0] -= 1; break; /* -1 */
            case 3: memcpy(x->k, r, sizeof x->k); x->k[0] -= 1 + cuzk_splitmix64(&seed) % 1000; break;
            case 4: /* 16 in every 5-bit window: the device's largest digits */
                for (int b = 4; b < 250; b += 5) x->k[b / 64] |= 1ULL << (b % 64);
                break;
            case 5: /* 130 bits: about the size of a GLV half */
                x->k[0] = cuzk_splitmix64(&seed), x->k[1] = cuzk_splitmix64(&seed), x->k[2] = 3;
                break;
            default: random_fr(x->k, &seed); break;
            }
        }
        if ((i == 4 || i == 6) && count == 2) {
            cuzk_lc_term *a = &(*terms)[total], *b = a + 1;
            *b = *a;
            if (i == 4) { /* b's k = r - a's k: the sum is infinity */
                if (!(a->k[0] | a->k[1] | a->k[2] | a->k[3])) a->k[0] = 1;
                unsigned __int128 borrow = 0;
                for (int w = 0; w < 4; w++) {
                    unsigned __int128 d = (unsigned __int128)r[w] - a->k[w] - borrow;
                    b->k[w] = (uint64_t)d;
                    borrow = (d >> 64) & 1;
                }
            }
        }
        total += count;
        (*start)[i + 1] = total;
    }
}

static void combine_case(const group_case *g, size_t n, size_t long_terms, size_t round)
{
    enum { TABLES = 3, SIZE = 200 };
    const size_t pb = point_bytes(g);
    uint8_t *tab[TABLES];
    for (int t = 0; t < TABLES; t++) tab[t] = random_points(g, SIZE, t == 1 ? 9 : 0, 40 + t);
    const void *const tables[TABLES] = {tab[0], tab[1], tab[2]};
    uint64_t *start;
    cuzk_lc_term *terms;
    random_terms(g, n, TABLES, SIZE, long_terms, &start, &terms);
    uint8_t *want = cuzk_alloc_aligned(n * pb + 1, 0), *got = cuzk_alloc_aligned(n * pb + 1, 0);
    assert_non_null(want);
    assert_non_null(got);
    memset(got, 0x5a, n * pb + 1); /* every output written, infinity too */
    cuzk_ceremony_mul cpu, dev;
    cuzk_ceremony_cpu_mul(&cpu, 2);
    cuzk_error err = {0};
    assert_int_equal(cuzk_gpu_ceremony_mul_make(gpu, round, &dev, &err), 0);
    progress_seen seen = {0};
    const cuzk_ceremony_report report = {count_progress, &seen, "test stage"};
    assert_int_equal(cpu.combine(cpu.ctx, g->curve, g->g2, want, n, start, terms, tables, &report, &err), 0);
    assert_int_equal(dev.combine(dev.ctx, g->curve, g->g2, got, n, start, terms, tables, &report, &err), 0);
    assert_memory_equal(got, want, n * pb);
    if (n > 4) { /* output 4 cancelled, output 0 has no term: both infinity */
        static const uint8_t zero[192];
        assert_memory_equal(got + 4 * pb, zero, pb);
        assert_memory_equal(got, zero, pb);
    }
    if (n > 1) assert_int_equal(seen.last_done, n);
    cuzk_gpu_ceremony_mul_free(&dev);
    for (int t = 0; t < TABLES; t++) free(tab[t]);
    free(start);
    free(terms);
    free(want);
    free(got);
}

static void test_combine_matches_cpu(void **state)
{
    (void)state;
    for (int i = 0; i < 4; i++) {
        combine_case(&groups[i], 0, 0, 0);
        combine_case(&groups[i], 1, 0, 0);
        combine_case(&groups[i], 7, 0, 0);
        combine_case(&groups[i], 300, 700, 0);   /* one round; output 3 over three levels */
        combine_case(&groups[i], 300, 700, 64);  /* output 3 across 11 rounds, a carry each */
        combine_case(&groups[i], 300, 20, 1);    /* a term a round */
        combine_case(&groups[i], 2000, 5, 333);
    }
}

/* the inverse FFT of 2^log_n points, every third at infinity */
static void ifft_case(const group_case *g, unsigned log_n)
{
    const size_t pb = point_bytes(g), n = (size_t)1 << log_n;
    uint8_t *want = random_points(g, n, 3, 70 + log_n), *got = cuzk_alloc_aligned(n * pb + 1, 0);
    assert_non_null(got);
    memcpy(got, want, n * pb);
    cuzk_ceremony_mul cpu, dev;
    cuzk_ceremony_cpu_mul(&cpu, 2);
    cuzk_error err = {0};
    assert_int_equal(cuzk_gpu_ceremony_mul_make(gpu, 0, &dev, &err), 0);
    /* the device needs the root and 1/n; the CPU makes its own */
    uint64_t root_inv[4], n_inv[4];
#define ROOT_AND_N_INV_(C)                                                                                     \
    do {                                                                                                       \
        C##_fr r;                                                                                              \
        C##_fr_ntt_root(&r, log_n);                                                                            \
        C##_fr_inv(&r, &r);                                                                                    \
        memcpy(root_inv, r.l, 32);                                                                             \
        C##_fr_from_u64(&r, n);                                                                                \
        C##_fr_inv(&r, &r);                                                                                    \
        memcpy(n_inv, r.l, 32);                                                                                \
    } while (0)
    if (g->curve == CUZK_CURVE_BN254)
        ROOT_AND_N_INV_(bn254);
    else
        ROOT_AND_N_INV_(bls12_381);
#undef ROOT_AND_N_INV_
    progress_seen seen = {0};
    const cuzk_ceremony_report report = {count_progress, &seen, "test stage"};
    assert_int_equal(cpu.ifft(cpu.ctx, g->curve, g->g2, want, log_n, NULL, NULL, &report, &err), 0);
    assert_int_equal(dev.ifft(dev.ctx, g->curve, g->g2, got, log_n, root_inv, n_inv, &report, &err), 0);
    assert_memory_equal(got, want, n * pb);
    cuzk_gpu_ceremony_mul_free(&dev);
    free(want);
    free(got);
}

static void test_ifft_matches_cpu(void **state)
{
    (void)state;
    for (int i = 0; i < 4; i++)
        for (unsigned log_n = 0; log_n <= 10; log_n += log_n < 3 ? 1 : 7)
            ifft_case(&groups[i], log_n); /* 1, 2, 4, 8 and 1024 points */
}

/* ---- whole contributions ---- */

/* the same secret stream for each side: a fixed seed */
static void fixed_rng(cuzk_chacha *rng, uint8_t tag)
{
    uint8_t seed[64];
    for (int i = 0; i < 64; i++) seed[i] = (uint8_t)(tag * 31 + i);
    cuzk_chacha_init_from_hash(rng, seed);
}

static void ptau_contribute(const char *in, const char *out, const cuzk_ceremony_options *o)
{
    cuzk_error err = {0};
    cuzk_ptau p;
    cuzk_chacha rng;
    fixed_rng(&rng, 1);
    cuzk_mpc_contribution info = {.type = CUZK_MPC_CONTRIBUTION};
    assert_int_equal(cuzk_ptau_open(&p, in, &err), CUZK_OK);
    uint8_t hash[64];
    assert_int_equal(cuzk_ceremony_ptau_contribute(&p, out, &rng, &info, o, hash, &err), CUZK_OK);
    cuzk_ptau_close(&p);
}

static void same_key(const cuzk_zkey *a, const cuzk_zkey *b)
{
    const size_t g1 = 2 * (size_t)a->n8q, g2 = 2 * g1;
    const size_t nw = a->n_vars, np = a->n_public;
    assert_int_equal(a->n_vars, b->n_vars);
    assert_int_equal(a->domain_size, b->domain_size);
    assert_memory_equal(a->ic, b->ic, (np + 1) * g1);
    assert_memory_equal(a->a, b->a, nw * g1);
    assert_memory_equal(a->b1, b->b1, nw * g1);
    assert_memory_equal(a->b2, b->b2, nw * g2);
    assert_memory_equal(a->c, b->c, (nw - np - 1) * g1);
    assert_memory_equal(a->h, b->h, (size_t)a->domain_size * g1);
    assert_memory_equal(a->delta1, b->delta1, g1);
    assert_memory_equal(a->delta2, b->delta2, g2);
}

static void test_whole_contributions(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        const cuzk_curve_id curve = c ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
        cuzk_error err = {0};
        cuzk_ceremony_mul dev;
        assert_int_equal(cuzk_gpu_ceremony_mul_make(gpu, 50, &dev, &err), 0); /* several rounds */
        const cuzk_ceremony_options cpu_o = {.nthreads = 2}, dev_o = {.nthreads = 2, .mul = &dev};
        assert_int_equal(cuzk_ceremony_ptau_new(curve, 7, tmp_path("0.ptau"), &err), CUZK_OK);
        ptau_contribute(tmp_path("0.ptau"), tmp_path("cpu.ptau"), &cpu_o);
        ptau_contribute(tmp_path("0.ptau"), tmp_path("gpu.ptau"), &dev_o);
        same_file(tmp_path("cpu.ptau"), tmp_path("gpu.ptau"));

        /* prepared each way, then zkey new and a contribution each way */
        cuzk_ptau p;
        assert_int_equal(cuzk_ptau_open(&p, tmp_path("cpu.ptau"), &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_ptau_prepare(&p, tmp_path("pot.ptau"), &cpu_o, &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_ptau_prepare(&p, tmp_path("gpu.ptau"), &dev_o, &err), CUZK_OK);
        cuzk_ptau_close(&p);
        same_file(tmp_path("pot.ptau"), tmp_path("gpu.ptau"));
        assert_int_equal(cuzk_ptau_open(&p, tmp_path("pot.ptau"), &err), CUZK_OK);
        cuzk_r1cs r;
        cuzk_wtns w;
        const cuzk_synth_params sp = {.curve = curve, .n_constraints = 50, .n_public = 2, .seed = 8,
                                      .shape = CUZK_SHAPE_MIXED};
        assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
        cuzk_zkey zc, zg;
        uint8_t hc[CUZK_CEREMONY_HASH_BYTES], hg[CUZK_CEREMONY_HASH_BYTES];
        assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &cpu_o, &zc, hc, &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &dev_o, &zg, hg, &err), CUZK_OK);
        same_key(&zc, &zg);
        assert_memory_equal(hc, hg, sizeof hc);
        /* outputs of 4 terms or more (the constant wire's, some others')
         * by the device's MSM, runs of the rest between them: the same key,
         * and the progress of each combination climbs to its whole */
        cuzk_zkey zm;
        stage_seen seen = {0};
        const cuzk_ceremony_options msm_o = {.nthreads = 2, .mul = &dev, .msm_min_terms = 4,
                                             .progress = watch_stage, .progress_ctx = &seen};
        assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &msm_o, &zm, hg, &err), CUZK_OK);
        same_key(&zc, &zm);
        assert_memory_equal(hc, hg, sizeof hc);
        assert_int_equal(seen.b2_done, zc.n_vars);
        cuzk_zkey_free(&zm);

        cuzk_mpc mc = {.g1_bytes = 2 * zc.n8q, .g2_bytes = 4 * zc.n8q}, mg = mc;
        memcpy(mc.cs_hash, hc, sizeof hc);
        memcpy(mg.cs_hash, hg, sizeof hg);
        cuzk_mpc_contribution info = {.type = CUZK_MPC_CONTRIBUTION};
        cuzk_chacha rc_, rg_;
        fixed_rng(&rc_, 2);
        fixed_rng(&rg_, 2);
        assert_int_equal(cuzk_ceremony_zkey_contribute(&zc, &mc, &rc_, &info, &cpu_o, &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_zkey_contribute(&zg, &mg, &rg_, &info, &dev_o, &err), CUZK_OK);
        same_key(&zc, &zg);
        assert_memory_equal(mc.c[0].contribution_hash, mg.c[0].contribution_hash, 64);
        assert_int_equal(cuzk_ceremony_zkey_verify(&r, &p, &zg, &mg, &cpu_o, &err), CUZK_OK);

        cuzk_mpc_free(&mc);
        cuzk_mpc_free(&mg);
        cuzk_zkey_free(&zc);
        cuzk_zkey_free(&zg);
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);
        cuzk_ptau_close(&p);
        cuzk_gpu_ceremony_mul_free(&dev);
    }
}

int main(void)
{
    if (gpu_tests_unavailable())
        return 77;
    cuzk_error err = {0};
    if (cuzk_gpu_open(&gpu, 0, &err)) {
        printf("cannot open GPU 0: %s\n", err.msg);
        return 1;
    }
    if (ceremony_dir_make()) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale_matches_cpu),
        cmocka_unit_test(test_combine_matches_cpu),
        cmocka_unit_test(test_ifft_matches_cpu),
        cmocka_unit_test(test_whole_contributions),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    ceremony_dir_remove((const char *const[]){"0.ptau", "cpu.ptau", "gpu.ptau", "pot.ptau", NULL});
    cuzk_gpu_close(gpu);
    return failed;
}
