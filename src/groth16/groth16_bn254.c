/* Groth16 on BN254 (snarkjs "bn128"). */
#define C_(x) bn254_##x
#define C_CURVE_ID CUZK_CURVE_BN254
#define C_FR_TWO_ADICITY BN254_FR_TWO_ADICITY
#define C_GT_EXP_BITLEN BN254_SNARKJS_GT_EXP_BITLEN
#include "groth16/groth16_curve.inc"
