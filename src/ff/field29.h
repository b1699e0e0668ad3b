/* Four field elements at once (mont29.h, AVX2; the operations of
 * field_lanes.h with X = x4), for CPUs without AVX-512 IFMA:
 *   bn254_fp_x4        9 limbs of 29 bits a lane
 *   bls12_381_fp_x4   14 limbs
 * with mul, sqr and mulsum, and bn254_fp2_x4, bls12_381_fp2_x4. Only
 * for callers marked MONT29_TARGET that run when mont29_enabled. */
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
FIELD_LANES_DEFINE_FP2(bn254_fp2, bn254_fp, x4, MONT29_INLINE, MONT29_LANES)
FIELD_LANES_DEFINE_FP2(bls12_381_fp2, bls12_381_fp, x4, MONT29_INLINE, MONT29_LANES)

#endif
#endif
