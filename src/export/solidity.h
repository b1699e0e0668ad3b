/* Groth16 verifiers for Ethereum: a Solidity contract written from a
 * verification key, and the arguments its verifyProof takes for a proof
 * (what `snarkjs zkey export solidityverifier` and `soliditycalldata` give
 * for BN254; our own contract, and BLS12-381 as well).
 *
 * The contract, `Groth16Verifier`, has one function:
 *
 *   BN254, snarkjs's argument layout (a drop-in replacement):
 *     verifyProof(uint256[2] pA, uint256[2][2] pB, uint256[2] pC,
 *                 uint256[N] pubSignals) public view returns (bool)
 *     A = (pA[0], pA[1]); B = ((pB[0][1] + pB[0][0] u), (pB[1][1] + pB[1][0] u)),
 *     the imaginary parts first as EIP-197 orders them; C likewise;
 *     on the precompiles ecAdd 0x06, ecMul 0x07 and pairing 0x08.
 *
 *   BLS12-381, each point as EIP-2537's precompiles take it (Prague):
 *     verifyProof(uint256[4] pA, uint256[8] pB, uint256[4] pC,
 *                 uint256[N] pubSignals) public view returns (bool)
 *     an Fp element in two words, the top 128 bits then the low 256 (the
 *     64-byte padded encoding); pA = (x.hi, x.lo, y.hi, y.lo); pB = (x.c0,
 *     x.c1, y.c0, y.c1), 2 words each; pC as pA; on G1ADD 0x0b, G1MSM 0x0c
 *     and PAIRING_CHECK 0x0f.
 *
 *   Without public signals (N = 0) the function takes pA, pB and pC alone
 *   (Solidity has no zero-length arrays).
 *
 * It returns true when e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) with
 * L = IC_0 + sum s_i IC_(i+1), and false for any other input: a signal not
 * below r, a coordinate not below q or a point off its curve or outside its
 * subgroup (the precompiles refuse those themselves, and a refused call
 * keeps the gas it was given, as with snarkjs's contract), a failed check.
 *
 * The call data printed for a proof is the four arguments as Solidity's
 * array literals of "0x" words: `[a..],[b..],[c..],[signals]`, for BN254
 * byte for byte what snarkjs prints (pB as `[[x.c1, x.c0],[y.c1, y.c0]]`),
 * for BLS12-381 pB flat, its 8 words in the order above. */
#ifndef CUZK_EXPORT_SOLIDITY_H
#define CUZK_EXPORT_SOLIDITY_H

#include <stdint.h>
#include <stdio.h>

#include "codec/json_io.h"

/* Writes the verifier contract of vk to f. CUZK_OK; CUZK_ERR_ARG for an
 * unknown curve; CUZK_ERR_IO when f reports a write error. */
int cuzk_solidity_verifier_write(const cuzk_vk *vk, FILE *f, cuzk_error *err);

/* Writes verifyProof's arguments for proof and its n signals (each below
 * the curve's r) to f, one line. CUZK_OK; CUZK_ERR_ARG for an unknown
 * curve; CUZK_ERR_IO on a write error. */
int cuzk_solidity_calldata_write(const cuzk_proof *proof, const uint64_t (*signals)[4], uint32_t n, FILE *f,
                                 cuzk_error *err);

#endif
