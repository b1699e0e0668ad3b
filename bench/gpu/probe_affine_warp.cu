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
#include "probe_points.cuh"

using A = probe::g1_affine;
using X = probe::g1_xyzz;
using probe::read_and_clear;

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

/* the same chains (T of the affine launch, K a thread) for probe::xyzz_chains:
 * chain c = k T + t */
struct warp_chain_source {
    static constexpr bool HAS_INFINITY = false;
    const A *pts;
    size_t T;
    unsigned K;
    __device__ __forceinline__ A point(size_t c, unsigned r) const
    {
        return gpu::load_ro(chain_point(pts, c % T, (unsigned)(c / T), r, T, K));
    }
};

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

template <probe::inv_share SHARE, int K> static void measure(affine_ctx &c)
{
    const auto kernel = affine_chains<SHARE, K>;
    const probe_launch la = probe_launch_full(c.dev, kernel, BLOCK);
    const auto xyzz_kernel = probe::xyzz_chains<warp_chain_source>;
    const probe_launch lx = probe_launch_full(c.dev, xyzz_kernel, probe::XYZZ_BLOCK);
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
        bench_time(0, 3, [&] {
            xyzz_kernel<<<lx.grid, lx.block>>>(warp_chain_source{c.pts, la.threads(), K}, n, c.rounds, c.chains);
        });
    BENCH_CHECK(cudaGetLastError());
    probe::count_different<<<(unsigned)((n + 255) / 256), 256>>>(c.chains, c.ends, n, c.counter);
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
    BENCH_CHECK(cudaMalloc(&c.ends, c.capacity * sizeof(A)));
    BENCH_CHECK(cudaMalloc(&c.chains, c.capacity * sizeof(X)));
    BENCH_CHECK(cudaMalloc(&c.counter, sizeof *c.counter));
    BENCH_CHECK(cudaMemset(c.counter, 0, sizeof *c.counter));
    c.pts = probe::point_table(TABLE, c.counter);
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
