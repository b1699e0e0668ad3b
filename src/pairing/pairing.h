/* Optimal ate pairing e: G1 x G2 -> GT (in Fp12) for BN254 and BLS12-381.
 * For C in {bn254, bls12_381}:
 *   C_pairing(r, P, Q)             r = e(P, Q)
 *   C_pairing_product(r, P, Q, n)  r = prod e(P_i, Q_i), one shared final
 *                                  exponentiation (what verification uses)
 *   C_miller_loop / C_final_exponentiation: the two halves.
 * Points are affine, Montgomery form; a pair with either point at infinity
 * contributes 1. Inputs must be on their curves (callers check). */
#ifndef CUZK_PAIRING_PAIRING_H
#define CUZK_PAIRING_PAIRING_H

#include "ec/ec.h"

#define PAIRING_DECLARE(C)                                                                          \
    void C##_miller_loop(C##_fp12 *f, const C##_g1_affine *P, const C##_g2_affine *Q, size_t n);    \
    void C##_final_exponentiation(C##_fp12 *r, const C##_fp12 *f);                                  \
    void C##_pairing_product(C##_fp12 *r, const C##_g1_affine *P, const C##_g2_affine *Q, size_t n); \
    void C##_pairing(C##_fp12 *r, const C##_g1_affine *P, const C##_g2_affine *Q);

#define PAIRING_DECLARE_CURVE(prefix, PREFIX, snarkjs) PAIRING_DECLARE(prefix)
CUZK_CURVES(PAIRING_DECLARE_CURVE)
#undef PAIRING_DECLARE_CURVE

#endif
