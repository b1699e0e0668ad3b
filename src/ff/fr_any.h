/* The scalar field of a curve chosen at run time. Both curves' Fr have four
 * limbs, so code that is not hot (witness checks, circuit synthesis) can
 * use one path for both through the generic Montgomery core. */
#ifndef CUZK_FF_FR_ANY_H
#define CUZK_FF_FR_ANY_H

#include "cuzk/cuzk.h"
#include "ff/field.h"

typedef struct {
    const uint64_t *modulus, *r2;
    uint64_t inv;
} fr_any;

static inline fr_any fr_any_of(cuzk_curve_id curve)
{
    if (curve == CUZK_CURVE_BN254)
        return (fr_any){bn254_fr_MODULUS, bn254_fr_R2, BN254_FR_INV};
    return (fr_any){bls12_381_fr_MODULUS, bls12_381_fr_R2, BLS12_381_FR_INV};
}

/* r = a * b for a, b in normal form: a is lifted to Montgomery form first
 * (times R), so the Montgomery product is the plain product. */
static inline void fr_any_mul_normal(const fr_any *f, uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t am[4];
    mont_mul(am, a, f->r2, f->modulus, f->inv, 4);
    mont_mul(r, am, b, f->modulus, f->inv, 4);
}

static inline void fr_any_add(const fr_any *f, uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    mont_add(r, a, b, f->modulus, 4);
}

#endif
