/* Fixed-base multiplications for a setup: out_i = k_i G for one generator
 * G and many scalars (a key's A, B, C and H points). With the setup's table
 * of d 2^(8j) G (CUZK_SETUP_WINDOWS rows of CUZK_SETUP_DIGITS affine points,
 * src/groth16/groth16.h), k G is the sum over the bytes d_j of k of the
 * table entry [j][d_j - 1]: at most 32 mixed additions, no doublings. The
 * table (783 KiB for BLS12-381 G1, twice that for G2) stays in L2.
 *
 * A thread takes FIXED_PER_THREAD points strided by the grid (neighbouring
 * threads read neighbouring scalars and write neighbouring points) and
 * makes them affine with one inversion (ec.cuh, xyzz_batch_affine). */
#ifndef CUZK_GPU_FIXED_BASE_CUH
#define CUZK_GPU_FIXED_BASE_CUH

#include "gpu/ec.cuh"
#include "gpu/gpu_internal.cuh"
#include "groth16/groth16.h"

/* FIXED_PER_THREAD  points per thread (one inversion each that many)
 * FIXED_SLICE       points per launch (bounds the scratch: 3 coordinates a point) */
#ifndef FIXED_PER_THREAD
#define FIXED_PER_THREAD 8
#endif
#ifndef FIXED_SLICE
#define FIXED_SLICE ((size_t)1 << 22)
#endif

namespace gpu {

static constexpr unsigned FIXED_THREADS = 128;

/* out[i] <- make(i) made affine, i < n: FIXED_PER_THREAD points a thread
 * strided by the grid (neighbouring threads on neighbouring points), one
 * inversion a thread (zz_s, zzz_s, pre_s: scratch of n elements) */
template <class F, class Make>
FF_INLINE void make_affine(size_t n, affine<F> *out, F *zz_s, F *zzz_s, F *pre_s, Make make)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    auto at = [&](unsigned k) { return t + k * stride; };
    unsigned m = 0;
    F pre = F::one();
    for (; m < FIXED_PER_THREAD && at(m) < n; m++) {
        const size_t i = at(m);
        const xyzz<F> acc = make(i);
        xyzz_batch_record(out + i, zz_s + i, zzz_s + i, pre_s + i, acc, pre);
    }
    xyzz_batch_affine(out, at, zz_s, zzz_s, pre_s, at, m, pre);
}

/* out[i] <- k_i G for i < n; scalars: normal form, 8 little-endian 32-bit
 * limbs each; zz_s, zzz_s, pre_s: scratch of n elements */
template <class F>
__global__ void __launch_bounds__(FIXED_THREADS)
    fixed_mul_kernel(const affine<F> *table, const uint32_t *scalars, size_t n, affine<F> *out, F *zz_s, F *zzz_s,
                     F *pre_s)
{
    make_affine<F>(n, out, zz_s, zzz_s, pre_s, [&](size_t i) {
        xyzz<F> acc = xyzz<F>::inf();
#pragma unroll 1
        for (unsigned j = 0; j < CUZK_SETUP_WINDOWS; j++) {
            const uint32_t d = (scalars[8 * i + j / 4] >> (8 * (j % 4))) & 0xff;
            if (d)
                xyzz_add_affine(acc, load_ro(table + j * CUZK_SETUP_DIGITS + d - 1));
        }
        return acc;
    });
}

/* out[0..n) <- scalars[i] G on g's stream, a slice at a time; table,
 * scalars and out in device memory. Returns when the work is queued. */
template <class F>
static int fixed_mul(cuzk_gpu *g, const affine<F> *table, const uint32_t *scalars, size_t n, affine<F> *out,
                     cuzk_error *err)
{
    const size_t slice = n < FIXED_SLICE ? n : FIXED_SLICE;
    dev_buf<F> zz, zzz, pre;
    GPU_TRY(zz.alloc(g, slice, err));
    GPU_TRY(zzz.alloc(g, slice, err));
    GPU_TRY(pre.alloc(g, slice, err));
    for (size_t i0 = 0; i0 < n; i0 += slice) {
        const size_t count = n - i0 < slice ? n - i0 : slice;
        const size_t threads = (count + FIXED_PER_THREAD - 1) / FIXED_PER_THREAD;
        fixed_mul_kernel<F><<<grid_for(threads, FIXED_THREADS), FIXED_THREADS, 0, g->stream>>>(
            table, scalars + 8 * i0, count, out + i0, zz, zzz, pre);
        GPU_LAUNCHED();
    }
    return 0;
}

} /* namespace gpu */

#endif
