/* MSM on BN254 G2 (template: msm.inc; contracts in msm.h). One translation
 * unit per group, so the four compile in parallel. */
#include "msm/msm_plan.h"

#define G_(x) bn254_g2_##x
#define FQ_(x) bn254_fp2_##x
#define FQ_T bn254_fp2
#define FR_T bn254_fr
#define FR_BITS BN254_FR_BITS
#define FB_(x) bn254_fp_##x
#define FB_T bn254_fp
#define MSM_FQ_FP2 1 /* FQ is Fp2 over FB */
#include "msm/msm.inc"
