/* The MSM of bn254_g1 (template: msm.cuh), its own translation unit so that the
 * four groups compile in parallel. */
#include "gpu/msm.cuh"

MSM_INSTANCE(bn254_g1, bn254_fp, bn254_g1_dev, BN254_FR_BITS, 1.0)
