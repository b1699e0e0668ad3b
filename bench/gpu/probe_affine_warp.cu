/* build/gpu-probe-affine-warp: batch-affine point additions with the
 * accumulators in registers and the inversion shared by a warp or a block
 * (issue 50), against the MSM's XYZZ mixed addition on the same points.
 * Not part of the library.
 *
 *   build/gpu-probe-affine-warp [--rounds R] [--ks 1,2,4,8]
 *
 * BLS12-381 G1 (ec.cuh's types). Every thread owns K chains; a chain adds R
 * points one after another, read from a table of 2^16 distinct points made
 * here (random 64-bit multiples of the generator, so no sum of a few of
 * them meets another: the formulas' exceptional cases do not occur, and
 * are counted if they do). The table stays in L2, as it does in
 * bench/gpu/probe_affine.cu, whose walk over it this repeats. Two ways:
 *   xyzz    each chain an XYZZ accumulator in registers, xyzz_add_affine,
 *           the MSM bucket kernel's hot loop (8 products and 2 squares)
 *   affine  the K chains of a thread as affine points in registers; a
 *           round adds one point to each with one inversion
 *           (probe_batch_inv.cuh, shared by the warp or by the block) of
 *           d_k = x_p - x_k:
 *             lambda = (y_p - y_k) / d_k, x3 = lambda^2 - x_k - x_p,
 *             y3 = lambda (x_k - x3) - y_k
 *           (2 products and a square, plus the batch inversion's share:
 *           (3 (K - 1) + 12 + 613 / W) / K, W the warps sharing it)
 * unlike probe_affine.cu, whose lanes live in global memory. One launch
 * fills every SM once (blocks of 256 for affine, of 128 for xyzz). Prints additions/s for both, their
 * cost in products (today's product rate, measured here, over the
 * addition rate) and checks that both ways end at the same points (the
 * XYZZ chains made affine); exits 1 if any differ or an exceptional case
 * came up. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu/ec.cuh"
#include "probe_batch_inv.cuh"
#include "probe_chains.cuh"

using A = gpu::affine<F>;
using X = gpu::xyzz<F>;

static const unsigned BLOCK = 256;
static const size_t TABLE = 1u << 16;

/* the r-th point of chain (t, k), T the threads of the affine launch: the
 * walk of probe_affine.cu (the odd stride T + 1 meets a point again only
 * after TABLE / K rounds) */
static __device__ __forceinline__ const A *chain_point(const A *pts, size_t t, unsigned k, unsigned r, size_t T,
                                                      unsigned K)
{
    return pts + ((((size_t)r * K + k) * (T + 1) + t) % TABLE);
}

/* the BLS12-381 G1 generator, normal form */
static __device__ __forceinline__ A generator()
{
    const uint32_t gx[12] = {0xdb22c6bbu, 0xfb3af00au, 0xf97a1aefu, 0x6c55e83fu, 0x171bac58u, 0xa14e3a3fu,
                             0x9774b905u, 0xc3688c4fu, 0x4fa9ac0fu, 0x2695638cu, 0x3197d794u, 0x17f1d3a7u};
    const uint32_t gy[12] = {0x46c5e7e1u, 0x0caa2329u, 0xa2888ae4u, 0xd03cc744u, 0x2c04b3edu, 0x00db18cbu,
                             0xd5d00af6u, 0xfcf5e095u, 0x741d8ae4u, 0xa09e30edu, 0xe3aaa0f1u, 0x08b3f481u};
    return {F::from_limbs([&](int i) { return gx[i]; }).to_mont(),
            F::from_limbs([&](int i) { return gy[i]; }).to_mont()};
}

/* pts[i] = k_i G, k_i a random odd 64-bit integer (double and add); counts
 * the points off y^2 = x^3 + 4 */
__global__ void make_points(A *pts, size_t n, uint64_t seed, unsigned long long *off_curve)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const A g = generator();
    const X gx = {g.x, g.y, F::one(), F::one()};
    const uint64_t k = bench_mix64(seed + i) | 1;
    X acc = X::inf();
    for (int bit = 63; bit >= 0; bit--) {
        if (!acc.is_inf())
            gpu::xyzz_dbl_to(&acc);
        if ((k >> bit) & 1)
            gpu::xyzz_add_to(&acc, &gx);
    }
    const A p = {acc.x * acc.zz.inv(), acc.y * acc.zzz.inv()};
    const F four = F::from_limbs([](int j) { return j == 0 ? 4u : 0u; }).to_mont();
    if (!(p.y.sqr() == p.x.sqr() * p.x + four))
        atomicAdd(off_curve, 1ull);
    gpu::store(pts + i, p);
}

/* chain k of thread t ends in out[k T + t] */
template <probe::inv_share SHARE, int K>
__global__ void __launch_bounds__(BLOCK) affine_chains(const A *pts, unsigned rounds, A *out,
                                                       unsigned long long *exceptional)
{
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    A acc[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        acc[k] = gpu::load_ro(chain_point(pts, t, k, 0, T, K));
#pragma unroll 1
    for (unsigned r = 1; r < rounds; r++) {
        F d[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            d[k] = gpu::load_ro(&chain_point(pts, t, k, r, T, K)->x) - acc[k].x;
            if (d[k].is_zero()) { /* acc = +-p: not handled here, counted */
                atomicAdd(exceptional, 1ull);
                d[k] = F::one();
            }
        }
        probe::batch_inverse<SHARE>(d);
#pragma unroll
        for (int k = 0; k < K; k++) {
            const A p = gpu::load_ro(chain_point(pts, t, k, r, T, K));
            const F lambda = (p.y - acc[k].y) * d[k];
            const F x3 = lambda.sqr() - acc[k].x - p.x;
            acc[k].y = lambda * (acc[k].x - x3) - acc[k].y;
            acc[k].x = x3;
        }
    }
#pragma unroll
    for (int k = 0; k < K; k++)
        gpu::store(out + k * T + t, acc[k]);
}

/* the same chains (T of the affine launch, K a thread) as XYZZ
 * accumulators, a chain at a time, over however many threads run; blocks
 * of 128 (2 an SM: probe_affine.cu's fastest shape) */
static const unsigned XYZZ_BLOCK = 128;
__global__ void __launch_bounds__(XYZZ_BLOCK) xyzz_chains(const A *pts, size_t T, unsigned K, unsigned rounds, X *out)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x; c < T * K; c += stride) {
        const size_t t = c % T;
        const unsigned k = (unsigned)(c / T);
        X acc = X::inf();
#pragma unroll 1
        for (unsigned r = 0; r < rounds; r++)
            gpu::xyzz_add_affine(acc, gpu::load_ro(chain_point(pts, t, k, r, T, K)));
        gpu::store(out + c, acc);
    }
}

/* counts the chains whose XYZZ end (x = X / ZZ, y = Y / ZZZ) is not the
 * affine end */
__global__ void count_different(const X *chains, const A *ends, size_t n, unsigned long long *bad)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const X c = gpu::load(chains + i);
    const A a = gpu::load(ends + i);
    if (!(c.x * c.zz.inv() == a.x) || !(c.y * c.zzz.inv() == a.y))
        atomicAdd(bad, 1ull);
}

struct affine_ctx {
    probe_device dev;
    unsigned rounds;
    double product_rate; /* G products/s */
    A *pts, *ends;
    X *chains;
    size_t capacity; /* chains */
    unsigned long long *counter;
    bool all_ok = true;
};

static unsigned long long read_and_clear(unsigned long long *counter)
{
    unsigned long long v = 0;
    BENCH_CHECK(cudaMemcpy(&v, counter, sizeof v, cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemset(counter, 0, sizeof *counter));
    return v;
}

template <probe::inv_share SHARE, int K> static void measure(affine_ctx &c)
{
    const auto kernel = affine_chains<SHARE, K>;
    const probe_launch la = probe_launch_full(c.dev, kernel, BLOCK);
    const probe_launch lx = probe_launch_full(c.dev, xyzz_chains, XYZZ_BLOCK);
    const size_t n = la.threads() * K;
    if (n > c.capacity) {
        fprintf(stderr, "probe-affine-warp: K = %d needs %zu chains, %zu allocated\n", K, n, c.capacity);
        exit(1);
    }
    const bench_timing ta =
        bench_time(0, 3, [&] { kernel<<<la.grid, la.block>>>(c.pts, c.rounds, c.ends, c.counter); });
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    const unsigned long long exceptional = read_and_clear(c.counter);
    const bench_timing tx =
        bench_time(0, 3, [&] { xyzz_chains<<<lx.grid, lx.block>>>(c.pts, la.threads(), K, c.rounds, c.chains); });
    BENCH_CHECK(cudaGetLastError());
    count_different<<<(unsigned)((n + 255) / 256), 256>>>(c.chains, c.ends, n, c.counter);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    const unsigned long long bad = read_and_clear(c.counter);
    const bool ok = bad == 0 && exceptional == 0;
    c.all_ok = c.all_ok && ok;
    const double adds = (double)n * (c.rounds - 1);
    const double ra = adds / ta.median_ms / 1e6, rx = adds / tx.median_ms / 1e6; /* G/s */
    const double sharers = SHARE == probe::SHARE_WARP ? 1.0 : BLOCK / 32.0;
    const double predicted = 3 + (3.0 * (K - 1) + 12 + 613 / sharers) / K;
    printf("| %s | %d | %u x %u, %d regs, %d spilled | %.2f | %.2f | %.3f | %.3f | %.2fx | %.1f | %.1f | %.1f | "
           "%llu | %s |\n",
           SHARE == probe::SHARE_WARP ? "warp" : "block", K, la.per_sm, la.block, la.regs, la.spill_bytes,
           ta.median_ms, tx.median_ms, ra, rx, ra / rx, c.product_rate / ra, predicted, c.product_rate / rx,
           exceptional, bad ? "NO" : "yes");
    fflush(stdout);
}

template <probe::inv_share SHARE> static void measure_k(affine_ctx &c, unsigned k)
{
    switch (k) {
    case 1: measure<SHARE, 1>(c); break;
    case 2: measure<SHARE, 2>(c); break;
    case 4: measure<SHARE, 4>(c); break;
    case 8: measure<SHARE, 8>(c); break;
    default: fprintf(stderr, "gpu-probe-affine-warp: K must be 1, 2, 4 or 8 (got %u)\n", k); exit(2);
    }
}

int main(int argc, char **argv)
{
    affine_ctx c;
    c.rounds = 32;
    const char *ks = "1,2,4,8";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rounds"))
            c.rounds = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ks"))
            ks = argv[i + 1];
        else {
            fprintf(stderr, "gpu-probe-affine-warp: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (c.rounds < 2 || c.rounds > TABLE / 8) {
        fprintf(stderr, "gpu-probe-affine-warp: --rounds must be in [2, %zu] (a chain's points distinct)\n", TABLE / 8);
        return 2;
    }
    c.dev = probe_device_get();
    c.product_rate = probe_today_product_rate(c.dev, 1000);
    printf("today's product (out-of-line call, 2 chains a thread): %.2f G products/s\n", c.product_rate);
    c.capacity = (size_t)c.dev.sms * 2048 * 8;
    BENCH_CHECK(cudaMalloc(&c.pts, TABLE * sizeof(A)));
    BENCH_CHECK(cudaMalloc(&c.ends, c.capacity * sizeof(A)));
    BENCH_CHECK(cudaMalloc(&c.chains, c.capacity * sizeof(X)));
    BENCH_CHECK(cudaMalloc(&c.counter, sizeof *c.counter));
    BENCH_CHECK(cudaMemset(c.counter, 0, sizeof *c.counter));
    make_points<<<(unsigned)(TABLE / 128), 128>>>(c.pts, TABLE, 7, c.counter);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    if (read_and_clear(c.counter) != 0) {
        fprintf(stderr, "gpu-probe-affine-warp: points off the curve (the generator or the arithmetic is wrong)\n");
        return 1;
    }
    printf("BLS12-381 G1, %zu points on the curve, %u points a chain (%u additions)\n\n", TABLE, c.rounds,
           c.rounds - 1);
    printf("| inversion shared by | K chains a thread | affine launch | affine ms | xyzz ms | affine G add/s | "
           "xyzz G add/s | affine / xyzz | affine products an addition (measured) | (predicted) | "
           "xyzz products an addition (measured) | exceptional sums (4 launches) | same points |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    const std::vector<unsigned> kl = bench_parse_logs(ks);
    for (unsigned k : kl)
        measure_k<probe::SHARE_WARP>(c, k);
    for (unsigned k : kl)
        measure_k<probe::SHARE_BLOCK>(c, k);
    printf("\n%s\n", c.all_ok ? "both ways end at the same points" : "FAILED: see above");
    return c.all_ok ? 0 : 1;
}
