/* The MSM of bls12_381_g2 (template: msm.cuh), its own translation unit so that the
 * four groups compile in parallel. */
#include "gpu/msm.cuh"

MSM_INSTANCE(bls12_381_g2, bls12_381_fp2, bls12_381_g2_dev, BLS12_381_FR_BITS, 6.75)
