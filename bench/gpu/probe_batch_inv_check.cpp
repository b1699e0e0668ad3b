/* The batched inversion of the GPU microbenchmarks (probe_batch_inv.cuh)
 * run on the CPU, so that its warp and block logic is checked where there
 * is no GPU: one host thread per GPU thread, the warp shuffles and the
 * block barrier emulated with barriers, the field (src/gpu/ff.cuh) with its
 * PTX carry chains emulated per thread. Every thread inverts K random
 * elements in place; each x (1/x) must be one (the host's own Montgomery
 * product, probe_fp_host.h, decides).
 *
 *   g++ -O2 -std=c++20 -pthread -Iinclude -Isrc -x c++ \
 *       bench/gpu/probe_batch_inv_check.cpp -o build/probe-batch-inv-check && build/probe-batch-inv-check
 *
 * Prints "N passed, 0 failed" and exits 0, or the failures and 1. */
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

/* ---- what the CUDA compiler and runtime would provide ---- */
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __shared__ static
struct uint4 {
    uint32_t x, y, z, w;
};
static inline uint4 __ldg(const uint4 *p) { return *p; }
static inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t s)
{
    s &= 31;
    return s ? (hi << s) | (lo >> (32 - s)) : hi;
}

struct dim1 {
    unsigned x;
};
static thread_local dim1 threadIdx;
static dim1 blockDim;

/* PTX's carry flag, one per emulated GPU thread; each carry-chain
 * instruction on (a + b) or (a - b) as a 64-bit value */
namespace gpu {
namespace ptx {
static thread_local uint32_t cf;
static inline uint32_t flagged(uint64_t r, bool sets)
{
    if (sets)
        cf = (uint32_t)(r >> 32) & 1;
    return (uint32_t)r;
}
static inline uint64_t low_product(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b); }
static inline uint64_t high_product(uint32_t a, uint32_t b) { return ((uint64_t)a * b) >> 32; }
static inline uint32_t add_cc(uint32_t a, uint32_t b) { return flagged((uint64_t)a + b, true); }
static inline uint32_t addc_cc(uint32_t a, uint32_t b) { return flagged((uint64_t)a + b + cf, true); }
static inline uint32_t addc(uint32_t a, uint32_t b) { return flagged((uint64_t)a + b + cf, false); }
static inline uint32_t sub_cc(uint32_t a, uint32_t b) { return flagged((uint64_t)a - b, true); }
static inline uint32_t subc_cc(uint32_t a, uint32_t b) { return flagged((uint64_t)a - b - cf, true); }
static inline uint32_t subc(uint32_t a, uint32_t b) { return flagged((uint64_t)a - b - cf, false); }
static inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return flagged(low_product(a, b) + c, true); }
static inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return flagged(low_product(a, b) + c + cf, true);
}
static inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return flagged(high_product(a, b) + c, true); }
static inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return flagged(high_product(a, b) + c + cf, true);
}
} /* namespace ptx */
} /* namespace gpu */

/* a block of up to 8 warps: a barrier for the block and one per warp, and
 * a slot per lane for the shuffles */
static std::unique_ptr<std::barrier<>> block_barrier;
static std::vector<std::unique_ptr<std::barrier<>>> warp_barrier;
static uint32_t lane_slot[8][32];

static inline void __syncthreads() { block_barrier->arrive_and_wait(); }

/* every lane of the warp publishes v, then reads lane src's */
static uint32_t shfl_exchange(uint32_t v, unsigned src)
{
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x % 32;
    lane_slot[w][lane] = v;
    warp_barrier[w]->arrive_and_wait();
    const uint32_t r = lane_slot[w][src];
    warp_barrier[w]->arrive_and_wait();
    return r;
}
static inline uint32_t __shfl_up_sync(unsigned, uint32_t v, unsigned d)
{
    const unsigned lane = threadIdx.x % 32;
    return shfl_exchange(v, lane >= d ? lane - d : lane);
}
static inline uint32_t __shfl_down_sync(unsigned, uint32_t v, unsigned d)
{
    const unsigned lane = threadIdx.x % 32;
    return shfl_exchange(v, lane + d < 32 ? lane + d : lane);
}
static inline uint32_t __shfl_sync(unsigned, uint32_t v, unsigned src) { return shfl_exchange(v, src); }

#define FF_PTX_EMULATED
#include "gpu/ff.cuh"
#include "probe_batch_inv.cuh"
#include "probe_fp_host.h"

using F = gpu::bls12_381_fp_t;

/* one block of `threads` emulated threads, K elements each, inverted in
 * place; returns the elements x with x (1/x) != 1 */
template <probe::inv_share SHARE, int K> static int check(unsigned threads, uint64_t seed, int *passed)
{
    blockDim.x = threads;
    block_barrier = std::make_unique<std::barrier<>>(threads);
    warp_barrier.clear();
    for (unsigned w = 0; w < threads / 32; w++)
        warp_barrier.push_back(std::make_unique<std::barrier<>>(32));
    const std::vector<uint32_t> in = probe_random_fp_words((size_t)threads * K, seed);
    std::vector<uint32_t> out(in.size());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            threadIdx.x = t;
            F e[K];
            for (int k = 0; k < K; k++)
                memcpy(e[k].v, &in[((size_t)t * K + k) * 12], sizeof e[k].v);
            probe::batch_inverse<SHARE>(e);
            for (int k = 0; k < K; k++)
                memcpy(&out[((size_t)t * K + k) * 12], e[k].v, sizeof e[k].v);
        });
    for (std::thread &th : pool)
        th.join();
    uint32_t one[12];
    for (int i = 0; i < 12; i++)
        one[i] = gpu::bls12_381_fp_params::one(i);
    int failed = 0;
    for (size_t e = 0; e < (size_t)threads * K; e++) {
        uint32_t p[12];
        probe_fp_to_words(p, probe_mont_mul_host(probe_fp_from_words(&in[e * 12]), probe_fp_from_words(&out[e * 12])));
        if (memcmp(p, one, sizeof p) != 0) {
            if (failed < 3)
                fprintf(stderr, "%s, K = %d: element %zu is not inverted\n",
                        SHARE == probe::SHARE_WARP ? "warp" : "block", K, e);
            failed++;
        } else {
            (*passed)++;
        }
    }
    return failed;
}

int main(void)
{
    int passed = 0, failed = 0;
    failed += check<probe::SHARE_WARP, 1>(32, 1, &passed);
    failed += check<probe::SHARE_WARP, 3>(32, 2, &passed);
    failed += check<probe::SHARE_WARP, 4>(64, 3, &passed);
    failed += check<probe::SHARE_BLOCK, 1>(256, 4, &passed);
    failed += check<probe::SHARE_BLOCK, 2>(96, 5, &passed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
