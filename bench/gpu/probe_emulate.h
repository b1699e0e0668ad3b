/* What the CUDA compiler and runtime would provide, for the host checks of
 * the GPU microbenchmarks (bench/gpu/probe_*_check.cpp): device code of
 * src/gpu and bench/gpu compiled as plain C++, one host thread per GPU
 * thread of one block, the warp shuffles and the block barrier emulated
 * with barriers, PTX's carry flag per thread (ff.cuh's carry chains), so
 * that a kernel's warp and block logic runs where there is no GPU (the
 * per-thread carry flag and the qualifiers: tests/unit/gpu_host_emul.h).
 * Include it before any other src/gpu header; then run a block with
 * probe_emulate_block(threads, fn), fn(t) being thread t's body. Plain C++20
 * (std::barrier), compiled with -fno-strict-aliasing: ff.cuh's load and
 * store move elements as uint4 vectors, which nvcc allows and g++ -O2
 * would reorder. Not part of the library. */
#ifndef CUZK_BENCH_PROBE_EMULATE_H
#define CUZK_BENCH_PROBE_EMULATE_H

#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

/* the qualifiers, uint4, the vector load, PTX's carry chains (a carry
 * flag per thread), then src/gpu/ff.cuh */
#include "../../tests/unit/gpu_host_emul.h"

#define __shared__ static

static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

struct dim1 {
    unsigned x;
};
static thread_local dim1 threadIdx;
static dim1 blockDim;

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

/* one block of `threads` (a multiple of 32, at most 256) emulated threads,
 * thread t running fn(t) */
template <class Fn> static void probe_emulate_block(unsigned threads, Fn fn)
{
    if (threads == 0 || threads % 32 != 0 || threads > 32 * 8) {
        fprintf(stderr, "probe_emulate_block: %u threads (a multiple of 32, at most 256)\n", threads);
        exit(2);
    }
    blockDim.x = threads;
    block_barrier = std::make_unique<std::barrier<>>(threads);
    warp_barrier.clear();
    for (unsigned w = 0; w < threads / 32; w++)
        warp_barrier.push_back(std::make_unique<std::barrier<>>(32));
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; t++)
        pool.emplace_back([&fn, t] {
            threadIdx.x = t;
            fn(t);
        });
    for (std::thread &th : pool)
        th.join();
}

#endif
