/* MSM on BLS12-381 G2 (template: msm.inc; contracts in msm.h). One translation
 * unit per group, so the four compile in parallel. */
#include "msm/msm_plan.h"

#define G_(x) bls12_381_g2_##x
#define FQ_(x) bls12_381_fp2_##x
#define FQ_T bls12_381_fp2
#define FR_T bls12_381_fr
#define FR_BITS BLS12_381_FR_BITS
#define FB_(x) bls12_381_fp_##x
#define FB_T bls12_381_fp
#define MSM_FQ_FP2 1 /* FQ is Fp2 over FB */
#include "msm/msm.inc"
