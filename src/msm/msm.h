/* Multi-scalar multiplication sum_i k_i P_i on the four groups (one
 * template, src/msm/msm.inc, instantiated by msm_<group>.c):
 *   bn254_g1, bn254_g2          scalars bn254_fr
 *   bls12_381_g1, bls12_381_g2  scalars bls12_381_fr
 *
 * For G with scalar field F:
 *
 * int G_msm(G_jac *result, const G_affine *bases, const F *scalars, size_t n,
 *           int nthreads)
 *   On output *result = sum_{i<n} scalars[i] bases[i] (infinity for n = 0).
 *   Scalars are in NORMAL form (plain integers < r as 4 little-endian words
 *   in the F struct, not Montgomery). Bases are affine, Montgomery form,
 *   all-zero for infinity; zero scalars and infinity bases are ordinary
 *   inputs and cost almost nothing. Variable time (public data only).
 *   nthreads < 1 counts as 1; the result does not depend on it.
 *   Returns 0, or CUZK_ERR_NOMEM with *result = infinity.
 *
 * void G_msm_naive(G_jac *result, const G_affine *bases, const F *scalars,
 *                  size_t n)
 *   The same sum by one double-and-add per term: the test oracle.
 *
 * Method (msm.inc): Pippenger with signed window digits, buckets filled by
 * batched affine additions (one inversion per batch, Montgomery's trick),
 * bucket sums by running sums, threads over windows and point ranges.
 */
#ifndef CUZK_MSM_MSM_H
#define CUZK_MSM_MSM_H

#include <stddef.h>

#include "cuzk/cuzk.h"
#include "ec/ec.h"

#define MSM_DECLARE(G, F)                                                                       \
    int G##_msm(G##_jac *result, const G##_affine *bases, const F *scalars, size_t n, int nthreads); \
    void G##_msm_naive(G##_jac *result, const G##_affine *bases, const F *scalars, size_t n);

#define MSM_DECLARE_CURVE(prefix, PREFIX, snarkjs)                                                       \
    MSM_DECLARE(prefix##_g1, prefix##_fr)                                                               \
    MSM_DECLARE(prefix##_g2, prefix##_fr)
CUZK_CURVES(MSM_DECLARE_CURVE)

#undef MSM_DECLARE_CURVE
#undef MSM_DECLARE

#endif
