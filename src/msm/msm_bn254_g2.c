/* MSM on BN254 G2 (template: msm.inc; contracts in msm.h). One translation
 * unit per group, so the four compile in parallel. */
#include "msm/msm_plan.h"

#define G_(x) bn254_g2_##x
#define FQ_(x) bn254_fp2_##x
#define FQ_T bn254_fp2
#define FR_T bn254_fr
#define FR_BITS BN254_FR_BITS
#include "msm/msm.inc"
