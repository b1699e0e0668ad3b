/* Field product timings: the scalar Montgomery multiply (mont.h: BMI2/ADX
 * assembly, or C with CUZK_NO_ASM=1) against 8 lanes of AVX-512 IFMA
 * (mont52.h), for the base fields of BN254 and BLS12-381.
 *
 *   bench_ff [iterations]
 *
 * Prints nanoseconds per field product: "latency" runs one chain of
 * dependent products (x = x y), "throughput" independent chains side by
 * side. A vector product counts as 8 products. Built by `make bench`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ff/field.h"
#include "ff/mont52.h"
#include "util/timer.h"

#define CHAINS 8

/* ns per product of `chains` scalar chains of iters products each. */
#define BENCH_SCALAR(F)                                                                         \
    static double F##_bench(long iters, int chains)                                             \
    {                                                                                          \
        F x[CHAINS], y;                                                                        \
        F##_from_u64(&y, 7);                                                                   \
        for (int c = 0; c < CHAINS; c++)                                                       \
            F##_from_u64(&x[c], 3 + (uint64_t)c);                                              \
        double t0 = cuzk_now_s();                                                                \
        for (long i = 0; i < iters; i++)                                                       \
            for (int c = 0; c < chains; c++)                                                   \
                F##_mul(&x[c], &x[c], &y);                                                     \
        double t = cuzk_now_s() - t0;                                                            \
        uint64_t sink = 0;                                                                     \
        for (int c = 0; c < chains; c++)                                                       \
            sink ^= x[c].l[0];                                                                 \
        if (sink == 42)                                                                        \
            puts("");                                                                          \
        return t * 1e9 / (double)iters / chains;                                               \
    }
BENCH_SCALAR(bn254_fp)
BENCH_SCALAR(bls12_381_fp)

/* ns per inversion, Fermat (inv) or divsteps (inv_var), one chain. */
#define BENCH_INV(F, OP)                                                                        \
    static double F##_bench_##OP(long iters)                                                   \
    {                                                                                          \
        F x;                                                                                   \
        F##_from_u64(&x, 3);                                                                   \
        double t0 = cuzk_now_s();                                                              \
        for (long i = 0; i < iters; i++)                                                       \
            F##_##OP(&x, &x);                                                                  \
        double t = cuzk_now_s() - t0;                                                          \
        if (x.l[0] == 42)                                                                      \
            puts("");                                                                          \
        return t * 1e9 / (double)iters;                                                        \
    }
BENCH_INV(bn254_fp, inv)
BENCH_INV(bn254_fp, inv_var)
BENCH_INV(bls12_381_fp, inv)
BENCH_INV(bls12_381_fp, inv_var)

#if MONT52_HAVE
/* ns per product of `chains` 8-lane chains (chains <= 2). */
#define BENCH_VECTOR(F, N, UP)                                                                  \
    MONT52_TARGET static double F##_bench52(long iters, int chains)                             \
    {                                                                                          \
        static const mont52_field fld = UP##_MONT52;                                           \
        __m512i x[2][N], y[N];                                                                 \
        for (int j = 0; j < N; j++) {                                                          \
            y[j] = _mm512_set1_epi64(j + 11);                                                  \
            x[0][j] = _mm512_set1_epi64(j + 3);                                                \
            x[1][j] = _mm512_set1_epi64(j + 5);                                                \
        }                                                                                      \
        double t0 = cuzk_now_s();                                                                \
        for (long i = 0; i < iters; i++)                                                       \
            for (int c = 0; c < chains; c++)                                                   \
                mont52_mul(x[c], x[c], y, &fld, N);                                            \
        double t = cuzk_now_s() - t0;                                                            \
        long long sink[8];                                                                     \
        _mm512_storeu_si512(sink, _mm512_xor_si512(x[0][0], x[1][0]));                         \
        if (sink[0] == 42)                                                                     \
            puts("");                                                                          \
        return t * 1e9 / (double)iters / chains / MONT52_LANES;                                \
    }
BENCH_VECTOR(bn254_fp, 5, BN254_FP)
BENCH_VECTOR(bls12_381_fp, 8, BLS12_381_FP)
#endif

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 2000000;
    printf("ns per product     latency  throughput (%d chains)\n", CHAINS);
    printf("bn254_fp scalar    %7.2f  %7.2f\n", bn254_fp_bench(iters, 1), bn254_fp_bench(iters, CHAINS));
    printf("bls12_381 scalar   %7.2f  %7.2f\n", bls12_381_fp_bench(iters, 1),
           bls12_381_fp_bench(iters, CHAINS));
    printf("ns per inversion   Fermat   divsteps\n");
    printf("bn254_fp           %7.0f  %7.0f\n", bn254_fp_bench_inv(iters / 500), bn254_fp_bench_inv_var(iters / 500));
    printf("bls12_381_fp       %7.0f  %7.0f\n", bls12_381_fp_bench_inv(iters / 500),
           bls12_381_fp_bench_inv_var(iters / 500));
#if MONT52_HAVE
    if (!mont52_enabled) {
        puts("no AVX-512 IFMA (or CUZK_NO_IFMA set)");
        return 0;
    }
    printf("bn254_fp ifma x8   %7.2f  %7.2f (2 vectors)\n", bn254_fp_bench52(iters, 1), bn254_fp_bench52(iters, 2));
    printf("bls12_381 ifma x8  %7.2f  %7.2f (2 vectors)\n", bls12_381_fp_bench52(iters, 1),
           bls12_381_fp_bench52(iters, 2));
#endif
    return 0;
}
