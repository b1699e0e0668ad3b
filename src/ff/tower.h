/* Fp2 / Fp6 / Fp12 towers of BN254 and BLS12-381 (see tower.inc). */
#ifndef CUZK_FF_TOWER_H
#define CUZK_FF_TOWER_H

#include "ff/field.h"

typedef bn254_fp bn254_fp_t;
typedef bls12_381_fp bls12_381_fp_t;

#define FP_(x) bn254_fp_##x
#define T_(x) bn254_##x
#define TOWER_XI bn254_fp2_xi
#include "ff/tower.inc"
#undef FP_
#undef T_
#undef TOWER_XI

#define FP_(x) bls12_381_fp_##x
#define T_(x) bls12_381_##x
#define TOWER_XI bls12_381_fp2_xi
#include "ff/tower.inc"
#undef FP_
#undef T_
#undef TOWER_XI

#endif
