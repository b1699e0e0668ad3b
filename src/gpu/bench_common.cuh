/* What the GPU benchmarks share: build/gpu-bench (src/gpu/bench_gpu.cu) and
 * the sppark harness of the same-run comparison (bench/peers/sppark_bench.cu)
 * include this, so that both time the same bytes the same way.
 *
 * BENCH_CHECK(expr): a CUDA call; on failure prints it and exits (1).
 * bench_time: one warm-up call, then `runs` timed calls between CUDA events
 * on a stream; the median and the minimum.
 * bench_parse_logs: "20,22,24" -> {20, 22, 24}.
 *
 * Scalars: n elements of 4 little-endian words, normal form, drawn on the
 * device from (seed, index) alone, so any two programs asking for the same
 * (n, bits, seed, shape) get the same values. Shapes:
 *   random  every element uniform below 2^(bits-1) (< r)
 *   bits    the value mix of a SHA-256-dominated witness (docs/PERF.md, "Real
 *           witnesses are not random"): 59.6 % zero, 38.2 % one, 0.9 %
 *           small (uniform below 2^32), 1.3 % full-size (as random)
 * NTT and coset inputs use shape random as Montgomery-form field elements.
 *
 * Bases: G_bench_points(count) for the four groups: count distinct affine
 * points P_{i+1} = 2 P_i + Q (P_0 and Q fixed multiples of the generator,
 * from a fixed seed per call), made on the host with the CPU code;
 * bench_tile_points repeats them to n in device memory (the arithmetic per
 * point is that of distinct points; an equal pair landing in one bucket,
 * ~0.4 % at 2^24, takes the doubling path).
 *
 * Includers compile with nvcc and -Isrc -Iinclude; everything here is
 * static, for one translation unit each. */
#ifndef CUZK_GPU_BENCH_COMMON_CUH
#define CUZK_GPU_BENCH_COMMON_CUH

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#pragma nv_diag_suppress 1675
extern "C" {
#include "ec/ec.h"
#include "util/random.h"
}
#pragma nv_diag_default 1675

#define BENCH_CHECK(expr)                                                                      \
    do {                                                                                       \
        cudaError_t e_ = (expr);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s: %s at %s:%d: %s\n", program_invocation_short_name, #expr,     \
                    __FILE__, __LINE__, cudaGetErrorString(e_));                               \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

struct bench_timing {
    double median_ms, min_ms;
};

/* the median and the minimum of ms (not empty) */
static bench_timing bench_timing_of(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    return bench_timing{ms[ms.size() / 2], ms[0]};
}

template <class Fn> static bench_timing bench_time(cudaStream_t s, int runs, Fn fn)
{
    cudaEvent_t a, b;
    BENCH_CHECK(cudaEventCreate(&a));
    BENCH_CHECK(cudaEventCreate(&b));
    fn();
    std::vector<double> ms;
    for (int r = 0; r < std::max(runs, 1); r++) {
        BENCH_CHECK(cudaEventRecord(a, s));
        fn();
        BENCH_CHECK(cudaEventRecord(b, s));
        BENCH_CHECK(cudaEventSynchronize(b));
        float t = 0;
        BENCH_CHECK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    BENCH_CHECK(cudaEventDestroy(a));
    BENCH_CHECK(cudaEventDestroy(b));
    return bench_timing_of(ms);
}

static std::vector<unsigned> bench_parse_logs(const char *s)
{
    std::vector<unsigned> v;
    while (s && *s) {
        char *end;
        unsigned long x = strtoul(s, &end, 10);
        if (end == s)
            break;
        v.push_back((unsigned)x);
        s = *end ? end + 1 : end;
    }
    return v;
}

/* ---- inputs ---- */

typedef enum { BENCH_SHAPE_RANDOM, BENCH_SHAPE_BITS, BENCH_SHAPES } bench_shape;

static const char *const bench_shape_names[BENCH_SHAPES] = {"random", "bits"};

/* *out <- the shape called name; 0, or -1 for an unknown name. */
static int bench_shape_from_name(const char *name, bench_shape *out)
{
    for (int s = 0; s < BENCH_SHAPES; s++)
        if (!strcmp(name, bench_shape_names[s])) {
            *out = (bench_shape)s;
            return 0;
        }
    return -1;
}

/* Shape bits, in thousandths: values below each bound are of that kind. */
#define BENCH_BITS_ZERO 596  /* 59.6 % zero */
#define BENCH_BITS_ONE 978   /* + 38.2 % one */
#define BENCH_BITS_SMALL 987 /* + 0.9 % small; the remaining 1.3 % full-size */

static __device__ __forceinline__ uint64_t bench_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static __global__ void bench_scalars_kernel(uint64_t *out, size_t n, uint64_t seed, unsigned bits, bench_shape shape)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t w[4];
    for (int k = 0; k < 4; k++)
        w[k] = bench_mix64(seed + 0x9e3779b97f4a7c15ULL * (4 * i + k + 1));
    w[3] &= (1ULL << (bits - 1 - 192)) - 1;
    if (shape == BENCH_SHAPE_BITS) {
        /* the kind from its own stream, independent of the value's words */
        const unsigned kind = (unsigned)(bench_mix64(~seed + 0xd1b54a32d192ed03ULL * (i + 1)) % 1000);
        if (kind < BENCH_BITS_SMALL) {
            w[0] = kind < BENCH_BITS_ZERO ? 0 : kind < BENCH_BITS_ONE ? 1 : w[0] & 0xffffffffULL;
            w[1] = w[2] = w[3] = 0;
        }
    }
    for (int k = 0; k < 4; k++)
        out[4 * i + k] = w[k];
}

/* dev[0..n) <- n scalars of the shape (above), on stream s, waited for. */
static cudaError_t bench_fill_scalars(cudaStream_t s, void *dev, size_t n, unsigned bits, uint64_t seed,
                                      bench_shape shape)
{
    if (n == 0)
        return cudaSuccess;
    bench_scalars_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(static_cast<uint64_t *>(dev), n, seed, bits,
                                                                     shape);
    cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? e : cudaStreamSynchronize(s);
}

/* count distinct affine points P_{i+1} = 2 P_i + Q of group G */
#define BENCH_MAKE_POINTS(G, FQ)                                                               \
    static std::vector<G##_affine> G##_bench_points(size_t count)                              \
    {                                                                                          \
        uint64_t seed = 0x1234abcdULL;                                                         \
        std::vector<G##_jac> jac(count);                                                       \
        std::vector<FQ> scratch(count);                                                        \
        std::vector<G##_affine> out(count);                                                    \
        G##_affine gen;                                                                        \
        G##_jac g, p, q;                                                                       \
        uint64_t kp[4] = {cuzk_splitmix64(&seed), cuzk_splitmix64(&seed), cuzk_splitmix64(&seed), 0}; \
        uint64_t kq[4] = {cuzk_splitmix64(&seed), 0, 0, 0};                                    \
        G##_generator(&gen);                                                                   \
        G##_jac_from_affine(&g, &gen);                                                         \
        G##_jac_mul_var(&p, &g, kp, 192);                                                      \
        G##_jac_mul_var(&q, &g, kq, 64);                                                       \
        for (size_t i = 0; i < count; i++) {                                                   \
            jac[i] = p;                                                                        \
            G##_jac_dbl_var(&p, &p);                                                               \
            G##_jac_add_var(&p, &p, &q);                                                           \
        }                                                                                      \
        G##_jac_batch_to_affine(out.data(), jac.data(), count, scratch.data());                \
        return out;                                                                            \
    }
BENCH_MAKE_POINTS(bn254_g1, bn254_fp)
BENCH_MAKE_POINTS(bn254_g2, bn254_fp2)
BENCH_MAKE_POINTS(bls12_381_g1, bls12_381_fp)
BENCH_MAKE_POINTS(bls12_381_g2, bls12_381_fp2)
#undef BENCH_MAKE_POINTS

/* dev[0..n) <- pts repeated (device memory), waited for. */
template <class A> static cudaError_t bench_tile_points(void *dev, size_t n, const std::vector<A> &pts)
{
    size_t have = std::min(n, pts.size());
    cudaError_t e = cudaMemcpy(dev, pts.data(), have * sizeof(A), cudaMemcpyHostToDevice);
    char *base = static_cast<char *>(dev);
    while (e == cudaSuccess && have < n) {
        size_t more = std::min(have, n - have);
        e = cudaMemcpy(base + have * sizeof(A), base, more * sizeof(A), cudaMemcpyDeviceToDevice);
        have += more;
    }
    /* device-to-device cudaMemcpy may return before the copy is done, and
     * the benchmarks run on non-blocking streams */
    return e != cudaSuccess ? e : cudaStreamSynchronize(cudaStreamLegacy);
}

#endif
