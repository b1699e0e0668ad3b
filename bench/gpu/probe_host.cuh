/* Host side the GPU microbenchmarks share (bench/gpu/probe_pipes.cu,
 * probe_mul.cu, probe_inv.cu, probe_affine_warp.cu): the device's shape and
 * full-GPU launches sized by occupancy (and, from probe_fp_host.h, the
 * host's field product). Includers compile with nvcc and -Isrc -Iinclude;
 * everything here is static. CUDA calls are checked with BENCH_CHECK
 * (bench_common.cuh). */
#ifndef CUZK_BENCH_PROBE_HOST_CUH
#define CUZK_BENCH_PROBE_HOST_CUH

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#pragma GCC diagnostic ignored "-Wunused-function" /* bench_common.cuh: what gpu-bench alone uses */
#include "bench_common.cuh"
#include "probe_fp_host.h"

struct probe_device {
    int sms;
    double clock_hz; /* the SM clock the driver reports as its peak */
    char name[256];
};

static probe_device probe_device_get(void)
{
    probe_device d;
    int dev = 0, khz = 0;
    BENCH_CHECK(cudaGetDevice(&dev));
    BENCH_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
    BENCH_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    cudaDeviceProp prop;
    BENCH_CHECK(cudaGetDeviceProperties(&prop, dev));
    snprintf(d.name, sizeof d.name, "%s", prop.name);
    d.clock_hz = khz * 1e3;
    printf("device: %s, %d SMs, peak SM clock %.0f MHz\n", d.name, d.sms, d.clock_hz / 1e6);
    return d;
}

/* A launch that fills every SM once (one wave): blocks of `block` threads,
 * as many per SM as the kernel's registers (and `smem` bytes of dynamic
 * shared memory a block) allow. */
struct probe_launch {
    unsigned grid, block, per_sm; /* per_sm: resident blocks per SM */
    int regs, spill_bytes;
    size_t threads() const { return (size_t)grid * block; }
};

template <class Kernel>
static probe_launch probe_launch_full(const probe_device &d, Kernel kernel, unsigned block, size_t smem = 0)
{
    probe_launch l;
    int per_sm = 0;
    BENCH_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)block, smem));
    if (per_sm < 1) {
        fprintf(stderr, "probe: a kernel fits no block of %u threads on an SM\n", block);
        exit(1);
    }
    cudaFuncAttributes attr;
    BENCH_CHECK(cudaFuncGetAttributes(&attr, kernel));
    l.block = block;
    l.per_sm = (unsigned)per_sm;
    l.grid = (unsigned)(d.sms * per_sm);
    l.regs = attr.numRegs;
    l.spill_bytes = (int)attr.localSizeBytes;
    return l;
}

#endif
