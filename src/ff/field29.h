/* Four field elements at once (mont29.h, AVX2; the operations of
 * field_lanes.h with X = x4), for CPUs without AVX-512 IFMA:
 *   bn254_fp_x4        9 limbs of 29 bits a lane
 *   bls12_381_fp_x4   14 limbs
 *   bn254_fr_x4, bls12_381_fr_x4   9 limbs
 * The base fields have mul, sqr and mulsum, and bn254_fp2_x4,
 * bls12_381_fp2_x4; the scalar fields (where 4m < R fails for BLS12-381)
 * have mul_canonical (r = a b / R for a < 2m and a canonical b < m: below
 * 2m when 2m < R, the NTT's products by its twiddles), canonical (r = a
 * mod m, below m) and broadcast (every lane of r = lane k of a). Only for
 * callers marked MONT29_TARGET that run when mont29_enabled. */
#ifndef CUZK_FF_FIELD29_H
#define CUZK_FF_FIELD29_H

#include "ff/mont29.h"

#if MONT29_HAVE
#include "ff/field_lanes.h"

#define FIELD29_DEFINE(F, N, UP)                                                                \
    FIELD_LANES_DEFINE(F, x4, mont29, __m256i, MONT29_INLINE, MONT29_LANES, N, UP##_MONT29)     \
    FIELD_LANES_DEFINE_MUL(F, x4, mont29, MONT29_INLINE, N)

FIELD29_DEFINE(bn254_fp, 9, BN254_FP)
FIELD29_DEFINE(bls12_381_fp, 14, BLS12_381_FP)

#define FIELD29_DEFINE_SCALAR(F, UP)                                                            \
    FIELD_LANES_DEFINE(F, x4, mont29, __m256i, MONT29_INLINE, MONT29_LANES, 9, UP##_MONT29)     \
    MONT29_INLINE void F##_x4_mul_canonical(F##_x4 *r, const F##_x4 *a, const F##_x4 *b)         \
    {                                                                                          \
        mont29_mul(r->v, a->v, b->v, &F##_x4_field, 9);                                        \
    }                                                                                          \
    MONT29_INLINE void F##_x4_canonical(F##_x4 *r, const F##_x4 *a)                             \
    {                                                                                          \
        mont29_sub_if_geq(r->v, a->v, F##_x4_field.neg_m, 9);                                  \
    }                                                                                          \
    MONT29_INLINE void F##_x4_broadcast(F##_x4 *r, const F##_x4 *a, int k)                     \
    {                                                                                          \
        const __m256i lane = _mm256_setr_epi32(2 * k, 2 * k + 1, 2 * k, 2 * k + 1, 2 * k, 2 * k + 1, 2 * k, \
                                               2 * k + 1);                                     \
        for (int j = 0; j < 9; j++)                                                            \
            r->v[j] = _mm256_permutevar8x32_epi32(a->v[j], lane);                              \
    }

FIELD29_DEFINE_SCALAR(bn254_fr, BN254_FR)
FIELD29_DEFINE_SCALAR(bls12_381_fr, BLS12_381_FR)
FIELD_LANES_DEFINE_FP2(bn254_fp2, bn254_fp, x4, MONT29_INLINE, MONT29_LANES)
FIELD_LANES_DEFINE_FP2(bls12_381_fp2, bls12_381_fp, x4, MONT29_INLINE, MONT29_LANES)

#endif
#endif
