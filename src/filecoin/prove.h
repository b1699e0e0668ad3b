/* Bellperson's Groth16 prover and verifier for Filecoin's keys (params.h),
 * on the CPU, BLS12-381.
 *
 * For an assignment (assignment.h) with inputs x, aux z and a, b, c of
 * abc_size rows on the key's domain of n = h + 1 points (roots of unity
 * from 7, as blstrs):
 *   1. a, b, c padded with zeros to n; a and b: iFFT, then FFT on the
 *      coset 7<w_n> (one chain, ntt_to_coset); Z(X) = X^n - 1 is the
 *      constant 7^n - 1 there, so the quotient's n coefficients are
 *      (coset iFFT(a b) - iFFT(c)) / (7^n - 1) (the coset iFFT is
 *      intt_scaled by 7^-1), of which the first n - 1 go with the key's h
 *      (the last is zero): bellman's h, one transform fewer
 *   2. A' = sum_i x_i a_i + sum_{j in a_aux} z_j a_(inputs + rank j),
 *      B1', B2' the same over b_g1, b_g2 with b_inp and b_aux,
 *      L' = sum_j z_j l_j, H' = sum_i h_i h_i
 *   3. the blinding (groth16_ops.h: C' + H' = L' + H')
 * A proof is three affine points in blst's layout, which is ec.h's
 * (supraseal-c2's groth16_proof, bellperson's Proof in memory); its bytes
 * as bellperson writes them are 192: a, b, c compressed (zcash.h). */
#ifndef CUZK_FILECOIN_PROVE_H
#define CUZK_FILECOIN_PROVE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "filecoin/assignment.h"
#include "filecoin/params.h"

typedef struct {
    bls12_381_g1_affine a;
    bls12_381_g2_affine b;
    bls12_381_g1_affine c;
} fil_proof;

enum { FIL_PROOF_BYTES = 192 };

/* The generator of Fr* that makes blstrs's domain and coset. */
enum { FIL_DOMAIN_GENERATOR = 7 };

/* Checks that as fits p: abc_size <= n, inputs = ic's count, aux = l's
 * count, density lengths inputs / aux, a = inputs + a_aux popcount,
 * b_g1 = b_g2 = b_inp + b_aux popcounts. CUZK_OK or CUZK_ERR_MISMATCH
 * saying which disagrees. */
int fil_assignment_check(const fil_params *p, const fil_assignment *as, cuzk_error *err);

/* One proof of as against p with blinding r and s (Montgomery form, as
 * blstrs's scalars; NULL: zero, the deterministic proof). Checks as first
 * (fil_assignment_check). CUZK_OK, CUZK_ERR_MISMATCH or CUZK_ERR_NOMEM. */
int fil_prove(const fil_params *p, const fil_assignment *as, const bls12_381_fr *r, const bls12_381_fr *s,
              int nthreads, fil_proof *proof, cuzk_error *err);

/* The proof from the MSMs A, B1, B2 and C' + H' (LH): the blinding with
 * r and s as fil_prove takes them (groth16_ops.h), the points affine. */
void fil_proof_finish(const fil_vk *vk, const bls12_381_g1_jac *A, const bls12_381_g1_jac *B1,
                      const bls12_381_g2_jac *B2, const bls12_381_g1_jac *LH, const bls12_381_fr *r,
                      const bls12_381_fr *s, fil_proof *proof);

/* Random r, s for fil_prove (getrandom; Montgomery form); -1 when
 * getrandom fails. Wipe them after use. */
int fil_random_blinding(bls12_381_fr *r, bls12_381_fr *s);

/* Bellperson's 192 bytes. Reading refuses infinity, non-canonical
 * coordinates, points off the curve or outside the subgroup, wrong flags
 * (CUZK_ERR_FORMAT, naming the point). */
void fil_proof_write_bytes(uint8_t out[FIL_PROOF_BYTES], const fil_proof *proof);
int fil_proof_read_bytes(fil_proof *proof, const uint8_t in[FIL_PROOF_BYTES], cuzk_error *err);

/* The pairing check e(A, B) = e(alpha, beta) e(IC, gamma) e(C, delta),
 * IC = ic_0 + sum_i inputs_i ic_(i+1), for the n_inputs public inputs
 * after ONE (normal form, 4 words each, < r). CUZK_OK, or
 * CUZK_ERR_INVALID_PROOF with the reason (a wrong count, an input >= r, a
 * failed check). */
int fil_verify(const fil_vk *vk, const uint64_t (*inputs)[4], size_t n_inputs, const fil_proof *proof,
               cuzk_error *err);

#endif
