/* Fp2 / Fp6 / Fp12 towers of BN254 and BLS12-381 (see tower.inc). */
#ifndef CUZK_FF_TOWER_H
#define CUZK_FF_TOWER_H

#include "ff/field.h"

/* the base fields' types under the names tower.inc gives them, FP_(t) */
typedef bn254_fp bn254_fp_t;
typedef bls12_381_fp bls12_381_fp_t;

#define T_(x) bn254_##x
#include "ff/tower.inc"

#define T_(x) bls12_381_##x
#include "ff/tower.inc"

#endif
