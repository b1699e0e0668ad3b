/* build/gpu-bench: times the CUDA backend on device-resident data (the _dev
 * calls of src/gpu/gpu_bench.h), with CUDA events on the context's stream:
 * one warm-up call (it also builds the NTT twiddles), then the median of
 * --runs calls.
 *
 *   build/gpu-bench [--runs N] [--msm-logs 20,22,24] [--msm-g1-extra 26]
 *                   [--ntt-logs 20,22,24,26,27] [--coset-logs 20,24]
 *                   [--curves bn254,bls12_381]
 *                   [--sweep-log 24] [--sweep-c 16,18,22]
 *                   [--table-logs 20,22,24,26] [--shape random|bits]
 *                   [--lanes L] [--sweep-lanes -1,256,1024]
 *                   [--overlap-logs 26,27]
 *
 * --sweep-c times G1 MSMs of 2^sweep-log points again with each window
 * size (rows msm_g1_cNN); the plain rows use the cost model's choice.
 * --table-logs: at those of the MSM sizes, MSMs over window tables of the
 * bases too (rows msm_g1_t, msm_g2_t; the table's size and build time are
 * printed, not timed in the rows; a size whose table, or any MSM row whose
 * memory, the card does not have is skipped with a line saying so, as
 * 2^26 G1 tables on an 80 GB H100). --lanes: every MSM's first bucket
 * pass in L affine lanes a thread (cuzk_gpu_set_msm_lanes; -1 XYZZ, 0 the
 * automatic choice, the default); --sweep-lanes times G1 and G2 MSMs of
 * 2^sweep-log points again with each (rows msm_g1_lNN, msm_g2_lNN; lx the
 * XYZZ walk). Each MSM row also gets its steps' times
 * from the last run (second table). --overlap-logs: a proof's coset chain
 * (coset_h) and a G1 MSM of the same size, each alone on its own context
 * and then both at once from two threads (rows overlap_h, overlap_m,
 * overlap_hm, wall times): whether the chain's latency-bound kernels leave
 * room an MSM beside them could fill.
 *
 * Inputs (bench/gpu/bench_common.cuh, shared with bench/peers/sppark_bench.cu):
 * MSM scalars of --shape (random: uniform below 2^(bits-1), the default;
 * bits: a SHA-256 witness's mix of zeros, ones, small and full-size
 * values), drawn on the device; bases 2^16 distinct points made on the
 * host, repeated to n. NTT data is random. Prints one table. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu/gpu_internal.cuh"
#include "bench_common.cuh"

static void bench_ok(int rc, const cuzk_error &err, const char *what)
{
    if (rc) {
        fprintf(stderr, "gpu-bench: %s: status %d: %s\n", what, rc, err.msg);
        exit(1);
    }
}

/* ---- inputs (bench_common.cuh) ---- */

/* the shape of every MSM's scalars (--shape), its first pass's lanes (--lanes) */
static bench_shape msm_shape = BENCH_SHAPE_RANDOM;
static int msm_lanes = CUZK_GPU_MSM_LANES_AUTO;

static void fill_scalars(cuzk_gpu *g, void *dev, size_t n, unsigned bits, uint64_t seed, bench_shape shape)
{
    BENCH_CHECK(bench_fill_scalars(g->stream, dev, n, bits, seed, shape));
}

template <class A> static void tile_points(void *dev, size_t n, const std::vector<A> &pts)
{
    BENCH_CHECK(bench_tile_points(dev, n, pts));
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
    text += std::string("; ") + g->prof.plan;
    steps_row r = {};
    snprintf(r.op, sizeof r.op, "%s", op);
    snprintf(r.curve, sizeof r.curve, "%s", curve);
    r.lg = lg;
    r.text = text;
    steps.push_back(r);
}

/* a row of the table, printed as it comes (clock: how it was timed) */
static void add_row(const char *op, const char *curve, unsigned lg, const bench_timing &t, int runs,
                    const char *clock)
{
    row r = {};
    snprintf(r.op, sizeof r.op, "%s", op);
    snprintf(r.curve, sizeof r.curve, "%s", curve);
    r.lg = lg;
    r.median_ms = t.median_ms;
    r.min_ms = t.min_ms;
    r.runs = runs;
    table.push_back(r);
    printf("  %-10s %-10s 2^%-3u %10.3f ms (min %.3f, %d runs%s)\n", op, curve, lg, r.median_ms, r.min_ms, runs, clock);
    fflush(stdout);
}

/* median and minimum of `runs` timed calls of fn after one warm-up */
template <class Fn> static void time_it(cuzk_gpu *g, const char *op, const char *curve, unsigned lg, int runs, Fn fn)
{
    add_row(op, curve, lg, bench_time(g->stream, runs, fn), runs, "");
}

/* ---- benchmarks ---- */

static void bench_ntt(cuzk_gpu *g, cuzk_curve_id curve, const char *name, unsigned bits, unsigned lg, int runs)
{
    size_t n = (size_t)1 << lg;
    void *d = nullptr;
    cuzk_error err = {};
    bench_ok(cuzk_gpu_alloc(g, &d, n * 32, &err), err, "alloc");
    fill_scalars(g, d, n, bits, 7 + lg, BENCH_SHAPE_RANDOM);
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
    fill_scalars(g, d, 3 * n, bits, 11 + lg, BENCH_SHAPE_RANDOM);
    time_it(g, "coset_h", name, lg, runs, [&] {
        bench_ok(cuzk_gpu_coset_h_dev(g, curve, a, a + n * 32, a + 2 * n * 32, n, &err), err, "coset_h");
    });
    cuzk_gpu_free(g, d);
}

/* A row that does not fit the card: rc CUZK_ERR_NOMEM from an allocation
 * (or from the check before it) prints the line saying the row is skipped
 * and gives false; 0 gives true; anything else ends the run. */
static bool fits(int rc, const cuzk_error &err, const char *op, const char *curve, unsigned lg)
{
    if (rc != CUZK_ERR_NOMEM) {
        bench_ok(rc, err, op);
        return true;
    }
    printf("  %-10s %-10s 2^%-3u skipped, does not fit the card: %s\n", op, curve, lg, err.msg);
    fflush(stdout);
    return false;
}

/* CUZK_ERR_NOMEM unless `bytes` of device memory are free, after the
 * device's pool gives back what it holds unused (earlier rows' scratch) */
static int device_has(cuzk_gpu *g, size_t bytes, const char *what, cuzk_error *err)
{
    size_t free_bytes = 0, total = 0;
    BENCH_CHECK(cudaMemPoolTrimTo(g->pool, 0));
    BENCH_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (bytes <= free_bytes)
        return 0;
    return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: %.1f GiB, %.1f GiB free of %.1f", what, bytes / 1073741824.0,
                     free_bytes / 1073741824.0, total / 1073741824.0);
}

/* An MSM row's device memory (bases, scalars, the table), freed and the
 * window given back to the cost model at the end of the row, whichever
 * way it ends */
struct msm_row_memory {
    cuzk_gpu *g;
    void *bases = nullptr, *scalars = nullptr;
    cuzk_gpu_msm_table *table = nullptr;
    ~msm_row_memory()
    {
        cuzk_gpu_msm_table_free(table);
        cuzk_gpu_free(g, bases);
        cuzk_gpu_free(g, scalars);
        cuzk_error err = {};
        bench_ok(cuzk_gpu_set_msm_window(g, 0, &err), err, "window");
    }
};

/* c = 0: the cost model's window; the op name tells. With `table`, over a
 * window table of the bases, made (and timed) once first, when the table
 * with its bases and scalars fits in free device memory. lanes: as
 * cuzk_gpu_set_msm_lanes (default: --lanes). A row whose memory (inputs,
 * table, scratch) the card does not have is skipped with a line saying so. */
template <class A, class J>
static void bench_msm(cuzk_gpu *g, cuzk_curve_id curve, bool g2, const char *op, const char *name, unsigned bits,
                      const std::vector<A> &pts, unsigned lg, int runs, unsigned c = 0, bool table = false,
                      int lanes = msm_lanes)
{
    size_t n = (size_t)1 << lg;
    cuzk_error err = {};
    msm_row_memory mem = {g};
    bench_ok(cuzk_gpu_set_msm_window(g, c, &err), err, "window"); /* first: a table's windows are the context's */
    bench_ok(cuzk_gpu_set_msm_lanes(g, lanes, &err), err, "lanes");
    const size_t table_bytes = table ? cuzk_gpu_msm_table_bytes(g, curve, g2, n) : 0;
    if (table && !fits(device_has(g, table_bytes + n * (sizeof(A) + 32), "a window table with its bases and scalars",
                                  &err), err, op, name, lg))
        return;
    if (!fits(cuzk_gpu_alloc(g, &mem.bases, n * sizeof(A), &err), err, op, name, lg) ||
        !fits(cuzk_gpu_alloc(g, &mem.scalars, n * 32, &err), err, op, name, lg))
        return;
    tile_points(mem.bases, n, pts);
    fill_scalars(g, mem.scalars, n, bits, 3 + lg, msm_shape);
    J result;
    if (table) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!fits(cuzk_gpu_msm_table_make(g, curve, g2, mem.bases, n, &mem.table, &err), err, op, name, lg))
            return;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        printf("  %-10s %-10s 2^%-3u table of %.1f GiB made in %.2f s\n", op, name, lg, table_bytes / 1073741824.0, s);
        cuzk_gpu_free(g, mem.bases); /* the table's row 0 holds them */
        mem.bases = nullptr;
    }
    auto msm = [&] {
        return mem.table ? cuzk_gpu_msm_table_run(g, mem.table, &result, mem.scalars, n, &err)
                         : (g2 ? cuzk_gpu_msm_g2_dev : cuzk_gpu_msm_g1_dev)(g, curve, &result, mem.bases, mem.scalars,
                                                                           n, &err);
    };
    if (!fits(msm(), err, op, name, lg)) /* its scratch, from the pool */
        return;
    g->prof.on = 1;
    time_it(g, op, name, lg, runs, [&] { bench_ok(msm(), err, op); });
    record_steps(g, op, name, lg);
    g->prof.on = 0;
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

static double wall_ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/* --overlap-logs: coset_h on g, a G1 MSM on a second context, alone and at
 * once (wall clock around host calls that wait for their streams). */
template <class A, class J>
static void bench_overlap(cuzk_gpu *g, cuzk_curve_id curve, const char *name, unsigned bits, const std::vector<A> &pts,
                          unsigned lg, int runs)
{
    const size_t n = (size_t)1 << lg;
    cuzk_error err = {};
    cuzk_gpu *g2 = nullptr;
    bench_ok(cuzk_gpu_open(&g2, 0, &err), err, "open a second context");
    void *abc = nullptr, *bases = nullptr, *scalars = nullptr;
    bench_ok(cuzk_gpu_alloc(g, &abc, 3 * n * 32, &err), err, "alloc a, b, c");
    bench_ok(cuzk_gpu_alloc(g2, &bases, n * sizeof(A), &err), err, "alloc bases");
    bench_ok(cuzk_gpu_alloc(g2, &scalars, n * 32, &err), err, "alloc scalars");
    fill_scalars(g, abc, 3 * n, bits, 11 + lg, BENCH_SHAPE_RANDOM);
    tile_points(bases, n, pts);
    fill_scalars(g2, scalars, n, bits, 3 + lg, BENCH_SHAPE_RANDOM);
    BENCH_CHECK(cudaDeviceSynchronize());
    char *a = static_cast<char *>(abc);
    J result;
    auto chain = [&] {
        cuzk_error e = {};
        bench_ok(cuzk_gpu_coset_h_dev(g, curve, a, a + n * 32, a + 2 * n * 32, n, &e), e, "coset_h");
        BENCH_CHECK(cudaStreamSynchronize(g->stream));
    };
    auto msm = [&] {
        cuzk_error e = {};
        bench_ok(cuzk_gpu_msm_g1_dev(g2, curve, &result, bases, scalars, n, &e), e, "msm");
        BENCH_CHECK(cudaStreamSynchronize(g2->stream));
    };
    chain();
    msm(); /* warm-up: twiddles, buffers */
    std::vector<double> h, m, hm;
    for (int r = 0; r < runs; r++) {
        auto t0 = std::chrono::steady_clock::now();
        chain();
        h.push_back(wall_ms_since(t0));
        t0 = std::chrono::steady_clock::now();
        msm();
        m.push_back(wall_ms_since(t0));
        t0 = std::chrono::steady_clock::now();
        std::thread other(msm);
        chain();
        other.join();
        hm.push_back(wall_ms_since(t0));
    }
    add_row("overlap_h", name, lg, bench_timing_of(h), runs, ", wall");
    add_row("overlap_m", name, lg, bench_timing_of(m), runs, ", wall");
    add_row("overlap_hm", name, lg, bench_timing_of(hm), runs, ", wall");
    cuzk_gpu_free(g, abc);
    cuzk_gpu_free(g2, bases);
    cuzk_gpu_free(g2, scalars);
    cuzk_gpu_close(g2);
}

/* the row name of a window-sweep MSM */
static const char *sweep_name(unsigned c)
{
    static char names[32][16];
    snprintf(names[c % 32], sizeof names[0], "msm_g1_c%u", c);
    return names[c % 32];
}

/* the row name of a lanes-sweep MSM */
static const char *lanes_name(bool g2, int lanes)
{
    static char names[64][16];
    static unsigned next;
    char *r = names[next++ % 64];
    if (lanes == CUZK_GPU_MSM_LANES_XYZZ)
        snprintf(r, sizeof names[0], "msm_g%d_lx", g2 ? 2 : 1);
    else
        snprintf(r, sizeof names[0], "msm_g%d_l%d", g2 ? 2 : 1, lanes);
    return r;
}

/* sizes of a curve's MSM rows: G1 at g1, G2 at g2, over tables at those
 * in tables, G1 at 2^sweep_log with each window of sweep, G1 and G2 there
 * with each lane count of lanes */
struct msm_sizes {
    std::vector<unsigned> g1, g2, tables, sweep;
    std::vector<int> lanes;
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
    for (int l : s.lanes)
        bench_msm<A1, J1>(g, curve, false, lanes_name(false, l), name, bits, p1, s.sweep_log, runs, 0, false, l);
    const std::vector<A2> p2 = g2_points(1 << 16);
    bench_msm_rows<A2, J2>(g, curve, true, name, bits, p2, s.g2, s.tables, runs);
    for (int l : s.lanes)
        bench_msm<A2, J2>(g, curve, true, lanes_name(true, l), name, bits, p2, s.sweep_log, runs, 0, false, l);
}

int main(int argc, char **argv)
{
    int runs = 5;
    const char *msm_logs = "20,22,24", *g1_extra = "26", *ntt_logs = "20,22,24,26,27", *coset_logs = "20,24";
    const char *curves = "bn254,bls12_381", *sweep_c = "16,18,22", *table_logs = "20,22,24,26", *sweep_lanes = "";
    const char *overlap_logs = "";
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
        else if (!strcmp(argv[i], "--lanes"))
            msm_lanes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--overlap-logs"))
            overlap_logs = argv[i + 1];
        else if (!strcmp(argv[i], "--sweep-lanes"))
            sweep_lanes = argv[i + 1];
        else if (!strcmp(argv[i], "--shape")) {
            if (bench_shape_from_name(argv[i + 1], &msm_shape)) {
                fprintf(stderr, "gpu-bench: --shape random|bits, not %s\n", argv[i + 1]);
                return 2;
            }
        }
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
    printf("gpu-bench: %s, %d SMs, %.0f GiB; median of %d runs after a warm-up; MSM scalars %s\n", prop.name,
           prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, runs, bench_shape_names[msm_shape]);

    std::vector<unsigned> msm = bench_parse_logs(msm_logs), extra = bench_parse_logs(g1_extra), ntt = bench_parse_logs(ntt_logs),
                          coset = bench_parse_logs(coset_logs), sweep = bench_parse_logs(sweep_c),
                          tables = bench_parse_logs(table_logs), overlap = bench_parse_logs(overlap_logs);
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
        std::vector<int> lanes;
        for (const char *at = sweep_lanes; *at;) {
            char *end;
            lanes.push_back((int)strtol(at, &end, 10));
            at = *end == ',' ? end + 1 : end + strlen(end);
        }
        const msm_sizes sizes = {g1, msm, tables, sweep, lanes, sweep_log};
        if (c == 0)
            bench_curve_msms<bn254_g1_affine, bn254_g1_jac, bn254_g2_affine, bn254_g2_jac>(
                g, curve, name, bits, bn254_g1_bench_points, bn254_g2_bench_points, sizes, runs);
        else
            bench_curve_msms<bls12_381_g1_affine, bls12_381_g1_jac, bls12_381_g2_affine, bls12_381_g2_jac>(
                g, curve, name, bits, bls12_381_g1_bench_points, bls12_381_g2_bench_points, sizes, runs);
        for (unsigned lg : overlap)
            if (c == 0)
                bench_overlap<bn254_g1_affine, bn254_g1_jac>(g, curve, name, bits, bn254_g1_bench_points(1 << 16), lg,
                                                             runs);
            else
                bench_overlap<bls12_381_g1_affine, bls12_381_g1_jac>(g, curve, name, bits,
                                                                     bls12_381_g1_bench_points(1 << 16), lg, runs);
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
