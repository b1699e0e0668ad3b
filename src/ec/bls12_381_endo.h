/* Subgroup checks on BLS12-381 by its endomorphisms (Scott, "A note on
 * group membership tests for G1, G2 and GT on BLS pairing-friendly
 * curves", eprint 2021/1130; proofs completed in eprint 2022/352), with
 * z = -0xd201000000010000 the curve's parameter:
 *   G1: P in G1 iff phi(P) = -z^2 P,  phi(x, y) = (beta x, y), beta a cube
 *       root of unity in Fp (the one whose eigenvalue on G1 is -z^2)
 *   G2: P in G2 iff psi(P) = z P,     psi the untwist-Frobenius-twist map
 *       (x, y) -> (conj(x) c_x, conj(y) c_y)
 * For points on the curve (callers check first); the same answers as
 * ec.inc's affine_in_subgroup (multiplication by r), with a 128-bit (G1)
 * or 64-bit (G2) sparse multiplier instead of a 255-bit one. The
 * constants are derived at first use (beta, c_x, c_y: powers in Fp and
 * Fp2, the right choice of each found on the generators) and shared by
 * all threads. Variable time (public points). */
#ifndef CUZK_EC_BLS12_381_ENDO_H
#define CUZK_EC_BLS12_381_ENDO_H

#include "ec/ec.h"

int bls12_381_g1_in_subgroup_endo(const bls12_381_g1_affine *p);
int bls12_381_g2_in_subgroup_endo(const bls12_381_g2_affine *p);
/* the beta above (Montgomery form): phi(P) = -z^2 P on G1 (the GPU's GLV
 * constants are checked against it) */
void bls12_381_g1_endo_beta(bls12_381_fp *beta);

#endif
