/* Batched inversion of BLS12-381 Fp elements held in registers, shared by a
 * warp or a block (Montgomery's trick), for the GPU microbenchmarks
 * (bench/gpu/probe_inv.cu times it, probe_affine_warp.cu builds affine
 * additions on it). Not part of the library.
 *
 * Each of the 32 lanes holds K elements e_0..e_(K-1), none zero.
 *   lane:   pre_k = e_0 ... e_k (K - 1 products), P = pre_(K-1)
 *   warp:   S = P_0 ... P_lane (inclusive scan up the lanes: 5 steps of a
 *           shuffle and a product), U = P_lane ... P_31 (the same, down)
 *   share:  one inversion of the total T = S_31 (Fermat, fp::inv: 384
 *           squares and 229 products). WARP: every lane computes it
 *           (the same value). BLOCK: lane 31 of each warp puts its warp's
 *           total in shared memory; warp 0 scans those totals the same way,
 *           inverts the block's total once and hands each warp the inverse
 *           of its own total; the other warps wait at the barrier (other
 *           blocks keep the SM busy meanwhile)
 *   back:   1/P_lane = 1/T S_(lane-1) U_(lane+1) (2 products), then down the
 *           lane's elements: 1/e_k = (1/pre_k) pre_(k-1), 1/pre_(k-1) =
 *           (1/pre_k) e_k (2 (K - 1) products)
 * Per element: (3 (K - 1) + 12) / K products and 13 shuffles of 12 words,
 * plus the inversion's ~613 products divided by K (WARP: each lane pays
 * for the whole inversion, as SIMT runs it on all 32) or by K times the
 * warps of the block (BLOCK). */
#ifndef CUZK_BENCH_PROBE_BATCH_INV_CUH
#define CUZK_BENCH_PROBE_BATCH_INV_CUH

#include "gpu/ff.cuh"

namespace probe {

enum inv_share { SHARE_WARP, SHARE_BLOCK };

/* the element of lane (lane - d), or one for the first d lanes */
template <class E> __device__ __forceinline__ E shfl_up_or_one(const E &x, unsigned d, unsigned lane)
{
    E r;
#pragma unroll
    for (int i = 0; i < E::N; i++)
        r.v[i] = __shfl_up_sync(0xffffffffu, x.v[i], d);
    return lane >= d ? r : E::one();
}

/* the element of lane (lane + d), or one for the last d lanes */
template <class E> __device__ __forceinline__ E shfl_down_or_one(const E &x, unsigned d, unsigned lane)
{
    E r;
#pragma unroll
    for (int i = 0; i < E::N; i++)
        r.v[i] = __shfl_down_sync(0xffffffffu, x.v[i], d);
    return lane + d < 32 ? r : E::one();
}

template <class E> __device__ __forceinline__ E shfl_from(const E &x, unsigned src)
{
    E r;
#pragma unroll
    for (int i = 0; i < E::N; i++)
        r.v[i] = __shfl_sync(0xffffffffu, x.v[i], src);
    return r;
}

/* Over the 32 lanes' x: S = x_0 ... x_lane and U = x_lane ... x_31,
 * returned as the exclusive pair (x_0 ... x_(lane-1), x_(lane+1) ... x_31)
 * and the total x_0 ... x_31 (every lane). */
template <class E> struct warp_scan {
    E before, after, total;
};
template <class E> __device__ __forceinline__ warp_scan<E> warp_products(const E &x, unsigned lane)
{
    E s = x, u = x;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        s = s * shfl_up_or_one(s, d, lane);
        u = u * shfl_down_or_one(u, d, lane);
    }
    return {shfl_up_or_one(s, 1, lane), shfl_down_or_one(u, 1, lane), shfl_from(s, 31)};
}

/* e[k] <- 1 / e[k] for the K elements of every lane of the warp (every
 * lane of the block for BLOCK, which all threads must call together, with
 * blockDim.x a multiple of 32 and at most 1024) */
template <inv_share SHARE, class E, int K> __device__ __forceinline__ void batch_inverse(E (&e)[K])
{
    const unsigned lane = threadIdx.x & 31;
    E pre[K];
    pre[0] = e[0];
#pragma unroll
    for (int k = 1; k < K; k++)
        pre[k] = pre[k - 1] * e[k];
    const warp_scan<E> w = warp_products(pre[K - 1], lane);
    E total_inv;
    if (SHARE == SHARE_WARP) {
        total_inv = w.total.inv();
    } else {
        /* one total a warp, scanned and inverted by warp 0 */
        __shared__ E warp_total[32];
        const unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
        if (lane == 31)
            warp_total[warp] = w.total;
        __syncthreads();
        if (warp == 0) {
            const E t = lane < warps ? warp_total[lane] : E::one();
            const warp_scan<E> b = warp_products(t, lane);
            const E inv = b.total.inv();
            if (lane < warps)
                warp_total[lane] = inv * b.before * b.after; /* 1 / (warp lane's total) */
        }
        __syncthreads();
        total_inv = warp_total[warp];
        __syncthreads(); /* warp_total is read before any later call writes it */
    }
    E inv = total_inv * w.before * w.after; /* 1 / pre[K - 1] */
#pragma unroll
    for (int k = K - 1; k > 0; k--) {
        const E ek = e[k];
        e[k] = inv * pre[k - 1];
        inv = inv * ek;
    }
    e[0] = inv;
}

} /* namespace probe */

#endif
