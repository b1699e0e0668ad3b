/* Public scalars recoded for multiplication (ec.inc's jac_mul_public):
 * width-5 NAF digits, and the GLV/GLS split k = k1 + k2 lambda by the
 * group's endomorphism e (e(P) = lambda P on the prime-order group), so
 * that k P = k1 P + k2 e(P) takes 129 doublings instead of 254.
 *
 * The endomorphisms (tools/gen_glv_constants.py says how each is found; the
 * device has the same numbers in src/gpu/glv_constants.cuh):
 *   G1 (both curves)  phi(x, y) = (beta x, y), beta a cube root of unity
 *   BN254 G2          psi(x, y) = (conj(x) cx, conj(y) cy)
 *   BLS12-381 G2      psi^2(x, y) = (x nx, y ny)
 * each written as X ex, Y ey on (conjugated, where conj) coordinates.
 * Variable time: for public scalars only. */
#ifndef CUZK_EC_SCALAR_RECODE_H
#define CUZK_EC_SCALAR_RECODE_H

#include <stdint.h>

/* Words of the split's integers: the basis, c1, c2, k1, k2 modulo 2^192. */
enum { CUZK_GLV_WORDS = 3, CUZK_GLV_BITS = 129, CUZK_WNAF_WIDTH = 5, CUZK_WNAF_TABLE = 1 << (CUZK_WNAF_WIDTH - 2) };

typedef struct {
    int conj;                       /* the coordinates conjugated first (psi) */
    int mul_y;                      /* Y times ey (else Y unchanged) */
    uint64_t ex[12], ey[12];        /* the coordinate field's words, Montgomery (Fp2: c0's, then c1's) */
    uint64_t lambda[4];             /* e's eigenvalue, normal form (Fr) */
    uint64_t a1[CUZK_GLV_WORDS], b1[CUZK_GLV_WORDS], a2[CUZK_GLV_WORDS], b2[CUZK_GLV_WORDS]; /* the basis */
    uint64_t g1[CUZK_GLV_WORDS], g2[CUZK_GLV_WORDS]; /* floor(2^256 b2 / det), floor(2^256 (-b1) / det) */
} cuzk_glv_params;

extern const cuzk_glv_params bn254_g1_glv, bn254_g2_glv, bls12_381_g1_glv, bls12_381_g2_glv;

/* The split of k (normal form, < r) by Babai rounding:
 *   c1 = floor(k g1 / 2^256), c2 = floor(k g2 / 2^256),
 *   k1 = k - c1 a1 - c2 a2,  k2 = -c1 b1 - c2 b2  (mod 2^192, signed)
 * so k = k1 + k2 lambda mod r; m1, m2 <- |k1|, |k2|, neg1, neg2 <- their
 * signs. Returns 1 when both are below 2^CUZK_GLV_BITS (always, for k < r), 0
 * otherwise (the caller then multiplies by k itself). */
int cuzk_glv_split(const cuzk_glv_params *c, const uint64_t k[4], uint64_t m1[CUZK_GLV_WORDS], int *neg1,
                   uint64_t m2[CUZK_GLV_WORDS], int *neg2);

/* d[i] <- the width-5 NAF digits of the `words`-word k (words <= 4), low
 * first: k = sum d_i 2^i, d_i in {0, +-1, +-3, ..., +-15}, a nonzero digit
 * followed by at least four zeros; d holds 64 words + 1 entries. Returns
 * the number of digits (0 for k = 0). */
int cuzk_wnaf5(const uint64_t *k, int words, int8_t *d);

#endif
