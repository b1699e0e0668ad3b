/* Instantiates the optimal ate pairing (pairing.inc) for both curves. */
#include "pairing/pairing.h"

#include <stdlib.h>

#define C_(x) bn254_##x
#define PAIRING_D_TWIST 1
#define PAIRING_BN 1
#define ATE_LOOP BN254_ATE_LOOP
#define ATE_LOOP_HI BN254_ATE_LOOP_HI
#define ATE_LOOP_NEGATIVE BN254_ATE_LOOP_NEGATIVE
#define FINAL_EXP_HARD_BITLEN BN254_FINAL_EXP_HARD_BITLEN
#include "pairing/pairing.inc"

#define C_(x) bls12_381_##x
#define PAIRING_D_TWIST 0
#define PAIRING_BN 0
#define ATE_LOOP BLS12_381_ATE_LOOP
#define ATE_LOOP_HI BLS12_381_ATE_LOOP_HI
#define ATE_LOOP_NEGATIVE BLS12_381_ATE_LOOP_NEGATIVE
#define FINAL_EXP_HARD_BITLEN BLS12_381_FINAL_EXP_HARD_BITLEN
#include "pairing/pairing.inc"
