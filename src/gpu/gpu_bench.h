/* The CUDA backend's raw operations and tuning knobs, beside gpu.h: for
 * the tests (tests/unit/test_gpu.c, test_gpu_prove.c) and the benchmarks
 * (bench/gpu), not the engine. CUDA builds only: src/gpu/gpu_none.c has no
 * stubs for these, so a program that calls them is built only with CUDA
 * (mk/cuda.mk: without it, such a test is a stand-in that skips).
 *
 * Data layouts, the CPU backend's byte for byte:
 *   Fr elements     F = bn254_fr / bls12_381_fr (src/ff/field.h), Montgomery
 *   MSM scalars     the same 4 little-endian words in NORMAL form, each < r
 *   MSM bases       G_affine (src/ec/ec.inc), Montgomery, all-zero = infinity
 *   MSM result      G_jac (X, Y, Z), Montgomery; any Jacobian representative
 *                   of the sum (compare points, not bytes)
 * with G = bn254_g1 / bls12_381_g1 for _g1 and the _g2 twins over Fp2.
 *
 * Host-pointer calls copy their inputs to the device and results back and
 * return when the results are in host memory; they also accept g == NULL:
 * then a temporary context on device 0 serves that call alone (simplest,
 * slower: twiddles are rebuilt each time). _dev calls take device
 * pointers from cuzk_gpu_alloc (of the same context, g not NULL) and leave
 * data there; they too return when the device work is done. Errors as in
 * gpu.h. */
#ifndef CUZK_GPU_GPU_BENCH_H
#define CUZK_GPU_GPU_BENCH_H

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* data[0..n) <- its NTT (inverse: iNTT, scaled by 1/n), natural order in and
 * out, root F_ntt_root(log2 n): the output of F_ntt / F_intt (src/poly/ntt.h)
 * exactly. n must be a power of two 2^k, k <= the field's two-adicity. */
int cuzk_gpu_ntt(cuzk_gpu *g, cuzk_curve_id curve, void *data, size_t n, int inverse, cuzk_error *err);

/* The prover's quotient step (src/groth16/prove.inc, compute_h): for each of
 * a, b, c (evaluations on the size-n domain, Montgomery): iNTT, times
 * w_2n^i, NTT; then a[i] <- a[i] b[i] - c[i] in NORMAL form, the H MSM's
 * scalars. b and c are not modified. n = 2^k with k + 1 <= two-adicity. */
int cuzk_gpu_coset_h(cuzk_gpu *g, cuzk_curve_id curve, void *a, const void *b, const void *c, size_t n,
                     cuzk_error *err);

/* *result_jac <- sum_{i<n} scalars[i] bases[i] (infinity for n = 0) on G1
 * (_g1) or G2 (_g2) of the curve; layouts above. Zero scalars and infinity
 * bases are ordinary inputs. n < 2^31. */
int cuzk_gpu_msm_g1(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases, const void *scalars,
                    size_t n, cuzk_error *err);
int cuzk_gpu_msm_g2(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases, const void *scalars,
                    size_t n, cuzk_error *err);

/* Tuning: MSMs on g use c-bit windows (2 <= c <= CUZK_GPU_MSM_WINDOW_MAX;
 * more bits: fewer windows, 2^(c-1) buckets each), or the cost model's
 * choice for c = 0 (the default). The result does not depend on c. */
#define CUZK_GPU_MSM_WINDOW_MAX 24
int cuzk_gpu_set_msm_window(cuzk_gpu *g, unsigned c, cuzk_error *err);

/* Tuning: the first bucket pass of MSMs on g adds points in affine
 * coordinates, `lanes` independent sums a thread sharing one inversion
 * (lanes >= 1, at any size), or always in XYZZ coordinates
 * (CUZK_GPU_MSM_LANES_XYZZ), or as the MSM's size and the free device
 * memory say (CUZK_GPU_MSM_LANES_AUTO, the default). The result does not
 * depend on it. At most CUZK_GPU_MSM_LANES_MAX. */
#define CUZK_GPU_MSM_LANES_AUTO 0
#define CUZK_GPU_MSM_LANES_XYZZ (-1)
#define CUZK_GPU_MSM_LANES_MAX 4096
int cuzk_gpu_set_msm_lanes(cuzk_gpu *g, int lanes, cuzk_error *err);

/* ---- window tables: MSMs over bases fixed across many MSMs ----
 * A table holds, for n bases P_i, the multiples 2^(cw) P_i of every c-bit
 * digit window w (nwin rows; row 0 the bases): an MSM over it sums all its
 * windows in one set of buckets, with wider windows, no doublings after.
 * Faster (fewer additions), nwin times the memory (nwin ~ 11 at n = 2^24).
 * c comes from the cost model, or from the context's forced window at the
 * time the table is made. */
typedef struct cuzk_gpu_msm_table cuzk_gpu_msm_table;

/* Device bytes of the table of n bases of G1 (g2 = 0) or G2 on g. */
size_t cuzk_gpu_msm_table_bytes(const cuzk_gpu *g, cuzk_curve_id curve, int g2, size_t n);

/* *out <- the table of n bases (layout above; host memory, or device
 * memory of g's device) on g's device.
 * CUZK_ERR_NOMEM when it does not fit. */
int cuzk_gpu_msm_table_make(cuzk_gpu *g, cuzk_curve_id curve, int g2, const void *bases, size_t n,
                            cuzk_gpu_msm_table **out, cuzk_error *err);

/* *result_jac <- sum_{i<n} scalars[i] P_i over the table's first n <= its
 * bases; scalars in device memory (cuzk_gpu_alloc) of g's device. */
int cuzk_gpu_msm_table_run(cuzk_gpu *g, const cuzk_gpu_msm_table *t, void *result_jac, const void *scalars,
                           size_t n, cuzk_error *err);
void cuzk_gpu_msm_table_free(cuzk_gpu_msm_table *t);

/* Tuning: proofs on g over keys without window tables make C' + H' (one
 * MSM over C's points and H's) in `slices` slices of points one after
 * another (1 <= slices <= CUZK_GPU_C_PLUS_H_SLICES_MAX), or in as many as
 * the free device memory needs (0, the default: 1 where its digits fit,
 * as with any key smaller than 2^27 on an H200). When sliced, H's digits
 * are sorted aside, while A, B and C are summed, where they fit (h_aside
 * 1, the default; the environment variable CUZK_GPU_NO_H_ASIDE=1 makes it
 * 0 for new contexts), or with the slices' (0). The result does not
 * depend on either. */
#define CUZK_GPU_C_PLUS_H_SLICES_MAX 64
int cuzk_gpu_set_c_plus_h(cuzk_gpu *g, unsigned slices, int h_aside, cuzk_error *err);

/* ---- device-resident data (g must not be NULL) ---- */

/* *dev <- bytes of device memory of g's device; free with cuzk_gpu_free.
 * cuzk_gpu_upload: dev[0..bytes) <- host[0..bytes). */
int cuzk_gpu_alloc(cuzk_gpu *g, void **dev, size_t bytes, cuzk_error *err);
void cuzk_gpu_free(cuzk_gpu *g, void *dev);
int cuzk_gpu_upload(cuzk_gpu *g, void *dev, const void *host, size_t bytes, cuzk_error *err);

/* As above, on device memory. coset_h_dev also overwrites b and c. */
int cuzk_gpu_ntt_dev(cuzk_gpu *g, cuzk_curve_id curve, void *data, size_t n, int inverse, cuzk_error *err);
int cuzk_gpu_coset_h_dev(cuzk_gpu *g, cuzk_curve_id curve, void *a, void *b, void *c, size_t n, cuzk_error *err);
int cuzk_gpu_msm_g1_dev(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases, const void *scalars,
                        size_t n, cuzk_error *err);
int cuzk_gpu_msm_g2_dev(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases, const void *scalars,
                        size_t n, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
