/* The MSM of bls12_381_g1 (template: msm.cuh), its own translation unit so that the
 * four groups compile in parallel. */
/* Fit 4 blocks per SM (the compiler keeps fewer registers): the bucket
 * kernel of this group is latency bound at 2 (ncu: 239 registers, 12.5 %
 * occupancy). Measured on the H200, 2^24 / 2^26: 1 or 2 blocks 303 / 1141
 * ms, 3 blocks 220 / 800, 4 blocks 209 / 754, 5 to 8 blocks 284-298 /
 * 975-1091 (spills). The other groups gain nothing or lose (BN254 G2 323 ->
 * 396 ms at 3). */
#define MSM_MIN_BLOCKS 4
#include "gpu/msm.cuh"

MSM_INSTANCE(bls12_381_g1, bls12_381_fp, bls12_381_g1_dev, BLS12_381_FR_BITS, 2.25)
