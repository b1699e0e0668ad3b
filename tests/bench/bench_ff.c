/* Field product timings: the scalar Montgomery multiply (mont.h: BMI2/ADX
 * assembly, or C with CUZK_NO_ASM=1) against 8 lanes of AVX-512 IFMA
 * (mont52.h) and 4 lanes of AVX2 (mont29.h), for the base fields of BN254
 * and BLS12-381.
 *
 *   bench_ff [iterations]
 *
 * Prints nanoseconds per field product: "latency" runs one chain of
 * dependent products (x = x y), "throughput" independent chains side by
 * side. A vector product counts as one product a lane. Built by `make bench`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ff/field.h"
#include "ff/field29.h"
#include "ff/field52.h"
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

/* ns per product of `chains` vector chains (chains <= 2) of field_lanes.h's
 * F_X, LANES products each. */
#define BENCH_VECTOR(F, X, LANES, TARGET)                                                       \
    TARGET static double F##_bench_##X(long iters, int chains)                                  \
    {                                                                                          \
        F v[LANES];                                                                            \
        const F *pv[LANES];                                                                    \
        for (int k = 0; k < LANES; k++) {                                                      \
            for (int j = 0; j < F##_LIMBS_N; j++)                                              \
                v[k].l[j] = 0x0123456789abcdefULL * (uint64_t)(k + j + 1);                     \
            v[k].l[F##_LIMBS_N - 1] >>= 8; /* below m */                                       \
            pv[k] = &v[k];                                                                     \
        }                                                                                      \
        F##_##X x[2], y;                                                                       \
        F##_##X##_load(&x[0], pv);                                                             \
        F##_##X##_load(&x[1], pv);                                                             \
        F##_##X##_load(&y, pv);                                                                \
        double t0 = cuzk_now_s();                                                              \
        for (long i = 0; i < iters; i++)                                                       \
            for (int c = 0; c < chains; c++)                                                   \
                F##_##X##_mul(&x[c], &x[c], &y);                                               \
        double t = cuzk_now_s() - t0;                                                          \
        F *out[LANES];                                                                         \
        for (int k = 0; k < LANES; k++)                                                        \
            out[k] = &v[k];                                                                    \
        F##_##X##_add(&x[0], &x[0], &x[1]);                                                    \
        F##_##X##_store(out, &x[0]);                                                           \
        if (v[0].l[0] == 42)                                                                   \
            puts("");                                                                          \
        return t * 1e9 / (double)iters / chains / LANES;                                       \
    }
#if MONT52_HAVE
BENCH_VECTOR(bn254_fp, x8, 8, MONT52_TARGET)
BENCH_VECTOR(bls12_381_fp, x8, 8, MONT52_TARGET)
#endif
#if MONT29_HAVE
BENCH_VECTOR(bn254_fp, x4, 4, MONT29_TARGET)
BENCH_VECTOR(bls12_381_fp, x4, 4, MONT29_TARGET)
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
    if (mont52_enabled) {
        printf("bn254_fp ifma x8   %7.2f  %7.2f (2 vectors)\n", bn254_fp_bench_x8(iters, 1), bn254_fp_bench_x8(iters, 2));
        printf("bls12_381 ifma x8  %7.2f  %7.2f (2 vectors)\n", bls12_381_fp_bench_x8(iters, 1),
               bls12_381_fp_bench_x8(iters, 2));
    } else {
        puts("no AVX-512 IFMA (or CUZK_NO_IFMA set)");
    }
#endif
#if MONT29_HAVE
    if (mont29_enabled) {
        printf("bn254_fp avx2 x4   %7.2f  %7.2f (2 vectors)\n", bn254_fp_bench_x4(iters, 1), bn254_fp_bench_x4(iters, 2));
        printf("bls12_381 avx2 x4  %7.2f  %7.2f (2 vectors)\n", bls12_381_fp_bench_x4(iters, 1),
               bls12_381_fp_bench_x4(iters, 2));
    } else {
        puts("no AVX2 (or CUZK_NO_AVX2 set)");
    }
#endif
    return 0;
}
