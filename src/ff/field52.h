/* Eight elements of a base field at once (mont52.h, AVX-512 IFMA):
 *   bn254_fp_x8        5 limbs of 52 bits a lane
 *   bls12_381_fp_x8    8 limbs
 * For F_x8: F_x8_load / F_x8_store exchange lane k with the scalar F element
 * *src[k] / *dst[k] (field.h's Montgomery form; store writes canonical
 * values); mul, sqr, add, sub as in field.h, lane by lane, on values kept
 * below 2m; set_one. Only for callers marked MONT52_TARGET that run when
 * mont52_enabled. */
#ifndef CUZK_FF_FIELD52_H
#define CUZK_FF_FIELD52_H

#include "ff/field.h"
#include "ff/mont52.h"

#if MONT52_HAVE

#define FIELD52_DEFINE(F, N, UP)                                                                \
    typedef struct {                                                                           \
        __m512i v[N];                                                                          \
    } F##_x8;                                                                                  \
    static const mont52_field F##_52 = UP##_MONT52;                                            \
    MONT52_INLINE void F##_x8_mul(F##_x8 *r, const F##_x8 *a, const F##_x8 *b)                   \
    {                                                                                          \
        mont52_mul(r->v, a->v, b->v, &F##_52, N);                                              \
    }                                                                                          \
    MONT52_INLINE void F##_x8_sqr(F##_x8 *r, const F##_x8 *a) { mont52_mul(r->v, a->v, a->v, &F##_52, N); } \
    MONT52_INLINE void F##_x8_add(F##_x8 *r, const F##_x8 *a, const F##_x8 *b)                   \
    {                                                                                          \
        mont52_add(r->v, a->v, b->v, &F##_52, N);                                              \
    }                                                                                          \
    MONT52_INLINE void F##_x8_sub(F##_x8 *r, const F##_x8 *a, const F##_x8 *b)                   \
    {                                                                                          \
        mont52_sub(r->v, a->v, b->v, &F##_52, N);                                              \
    }                                                                                          \
    MONT52_INLINE void F##_x8_load(F##_x8 *r, const F *const src[MONT52_LANES])                 \
    {                                                                                          \
        const uint64_t *w[MONT52_LANES];                                                       \
        for (int k = 0; k < MONT52_LANES; k++)                                                 \
            w[k] = src[k]->l;                                                                  \
        mont52_load(r->v, w, &F##_52, N);                                                      \
    }                                                                                          \
    MONT52_INLINE void F##_x8_store(F *const dst[MONT52_LANES], const F##_x8 *a)                \
    {                                                                                          \
        uint64_t *w[MONT52_LANES];                                                             \
        for (int k = 0; k < MONT52_LANES; k++)                                                 \
            w[k] = dst[k]->l;                                                                  \
        mont52_store(w, a->v, &F##_52, N);                                                     \
    }                                                                                          \
    MONT52_INLINE void F##_x8_set_one(F##_x8 *r)                                               \
    {                                                                                          \
        const F *one[MONT52_LANES];                                                            \
        for (int k = 0; k < MONT52_LANES; k++)                                                 \
            one[k] = (const F *)F##_R;                                                         \
        F##_x8_load(r, one);                                                                   \
    }

FIELD52_DEFINE(bn254_fp, 5, BN254_FP)
FIELD52_DEFINE(bls12_381_fp, 8, BLS12_381_FP)

#endif
#endif
