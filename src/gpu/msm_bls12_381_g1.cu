/* The MSM of bls12_381_g1 (template: msm.cuh), its own translation unit so that the
 * four groups compile in parallel. */
/* Fit 3 blocks per SM (the compiler keeps fewer registers): the bucket
 * kernel of this group is latency bound at 2 (ncu: 239 registers, 12.5 %
 * occupancy). Measured on the H200 at 2^24, with the field product inlined:
 * 1 or 2 blocks 303 ms, 3 blocks 220, 4 blocks 209, 5 to 8 blocks 284-298
 * (spills); with the product out of line (ff.cuh, FF_MUL_OUTLINE_LIMBS):
 * 2 blocks 174, 3 blocks 167, 4 blocks 175 (the calls spill at 128
 * registers). The other groups gain nothing or lose (BN254 G2 323 -> 396
 * ms at 3; BN254 G1 97 ms at 1, 3 or 4). NVCC_EXTRA=-DMSM_MIN_BLOCKS=N
 * sets another for every group (experiments). */
#ifndef MSM_MIN_BLOCKS
#define MSM_MIN_BLOCKS 3
#endif
#include "gpu/msm.cuh"

MSM_INSTANCE(bls12_381_g1, bls12_381_fp, bls12_381_g1_dev, BLS12_381_FR_BITS, 2.25)
