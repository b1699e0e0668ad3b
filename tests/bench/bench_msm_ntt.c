/* Timing of the CPU kernels: MSM on G1 and G2 and NTT/iNTT, both curves.
 *
 *   bench_msm_ntt [threads] [log_min] [log_max]
 *
 * defaults: all CPUs, sizes 2^16 and 2^18. Prints the best of REPS runs in
 * milliseconds. Built by `make bench`.
 * Bases are P_{i+1} = 2 P_i + Q from random multiples of the generator
 * (cheap to make, as good as random for timing); scalars are random < r. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/threads.h"
#include "util/random.h"
#include "util/timer.h"

#define REPS 3

/* Random 4-limb integer below 2^(bits-1), hence below r. */
static void random_words(uint64_t l[4], unsigned bits, uint64_t *seed)
{
    for (int i = 0; i < 4; i++)
        l[i] = cuzk_splitmix64(seed);
    l[3] &= (1ULL << (bits - 1 - 192)) - 1;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

#define BENCH_MSM(G, FR, FQ, UP)                                                                \
    static double G##_bench(size_t n, int threads)                                              \
    {                                                                                          \
        uint64_t seed = 1;                                                                     \
        G##_affine gen, *bases = xmalloc(n * sizeof *bases);                                   \
        G##_jac g, p, q, r, *jac = xmalloc(n * sizeof *jac);                                   \
        FQ *scratch = xmalloc(n * sizeof *scratch);                                            \
        FR *k = xmalloc(n * sizeof *k);                                                        \
        uint64_t kp[4], kq[4];                                                                 \
        random_words(kp, UP##_BITS, &seed);                                                    \
        random_words(kq, UP##_BITS, &seed);                                                    \
        G##_generator(&gen);                                                                   \
        G##_jac_from_affine(&g, &gen);                                                         \
        G##_jac_mul_var(&p, &g, kp, 256);                                                      \
        G##_jac_mul_var(&q, &g, kq, 256);                                                      \
        for (size_t i = 0; i < n; i++) {                                                       \
            jac[i] = p;                                                                        \
            G##_jac_dbl_var(&p, &p);                                                               \
            G##_jac_add_var(&p, &p, &q);                                                           \
            random_words(k[i].l, UP##_BITS, &seed);                                            \
        }                                                                                      \
        G##_jac_batch_to_affine(bases, jac, n, scratch);                                       \
        double best = 1e30;                                                                    \
        for (int rep = 0; rep < REPS; rep++) {                                                 \
            double t0 = cuzk_now_s();                                                          \
            if (G##_msm(&r, bases, k, n, threads)) {                                           \
                fprintf(stderr, #G "_msm failed\n");                                           \
                exit(1);                                                                       \
            }                                                                                  \
            double dt = cuzk_now_s() - t0;                                                     \
            best = dt < best ? dt : best;                                                      \
        }                                                                                      \
        free(bases);                                                                           \
        free(jac);                                                                             \
        free(scratch);                                                                         \
        free(k);                                                                               \
        return best * 1e3;                                                                     \
    }

BENCH_MSM(bn254_g1, bn254_fr, bn254_fp, BN254_FR)
BENCH_MSM(bn254_g2, bn254_fr, bn254_fp2, BN254_FR)
BENCH_MSM(bls12_381_g1, bls12_381_fr, bls12_381_fp, BLS12_381_FR)
BENCH_MSM(bls12_381_g2, bls12_381_fr, bls12_381_fp2, BLS12_381_FR)

/* Best-of-REPS milliseconds of ntt and of intt. */
#define BENCH_NTT(F, UP)                                                                        \
    static void F##_bench_ntt(size_t n, int threads, double ms[2])                              \
    {                                                                                          \
        uint64_t seed = 2;                                                                     \
        F *a = xmalloc(n * sizeof *a);                                                         \
        for (size_t i = 0; i < n; i++) {                                                       \
            F raw;                                                                             \
            random_words(raw.l, UP##_BITS, &seed);                                             \
            F##_to_mont(&a[i], &raw);                                                          \
        }                                                                                      \
        ms[0] = ms[1] = 1e30;                                                                  \
        for (int rep = 0; rep < REPS; rep++)                                                   \
            for (int inv = 0; inv < 2; inv++) {                                                \
                double t0 = cuzk_now_s();                                                      \
                if ((inv ? F##_intt : F##_ntt)(a, n, threads)) {                               \
                    fprintf(stderr, #F " ntt failed\n");                                       \
                    exit(1);                                                                   \
                }                                                                              \
                double dt = (cuzk_now_s() - t0) * 1e3;                                         \
                ms[inv] = dt < ms[inv] ? dt : ms[inv];                                         \
            }                                                                                  \
        free(a);                                                                               \
    }

BENCH_NTT(bn254_fr, BN254_FR)
BENCH_NTT(bls12_381_fr, BLS12_381_FR)

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : cuzk_cpu_count();
    unsigned lo = argc > 2 ? (unsigned)atoi(argv[2]) : 16, hi = argc > 3 ? (unsigned)atoi(argv[3]) : 18;
    printf("threads %d, best of %d, ms\n", threads, REPS);
    printf("%-6s %-10s %10s %10s %10s %10s\n", "size", "curve", "msm_g1", "msm_g2", "ntt", "intt");
    for (unsigned lg = lo; lg <= hi; lg += 2) {
        size_t n = (size_t)1 << lg;
        double ms[2];
        bn254_fr_bench_ntt(n, threads, ms);
        printf("2^%-4u %-10s %10.1f %10.1f %10.1f %10.1f\n", lg, "bn254", bn254_g1_bench(n, threads),
               bn254_g2_bench(n, threads), ms[0], ms[1]);
        bls12_381_fr_bench_ntt(n, threads, ms);
        printf("2^%-4u %-10s %10.1f %10.1f %10.1f %10.1f\n", lg, "bls12_381", bls12_381_g1_bench(n, threads),
               bls12_381_g2_bench(n, threads), ms[0], ms[1]);
        fflush(stdout);
    }
    return 0;
}
