/* The ceremony on BLS12-381. */
#include <stdint.h>

#define C_(x) bls12_381_##x
#define C_CURVE_ID CUZK_CURVE_BLS12_381
#define C_FR_BITS BLS12_381_FR_BITS
#define C_FR_TWO_ADICITY BLS12_381_FR_TWO_ADICITY
#define C_FP_BITS BLS12_381_FP_BITS
/* the cofactors ffjavascript multiplies G.fromRng's points by */
#define C_G1_COFACTOR_BITS 126
#define C_G2_COFACTOR_BITS 507
static const uint64_t bls12_381_g1_cofactor[2] = {0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL};
static const uint64_t bls12_381_g2_cofactor[8] = {0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL,
                                                  0xa628f1cb4d9e82efULL, 0xa68a205b2e5a7ddfULL, 0xcd91de4547085abaULL,
                                                  0x091d50792876a202ULL, 0x05d543a95414e7f1ULL};
#include "ceremony/ceremony_curve.inc"
