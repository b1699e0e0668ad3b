/* The CUDA backend's contexts, device memory and error reporting (gpu.h).
 * The transforms are in ntt.cu, the MSMs in msm.cu. */
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gpu/ec.cuh"
#include "gpu/gpu_internal.cuh"

/* the CPU headers, as C; nvcc does not know their GCC loop pragmas */
#pragma nv_diag_suppress 1675
extern "C" {
#include "ec/ec.h"
#include "util/env.h"
}
#pragma nv_diag_default 1675

/* Device elements and points have the CPU types' bytes. */
static_assert(sizeof(gpu::bn254_fr_t) == sizeof(bn254_fr), "bn254 Fr layout");
static_assert(sizeof(gpu::bls12_381_fr_t) == sizeof(bls12_381_fr), "bls12-381 Fr layout");
static_assert(sizeof(gpu::affine<gpu::bn254_fp_t>) == sizeof(bn254_g1_affine), "bn254 G1 layout");
static_assert(sizeof(gpu::affine<gpu::bn254_fp2_t>) == sizeof(bn254_g2_affine), "bn254 G2 layout");
static_assert(sizeof(gpu::affine<gpu::bls12_381_fp_t>) == sizeof(bls12_381_g1_affine), "bls12-381 G1 layout");
static_assert(sizeof(gpu::affine<gpu::bls12_381_fp2_t>) == sizeof(bls12_381_g2_affine), "bls12-381 G2 layout");

namespace gpu {

int cuda_fail(cuzk_error *err, cudaError_t e, const char *expr, const char *file, int line)
{
    cudaGetLastError(); /* clear a non-sticky error so later calls start clean */
    int code = e == cudaErrorMemoryAllocation ? CUZK_ERR_NOMEM : CUZK_GPU_ERR_DEVICE;
    return cuzk_fail(err, code, "CUDA error %s (%s) in `%s` at %s:%d", cudaGetErrorName(e), cudaGetErrorString(e),
                     expr, file, line);
}

int copy_to_device(void *dst, const void *src, size_t bytes, cuzk_error *err)
{
    if (bytes) {
        GPU_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
        GPU_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }
    return 0;
}

template <class Fr> __global__ void from_mont_kernel(Fr *x, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        store(x + i, load(x + i).from_mont());
}

int scalars_to_normal(cuzk_gpu *g, cuzk_curve_id curve, void *x, size_t n, cuzk_error *err)
{
    if (n == 0) /* no launch of 0 blocks */
        return 0;
    switch (curve) {
    case CUZK_CURVE_BN254:
        from_mont_kernel<<<grid_for(n, 256), 256, 0, g->stream>>>(static_cast<bn254_fr_t *>(x), n);
        break;
    case CUZK_CURVE_BLS12_381:
        from_mont_kernel<<<grid_for(n, 256), 256, 0, g->stream>>>(static_cast<bls12_381_fr_t *>(x), n);
        break;
    default:
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve id %d", (int)curve);
    }
    GPU_LAUNCHED();
    return 0;
}

/* constants.cuh against src/ff/constants.h, word for word */
template <class P>
static int params_match(const uint64_t *mod, const uint64_t *one, const uint64_t *r2, uint64_t inv64, const char *name,
                        cuzk_error *err)
{
    auto half = [](const uint64_t *w, int i) { return (uint32_t)(w[i / 2] >> (32 * (i % 2))); };
    for (int i = 0; i < P::N; i++)
        if (P::mod(i) != half(mod, i) || P::one(i) != half(one, i) || P::r2(i) != half(r2, i))
            return cuzk_fail(err, CUZK_GPU_ERR_DEVICE, "src/gpu/constants.cuh disagrees with src/ff/constants.h for "
                             "%s: run tools/gen_gpu_constants.py", name);
    if (P::INV != (uint32_t)inv64)
        return cuzk_fail(err, CUZK_GPU_ERR_DEVICE, "src/gpu/constants.cuh: wrong INV for %s", name);
    return 0;
}

#define PARAMS_MATCH(F, UP) params_match<F##_params>(F##_MODULUS, F##_R, F##_R2, UP##_INV, #F, err)
static int check_constants(cuzk_error *err)
{
    GPU_TRY(PARAMS_MATCH(bn254_fp, BN254_FP));
    GPU_TRY(PARAMS_MATCH(bn254_fr, BN254_FR));
    GPU_TRY(PARAMS_MATCH(bls12_381_fp, BLS12_381_FP));
    GPU_TRY(PARAMS_MATCH(bls12_381_fr, BLS12_381_FR));
    return 0;
}
#undef PARAMS_MATCH

static int open_on(cuzk_gpu *g, int device, cuzk_error *err)
{
    g->device = device;
    GPU_CHECK(cudaSetDevice(device));
    GPU_CHECK(cudaDeviceGetAttribute(&g->sm_count, cudaDevAttrMultiProcessorCount, device));
    int pools = 0;
    GPU_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
    if (!pools)
        return cuzk_fail(err, CUZK_GPU_ERR_DEVICE, "CUDA device %d has no stream-ordered memory pools", device);
    /* The stream at the device's highest priority, the copy stream at the
     * default (lowest): a digit sort on the copy stream (prove.cu) takes
     * the SMs the stream's MSMs leave, and slows them less
     * (bench/results/2026-12-06-h100-stream-priority.md). */
    int lowest = 0, highest = 0;
    GPU_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    GPU_CHECK(cudaStreamCreateWithPriority(&g->stream, cudaStreamNonBlocking, highest));
    GPU_CHECK(cudaStreamCreateWithPriority(&g->copy_stream, cudaStreamNonBlocking, lowest));
    /* the device's own pool, shared by its contexts: memory one proof gives
     * back serves the next on any context, and free + held is what proofs
     * have (cuzk_gpu_scratch_capacity) */
    GPU_CHECK(cudaDeviceGetDefaultMemPool(&g->pool, device));
    uint64_t keep = UINT64_MAX; /* hold freed memory for the next call */
    GPU_CHECK(cudaMemPoolSetAttribute(g->pool, cudaMemPoolAttrReleaseThreshold, &keep));
    return 0;
}

} /* namespace gpu */

extern "C" int cuzk_gpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

namespace gpu {

int pool_fail(cuzk_gpu *g, size_t bytes, cuzk_error *err)
{
    const cudaError_t e = cudaGetLastError();
    if (e != cudaErrorMemoryAllocation)
        return cuda_fail(err, e, "cudaMallocFromPoolAsync", __FILE__, __LINE__);
    size_t free_bytes = 0, total = 0, reserved = 0, used = 0;
    cudaMemGetInfo(&free_bytes, &total);
    cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
    cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrUsedMemCurrent, &used);
    cudaGetLastError();
    return cuzk_fail(err, CUZK_ERR_NOMEM,
                     "out of device memory for %.2f GiB: %.2f GiB free of %.2f, the pool holds %.2f GiB (%.2f in use)",
                     bytes / 1073741824.0, free_bytes / 1073741824.0, total / 1073741824.0, reserved / 1073741824.0,
                     used / 1073741824.0);
}

} /* namespace gpu */

extern "C" int cuzk_gpu_memory(int device, size_t *used, size_t *total, cuzk_error *err)
{
    size_t free_bytes = 0;
    GPU_CHECK(cudaSetDevice(device));
    GPU_CHECK(cudaMemGetInfo(&free_bytes, total));
    *used = *total - free_bytes;
    return 0;
}

extern "C" int cuzk_gpu_scratch_capacity(int device, size_t *bytes, cuzk_error *err)
{
    size_t free_bytes = 0, total = 0, reserved = 0;
    cudaMemPool_t pool;
    GPU_CHECK(cudaSetDevice(device));
    GPU_CHECK(cudaMemGetInfo(&free_bytes, &total));
    GPU_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    GPU_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    *bytes = free_bytes + reserved;
    return 0;
}

extern "C" int cuzk_gpu_pool_usage(cuzk_gpu *g, int reset, size_t *used, size_t *high, cuzk_error *err)
{
    if (!g)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_pool_usage: no context");
    GPU_CHECK(cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrUsedMemCurrent, used));
    if (reset) {
        uint64_t zero = 0; /* resets the mark to the current use */
        GPU_CHECK(cudaMemPoolSetAttribute(g->pool, cudaMemPoolAttrUsedMemHigh, &zero));
    }
    GPU_CHECK(cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrUsedMemHigh, high));
    return 0;
}

extern "C" int cuzk_gpu_ballast(int device, size_t limit, void **ballast, cuzk_error *err)
{
    size_t used = 0, total = 0;
    *ballast = NULL;
    GPU_TRY(cuzk_gpu_memory(device, &used, &total, err));
    if (total <= limit)
        return 0;
    if (limit < used)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "a device memory limit of %.2f GiB, but %.2f GiB of GPU %d are in use",
                         limit / 1073741824.0, used / 1073741824.0, device);
    GPU_CHECK(cudaMalloc(ballast, total - limit)); /* what is left free: limit - used */
    return 0;
}

extern "C" void cuzk_gpu_ballast_free(int device, void *ballast)
{
    if (ballast && cudaSetDevice(device) == cudaSuccess)
        cudaFree(ballast);
    cudaGetLastError();
}

extern "C" int cuzk_gpu_open(cuzk_gpu **out, int device, cuzk_error *err)
{
    if (!out)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_open: no output pointer");
    *out = NULL;
    int count = cuzk_gpu_device_count();
    if (device < 0 || device >= count)
        return cuzk_fail(err, CUZK_GPU_ERR_DEVICE, "no CUDA device %d (%d found)", device, count);
    GPU_TRY(gpu::check_constants(err));
    cuzk_gpu *g = static_cast<cuzk_gpu *>(calloc(1, sizeof *g));
    if (!g)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a GPU context");
    g->no_h_aside = cuzk_env_flag("CUZK_GPU_NO_H_ASIDE"); /* for measuring it against the slices' sort */
    int rc = gpu::open_on(g, device, err);
    if (rc) {
        cuzk_gpu_close(g);
        return rc;
    }
    *out = g;
    return 0;
}

extern "C" void cuzk_gpu_close(cuzk_gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->device);
    for (cudaStream_t s : {g->stream, g->copy_stream})
        if (s)
            cudaStreamSynchronize(s);
    for (auto &t : g->tw)
        if (t.ptr)
            cudaFree(t.ptr);
    for (cudaEvent_t ev : g->prof.ev)
        if (ev)
            cudaEventDestroy(ev);
    for (cudaEvent_t ev : g->phase_ev)
        if (ev)
            cudaEventDestroy(ev);
    for (cudaEvent_t ev : g->slice_ready)
        if (ev)
            cudaEventDestroy(ev);
    for (cudaEvent_t ev : g->side_ev)
        if (ev)
            cudaEventDestroy(ev);
    for (cudaStream_t s : {g->stream, g->copy_stream})
        if (s)
            cudaStreamDestroy(s);
    if (g->pool) /* what this context left unused in the device's pool goes back to the device */
        cudaMemPoolTrimTo(g->pool, 0);
    cudaGetLastError();
    free(g);
}

extern "C" int cuzk_gpu_alloc(cuzk_gpu *g, void **dev, size_t bytes, cuzk_error *err)
{
    if (!g || !dev)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_alloc: no context or output pointer");
    *dev = NULL;
    GPU_CHECK(cudaSetDevice(g->device));
    GPU_CHECK(cudaMalloc(dev, bytes ? bytes : 1));
    return 0;
}

extern "C" void cuzk_gpu_free(cuzk_gpu *g, void *dev)
{
    if (!g || !dev)
        return;
    cudaSetDevice(g->device);
    cudaFree(dev);
    cudaGetLastError();
}

extern "C" int cuzk_gpu_upload(cuzk_gpu *g, void *dev, const void *host, size_t bytes, cuzk_error *err)
{
    if (!g || (bytes && (!dev || !host)))
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_upload: missing context or buffer");
    GPU_CHECK(cudaSetDevice(g->device));
    GPU_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->stream));
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

size_t gpu::memory_left(cuzk_gpu *g)
{
    size_t free_bytes = 0, total = 0, reserved = 0, used = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess ||
        cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
        cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return free_bytes + (reserved > used ? reserved - used : 0);
}

extern "C" int cuzk_gpu_set_msm_window(cuzk_gpu *g, unsigned c, cuzk_error *err)
{
    if (!g || (c != 0 && (c < 2 || c > CUZK_GPU_MSM_WINDOW_MAX)))
        return cuzk_fail(err, CUZK_ERR_ARG, "MSM window %u: 0 (automatic) or 2..%d, and a context", c,
                         CUZK_GPU_MSM_WINDOW_MAX);
    g->msm_c = c;
    return 0;
}

extern "C" int cuzk_gpu_set_msm_lanes(cuzk_gpu *g, int lanes, cuzk_error *err)
{
    if (!g || lanes < CUZK_GPU_MSM_LANES_XYZZ || lanes > CUZK_GPU_MSM_LANES_MAX)
        return cuzk_fail(err, CUZK_ERR_ARG, "MSM lanes %d: %d (automatic), %d (XYZZ only) or 1..%d, and a context",
                         lanes, CUZK_GPU_MSM_LANES_AUTO, CUZK_GPU_MSM_LANES_XYZZ, CUZK_GPU_MSM_LANES_MAX);
    g->msm_lanes = lanes;
    return 0;
}

extern "C" int cuzk_gpu_set_key_tables(cuzk_gpu *g, int on, cuzk_error *err)
{
    if (!g)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_set_key_tables: no context");
    g->no_key_tables = !on;
    return 0;
}

extern "C" int cuzk_gpu_set_c_plus_h(cuzk_gpu *g, unsigned slices, int h_aside, cuzk_error *err)
{
    if (!g || slices > CUZK_GPU_C_PLUS_H_SLICES_MAX || (h_aside != 0 && h_aside != 1))
        return cuzk_fail(err, CUZK_ERR_ARG, "C' + H' in %u slices, H aside %d: 0 (automatic) to %d slices, 0 or 1, "
                         "and a context", slices, h_aside, CUZK_GPU_C_PLUS_H_SLICES_MAX);
    g->ch_slices = slices;
    g->no_h_aside = !h_aside;
    return 0;
}

extern "C" void *cuzk_gpu_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

extern "C" void cuzk_gpu_host_free(void *p)
{
    if (p)
        cudaFreeHost(p);
    cudaGetLastError();
}
