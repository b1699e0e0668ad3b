/* The MSM of bls12_381_g1 (template: msm.cuh), its own translation unit so that the
 * four groups compile in parallel. */
#include "gpu/msm.cuh"

MSM_INSTANCE(bls12_381_g1, bls12_381_fp, bls12_381_g1_dev, BLS12_381_FR_BITS, 2.25)
