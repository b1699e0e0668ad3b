/* build/gpu-probe-inv: batched inversion of BLS12-381 Fp elements in
 * registers (issue 50), one Fermat inversion shared by a warp or by a block
 * (bench/gpu/probe_batch_inv.cuh). Not part of the library.
 *
 *   build/gpu-probe-inv [--rounds R] [--ks 1,2,4,8,16]
 *
 * Every thread holds K random elements and inverts them R times in place
 * (R odd: the result is the inverse); one launch fills every SM once
 * (blocks of 256 threads, as many an SM as the registers allow). Prints
 * inversions/s and their cost in products: today's product rate (measured
 * here, the MSM's out-of-line product) over the inversion rate, beside the
 * count the code predicts, (3 (K - 1) + 12 + 613 / W) / K with W = 1 for a
 * warp's inversion and W = the block's warps for a block's. Checks every
 * x (1/x) == 1 on the GPU and a sample with the host's product; exits 1 on
 * any failure. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_batch_inv.cuh"
#include "probe_chains.cuh"

static const unsigned BLOCK = 256;

/* element k of thread t is k T + t (a warp's loads are contiguous) */
template <probe::inv_share SHARE, int K>
__global__ void __launch_bounds__(BLOCK) inv_rounds(const F *in, F *out, unsigned rounds)
{
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    F e[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        e[k] = gpu::load(in + k * T + t);
#pragma unroll 1
    for (unsigned r = 0; r < rounds; r++)
        probe::batch_inverse<SHARE>(e);
#pragma unroll
    for (int k = 0; k < K; k++)
        gpu::store(out + k * T + t, e[k]);
}

/* counts the i < n with x_i y_i != 1 */
__global__ void count_not_inverse(const F *x, const F *y, size_t n, unsigned long long *bad)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !(gpu::load(x + i) * gpu::load(y + i) == F::one()))
        atomicAdd(bad, 1ull);
}

struct inv_ctx {
    probe_device dev;
    unsigned rounds;
    double product_rate; /* G products/s */
    size_t capacity;     /* elements in in, out */
    F *in, *out;
    std::vector<uint32_t> host_in;
    unsigned long long *bad;
    bool all_ok = true;
};

template <probe::inv_share SHARE, int K> static void measure(inv_ctx &c)
{
    const auto kernel = inv_rounds<SHARE, K>;
    const probe_launch l = probe_launch_full(c.dev, kernel, BLOCK);
    const size_t n = l.threads() * K;
    if (n > c.capacity) {
        fprintf(stderr, "probe-inv: K = %d needs %zu elements, %zu allocated\n", K, n, c.capacity);
        exit(1);
    }
    const bench_timing tm = bench_time(0, 3, [&] { kernel<<<l.grid, l.block>>>(c.in, c.out, c.rounds); });
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    /* every x (1/x) on the GPU, a sample on the host */
    BENCH_CHECK(cudaMemset(c.bad, 0, sizeof *c.bad));
    count_not_inverse<<<(unsigned)((n + 255) / 256), 256>>>(c.in, c.out, n, c.bad);
    BENCH_CHECK(cudaGetLastError());
    unsigned long long bad = 0;
    BENCH_CHECK(cudaMemcpy(&bad, c.bad, sizeof bad, cudaMemcpyDeviceToHost));
    std::vector<uint32_t> got(n * 12);
    BENCH_CHECK(cudaMemcpy(got.data(), c.out, n * sizeof(F), cudaMemcpyDeviceToHost));
    uint32_t one[12];
    for (int i = 0; i < 12; i++)
        one[i] = gpu::bls12_381_fp_params::one(i);
    size_t host_bad = 0;
    for (size_t e = 0; e < n; e += 97) {
        uint32_t p[12];
        const probe_fp_host x = probe_fp_from_words(&c.host_in[e * 12]), y = probe_fp_from_words(&got[e * 12]);
        probe_fp_to_words(p, probe_mont_mul_host(x, y));
        host_bad += memcmp(p, one, sizeof p) != 0;
    }
    const bool ok = bad == 0 && host_bad == 0;
    c.all_ok = c.all_ok && ok;
    const double inv_rate = (double)n * c.rounds / tm.median_ms / 1e6; /* G/s */
    const double sharers = SHARE == probe::SHARE_WARP ? 1.0 : BLOCK / 32.0;
    const double predicted = (3.0 * (K - 1) + 12 + 613 / sharers) / K;
    printf("| %s | %d | %u x %u | %d | %d | %.2f | %.3f | %.1f | %.1f | %s |\n",
           SHARE == probe::SHARE_WARP ? "warp" : "block", K, l.per_sm, l.block, l.regs, l.spill_bytes,
           tm.median_ms, inv_rate, c.product_rate / inv_rate, predicted, ok ? "yes" : "NO");
    fflush(stdout);
}

template <probe::inv_share SHARE> static void measure_k(inv_ctx &c, unsigned k)
{
    switch (k) {
    case 1: measure<SHARE, 1>(c); break;
    case 2: measure<SHARE, 2>(c); break;
    case 4: measure<SHARE, 4>(c); break;
    case 8: measure<SHARE, 8>(c); break;
    case 16: measure<SHARE, 16>(c); break;
    default: fprintf(stderr, "gpu-probe-inv: K must be 1, 2, 4, 8 or 16 (got %u)\n", k); exit(2);
    }
}

int main(int argc, char **argv)
{
    inv_ctx c;
    c.rounds = 3;
    const char *ks = "1,2,4,8,16";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rounds"))
            c.rounds = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ks"))
            ks = argv[i + 1];
        else {
            fprintf(stderr, "gpu-probe-inv: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (c.rounds % 2 == 0) {
        fprintf(stderr, "gpu-probe-inv: --rounds must be odd (the result is then the inverse)\n");
        return 2;
    }
    c.dev = probe_device_get();
    c.product_rate = probe_today_product_rate(c.dev, 1000);
    printf("today's product (out-of-line call, 2 chains a thread): %.2f G products/s\n\n", c.product_rate);
    c.capacity = (size_t)c.dev.sms * 2048 * 16;
    c.host_in = probe_random_fp_words(c.capacity, 5);
    BENCH_CHECK(cudaMalloc(&c.in, c.capacity * sizeof(F)));
    BENCH_CHECK(cudaMalloc(&c.out, c.capacity * sizeof(F)));
    BENCH_CHECK(cudaMalloc(&c.bad, sizeof *c.bad));
    BENCH_CHECK(cudaMemcpy(c.in, c.host_in.data(), c.capacity * sizeof(F), cudaMemcpyHostToDevice));
    printf("%u rounds of inversion in place\n\n", c.rounds);
    printf("| inversion shared by | K elements a thread | blocks an SM x threads | registers | spill bytes | ms | "
           "G inversions/s | products an inversion (measured) | (predicted) | x (1/x) = 1 |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    const std::vector<unsigned> kl = bench_parse_logs(ks);
    for (unsigned k : kl)
        measure_k<probe::SHARE_WARP>(c, k);
    for (unsigned k : kl)
        measure_k<probe::SHARE_BLOCK>(c, k);
    printf("\n%s\n", c.all_ok ? "all inverses check" : "FAILED: see above");
    return c.all_ok ? 0 : 1;
}
