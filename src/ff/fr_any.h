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

/* The curve's Fr; a valid id (cuzk_curve_valid) only. */
static inline fr_any fr_any_of(cuzk_curve_id curve)
{
#define FR_ANY_ROW_(prefix, PREFIX, snarkjs)                                                              \
    [CUZK_CURVE_##PREFIX] = {prefix##_fr_MODULUS, prefix##_fr_R2, PREFIX##_FR_INV},
    static const fr_any fields[CUZK_N_CURVES] = {CUZK_CURVES(FR_ANY_ROW_)};
#undef FR_ANY_ROW_
    CUZK_VERIFY_CHECK((unsigned)curve < CUZK_N_CURVES);
    return fields[curve];
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
