/* build/gpu-bench: times the CUDA backend on device-resident data (the _dev
 * calls of gpu.h), with CUDA events on the context's stream: one warm-up
 * call (it also builds the NTT twiddles), then the median of --runs calls.
 *
 *   build/gpu-bench [--runs N] [--msm-logs 20,22,24] [--msm-g1-extra 26]
 *                   [--ntt-logs 20,22,24,26,27] [--coset-logs 20,24]
 *                   [--curves bn254,bls12_381]
 *                   [--sweep-log 24] [--sweep-c 16,18,22]
 *                   [--table-logs 20,22,24,26]
 *
 * --sweep-c times G1 MSMs of 2^sweep-log points again with each window
 * size (rows msm_g1_cNN); the plain rows use the cost model's choice.
 * --table-logs: at those of the MSM sizes, MSMs over window tables of the
 * bases too (rows msm_g1_t, msm_g2_t; the table's size and build time are
 * printed, not timed in the rows). Each MSM row also gets its steps' times
 * from the last run (second table).
 *
 * Inputs: scalars are random below 2^(bits-1) (drawn on the device); bases
 * are 2^16 distinct points P_{i+1} = 2 P_i + Q made on the host with the
 * CPU code, repeated to n (the arithmetic per point is that of distinct
 * points; an equal pair landing in one bucket, ~0.4% at 2^24, takes the
 * doubling path). NTT data is random. Prints one table. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu/gpu_internal.cuh"

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
            fprintf(stderr, "gpu-bench: %s at %s:%d: %s\n", #expr, __FILE__, __LINE__,        \
                    cudaGetErrorString(e_));                                                   \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static void bench_ok(int rc, const cuzk_error &err, const char *what)
{
    if (rc) {
        fprintf(stderr, "gpu-bench: %s: status %d: %s\n", what, rc, err.msg);
        exit(1);
    }
}

/* ---- inputs ---- */

static __device__ __forceinline__ uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* n elements of 4 words, each below 2^(bits-1) */
static __global__ void random_words_kernel(uint64_t *out, size_t n, uint64_t seed, unsigned bits)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int w = 0; w < 4; w++)
        out[4 * i + w] = mix64(seed + 0x9e3779b97f4a7c15ULL * (4 * i + w + 1));
    out[4 * i + 3] &= (1ULL << (bits - 1 - 192)) - 1;
}

static void fill_random(cuzk_gpu *g, void *dev, size_t n, unsigned bits, uint64_t seed)
{
    random_words_kernel<<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>(static_cast<uint64_t *>(dev), n, seed,
                                                                          bits);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaStreamSynchronize(g->stream));
}

static uint64_t host_seed = 0x1234abcdULL;
static uint64_t host_rand(void) { return cuzk_splitmix64(&host_seed); }

/* count distinct affine points P_{i+1} = 2 P_i + Q of group G */
#define MAKE_POINTS(G, FQ)                                                                     \
    static std::vector<G##_affine> G##_points(size_t count)                                    \
    {                                                                                          \
        std::vector<G##_jac> jac(count);                                                       \
        std::vector<FQ> scratch(count);                                                        \
        std::vector<G##_affine> out(count);                                                    \
        G##_affine gen;                                                                        \
        G##_jac g, p, q;                                                                       \
        uint64_t kp[4] = {host_rand(), host_rand(), host_rand(), 0}, kq[4] = {host_rand(), 0, 0, 0}; \
        G##_generator(&gen);                                                                   \
        G##_jac_from_affine(&g, &gen);                                                         \
        G##_jac_mul_var(&p, &g, kp, 192);                                                      \
        G##_jac_mul_var(&q, &g, kq, 64);                                                       \
        for (size_t i = 0; i < count; i++) {                                                   \
            jac[i] = p;                                                                        \
            G##_jac_dbl(&p, &p);                                                               \
            G##_jac_add(&p, &p, &q);                                                           \
        }                                                                                      \
        G##_jac_batch_to_affine(out.data(), jac.data(), count, scratch.data());                \
        return out;                                                                            \
    }
MAKE_POINTS(bn254_g1, bn254_fp)
MAKE_POINTS(bn254_g2, bn254_fp2)
MAKE_POINTS(bls12_381_g1, bls12_381_fp)
MAKE_POINTS(bls12_381_g2, bls12_381_fp2)

/* dev[0..n) <- the distinct points repeated */
template <class A> static void tile_points(void *dev, size_t n, const std::vector<A> &pts)
{
    size_t have = std::min(n, pts.size());
    BENCH_CHECK(cudaMemcpy(dev, pts.data(), have * sizeof(A), cudaMemcpyHostToDevice));
    char *base = static_cast<char *>(dev);
    while (have < n) {
        size_t more = std::min(have, n - have);
        BENCH_CHECK(cudaMemcpy(base + have * sizeof(A), base, more * sizeof(A), cudaMemcpyDeviceToDevice));
        have += more;
    }
    BENCH_CHECK(cudaStreamSynchronize(cudaStreamLegacy)); /* the MSMs run on a non-blocking stream */
}

/* ---- timing ---- */

struct row {
    char op[16], curve[16];
    unsigned lg;
    double median_ms, min_ms;
    int runs;
};
static std::vector<row> table;

/* the MSM steps of the last call, from the context's profiling events */
struct steps_row {
    char op[16], curve[16];
    unsigned lg;
    std::string text;
};
static std::vector<steps_row> steps;

static void record_steps(cuzk_gpu *g, const char *op, const char *curve, unsigned lg)
{
    std::string text;
    for (int i = 1; i < g->prof.n; i++) {
        float ms = 0;
        BENCH_CHECK(cudaEventElapsedTime(&ms, g->prof.ev[i - 1], g->prof.ev[i]));
        char buf[64];
        snprintf(buf, sizeof buf, "%s%s %.2f", i > 1 ? ", " : "", g->prof.name[i], ms);
        text += buf;
    }
    steps_row r = {};
    snprintf(r.op, sizeof r.op, "%s", op);
    snprintf(r.curve, sizeof r.curve, "%s", curve);
    r.lg = lg;
    r.text = text;
    steps.push_back(r);
}

/* median and minimum of `runs` timed calls of fn after one warm-up */
template <class Fn> static void time_it(cuzk_gpu *g, const char *op, const char *curve, unsigned lg, int runs, Fn fn)
{
    cudaEvent_t a, b;
    BENCH_CHECK(cudaEventCreate(&a));
    BENCH_CHECK(cudaEventCreate(&b));
    fn();
    std::vector<double> ms;
    for (int r = 0; r < runs; r++) {
        BENCH_CHECK(cudaEventRecord(a, g->stream));
        fn();
        BENCH_CHECK(cudaEventRecord(b, g->stream));
        BENCH_CHECK(cudaEventSynchronize(b));
        float t = 0;
        BENCH_CHECK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    row r = {};
    snprintf(r.op, sizeof r.op, "%s", op);
    snprintf(r.curve, sizeof r.curve, "%s", curve);
    r.lg = lg;
    r.median_ms = ms[ms.size() / 2];
    r.min_ms = ms[0];
    r.runs = runs;
    table.push_back(r);
    printf("  %-10s %-10s 2^%-3u %10.3f ms (min %.3f, %d runs)\n", op, curve, lg, r.median_ms, r.min_ms, runs);
    fflush(stdout);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
}

/* ---- benchmarks ---- */

static void bench_ntt(cuzk_gpu *g, cuzk_curve_id curve, const char *name, unsigned bits, unsigned lg, int runs)
{
    size_t n = (size_t)1 << lg;
    void *d = nullptr;
    cuzk_error err = {};
    bench_ok(cuzk_gpu_alloc(g, &d, n * 32, &err), err, "alloc");
    fill_random(g, d, n, bits, 7 + lg);
    time_it(g, "ntt", name, lg, runs, [&] { bench_ok(cuzk_gpu_ntt_dev(g, curve, d, n, 0, &err), err, "ntt"); });
    cuzk_gpu_free(g, d);
}

static void bench_coset(cuzk_gpu *g, cuzk_curve_id curve, const char *name, unsigned bits, unsigned lg, int runs)
{
    size_t n = (size_t)1 << lg;
    void *d = nullptr;
    cuzk_error err = {};
    bench_ok(cuzk_gpu_alloc(g, &d, 3 * n * 32, &err), err, "alloc");
    char *a = static_cast<char *>(d);
    fill_random(g, d, 3 * n, bits, 11 + lg);
    time_it(g, "coset_h", name, lg, runs, [&] {
        bench_ok(cuzk_gpu_coset_h_dev(g, curve, a, a + n * 32, a + 2 * n * 32, n, &err), err, "coset_h");
    });
    cuzk_gpu_free(g, d);
}

/* c = 0: the cost model's window; the op name tells. With `table`, over a
 * window table of the bases, made (and timed) once first. */
template <class A, class J>
static void bench_msm(cuzk_gpu *g, cuzk_curve_id curve, bool g2, const char *op, const char *name, unsigned bits,
                      const std::vector<A> &pts, unsigned lg, int runs, unsigned c = 0, bool table = false)
{
    size_t n = (size_t)1 << lg;
    void *bases = nullptr, *scalars = nullptr;
    cuzk_error err = {};
    bench_ok(cuzk_gpu_alloc(g, &bases, n * sizeof(A), &err), err, "alloc bases");
    bench_ok(cuzk_gpu_alloc(g, &scalars, n * 32, &err), err, "alloc scalars");
    tile_points(bases, n, pts);
    fill_random(g, scalars, n, bits, 3 + lg);
    J result;
    bench_ok(cuzk_gpu_set_msm_window(g, c, &err), err, "window");
    cuzk_gpu_msm_table *t = nullptr;
    if (table) {
        const auto t0 = std::chrono::steady_clock::now();
        bench_ok(cuzk_gpu_msm_table_make(g, curve, g2, bases, n, &t, &err), err, "table");
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        printf("  %-10s %-10s 2^%-3u table of %.1f GiB made in %.2f s\n", op, name, lg,
               cuzk_gpu_msm_table_bytes(g, curve, g2, n) / 1073741824.0, s);
        cuzk_gpu_free(g, bases); /* the table's row 0 holds them */
        bases = nullptr;
    }
    g->prof.on = 1;
    time_it(g, op, name, lg, runs, [&] {
        if (t)
            bench_ok(cuzk_gpu_msm_table_run(g, t, &result, scalars, n, &err), err, op);
        else
            bench_ok((g2 ? cuzk_gpu_msm_g2_dev : cuzk_gpu_msm_g1_dev)(g, curve, &result, bases, scalars, n, &err),
                     err, op);
    });
    record_steps(g, op, name, lg);
    g->prof.on = 0;
    cuzk_gpu_msm_table_free(t);
    bench_ok(cuzk_gpu_set_msm_window(g, 0, &err), err, "window");
    cuzk_gpu_free(g, bases);
    cuzk_gpu_free(g, scalars);
}

/* Rows op (plain) at each of logs, then op_t (over a window table) at
 * those of them also in tables. */
template <class A, class J>
static void bench_msm_rows(cuzk_gpu *g, cuzk_curve_id curve, bool g2, const char *name, unsigned bits,
                           const std::vector<A> &pts, const std::vector<unsigned> &logs,
                           const std::vector<unsigned> &tables, int runs)
{
    const char *op = g2 ? "msm_g2" : "msm_g1", *op_t = g2 ? "msm_g2_t" : "msm_g1_t";
    for (unsigned lg : logs)
        bench_msm<A, J>(g, curve, g2, op, name, bits, pts, lg, runs);
    for (unsigned lg : logs)
        if (std::find(tables.begin(), tables.end(), lg) != tables.end())
            bench_msm<A, J>(g, curve, g2, op_t, name, bits, pts, lg, runs, 0, true);
}

/* the row name of a window-sweep MSM */
static const char *sweep_name(unsigned c)
{
    static char names[32][16];
    snprintf(names[c % 32], sizeof names[0], "msm_g1_c%u", c);
    return names[c % 32];
}

/* sizes of a curve's MSM rows: G1 at g1, G2 at g2, over tables at those
 * in tables, and G1 at 2^sweep_log with each window of sweep */
struct msm_sizes {
    std::vector<unsigned> g1, g2, tables, sweep;
    unsigned sweep_log;
};

/* The MSM rows of one curve, on 2^16 distinct points of each group */
template <class A1, class J1, class A2, class J2>
static void bench_curve_msms(cuzk_gpu *g, cuzk_curve_id curve, const char *name, unsigned bits,
                             std::vector<A1> (*g1_points)(size_t), std::vector<A2> (*g2_points)(size_t),
                             const msm_sizes &s, int runs)
{
    const std::vector<A1> p1 = g1_points(1 << 16);
    bench_msm_rows<A1, J1>(g, curve, false, name, bits, p1, s.g1, s.tables, runs);
    for (unsigned c : s.sweep)
        bench_msm<A1, J1>(g, curve, false, sweep_name(c), name, bits, p1, s.sweep_log, runs, c);
    bench_msm_rows<A2, J2>(g, curve, true, name, bits, g2_points(1 << 16), s.g2, s.tables, runs);
}

static std::vector<unsigned> parse_logs(const char *s)
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

int main(int argc, char **argv)
{
    int runs = 5;
    const char *msm_logs = "20,22,24", *g1_extra = "26", *ntt_logs = "20,22,24,26,27", *coset_logs = "20,24";
    const char *curves = "bn254,bls12_381", *sweep_c = "16,18,22", *table_logs = "20,22,24,26";
    unsigned sweep_log = 24;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--runs"))
            runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--msm-logs"))
            msm_logs = argv[i + 1];
        else if (!strcmp(argv[i], "--msm-g1-extra"))
            g1_extra = argv[i + 1];
        else if (!strcmp(argv[i], "--ntt-logs"))
            ntt_logs = argv[i + 1];
        else if (!strcmp(argv[i], "--coset-logs"))
            coset_logs = argv[i + 1];
        else if (!strcmp(argv[i], "--curves"))
            curves = argv[i + 1];
        else if (!strcmp(argv[i], "--sweep-log"))
            sweep_log = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sweep-c"))
            sweep_c = argv[i + 1];
        else if (!strcmp(argv[i], "--table-logs"))
            table_logs = argv[i + 1];
        else {
            fprintf(stderr, "gpu-bench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    cuzk_gpu *g = nullptr;
    cuzk_error err = {};
    bench_ok(cuzk_gpu_open(&g, 0, &err), err, "open");
    cudaDeviceProp prop;
    BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("gpu-bench: %s, %d SMs, %.0f GiB; median of %d runs after a warm-up\n", prop.name,
           prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, runs);

    std::vector<unsigned> msm = parse_logs(msm_logs), extra = parse_logs(g1_extra), ntt = parse_logs(ntt_logs),
                          coset = parse_logs(coset_logs), sweep = parse_logs(sweep_c),
                          tables = parse_logs(table_logs);
    for (int c = 0; c < 2; c++) {
        const char *name = c == 0 ? "bn254" : "bls12_381";
        if (!strstr(curves, name))
            continue;
        cuzk_curve_id curve = c == 0 ? CUZK_CURVE_BN254 : CUZK_CURVE_BLS12_381;
        unsigned bits = c == 0 ? BN254_FR_BITS : BLS12_381_FR_BITS;
        for (unsigned lg : ntt)
            bench_ntt(g, curve, name, bits, lg, runs);
        for (unsigned lg : coset)
            bench_coset(g, curve, name, bits, lg, runs);
        std::vector<unsigned> g1 = msm;
        g1.insert(g1.end(), extra.begin(), extra.end());
        const msm_sizes sizes = {g1, msm, tables, sweep, sweep_log};
        if (c == 0)
            bench_curve_msms<bn254_g1_affine, bn254_g1_jac, bn254_g2_affine, bn254_g2_jac>(
                g, curve, name, bits, bn254_g1_points, bn254_g2_points, sizes, runs);
        else
            bench_curve_msms<bls12_381_g1_affine, bls12_381_g1_jac, bls12_381_g2_affine, bls12_381_g2_jac>(
                g, curve, name, bits, bls12_381_g1_points, bls12_381_g2_points, sizes, runs);
    }
    cuzk_gpu_close(g);

    printf("\n%-10s %-10s %6s %12s %12s %5s\n", "op", "curve", "log2n", "median_ms", "min_ms", "runs");
    for (const row &r : table)
        printf("%-10s %-10s %6u %12.3f %12.3f %5d\n", r.op, r.curve, r.lg, r.median_ms, r.min_ms, r.runs);
    printf("\nMSM steps of the last run, ms:\n");
    for (const steps_row &r : steps)
        printf("%-10s %-10s %6u  %s\n", r.op, r.curve, r.lg, r.text.c_str());
    return 0;
}
