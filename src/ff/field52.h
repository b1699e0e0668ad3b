/* Eight field elements at once (mont52.h, AVX-512 IFMA):
 *   bn254_fp_x8, bn254_fr_x8, bls12_381_fr_x8   5 limbs of 52 bits a lane
 *   bls12_381_fp_x8                              8 limbs
 * For F_x8: F_x8_load / F_x8_store exchange lane k with the scalar F element
 * *src[k] / *dst[k] (field.h's Montgomery form; store writes canonical
 * values); add, sub as in field.h, lane by lane, on values kept below 2m;
 * set_one, set_zero; broadcast(r, a, k): every lane of r = lane k of a.
 * The base fields have mul and sqr as field.h's, and
 * bn254_fp2_x8, bls12_381_fp2_x8 over tower.h's Fp2 = Fp[u]/(u^2 + 1); the
 * scalar fields have mul_wide (r = a b / 2^260: b a constant made so) for
 * the NTT's twiddles. Only for callers marked MONT52_TARGET that run when
 * mont52_enabled. */
#ifndef CUZK_FF_FIELD52_H
#define CUZK_FF_FIELD52_H

#include "ff/mont52.h"
#include "ff/tower.h"

#if MONT52_HAVE

#define FIELD52_DEFINE(F, N, UP)                                                                \
    typedef struct {                                                                           \
        __m512i v[N];                                                                          \
    } F##_x8;                                                                                  \
    static const mont52_field F##_52 = UP##_MONT52;                                            \
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
    }                                                                                          \
    MONT52_INLINE void F##_x8_set_zero(F##_x8 *r)                                              \
    {                                                                                          \
        for (int j = 0; j < N; j++)                                                            \
            r->v[j] = _mm512_setzero_si512();                                                  \
    }                                                                                          \
    MONT52_INLINE void F##_x8_broadcast(F##_x8 *r, const F##_x8 *a, int k)                     \
    {                                                                                          \
        const __m512i lane = _mm512_set1_epi64(k);                                             \
        for (int j = 0; j < N; j++)                                                            \
            r->v[j] = _mm512_permutexvar_epi64(lane, a->v[j]);                                 \
    }

/* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u
 * (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
#define FIELD52_DEFINE_FP2(F2, F)                                                               \
    typedef struct {                                                                           \
        F##_x8 c0, c1;                                                                         \
    } F2##_x8;                                                                                 \
    MONT52_INLINE void F2##_x8_mul(F2##_x8 *r, const F2##_x8 *a, const F2##_x8 *b)              \
    {                                                                                          \
        F##_x8 t0, t1, sa, sb;                                                                 \
        F##_x8_mul(&t0, &a->c0, &b->c0);                                                       \
        F##_x8_mul(&t1, &a->c1, &b->c1);                                                       \
        F##_x8_add(&sa, &a->c0, &a->c1);                                                       \
        F##_x8_add(&sb, &b->c0, &b->c1);                                                       \
        F##_x8_mul(&sa, &sa, &sb);                                                             \
        F##_x8_sub(&r->c0, &t0, &t1);                                                          \
        F##_x8_sub(&sa, &sa, &t0);                                                             \
        F##_x8_sub(&r->c1, &sa, &t1);                                                          \
    }                                                                                          \
    MONT52_INLINE void F2##_x8_sqr(F2##_x8 *r, const F2##_x8 *a)                                \
    {                                                                                          \
        F##_x8 s, d, p;                                                                        \
        F##_x8_add(&s, &a->c0, &a->c1);                                                        \
        F##_x8_sub(&d, &a->c0, &a->c1);                                                        \
        F##_x8_mul(&p, &a->c0, &a->c1);                                                        \
        F##_x8_mul(&r->c0, &s, &d);                                                            \
        F##_x8_add(&r->c1, &p, &p);                                                            \
    }                                                                                          \
    MONT52_INLINE void F2##_x8_add(F2##_x8 *r, const F2##_x8 *a, const F2##_x8 *b)              \
    {                                                                                          \
        F##_x8_add(&r->c0, &a->c0, &b->c0);                                                    \
        F##_x8_add(&r->c1, &a->c1, &b->c1);                                                    \
    }                                                                                          \
    MONT52_INLINE void F2##_x8_sub(F2##_x8 *r, const F2##_x8 *a, const F2##_x8 *b)              \
    {                                                                                          \
        F##_x8_sub(&r->c0, &a->c0, &b->c0);                                                    \
        F##_x8_sub(&r->c1, &a->c1, &b->c1);                                                    \
    }                                                                                          \
    MONT52_INLINE void F2##_x8_load(F2##_x8 *r, const F2 *const src[MONT52_LANES])              \
    {                                                                                          \
        const F *c0[MONT52_LANES], *c1[MONT52_LANES];                                          \
        for (int k = 0; k < MONT52_LANES; k++) {                                               \
            c0[k] = &src[k]->c0;                                                               \
            c1[k] = &src[k]->c1;                                                               \
        }                                                                                      \
        F##_x8_load(&r->c0, c0);                                                               \
        F##_x8_load(&r->c1, c1);                                                               \
    }                                                                                          \
    MONT52_INLINE void F2##_x8_store(F2 *const dst[MONT52_LANES], const F2##_x8 *a)             \
    {                                                                                          \
        F *c0[MONT52_LANES], *c1[MONT52_LANES];                                                \
        for (int k = 0; k < MONT52_LANES; k++) {                                               \
            c0[k] = &dst[k]->c0;                                                               \
            c1[k] = &dst[k]->c1;                                                               \
        }                                                                                      \
        F##_x8_store(c0, &a->c0);                                                              \
        F##_x8_store(c1, &a->c1);                                                              \
    }                                                                                          \
    MONT52_INLINE void F2##_x8_set_one(F2##_x8 *r)                                             \
    {                                                                                          \
        F##_x8_set_one(&r->c0);                                                                \
        F##_x8_set_zero(&r->c1);                                                               \
    }

#define FIELD52_DEFINE_MUL(F, N)                                                                \
    MONT52_INLINE void F##_x8_mul(F##_x8 *r, const F##_x8 *a, const F##_x8 *b)                   \
    {                                                                                          \
        mont52_mul(r->v, a->v, b->v, &F##_52, N);                                              \
    }                                                                                          \
    MONT52_INLINE void F##_x8_sqr(F##_x8 *r, const F##_x8 *a) { mont52_mul(r->v, a->v, a->v, &F##_52, N); }

#define FIELD52_DEFINE_MUL_WIDE(F, N)                                                           \
    MONT52_INLINE void F##_x8_mul_wide(F##_x8 *r, const F##_x8 *a, const F##_x8 *b)              \
    {                                                                                          \
        mont52_mul_wide(r->v, a->v, b->v, &F##_52, N);                                         \
    }

FIELD52_DEFINE(bn254_fp, 5, BN254_FP)
FIELD52_DEFINE_MUL(bn254_fp, 5)
FIELD52_DEFINE(bls12_381_fp, 8, BLS12_381_FP)
FIELD52_DEFINE_MUL(bls12_381_fp, 8)
FIELD52_DEFINE(bn254_fr, 5, BN254_FR)
FIELD52_DEFINE_MUL_WIDE(bn254_fr, 5)
FIELD52_DEFINE(bls12_381_fr, 5, BLS12_381_FR)
FIELD52_DEFINE_MUL_WIDE(bls12_381_fr, 5)
FIELD52_DEFINE_FP2(bn254_fp2, bn254_fp)
FIELD52_DEFINE_FP2(bls12_381_fp2, bls12_381_fp)

#endif
#endif
