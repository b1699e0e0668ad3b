/* The four prime fields of cuzk, each an instance of the generic Montgomery
 * core (mont.h) with a compile-time limb count:
 *   bn254_fp, bn254_fr           4 limbs, R = 2^256
 *   bls12_381_fp                 6 limbs, R = 2^384
 *   bls12_381_fr                 4 limbs, R = 2^256
 * An element is stored in Montgomery form (x*R mod m) unless a function says
 * otherwise; its bytes are little-endian, exactly the zkey encoding.
 * Every F_op below is constant-time except those suffixed _var.
 */
#ifndef CUZK_FF_FIELD_H
#define CUZK_FF_FIELD_H

#include "cuzk/cuzk.h"
#include "ff/constants.h"
#include "ff/mont.h"

#define FIELD_DEFINE(F, N, UP)                                                                  \
    typedef struct {                                                                           \
        uint64_t l[N];                                                                         \
    } F;                                                                                       \
    enum { F##_LIMBS_N = N, F##_BYTES = 8 * N };                                               \
    FIELD_INLINE void F##_add(F *r, const F *a, const F *b) { mont_add(r->l, a->l, b->l, F##_MODULUS, N); } \
    FIELD_INLINE void F##_sub(F *r, const F *a, const F *b) { mont_sub(r->l, a->l, b->l, F##_MODULUS, N); } \
    FIELD_INLINE void F##_dbl(F *r, const F *a) { mont_add(r->l, a->l, a->l, F##_MODULUS, N); } \
    FIELD_INLINE void F##_neg(F *r, const F *a) { mont_neg(r->l, a->l, F##_MODULUS, N); }        \
    FIELD_INLINE void F##_mul(F *r, const F *a, const F *b)                                      \
    {                                                                                          \
        mont_mul(r->l, a->l, b->l, F##_MODULUS, UP##_INV, N);                                  \
    }                                                                                          \
    FIELD_INLINE void F##_sqr(F *r, const F *a) { F##_mul(r, a, a); }                            \
    FIELD_INLINE int F##_is_zero(const F *a) { return mont_is_zero(a->l, N); }                  \
    FIELD_INLINE int F##_eq(const F *a, const F *b) { return mont_eq(a->l, b->l, N); }          \
    FIELD_INLINE void F##_set_zero(F *r) { memset(r->l, 0, 8 * N); }                            \
    FIELD_INLINE void F##_set_one(F *r) { memcpy(r->l, F##_R, 8 * N); }                         \
    FIELD_INLINE int F##_is_one(const F *a) { return mont_eq(a->l, F##_R, N); }                 \
    /* normal form -> Montgomery: x * R^2 * R^-1 */                                            \
    FIELD_INLINE void F##_to_mont(F *r, const F *a)                                             \
    {                                                                                          \
        mont_mul(r->l, a->l, F##_R2, F##_MODULUS, UP##_INV, N);                                \
    }                                                                                          \
    /* Montgomery -> normal form: x * 1 * R^-1 */                                              \
    FIELD_INLINE void F##_from_mont(F *r, const F *a)                                           \
    {                                                                                          \
        static const uint64_t one_raw[N] = {1};                                                \
        mont_mul(r->l, a->l, one_raw, F##_MODULUS, UP##_INV, N);                               \
    }                                                                                          \
    FIELD_INLINE void F##_from_u64(F *r, uint64_t v)                                            \
    {                                                                                          \
        F t = {{v}};                                                                           \
        F##_to_mont(r, &t);                                                                    \
    }                                                                                          \
    FIELD_INLINE void F##_pow(F *r, const F *a, const uint64_t *e, int ebits)                   \
    {                                                                                          \
        mont_pow(r->l, a->l, e, ebits, F##_R, F##_MODULUS, UP##_INV, N);                       \
    }                                                                                          \
    /* Fermat: a^(m-2); the inverse of 0 is 0. */                                              \
    FIELD_INLINE void F##_inv(F *r, const F *a) { F##_pow(r, a, F##_MINUS_2, UP##_BITS); }      \
    /* the same, variable time (public data only), a few times faster */                      \
    FIELD_INLINE void F##_inv_var(F *r, const F *a)                                             \
    {                                                                                          \
        mont_inv_var(r->l, a->l, F##_MODULUS, F##_R3, UP##_INV, N);                            \
    }                                                                                          \
    /* 1 when the raw little-endian value is < m (a canonical encoding). */                    \
    FIELD_INLINE int F##_is_canonical(const F *a) { return !mont_geq(a->l, F##_MODULUS, N); }

/* Products in F[u]/(u^2 + 1) (tower.inc's Fp2) on (c0, c1) as 2N words,
 * for the base fields only: mont2_mul needs 4m < R, which Fr of BLS12-381
 * does not meet. */
#define FIELD_DEFINE_U2(F, N, UP)                                                               \
    FIELD_INLINE void F##_mul_u2(uint64_t *r, const uint64_t *a, const uint64_t *b)              \
    {                                                                                          \
        mont2_mul(r, a, b, F##_MODULUS, UP##_INV, N);                                          \
    }                                                                                          \
    FIELD_INLINE void F##_sqr_u2(uint64_t *r, const uint64_t *a) { mont2_sqr(r, a, F##_MODULUS, UP##_INV, N); }

/* Each curve's Fp and Fr, then each Fp2 (cuzk/cuzk.h lists the curves). */
#define FIELD_DEFINE_CURVE(prefix, PREFIX, snarkjs)               \
    FIELD_DEFINE(prefix##_fp, PREFIX##_FP_LIMBS, PREFIX##_FP)     \
    FIELD_DEFINE(prefix##_fr, PREFIX##_FR_LIMBS, PREFIX##_FR)
#define FIELD_DEFINE_U2_CURVE(prefix, PREFIX, snarkjs) FIELD_DEFINE_U2(prefix##_fp, PREFIX##_FP_LIMBS, PREFIX##_FP)
CUZK_CURVES(FIELD_DEFINE_CURVE)
CUZK_CURVES(FIELD_DEFINE_U2_CURVE)
#undef FIELD_DEFINE_CURVE
#undef FIELD_DEFINE_U2_CURVE

#endif
