/* The MSM of bls12_381_g1 (template: msm.cuh), its own translation unit so that the
 * four groups compile in parallel. */
/* Fit 3 blocks per SM (the compiler keeps fewer registers): the bucket
 * kernel of this group is latency bound at 2. 3 was the fastest with the
 * field product out of line (ff.cuh, FF_MUL_OUTLINE_LIMBS); the other
 * groups gain nothing or lose (the counts compared:
 * bench/results/2026-12-07-measurements-from-comments.md).
 * NVCC_EXTRA=-DMSM_MIN_BLOCKS=N sets another for every group (experiments). */
#ifndef MSM_MIN_BLOCKS
#define MSM_MIN_BLOCKS 3
#endif
#include "gpu/msm.cuh"

MSM_INSTANCE(bls12_381_g1, bls12_381_fp, bls12_381_g1_dev, BLS12_381_FR_BITS, 2.25)
