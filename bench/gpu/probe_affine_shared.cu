/* build/gpu-probe-affine-shared: affine bucket additions with ONE inversion
 * a block a round (Montgomery's trick over the block's whole batch), the
 * buckets in shared memory or in global memory, against the MSM's XYZZ
 * mixed addition on the same point stream (issue 50). Not part of the
 * library.
 *
 *   build/gpu-probe-affine-shared [--rounds R] [--shared 64,...,1536]
 *                                 [--global 4096,16384,65536] [--threads T]
 *                                 [--tree LOG] [--tree-k K]
 *
 * BLS12-381 G1. The algorithm and its exceptional steps are in
 * probe_affine_step.cuh: a block owns n buckets (--shared: n per block in
 * shared memory, 144 bytes a bucket: x, y and the running product as limb
 * planes; --global: the same planes in global memory), T = min(n,
 * --threads) threads, and each round adds one point to every bucket with
 * one Fermat inversion for the block; the other blocks resident on the SM
 * (batches in flight) run their products meanwhile. The points come from
 * a table of 2^16 random multiples of G (in L2), scattered over it as the
 * MSM's bases are. One launch fills every SM once; a row times it (R
 * rounds: the buckets start at their round-0 points, R - 1 additions each)
 * and the XYZZ chains of the same buckets (probe_points.cuh's
 * xyzz_chains, accumulators in registers, blocks of 128), prints both
 * rates and the products an addition each costs (today's product rate,
 * measured here, over the addition rate), and compares every bucket's end.
 * First, in both memories, an adversarial stream (stream_source:
 * doublings, P + (-P), additions to infinity, infinity added) whose
 * exceptional steps must be the exact counts planted, ends compared the
 * same way. Last, the bit-heavy witness's one large sum (--tree LOG: of
 * 2^LOG points, 22 by default, 0 for none) as a pairwise affine tree, a
 * launch a level, one inversion a block of K pairs a thread (--tree-k,
 * 32), each level timed, the tree's point against XYZZ's sum. Exits 1 if
 * any end differs or a count is off. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_affine_step.cuh"
#include "probe_chains.cuh"

using probe::bucket_planes;
using probe::g1_affine;
using probe::g1_xyzz;
using probe::read_and_clear;
using probe::stream_source;

static const unsigned MAX_THREADS = 128;
/* registers for 3 blocks of 128 an SM (~168 a thread; the global form
 * spills ~200 bytes): three batches in flight where shared memory allows */
static const unsigned BLOCKS_AN_SM = 3;
static const unsigned TABLE_LOG = 16;
static const size_t BUCKET_BYTES = bucket_planes::WORDS_A_BUCKET * 4;

/* Block b's n buckets: src's buckets b n .. b n + n - 1, in shared memory
 * (SHARED; their ends stored to ends[] at the end) or in the global planes
 * (planes + b n WORDS_A_BUCKET, left there). */
template <bool SHARED>
__global__ void __launch_bounds__(MAX_THREADS, BLOCKS_AN_SM)
    affine_buckets(stream_source src, uint32_t *planes, g1_affine *ends, unsigned n, unsigned rounds,
                   bool from_infinity, unsigned long long *kinds)
{
    extern __shared__ uint4 smem[];
    const size_t first = (size_t)blockIdx.x * n;
    const bucket_planes s = bucket_planes::at(
        SHARED ? reinterpret_cast<uint32_t *>(smem) : planes + first * bucket_planes::WORDS_A_BUCKET, n);
    probe::affine_buckets_start(src, s, first, from_infinity);
    probe::affine_buckets_rounds(src, s, first, from_infinity ? 0 : 1, rounds, kinds);
    if (SHARED)
        for (unsigned e = threadIdx.x; e < n; e += blockDim.x)
            gpu::store(ends + first + e, s.bucket(e));
}

/* the global planes' buckets (n a block) -> ends[], for the comparison */
__global__ void planes_to_ends(uint32_t *planes, unsigned n, size_t buckets, g1_affine *ends)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= buckets)
        return;
    const bucket_planes s = bucket_planes::at(planes + i / n * n * bucket_planes::WORDS_A_BUCKET, n);
    gpu::store(ends + i, s.bucket((unsigned)(i % n)));
}

/* one level of the pairwise tree (probe_affine_step.cuh), K pairs a thread */
__global__ void __launch_bounds__(MAX_THREADS, BLOCKS_AN_SM)
    tree_level(const g1_affine *in, size_t n_in, g1_affine *out, unsigned K, unsigned long long *kinds)
{
    probe::affine_tree_level(in, n_in, out, K, blockIdx.x, kinds);
}

/* pts[j] = table[j & mask] */
__global__ void spread_points(const g1_affine *table, uint32_t mask, size_t n, g1_affine *pts)
{
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        gpu::store(pts + j, gpu::load(table + (j & mask)));
}

/* XYZZ's sum of n points in two passes: every thread of the launch sums
 * a strided share in registers (xyzz_add_affine, the MSM's hot loop), then
 * one thread adds those up (xyzz_add_to, untimed) */
__global__ void __launch_bounds__(probe::XYZZ_BLOCK) xyzz_shares(const g1_affine *pts, size_t n, g1_xyzz *shares)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x, j0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    g1_xyzz acc = g1_xyzz::inf();
#pragma unroll 1
    for (size_t j = j0; j < n; j += stride)
        gpu::xyzz_add_affine(acc, gpu::load_ro(pts + j));
    gpu::store(shares + j0, acc);
}
__global__ void xyzz_total(g1_xyzz *shares, size_t count)
{
    for (size_t j = 1; j < count; j++)
        gpu::xyzz_add_to(shares, shares + j);
}

struct shared_ctx {
    probe_device dev;
    unsigned rounds, max_threads;
    unsigned tree_log, tree_k; /* the tree's 2^tree_log points (0: none), pairs a thread */
    size_t smem_limit; /* dynamic shared memory a block may opt into */
    double product_rate;
    double xyzz_rate; /* G additions/s at XYZZ's own best shape (full waves) */
    g1_affine *pts;
    unsigned long long *counter, *kinds;
    bool all_ok = true;
};

/* One configuration: n buckets a block in shared or global memory. */
struct shape {
    bool shared;
    unsigned n, threads;
    size_t smem() const { return shared ? n * BUCKET_BYTES : 0; }
};

struct run_result {
    probe_launch launch;
    double affine_ms, xyzz_ms;
    size_t buckets;
    unsigned long long bad, kinds[probe::STEP_KINDS];
};

/* runs the shape (timed unless `once`), then XYZZ on the same buckets,
 * and compares; false where the shape does not fit (said why) */
static bool run_shape(shared_ctx &c, const shape &sh, bool adversarial, unsigned rounds, bool once, run_result &out)
{
    const auto kernel = sh.shared ? affine_buckets<true> : affine_buckets<false>;
    if (sh.smem() > c.smem_limit) {
        printf("| %s | %u | does not fit: %zu bytes of shared memory a block, %zu allowed |\n",
               sh.shared ? "shared" : "global", sh.n, sh.smem(), c.smem_limit);
        return false;
    }
    BENCH_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh.smem()));
    const probe_launch l = probe_launch_full(c.dev, kernel, sh.threads, sh.smem());
    const size_t buckets = (size_t)l.grid * sh.n;
    const size_t bytes = buckets * (sizeof(g1_affine) + sizeof(g1_xyzz) + (sh.shared ? 0 : BUCKET_BYTES));
    size_t free_b = 0, total_b = 0;
    BENCH_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes > free_b / 10 * 9) {
        printf("| %s | %u | does not fit: %.1f GB of buckets, %.1f GB free |\n", sh.shared ? "shared" : "global",
               sh.n, bytes / 1e9, free_b / 1e9);
        return false;
    }
    g1_affine *ends;
    g1_xyzz *chains;
    uint32_t *planes = nullptr;
    BENCH_CHECK(cudaMalloc(&ends, buckets * sizeof(g1_affine)));
    BENCH_CHECK(cudaMalloc(&chains, buckets * sizeof(g1_xyzz)));
    if (!sh.shared)
        BENCH_CHECK(cudaMalloc(&planes, buckets * BUCKET_BYTES));
    const stream_source src = {c.pts, (1u << TABLE_LOG) - 1, adversarial};
    /* once: one launch each, untimed (the steps counted are one launch's) */
    const auto timed = [once](auto launch) {
        if (!once)
            return bench_time(0, 3, launch);
        launch();
        return bench_timing{0, 0};
    };
    BENCH_CHECK(cudaMemset(c.kinds, 0, probe::STEP_KINDS * sizeof *c.kinds));
    const bench_timing ta = timed([&] {
        kernel<<<l.grid, l.block, sh.smem()>>>(src, planes, ends, sh.n, rounds, adversarial, c.kinds);
    });
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    BENCH_CHECK(cudaMemcpy(out.kinds, c.kinds, sizeof out.kinds, cudaMemcpyDeviceToHost));
    if (!sh.shared) {
        planes_to_ends<<<(unsigned)((buckets + 255) / 256), 256>>>(planes, sh.n, buckets, ends);
        BENCH_CHECK(cudaGetLastError());
    }
    const auto xyzz_kernel = probe::xyzz_chains<stream_source>;
    const probe_launch lx = probe_launch_full(c.dev, xyzz_kernel, probe::XYZZ_BLOCK);
    const bench_timing tx = timed([&] { xyzz_kernel<<<lx.grid, lx.block>>>(src, buckets, rounds, chains); });
    BENCH_CHECK(cudaGetLastError());
    probe::count_different<<<(unsigned)((buckets + 255) / 256), 256>>>(chains, ends, buckets, c.counter);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    out.bad = read_and_clear(c.counter);
    out.launch = l;
    out.affine_ms = ta.median_ms;
    out.xyzz_ms = tx.median_ms;
    out.buckets = buckets;
    BENCH_CHECK(cudaFree(ends));
    BENCH_CHECK(cudaFree(chains));
    if (planes)
        BENCH_CHECK(cudaFree(planes));
    return true;
}

/* the adversarial stream from infinity (6 rounds): the planted counts,
 * every end */
static void check_adversarial(shared_ctx &c, const shape &sh)
{
    run_result r;
    if (!run_shape(c, sh, true, 6, true, r)) {
        c.all_ok = false;
        return;
    }
    unsigned long long want[probe::STEP_KINDS];
    stream_source::planted(r.buckets, want);
    bool ok = r.bad == 0;
    for (int k = probe::STEP_DOUBLE; k < probe::STEP_KINDS; k++)
        ok = ok && r.kinds[k] == want[k];
    c.all_ok = c.all_ok && ok;
    printf("| %s | %u | %zu buckets, 6 rounds | doubling %llu (%llu), P + (-P) %llu (%llu), into infinity %llu "
           "(%llu), infinity added %llu (%llu) | %llu | %s |\n",
           sh.shared ? "shared" : "global", sh.n, r.buckets, r.kinds[probe::STEP_DOUBLE], want[probe::STEP_DOUBLE],
           r.kinds[probe::STEP_TO_INF], want[probe::STEP_TO_INF], r.kinds[probe::STEP_TAKE_P],
           want[probe::STEP_TAKE_P], r.kinds[probe::STEP_KEEP], want[probe::STEP_KEEP], r.bad, ok ? "yes" : "NO");
    fflush(stdout);
}

static void measure(shared_ctx &c, const shape &sh)
{
    run_result r;
    if (!run_shape(c, sh, false, c.rounds, false, r)) {
        fflush(stdout);
        return;
    }
    const bool ok = r.bad == 0;
    for (int k = probe::STEP_DOUBLE; k < probe::STEP_KINDS; k++)
        if (r.kinds[k] != 0) /* distinct points: no exceptional step */
            printf("(%llu exceptional steps of kind %d on distinct points)\n", r.kinds[k], k);
    c.all_ok = c.all_ok && ok;
    const unsigned K = sh.n / sh.threads;
    const double adds = (double)r.buckets * (c.rounds - 1);
    const double ra = adds / r.affine_ms / 1e6, rx = adds / r.xyzz_ms / 1e6; /* G/s */
    /* 5 products and a square (0.77), the scan's 12 / K, the inversion's
     * ~613 warp products (32 lanes' worth) over the block's n */
    const double predicted = 5.77 + 12.0 / K + 613.0 * 32 / sh.n;
    printf("| %s | %u | %u x %u | %u x %u, %d regs, %d spilled | %zu | %.2f | %.1f | %.2f | %.3f | %.3f | %.2fx | "
           "%.1f | %.1f | %s |\n",
           sh.shared ? "shared" : "global", sh.n, sh.threads, K, r.launch.per_sm, r.launch.block, r.launch.regs,
           r.launch.spill_bytes, (size_t)r.launch.per_sm * sh.n * BUCKET_BYTES, r.affine_ms,
           r.affine_ms * 1e3 / (c.rounds - 1), r.xyzz_ms, ra, rx, ra / c.xyzz_rate, c.product_rate / ra, predicted,
           ok ? "yes" : "NO");
    fflush(stdout);
}

/* XYZZ on 8 chains a thread of its own launch (every thread busy to the
 * end: the rows' bucket counts leave some idle in the last pass), the
 * rate the rows' affine rates are set against */
static double xyzz_best_rate(shared_ctx &c)
{
    const auto xyzz_kernel = probe::xyzz_chains<stream_source>;
    const probe_launch lx = probe_launch_full(c.dev, xyzz_kernel, probe::XYZZ_BLOCK);
    const size_t chains = lx.threads() * 8;
    g1_xyzz *out;
    BENCH_CHECK(cudaMalloc(&out, chains * sizeof(g1_xyzz)));
    const stream_source src = {c.pts, (1u << TABLE_LOG) - 1, false};
    const bench_timing t =
        bench_time(0, 3, [&] { xyzz_kernel<<<lx.grid, lx.block>>>(src, chains, c.rounds, out); });
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    BENCH_CHECK(cudaFree(out));
    printf("XYZZ mixed additions, %u x %u threads, 8 chains a thread: %.3f G additions/s (%.1f products an "
           "addition)\n", lx.per_sm, lx.block, (double)chains * (c.rounds - 1) / t.median_ms / 1e6,
           c.product_rate / ((double)chains * (c.rounds - 1) / t.median_ms / 1e6));
    return (double)chains * (c.rounds - 1) / t.median_ms / 1e6;
}

/* The pairwise affine tree over 2^tree_log points (the table repeated):
 * each level timed, its rate beside XYZZ's best; the tree's one point
 * against XYZZ's sum (shares timed too: XYZZ's additions at the width of
 * its launch). */
static void measure_tree(shared_ctx &c)
{
    const size_t n = (size_t)1 << c.tree_log;
    const unsigned T = MAX_THREADS, K = c.tree_k;
    g1_affine *buf[2];
    BENCH_CHECK(cudaMalloc(&buf[0], n * sizeof(g1_affine)));
    BENCH_CHECK(cudaMalloc(&buf[1], (n / 2 + 1) * sizeof(g1_affine)));
    const auto fill = [&] {
        spread_points<<<(unsigned)((n + 255) / 256), 256>>>(c.pts, (1u << TABLE_LOG) - 1, n, buf[0]);
    };
    const probe_launch lt = probe_launch_full(c.dev, tree_level, T);
    std::vector<cudaEvent_t> ev;
    /* levels: points n_l = ceil(n_(l-1) / 2) down to 1; level l reads
     * buf[(l - 1) % 2] (the input at level 1: buf[0]) */
    const auto run = [&](bool timed) {
        fill();
        BENCH_CHECK(cudaMemset(c.kinds, 0, probe::STEP_KINDS * sizeof *c.kinds));
        size_t m = n;
        int l = 0;
        while (m > 1) {
            const size_t pairs = m / 2;
            const unsigned grid = (unsigned)((pairs + (size_t)T * K - 1) / ((size_t)T * K));
            if (timed)
                BENCH_CHECK(cudaEventRecord(ev[l]));
            tree_level<<<grid, T>>>(buf[l % 2], m, buf[(l + 1) % 2], K, c.kinds);
            BENCH_CHECK(cudaGetLastError());
            m = (m + 1) / 2;
            l++;
        }
        if (timed)
            BENCH_CHECK(cudaEventRecord(ev[l]));
        return l;
    };
    const int levels = run(false);
    ev.resize(levels + 1);
    for (cudaEvent_t &e : ev)
        BENCH_CHECK(cudaEventCreate(&e));
    run(true);
    BENCH_CHECK(cudaDeviceSynchronize());
    unsigned long long kinds[probe::STEP_KINDS];
    BENCH_CHECK(cudaMemcpy(kinds, c.kinds, sizeof kinds, cudaMemcpyDeviceToHost));
    g1_affine tree_sum;
    BENCH_CHECK(cudaMemcpy(&tree_sum, buf[levels % 2], sizeof tree_sum, cudaMemcpyDeviceToHost));

    printf("\nPairwise affine tree, %zu points (the table repeated), %u x %u pairs a block (%u an SM at most), "
           "%d regs, %d spilled:\n\n", n, T, K, lt.per_sm, lt.regs, lt.spill_bytes);
    printf("| level | points in | blocks | ms | G add/s | / xyzz best |\n|---|---|---|---|---|---|\n");
    double total = 0;
    size_t m = n;
    for (int l = 0; l < levels; l++) {
        float ms = 0;
        BENCH_CHECK(cudaEventElapsedTime(&ms, ev[l], ev[l + 1]));
        const size_t pairs = m / 2;
        total += ms;
        printf("| %d | %zu | %zu | %.3f | %.3f | %.2fx |\n", l + 1, m, (pairs + (size_t)T * K - 1) / ((size_t)T * K),
               ms, pairs / ms / 1e6, pairs / ms / 1e6 / c.xyzz_rate);
        m = (m + 1) / 2;
    }
    for (cudaEvent_t &e : ev)
        BENCH_CHECK(cudaEventDestroy(e));

    fill();
    const probe_launch lx = probe_launch_full(c.dev, xyzz_shares, probe::XYZZ_BLOCK);
    g1_xyzz *shares;
    BENCH_CHECK(cudaMalloc(&shares, lx.threads() * sizeof(g1_xyzz)));
    const bench_timing tx = bench_time(0, 3, [&] { xyzz_shares<<<lx.grid, lx.block>>>(buf[0], n, shares); });
    xyzz_total<<<1, 1>>>(shares, lx.threads());
    BENCH_CHECK(cudaGetLastError());
    g1_affine *tree_end; /* compared with shares[0], XYZZ's sum, on the device */
    BENCH_CHECK(cudaMalloc(&tree_end, sizeof *tree_end));
    BENCH_CHECK(cudaMemcpy(tree_end, &tree_sum, sizeof tree_sum, cudaMemcpyHostToDevice));
    probe::count_different<<<1, 32>>>(shares, tree_end, 1, c.counter);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    const bool ok = read_and_clear(c.counter) == 0;
    c.all_ok = c.all_ok && ok;
    const double xyzz_adds = (double)(n - lx.threads());
    printf("\ntree: %.3f ms for %zu additions (%.3f G add/s; at XYZZ's best rate %.3f ms); XYZZ shares (%zu "
           "threads) %.3f ms for %.0f additions (%.3f G add/s); steps: doubling %llu, P + (-P) %llu, into "
           "infinity %llu, infinity added %llu; the tree's point %s XYZZ's sum\n",
           total, n - 1, (n - 1) / total / 1e6, (n - 1) / c.xyzz_rate / 1e6, lx.threads(), tx.median_ms, xyzz_adds,
           xyzz_adds / tx.median_ms / 1e6, kinds[probe::STEP_DOUBLE], kinds[probe::STEP_TO_INF],
           kinds[probe::STEP_TAKE_P], kinds[probe::STEP_KEEP], ok ? "equals" : "DIFFERS FROM");
    fflush(stdout);
    BENCH_CHECK(cudaFree(tree_end));
    BENCH_CHECK(cudaFree(shares));
    BENCH_CHECK(cudaFree(buf[0]));
    BENCH_CHECK(cudaFree(buf[1]));
}

static shape shape_of(const shared_ctx &c, bool shared, unsigned n)
{
    const unsigned t = n < c.max_threads ? n : c.max_threads;
    if (n == 0 || t % 32 != 0 || n % t != 0 || n > (1u << 20)) {
        fprintf(stderr, "gpu-probe-affine-shared: %u buckets a block: a multiple of 32 and of --threads when "
                        "larger, at most 2^20\n", n);
        exit(2);
    }
    return {shared, n, t};
}

int main(int argc, char **argv)
{
    shared_ctx c;
    c.rounds = 16;
    c.max_threads = MAX_THREADS;
    c.tree_log = 22;
    c.tree_k = 32;
    const char *shared_list = "64,128,256,512,1024,1536", *global_list = "4096,16384,65536";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rounds"))
            c.rounds = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--shared"))
            shared_list = argv[i + 1];
        else if (!strcmp(argv[i], "--global"))
            global_list = argv[i + 1];
        else if (!strcmp(argv[i], "--threads"))
            c.max_threads = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tree"))
            c.tree_log = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tree-k"))
            c.tree_k = (unsigned)atoi(argv[i + 1]);
        else {
            fprintf(stderr, "gpu-probe-affine-shared: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (argc % 2 == 0) {
        fprintf(stderr, "gpu-probe-affine-shared: option %s needs a value\n", argv[argc - 1]);
        return 2;
    }
    if (c.rounds < 2 || c.rounds > (1u << TABLE_LOG)) {
        fprintf(stderr, "gpu-probe-affine-shared: --rounds must be in [2, %u] (a bucket's points distinct)\n",
                1u << TABLE_LOG);
        return 2;
    }
    if (c.max_threads < 32 || c.max_threads > MAX_THREADS || c.max_threads % 32 != 0) {
        fprintf(stderr, "gpu-probe-affine-shared: --threads must be a multiple of 32 in [32, %u]\n", MAX_THREADS);
        return 2;
    }
    if ((c.tree_log != 0 && (c.tree_log < 8 || c.tree_log > 28)) || c.tree_k < 1 || c.tree_k > 64) {
        fprintf(stderr, "gpu-probe-affine-shared: --tree must be 0 (none) or in [8, 28], --tree-k in [1, 64]\n");
        return 2;
    }
    const std::vector<unsigned> sl = bench_parse_logs(shared_list), gl = bench_parse_logs(global_list);
    c.dev = probe_device_get();
    int optin = 0, dev = 0;
    BENCH_CHECK(cudaGetDevice(&dev));
    BENCH_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    c.smem_limit = (size_t)optin - 32 * sizeof(probe::g1_fp); /* batch_inverse's warp totals */
    c.product_rate = probe_today_product_rate(c.dev, 1000);
    printf("today's product (out-of-line call, 2 chains a thread): %.2f G products/s\n", c.product_rate);
    printf("shared memory a block: %d bytes (opt-in), %zu for buckets (%zu bytes a bucket)\n", optin, c.smem_limit,
           BUCKET_BYTES);
    const size_t table = (size_t)1 << TABLE_LOG;
    BENCH_CHECK(cudaMalloc(&c.counter, sizeof *c.counter));
    BENCH_CHECK(cudaMalloc(&c.kinds, probe::STEP_KINDS * sizeof *c.kinds));
    BENCH_CHECK(cudaMemset(c.counter, 0, sizeof *c.counter));
    c.pts = probe::point_table(table, c.counter);
    printf("BLS12-381 G1, a table of %zu points on the curve\n", table);
    c.xyzz_rate = xyzz_best_rate(c);
    printf("\n");

    printf("Exceptional steps (steps counted (planted)), each bucket's end against XYZZ:\n\n");
    printf("| memory | buckets a block | launch | steps | ends differing | as planted |\n|---|---|---|---|---|---|\n");
    check_adversarial(c, shape_of(c, true, 256));
    check_adversarial(c, shape_of(c, false, 1024));

    printf("\n%u points a bucket (%u additions), buckets from their first point:\n\n", c.rounds, c.rounds - 1);
    printf("| memory | buckets a block (n) | threads x K | blocks an SM x threads | buckets' bytes an SM | "
           "affine ms | us a round | xyzz ms (these buckets) | affine G add/s | xyzz G add/s (these buckets) | "
           "affine / xyzz (best shape) | affine products an addition (measured) | (predicted) | same ends |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (unsigned n : sl)
        measure(c, shape_of(c, true, n));
    for (unsigned n : gl)
        measure(c, shape_of(c, false, n));
    if (c.tree_log)
        measure_tree(c);
    printf("\n%s\n", c.all_ok ? "every end equal to XYZZ's, every planted step counted" : "FAILED: see above");
    return c.all_ok ? 0 : 1;
}
