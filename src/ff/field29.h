/* Four field elements at once (mont29.h, AVX2; the operations of
 * field_lanes.h with X = x4), for CPUs without AVX-512 IFMA:
 *   bn254_fp_x4        9 limbs of 29 bits a lane
 *   bls12_381_fp_x4   14 limbs
 * with mul and sqr as field.h's, and bn254_fp2_x4, bls12_381_fp2_x4. Only
 * for callers marked MONT29_TARGET that run when mont29_enabled. */
#ifndef CUZK_FF_FIELD29_H
#define CUZK_FF_FIELD29_H

#include "ff/mont29.h"

#if MONT29_HAVE
#include "ff/field_lanes.h"

#define FIELD29_DEFINE(F, N, UP)                                                                \
    FIELD_LANES_DEFINE(F, x4, mont29, __m256i, MONT29_INLINE, MONT29_LANES, N, UP##_MONT29)     \
    MONT29_INLINE void F##_x4_mul(F##_x4 *r, const F##_x4 *a, const F##_x4 *b)                  \
    {                                                                                          \
        mont29_mul_##N##_avx2(r->v, a->v, b->v, F##_MONT29_VEC);                               \
    }                                                                                          \
    MONT29_INLINE void F##_x4_sqr(F##_x4 *r, const F##_x4 *a) { mont29_mul_##N##_avx2(r->v, a->v, a->v, F##_MONT29_VEC); }

/* Fp2's product as two sums of two products (mont29_mulsum), no
 * Karatsuba: the same 4 + 2 reductions' worth of multiplies as 3 products,
 * without its five additions:
 *   c0 = a0 b0 + a1 (2m - b1),  c1 = a0 b1 + a1 b0  (each below 4m, then 2m) */
#define FIELD29_DEFINE_FP2(F2, F, N)                                                            \
    FIELD_LANES_DEFINE_FP2(F2, F, x4, MONT29_INLINE, MONT29_LANES)                              \
    MONT29_INLINE void F2##_x4_mul(F2##_x4 *r, const F2##_x4 *a, const F2##_x4 *b)              \
    {                                                                                          \
        F##_x4 nb1, c0, c1;                                                                    \
        mont29_add_2m_minus(nb1.v, NULL, b->c1.v, &F##_x4_field, N);                           \
        mont29_mulsum_##N##_avx2(c0.v, a->c0.v, b->c0.v, a->c1.v, nb1.v, F##_MONT29_VEC);      \
        mont29_mulsum_##N##_avx2(c1.v, a->c0.v, b->c1.v, a->c1.v, b->c0.v, F##_MONT29_VEC);    \
        mont29_sub_if_geq(r->c0.v, c0.v, F##_x4_field.neg_m2, N);                              \
        mont29_sub_if_geq(r->c1.v, c1.v, F##_x4_field.neg_m2, N);                              \
    }

FIELD29_DEFINE(bn254_fp, 9, BN254_FP)
FIELD29_DEFINE(bls12_381_fp, 14, BLS12_381_FP)
FIELD29_DEFINE_FP2(bn254_fp2, bn254_fp, 9)
FIELD29_DEFINE_FP2(bls12_381_fp2, bls12_381_fp, 14)

#endif
#endif
