/* The ceremony on BN254 (snarkjs "bn128"). */
#include <stdint.h>

#define C_(x) bn254_##x
#define C_CURVE_ID CUZK_CURVE_BN254
#define C_FR_BITS BN254_FR_BITS
#define C_FR_TWO_ADICITY BN254_FR_TWO_ADICITY
#define C_FP_BITS BN254_FP_BITS
/* the cofactors ffjavascript multiplies G.fromRng's points by: none on G1 */
#define C_G1_COFACTOR_BITS 0
#define C_G2_COFACTOR_BITS 254
#define bn254_g1_cofactor NULL
static const uint64_t bn254_g2_cofactor[4] = {0x345f2299c0f9fa8dULL, 0x06ceecda572a2489ULL, 0xb85045b68181585eULL,
                                              0x30644e72e131a029ULL};
#include "ceremony/ceremony_curve.inc"
