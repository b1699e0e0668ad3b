/* The MSM of bn254_g2 (template: msm.cuh), its own translation unit so that the
 * four groups compile in parallel. */
#include "gpu/msm.cuh"

MSM_INSTANCE(bn254_g2, bn254_fp2, bn254_g2_dev, BN254_FR_BITS, 3.0)
