/* build/gpu-probe-affine: what batch-affine point additions would buy the
 * GPU MSM's bucket phase (issues 14 and 16), measured before building them.
 * Not part of the library.
 *
 *   build/gpu-probe-affine [--threads T] [--rounds R] [--lanes 16,64,...]
 *
 * (R <= 2^16 / K: a chain's points are then distinct)
 *
 * BLS12-381 G1, T threads, each owning K independent chains (lanes); a
 * chain adds R points one after another, the points read from a table of
 * 2^16 distinct ones (it stays in L2, as a sorted bucket run's bases do
 * not: so this is an upper bound on the gain). Two ways:
 *   xyzz    each chain an XYZZ accumulator in registers, the MSM's hot loop
 *           today (xyzz_add_affine: 8 products and 2 squares an addition)
 *   affine  the K lanes of a thread as affine points in global memory; a
 *           round adds one point to every lane with one inversion for all
 *           (Montgomery's trick): forward, d_l = x_p - x_l and the running
 *           products stored; one Fermat inversion; backward, each lane's
 *           1 / d_l peeled off the inverse, then
 *             lambda = (y_p - y_l) / d_l, x3 = lambda^2 - x_l - x_p,
 *             y3 = lambda (x_l - x3) - y_l
 *           (5 products and a square an addition, plus the inversion / K),
 *           reading each lane and point twice and its running product once.
 * Prints additions per second for each, and checks that both ways end at
 * the same points (the affine lanes against the XYZZ chains made affine). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu/ec.cuh"
#pragma GCC diagnostic ignored "-Wunused-function" /* bench_common.cuh: what gpu-bench alone uses */
#include "bench_common.cuh"

using F = gpu::bls12_381_fp_t;
using A = gpu::affine<F>;
using X = gpu::xyzz<F>;

static const size_t TABLE = 1u << 16;

/* the r-th point of chain (t, l): consecutive threads read consecutive
 * points; the stride T + 1 is odd, so a chain meets the same point again
 * only after TABLE / K rounds (a stride of T could repeat it at once, and
 * P + P is the one case the affine formula here leaves out) */
static __device__ __forceinline__ const A *chain_point(const A *pts, size_t t, unsigned l, unsigned r, size_t T,
                                                      unsigned K)
{
    return pts + ((((size_t)r * K + l) * (T + 1) + t) % TABLE);
}

__global__ void xyzz_chains(const A *pts, unsigned K, unsigned R, X *out)
{
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned l = 0; l < K; l++) {
        X acc = X::inf();
        for (unsigned r = 0; r < R; r++)
            gpu::xyzz_add_affine(acc, gpu::load_ro(chain_point(pts, t, l, r, T, K)));
        gpu::store(out + (size_t)l * T + t, acc);
    }
}

/* lanes[l T + t] is lane l of thread t; pre the running products */
__global__ void affine_chains(const A *pts, unsigned K, unsigned R, A *lanes, F *pre)
{
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned l = 0; l < K; l++)
        gpu::store(lanes + (size_t)l * T + t, gpu::load_ro(chain_point(pts, t, l, 0, T, K)));
    for (unsigned r = 1; r < R; r++) {
        F run = F::one();
        for (unsigned l = 0; l < K; l++) {
            const F xl = gpu::load(&lanes[(size_t)l * T + t].x);
            run = run * (gpu::load_ro(&chain_point(pts, t, l, r, T, K)->x) - xl);
            gpu::store(pre + (size_t)l * T + t, run);
        }
        F inv = run.inv();
        for (unsigned l = K; l-- > 0;) {
            const A a = gpu::load(lanes + (size_t)l * T + t), p = gpu::load_ro(chain_point(pts, t, l, r, T, K));
            const F d = p.x - a.x;
            const F dinv = l ? inv * gpu::load(pre + (size_t)(l - 1) * T + t) : inv;
            inv = inv * d;
            const F lambda = (p.y - a.y) * dinv;
            const F x3 = lambda.sqr() - a.x - p.x;
            gpu::store(lanes + (size_t)l * T + t, A{x3, lambda * (a.x - x3) - a.y});
        }
    }
}

/* 1 where XYZZ chain i is not affine lane i (x = X / ZZ, y = Y / ZZZ) */
__global__ void compare(const X *chains, const A *lanes, size_t n, size_t step, int *bad)
{
    const size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * step;
    if (i >= n)
        return;
    const X c = gpu::load(chains + i);
    const A a = gpu::load(lanes + i);
    if (!(c.x * c.zz.inv() == a.x) || !(c.y * c.zzz.inv() == a.y))
        atomicExch(bad, 1);
}

int main(int argc, char **argv)
{
    unsigned threads = 132 * 256, rounds = 64;
    const char *lanes_list = "16,64,256,1024";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads"))
            threads = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--lanes"))
            lanes_list = argv[i + 1];
        else {
            fprintf(stderr, "gpu-probe-affine: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    const unsigned block = 128, grid = (threads + block - 1) / block;
    threads = grid * block;
    const std::vector<bls12_381_g1_affine> host = bls12_381_g1_bench_points(TABLE);
    A *pts;
    BENCH_CHECK(cudaMalloc(&pts, TABLE * sizeof(A)));
    BENCH_CHECK(cudaMemcpy(pts, host.data(), TABLE * sizeof(A), cudaMemcpyHostToDevice));
    int *bad;
    BENCH_CHECK(cudaMalloc(&bad, sizeof *bad));
    printf("BLS12-381 G1, %u threads (%u blocks of %u), %u additions a chain\n\n", threads, grid, block, rounds);
    printf("| lanes a thread | xyzz ms | affine ms | xyzz G add/s | affine G add/s | affine / xyzz | same points |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (unsigned K : bench_parse_logs(lanes_list)) {
        const size_t chains = (size_t)threads * K;
        X *acc;
        A *lanes;
        F *pre;
        if (cudaMalloc(&acc, chains * sizeof(X)) || cudaMalloc(&lanes, chains * sizeof(A)) ||
            cudaMalloc(&pre, chains * sizeof(F))) {
            printf("| %u | no device memory for %zu chains | | | | | |\n", K, chains);
            cudaGetLastError();
            break;
        }
        /* each way computes R - 1 additions a chain (the first point starts it) */
        const double adds = (double)chains * (rounds - 1);
        const bench_timing tx = bench_time(0, 3, [&] { xyzz_chains<<<grid, block>>>(pts, K, rounds, acc); });
        const bench_timing ta = bench_time(0, 3, [&] { affine_chains<<<grid, block>>>(pts, K, rounds, lanes, pre); });
        BENCH_CHECK(cudaGetLastError());
        BENCH_CHECK(cudaMemset(bad, 0, sizeof *bad));
        const size_t step = chains / 4096 ? chains / 4096 : 1;
        compare<<<(unsigned)((chains / step + 127) / 128), 128>>>(acc, lanes, chains, step, bad);
        int h_bad = 1;
        BENCH_CHECK(cudaMemcpy(&h_bad, bad, sizeof h_bad, cudaMemcpyDeviceToHost));
        printf("| %u | %.2f | %.2f | %.2f | %.2f | %.2fx | %s |\n", K, tx.median_ms, ta.median_ms,
               adds / tx.median_ms / 1e6, adds / ta.median_ms / 1e6, tx.median_ms / ta.median_ms,
               h_bad ? "NO" : "yes");
        cudaFree(acc);
        cudaFree(lanes);
        cudaFree(pre);
    }
    return 0;
}
