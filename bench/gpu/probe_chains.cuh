/* The field-product chains of the GPU microbenchmarks (bench/gpu/probe_mul.cu
 * measures every form; probe_inv.cu and probe_affine_warp.cu measure
 * today's product beside what they time): each form as load (library words
 * -> the form's Montgomery domain), mul, store (canonical words, below m),
 * and one kernel that runs chains x <- x y of up to two forms per thread.
 * Not part of the library. */
#ifndef CUZK_BENCH_PROBE_CHAINS_CUH
#define CUZK_BENCH_PROBE_CHAINS_CUH

#include "gpu/ff.cuh"
#include "probe_fp28.cuh"
#include "probe_fp52.cuh"
#include "probe_host.cuh"

using F = gpu::bls12_381_fp_t;

/* ---- the forms: load (library words -> the form's domain), mul, store
 * (canonical words, below m) ---- */

/* the library element x R 2^e: x R times the Montgomery form of 2^e */
static __device__ __forceinline__ F load_times_pow2(const uint32_t *w, int e)
{
    F x, p = F::zero();
#pragma unroll
    for (int i = 0; i < 12; i++)
        x.v[i] = w[i];
    if (e == 0)
        return x;
    p.v[e / 32] = 1u << (e % 32);
    return x * p.to_mont();
}

struct form_today_call {
    using elem = F;
    static constexpr int EXTRA_BITS = 0;
    static __device__ __forceinline__ elem load(const uint32_t *w) { return load_times_pow2(w, 0); }
    static __device__ __forceinline__ elem mul(const elem &a, const elem &b) { return a * b; }
    static __device__ __forceinline__ void store(uint32_t *w, const elem &x)
    {
#pragma unroll
        for (int i = 0; i < 12; i++)
            w[i] = x.v[i];
    }
};

struct form_today_inline : form_today_call {
    static __device__ __forceinline__ elem mul(const elem &a, const elem &b) { return F::mul_inline(a, b); }
};

/* a value below 2m in words -> canonical words */
static __device__ __forceinline__ void store_reduced(uint32_t *w, const uint32_t (&v)[12])
{
    F x;
#pragma unroll
    for (int i = 0; i < 12; i++)
        x.v[i] = v[i];
    form_today_call::store(w, x.reduce_once());
}

struct form_wide28 {
    using elem = probe::fp28;
    static constexpr int EXTRA_BITS = probe::fp28::W * probe::fp28::L - 384;
    static __device__ __forceinline__ elem load(const uint32_t *w)
    {
        const F x = load_times_pow2(w, EXTRA_BITS);
        return probe::fp28_from_words(x.v);
    }
    static __device__ __forceinline__ elem mul(const elem &a, const elem &b) { return probe::fp28_mul(a, b); }
    static __device__ __forceinline__ void store(uint32_t *w, const elem &x)
    {
        uint32_t v[12];
        probe::fp28_to_words(v, x);
        store_reduced(w, v);
    }
};

struct form_fp52 {
    using elem = probe::fp52;
    static constexpr int EXTRA_BITS = probe::fp52::W * probe::fp52::L - 384;
    static __device__ __forceinline__ elem load(const uint32_t *w)
    {
        const F x = load_times_pow2(w, EXTRA_BITS);
        return probe::fp52_from_words(x.v);
    }
    static __device__ __forceinline__ elem mul(const elem &a, const elem &b) { return probe::fp52_mul(a, b); }
    static __device__ __forceinline__ void store(uint32_t *w, const elem &x)
    {
        uint32_t v[12];
        probe::fp52_to_words(v, x);
        store_reduced(w, v);
    }
};

/* Thread t runs KA chains of form A and KB of form B, elements
 * t (KA + KB) + c of the inputs (c < KA: form A): x <- x y, iters times. */
template <class A, class B, int KA, int KB>
__global__ void __launch_bounds__(128) chains(const uint32_t *xs, const uint32_t *ys, uint32_t *out, unsigned iters)
{
    constexpr int K = KA + KB;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    typename A::elem xa[KA > 0 ? KA : 1], ya[KA > 0 ? KA : 1];
    typename B::elem xb[KB > 0 ? KB : 1], yb[KB > 0 ? KB : 1];
#pragma unroll
    for (int c = 0; c < KA; c++) {
        xa[c] = A::load(xs + (t * K + c) * 12);
        ya[c] = A::load(ys + (t * K + c) * 12);
    }
#pragma unroll
    for (int c = 0; c < KB; c++) {
        xb[c] = B::load(xs + (t * K + KA + c) * 12);
        yb[c] = B::load(ys + (t * K + KA + c) * 12);
    }
#pragma unroll 1
    for (unsigned it = 0; it < iters; it++) {
#pragma unroll
        for (int c = 0; c < (KA > KB ? KA : KB); c++) {
            if (c < KA)
                xa[c] = A::mul(xa[c], ya[c]);
            if (c < KB)
                xb[c] = B::mul(xb[c], yb[c]);
        }
    }
#pragma unroll
    for (int c = 0; c < KA; c++)
        A::store(out + (t * K + c) * 12, xa[c]);
#pragma unroll
    for (int c = 0; c < KB; c++)
        B::store(out + (t * K + KA + c) * 12, xb[c]);
}

/* today's product as the MSM calls it, in G products/s at a full launch (2
 * chains a thread, iters steps): the yardstick the inversion and affine
 * probes state their costs in */
static double probe_today_product_rate(const probe_device &d, unsigned iters)
{
    const auto kernel = chains<form_today_call, form_today_call, 2, 0>;
    const probe_launch l = probe_launch_full(d, kernel, 128);
    const size_t n = l.threads() * 2;
    const std::vector<uint32_t> h = probe_random_fp_words(2 * n, 3);
    uint32_t *buf;
    BENCH_CHECK(cudaMalloc(&buf, 3 * n * 12 * sizeof(uint32_t)));
    BENCH_CHECK(cudaMemcpy(buf, h.data(), h.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
    const bench_timing tm =
        bench_time(0, 3, [&] { kernel<<<l.grid, l.block>>>(buf, buf + n * 12, buf + 2 * n * 12, iters); });
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    BENCH_CHECK(cudaFree(buf));
    return (double)n * iters / tm.median_ms / 1e6;
}

#endif
