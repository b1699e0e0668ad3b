/* Eight field elements at once (mont52.h, AVX-512 IFMA; the operations of
 * field_lanes.h with X = x8):
 *   bn254_fp_x8, bn254_fr_x8, bls12_381_fr_x8   5 limbs of 52 bits a lane
 *   bls12_381_fp_x8                              8 limbs
 * and broadcast(r, a, k): every lane of r = lane k of a. The base fields
 * have mul and sqr as field.h's, and bn254_fp2_x8, bls12_381_fp2_x8; the
 * scalar fields have mul_wide (r = a b / 2^260: b a constant made so) for
 * the NTT's twiddles. Only for callers marked MONT52_TARGET that run when
 * mont52_enabled. */
#ifndef CUZK_FF_FIELD52_H
#define CUZK_FF_FIELD52_H

#include "ff/mont52.h"
#include "ff/tower.h"

#if MONT52_HAVE
#include "ff/field_lanes.h"

#define FIELD52_DEFINE(F, N, UP)                                                                \
    FIELD_LANES_DEFINE(F, x8, mont52, __m512i, MONT52_INLINE, MONT52_LANES, N, UP##_MONT52)     \
    MONT52_INLINE void F##_x8_broadcast(F##_x8 *r, const F##_x8 *a, int k)                     \
    {                                                                                          \
        const __m512i lane = _mm512_set1_epi64(k);                                             \
        for (int j = 0; j < N; j++)                                                            \
            r->v[j] = _mm512_permutexvar_epi64(lane, a->v[j]);                                 \
    }

#define FIELD52_DEFINE_MUL_WIDE(F, N)                                                           \
    MONT52_INLINE void F##_x8_mul_wide(F##_x8 *r, const F##_x8 *a, const F##_x8 *b)              \
    {                                                                                          \
        mont52_mul_wide(r->v, a->v, b->v, &F##_x8_field, N);                                   \
    }

FIELD52_DEFINE(bn254_fp, 5, BN254_FP)
FIELD_LANES_DEFINE_MUL(bn254_fp, x8, mont52, MONT52_INLINE, 5)
FIELD52_DEFINE(bls12_381_fp, 8, BLS12_381_FP)
FIELD_LANES_DEFINE_MUL(bls12_381_fp, x8, mont52, MONT52_INLINE, 8)
FIELD52_DEFINE(bn254_fr, 5, BN254_FR)
FIELD52_DEFINE_MUL_WIDE(bn254_fr, 5)
FIELD52_DEFINE(bls12_381_fr, 5, BLS12_381_FR)
FIELD52_DEFINE_MUL_WIDE(bls12_381_fr, 5)
FIELD_LANES_DEFINE_FP2(bn254_fp2, bn254_fp, x8, MONT52_INLINE, MONT52_LANES)
FIELD_LANES_DEFINE_FP2(bls12_381_fp2, bls12_381_fp, x8, MONT52_INLINE, MONT52_LANES)

#endif
#endif
