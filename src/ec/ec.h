/* The four groups: bn254_g1/g2 and bls12_381_g1/g2 (see ec.inc). */
#ifndef CUZK_EC_EC_H
#define CUZK_EC_EC_H

#include "ec/scalar_recode.h"
#include "ff/tower.h"
#include "util/verify.h"

/* Each stamp names its group and field; ec.inc undefines them after. */
#define EC_INSTANTIATE "ec/ec.inc"

#define E_(x) bn254_g1_##x
#define EC_GLV bn254_g1_glv
#define EC_CONJ(r, a) (*(r) = *(a))
#define F_(x) bn254_fp_##x
#define F_T bn254_fp
#define EC_B bn254_fp_b
#define EC_R bn254_fr_MODULUS
#define EC_R_BITS BN254_FR_BITS
#define EC_COFACTOR_ONE 1
#include EC_INSTANTIATE

#define E_(x) bn254_g2_##x
#define EC_GLV bn254_g2_glv
#define EC_CONJ(r, a) bn254_fp2_conj(r, a)
#define F_(x) bn254_fp2_##x
#define F_T bn254_fp2
#define EC_B bn254_fp2_twist_b
#define EC_R bn254_fr_MODULUS
#define EC_R_BITS BN254_FR_BITS
#define EC_COFACTOR_ONE 0
#include EC_INSTANTIATE

#define E_(x) bls12_381_g1_##x
#define EC_GLV bls12_381_g1_glv
#define EC_CONJ(r, a) (*(r) = *(a))
#define F_(x) bls12_381_fp_##x
#define F_T bls12_381_fp
#define EC_B bls12_381_fp_b
#define EC_R bls12_381_fr_MODULUS
#define EC_R_BITS BLS12_381_FR_BITS
#define EC_COFACTOR_ONE 0
#include EC_INSTANTIATE

#define E_(x) bls12_381_g2_##x
#define EC_GLV bls12_381_g2_glv
#define EC_CONJ(r, a) bls12_381_fp2_conj(r, a)
#define F_(x) bls12_381_fp2_##x
#define F_T bls12_381_fp2
#define EC_B bls12_381_fp2_twist_b
#define EC_R bls12_381_fr_MODULUS
#define EC_R_BITS BLS12_381_FR_BITS
#define EC_COFACTOR_ONE 0
#include EC_INSTANTIATE

#endif
