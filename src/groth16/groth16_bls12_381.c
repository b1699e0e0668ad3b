/* Groth16 on BLS12-381 (snarkjs "bls12381"). */
#define C_(x) bls12_381_##x
#define C_CURVE_ID CUZK_CURVE_BLS12_381
#define C_FR_TWO_ADICITY BLS12_381_FR_TWO_ADICITY
#define C_GT_EXP_BITLEN BLS12_381_SNARKJS_GT_EXP_BITLEN
#include "groth16/groth16_curve.inc"
