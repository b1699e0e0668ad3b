/* Field elements in vector lanes, one macro set for both vector engines:
 * field52.h (F_x8: AVX-512 IFMA, mont52.h) and field29.h (F_x4: AVX2,
 * mont29.h). An engine ARITH provides ARITH##_field and ARITH##_add, _sub,
 * _mul, _mulsum, _twice_m_minus, _load, _store on arrays of its vector
 * type VEC; X is the type's suffix, LANES its lane count, INLINE its
 * always-inline target attribute.
 *
 * For F_X: F_X_load / F_X_store exchange lane k with the scalar F element
 * *src[k] / *dst[k] (field.h's Montgomery form; store writes canonical
 * values); add, sub as in field.h, lane by lane, on values kept below 2m;
 * set_one, set_zero; where defined (the base fields), mul and sqr as
 * field.h's, mulsum and twice_m_minus; and
 * FIELD_LANES_DEFINE_FP2 makes F2_X over tower.h's Fp2 = Fp[u]/(u^2 + 1)
 * from F_X. */
#ifndef CUZK_FF_FIELD_LANES_H
#define CUZK_FF_FIELD_LANES_H

#include <string.h>

#include "ff/tower.h"

/* F_X with N limbs a lane, the engine's field constant K */
#define FIELD_LANES_DEFINE(F, X, ARITH, VEC, INLINE, LANES, N, K)                                  \
    typedef struct {                                                                           \
        VEC v[N];                                                                              \
    } F##_##X;                                                                                 \
    static const ARITH##_field F##_##X##_field = K;                                            \
    INLINE void F##_##X##_add(F##_##X *r, const F##_##X *a, const F##_##X *b)                    \
    {                                                                                          \
        ARITH##_add(r->v, a->v, b->v, &F##_##X##_field, N);                                    \
    }                                                                                          \
    INLINE void F##_##X##_sub(F##_##X *r, const F##_##X *a, const F##_##X *b)                    \
    {                                                                                          \
        ARITH##_sub(r->v, a->v, b->v, &F##_##X##_field, N);                                    \
    }                                                                                          \
    INLINE void F##_##X##_load(F##_##X *r, const F *const src[LANES])                           \
    {                                                                                          \
        const uint64_t *w[LANES];                                                              \
        for (int k = 0; k < LANES; k++)                                                        \
            w[k] = src[k]->l;                                                                  \
        ARITH##_load(r->v, w, &F##_##X##_field, N);                                            \
    }                                                                                          \
    INLINE void F##_##X##_store(F *const dst[LANES], const F##_##X *a)                          \
    {                                                                                          \
        uint64_t *w[LANES];                                                                    \
        for (int k = 0; k < LANES; k++)                                                        \
            w[k] = dst[k]->l;                                                                  \
        ARITH##_store(w, a->v, &F##_##X##_field, N);                                           \
    }                                                                                          \
    INLINE void F##_##X##_set_one(F##_##X *r)                                                  \
    {                                                                                          \
        const F *one[LANES];                                                                   \
        for (int k = 0; k < LANES; k++)                                                        \
            one[k] = (const F *)F##_R;                                                         \
        F##_##X##_load(r, one);                                                                \
    }                                                                                          \
    INLINE void F##_##X##_set_zero(F##_##X *r) { memset(r, 0, sizeof *r); }

/* The base fields' products: mul, sqr, mulsum (r = a b + c d, one
 * Montgomery pass) and twice_m_minus (r = 2m - b, -b as a factor). */
#define FIELD_LANES_DEFINE_MUL(F, X, ARITH, INLINE, N)                                           \
    INLINE void F##_##X##_mul(F##_##X *r, const F##_##X *a, const F##_##X *b)                    \
    {                                                                                          \
        ARITH##_mul(r->v, a->v, b->v, &F##_##X##_field, N);                                    \
    }                                                                                          \
    INLINE void F##_##X##_sqr(F##_##X *r, const F##_##X *a) { ARITH##_mul(r->v, a->v, a->v, &F##_##X##_field, N); } \
    INLINE void F##_##X##_mulsum(F##_##X *r, const F##_##X *a, const F##_##X *b, const F##_##X *c, const F##_##X *d) \
    {                                                                                          \
        ARITH##_mulsum(r->v, a->v, b->v, c->v, d->v, &F##_##X##_field, N);                     \
    }                                                                                          \
    INLINE void F##_##X##_twice_m_minus(F##_##X *r, const F##_##X *b)                          \
    {                                                                                          \
        ARITH##_twice_m_minus(r->v, b->v, &F##_##X##_field, N);                                \
    }

/* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u as two sums
 * of two products (mulsum), -b1 as 2m - b1: the multiplies of Karatsuba's
 * three products without its five additions;
 * (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u;
 * mul_conj: a conj(b) = (a0 b0 + a1 b1) + (a1 b0 - a0 b1) u, two mulsums;
 * mul_base: a s for s in the base field; norm: N(a) = a0^2 + a1^2 in the
 * base field (a conj(a)), one mulsum */
#define FIELD_LANES_DEFINE_FP2(F2, F, X, INLINE, LANES)                                           \
    typedef struct {                                                                           \
        F##_##X c0, c1;                                                                        \
    } F2##_##X;                                                                                \
    INLINE void F2##_##X##_mul(F2##_##X *r, const F2##_##X *a, const F2##_##X *b)                \
    {                                                                                          \
        F##_##X nb1, c0;                                                                       \
        F##_##X##_twice_m_minus(&nb1, &b->c1);                                                 \
        F##_##X##_mulsum(&c0, &a->c0, &b->c0, &a->c1, &nb1);                                   \
        F##_##X##_mulsum(&r->c1, &a->c0, &b->c1, &a->c1, &b->c0);                              \
        r->c0 = c0;                                                                            \
    }                                                                                          \
    INLINE void F2##_##X##_mul_conj(F2##_##X *r, const F2##_##X *a, const F2##_##X *b)           \
    {                                                                                          \
        F##_##X nb1, c0;                                                                       \
        F##_##X##_twice_m_minus(&nb1, &b->c1);                                                 \
        F##_##X##_mulsum(&c0, &a->c0, &b->c0, &a->c1, &b->c1);                                 \
        F##_##X##_mulsum(&r->c1, &a->c1, &b->c0, &a->c0, &nb1);                                \
        r->c0 = c0;                                                                            \
    }                                                                                          \
    INLINE void F2##_##X##_mul_base(F2##_##X *r, const F2##_##X *a, const F##_##X *s)             \
    {                                                                                          \
        F##_##X##_mul(&r->c0, &a->c0, s);                                                      \
        F##_##X##_mul(&r->c1, &a->c1, s);                                                      \
    }                                                                                          \
    INLINE void F2##_##X##_norm(F##_##X *r, const F2##_##X *a)                                  \
    {                                                                                          \
        F##_##X##_mulsum(r, &a->c0, &a->c0, &a->c1, &a->c1);                                   \
    }                                                                                          \
    INLINE void F2##_##X##_sqr(F2##_##X *r, const F2##_##X *a)                                  \
    {                                                                                          \
        F##_##X s, d, p;                                                                       \
        F##_##X##_add(&s, &a->c0, &a->c1);                                                     \
        F##_##X##_sub(&d, &a->c0, &a->c1);                                                     \
        F##_##X##_mul(&p, &a->c0, &a->c1);                                                     \
        F##_##X##_mul(&r->c0, &s, &d);                                                         \
        F##_##X##_add(&r->c1, &p, &p);                                                         \
    }                                                                                          \
    INLINE void F2##_##X##_add(F2##_##X *r, const F2##_##X *a, const F2##_##X *b)                \
    {                                                                                          \
        F##_##X##_add(&r->c0, &a->c0, &b->c0);                                                 \
        F##_##X##_add(&r->c1, &a->c1, &b->c1);                                                 \
    }                                                                                          \
    INLINE void F2##_##X##_sub(F2##_##X *r, const F2##_##X *a, const F2##_##X *b)                \
    {                                                                                          \
        F##_##X##_sub(&r->c0, &a->c0, &b->c0);                                                 \
        F##_##X##_sub(&r->c1, &a->c1, &b->c1);                                                 \
    }                                                                                          \
    INLINE void F2##_##X##_load(F2##_##X *r, const F2 *const src[LANES])                        \
    {                                                                                          \
        const F *c0[LANES], *c1[LANES];                                                        \
        for (int k = 0; k < LANES; k++) {                                                      \
            c0[k] = &src[k]->c0;                                                               \
            c1[k] = &src[k]->c1;                                                               \
        }                                                                                      \
        F##_##X##_load(&r->c0, c0);                                                            \
        F##_##X##_load(&r->c1, c1);                                                            \
    }                                                                                          \
    INLINE void F2##_##X##_store(F2 *const dst[LANES], const F2##_##X *a)                       \
    {                                                                                          \
        F *c0[LANES], *c1[LANES];                                                              \
        for (int k = 0; k < LANES; k++) {                                                      \
            c0[k] = &dst[k]->c0;                                                               \
            c1[k] = &dst[k]->c1;                                                               \
        }                                                                                      \
        F##_##X##_store(c0, &a->c0);                                                           \
        F##_##X##_store(c1, &a->c1);                                                           \
    }                                                                                          \
    INLINE void F2##_##X##_set_one(F2##_##X *r)                                                \
    {                                                                                          \
        F##_##X##_set_one(&r->c0);                                                             \
        F##_##X##_set_zero(&r->c1);                                                            \
    }

#endif
