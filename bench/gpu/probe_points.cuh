/* BLS12-381 G1 points for the GPU microbenchmarks of affine additions
 * (bench/gpu/probe_affine_warp.cu, probe_affine_shared.cu): the generator,
 * k G by double and add, the curve equation, and, under nvcc, the kernels
 * both probes share: a table of random multiples, XYZZ chains over a point
 * source (the MSM bucket kernel's hot loop, xyzz_add_affine: the reference
 * the affine ways are checked and timed against) and the comparison of
 * their ends. The device functions also compile on the host under
 * probe_emulate.h (the host checks). Not part of the library. */
#ifndef CUZK_BENCH_PROBE_POINTS_CUH
#define CUZK_BENCH_PROBE_POINTS_CUH

#include <cstdint>

#include "gpu/ec.cuh"

namespace probe {

using g1_fp = gpu::bls12_381_fp_t;
using g1_affine = gpu::affine<g1_fp>;
using g1_xyzz = gpu::xyzz<g1_fp>;

/* the BLS12-381 G1 generator, normal form */
static __device__ __forceinline__ g1_affine g1_generator()
{
    const uint32_t gx[12] = {0xdb22c6bbu, 0xfb3af00au, 0xf97a1aefu, 0x6c55e83fu, 0x171bac58u, 0xa14e3a3fu,
                             0x9774b905u, 0xc3688c4fu, 0x4fa9ac0fu, 0x2695638cu, 0x3197d794u, 0x17f1d3a7u};
    const uint32_t gy[12] = {0x46c5e7e1u, 0x0caa2329u, 0xa2888ae4u, 0xd03cc744u, 0x2c04b3edu, 0x00db18cbu,
                             0xd5d00af6u, 0xfcf5e095u, 0x741d8ae4u, 0xa09e30edu, 0xe3aaa0f1u, 0x08b3f481u};
    return {g1_fp::from_limbs([&](int i) { return gx[i]; }).to_mont(),
            g1_fp::from_limbs([&](int i) { return gy[i]; }).to_mont()};
}

/* XYZZ (x = X / ZZ, y = Y / ZZZ) -> affine; infinity (ZZ = 0) -> (0, 0),
 * as Fermat's inverse of 0 is 0 */
static __device__ __forceinline__ g1_affine g1_to_affine(const g1_xyzz &p)
{
    return {p.x * p.zz.inv(), p.y * p.zzz.inv()};
}

/* k G (k > 0, double and add from the top bit), affine */
static __device__ __forceinline__ g1_affine g1_multiple(uint64_t k)
{
    const g1_affine g = g1_generator();
    const g1_xyzz gx = {g.x, g.y, g1_fp::one(), g1_fp::one()};
    g1_xyzz acc = g1_xyzz::inf();
    for (int bit = 63; bit >= 0; bit--) {
        if (!acc.is_inf())
            gpu::xyzz_dbl_to(&acc);
        if ((k >> bit) & 1)
            gpu::xyzz_add_to(&acc, &gx);
    }
    return g1_to_affine(acc);
}

/* y^2 = x^3 + 4 */
static __device__ __forceinline__ bool g1_on_curve(const g1_affine &p)
{
    const g1_fp four = g1_fp::from_limbs([](int j) { return j == 0 ? 4u : 0u; }).to_mont();
    return p.y.sqr() == p.x.sqr() * p.x + four;
}

} /* namespace probe */

#ifdef __CUDACC__
#include "probe_host.cuh" /* bench_common.cuh, its unused helpers quiet */

namespace probe {

/* pts[i] = k_i G, k_i a random odd 64-bit integer; counts the points off
 * the curve */
__global__ void make_points(g1_affine *pts, size_t n, uint64_t seed, unsigned long long *off_curve)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const g1_affine p = g1_multiple(bench_mix64(seed + i) | 1);
    if (!g1_on_curve(p))
        atomicAdd(off_curve, 1ull);
    gpu::store(pts + i, p);
}

/* Chain c (c < chains) as an XYZZ accumulator in registers, from infinity,
 * adds src.point(c, r) for r < rounds (xyzz_add_affine, which takes the
 * doubling and P + (-P) paths itself; points at infinity skipped where the
 * source has them), a chain at a time, over however many threads run; the
 * end in out[c]. Blocks of XYZZ_BLOCK (2 an SM: probe_affine.cu's fastest
 * shape). */
static const unsigned XYZZ_BLOCK = 128;
template <class Source>
__global__ void __launch_bounds__(XYZZ_BLOCK) xyzz_chains(Source src, size_t chains, unsigned rounds, g1_xyzz *out)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x; c < chains; c += stride) {
        g1_xyzz acc = g1_xyzz::inf();
#pragma unroll 1
        for (unsigned r = 0; r < rounds; r++) {
            const g1_affine p = src.point(c, r);
            if (Source::HAS_INFINITY && p.is_inf())
                continue;
            gpu::xyzz_add_affine(acc, p);
        }
        gpu::store(out + c, acc);
    }
}

/* counts the chains whose XYZZ end made affine is not the affine end
 * (infinity on both sides: the same) */
__global__ void count_different(const g1_xyzz *chains, const g1_affine *ends, size_t n, unsigned long long *bad)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const g1_affine c = g1_to_affine(gpu::load(chains + i)), a = gpu::load(ends + i);
    if (!(c.x == a.x) || !(c.y == a.y))
        atomicAdd(bad, 1ull);
}

/* a device counter's value, then zero */
static unsigned long long read_and_clear(unsigned long long *counter)
{
    unsigned long long v = 0;
    BENCH_CHECK(cudaMemcpy(&v, counter, sizeof v, cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemset(counter, 0, sizeof *counter));
    return v;
}

/* a device table of n random multiples of G (make_points, seed 7: the
 * probes' shared table), each checked on the curve; exits (1) if one is
 * off it. counter: a zeroed device counter, left zero. */
static g1_affine *point_table(size_t n, unsigned long long *counter)
{
    g1_affine *pts;
    BENCH_CHECK(cudaMalloc(&pts, n * sizeof(g1_affine)));
    make_points<<<(unsigned)((n + 127) / 128), 128>>>(pts, n, 7, counter);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    if (read_and_clear(counter) != 0) {
        fprintf(stderr, "%s: points off the curve (the generator or the arithmetic is wrong)\n",
                program_invocation_short_name);
        exit(1);
    }
    return pts;
}

} /* namespace probe */
#endif

#endif
