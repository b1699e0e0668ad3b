/* build/peers/sppark-bench: times sppark (supranational/sppark) on one GPU,
 * on the inputs build/gpu-bench times cuzk on (bench/gpu/bench_common.cuh:
 * same bases, same scalars, same NTT data, from the same seeds), for the
 * same-run comparison of issue 14 (bench/peers/compare-sppark.sh).
 * This file is ours; sppark's sources are not in this tree: build with
 * bench/peers/build-sppark.sh, which exports the fetched mirrors of sppark
 * and blst (sppark's host-side field arithmetic) under build/peers.
 *
 *   build/peers/sppark-bench [--runs 5] [--logs 24,26,27]
 *                            [--shapes random,bits] [--ntt-logs 24,27]
 *                            [--check-log 12] [--check 1] [--keep-pool 1]
 *
 * Measures, for BLS12-381:
 *   msm_g1  sppark's msm_t<xyzz buckets>::invoke over 2^log bases and
 *           scalars both already in device memory (its dev_ptr_t overload:
 *           no host-to-device copy in the time), scalars in normal form
 *           (mont = false), its own window choice; one msm_t per size,
 *           made before the timing (it allocates the buckets). The time
 *           covers what a call does: a stream-ordered allocation of its
 *           digit and sort buffers, the kernels, the device-to-host copy
 *           of the window sums and their final reduction on host threads
 *           (blst arithmetic), as cuzk_gpu_msm_g1_dev returns its result
 *           to the host.
 *   ntt     NTT::Base_dev_ptr, forward, data in device memory; order=nn
 *           (natural in and out, what cuzk_gpu_ntt_dev does) and order=nr
 *           (natural in, bit-reversed out: sppark's cheapest, for reference).
 * Timing as gpu-bench: one warm-up call, then the median of --runs calls
 * between CUDA events on sppark's stream of the device (each MSM call
 * returns with its result on the host, so the events bracket all of it).
 * --keep-pool 1 (the default) sets the device's default memory pool to
 * keep freed memory, so sppark's per-call cudaMallocAsync is served from
 * the pool instead of the driver; --keep-pool 0 leaves the pool as is.
 *
 * Checks (--check 1): at 2^check-log, each shape's sum against the naive
 * double-and-add sum of cuzk's CPU code; at every timed size, the result
 * of the last timed call against the CPU Pippenger over the 2^16 distinct
 * bases with the scalars of each base summed mod r (the bases repeat with
 * period 2^16); the NTT by a forward and inverse round trip at
 * 2^check-log. A failed check prints FAILED and the exit status is 1.
 *
 * Output, one line a case:
 *   sppark msm_g1 bls12_381 log=24 shape=bits ms=123.456 min=...
 *   sppark ntt bls12_381 log=24 order=nn ms=... min=...
 *   sppark check msm_g1 log=24 shape=bits ok */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <ff/bls12-381.hpp>

#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

typedef jacobian_t<fp_t> point_t;
typedef xyzz_t<fp_t> bucket_t;
typedef bucket_t::affine_t affine_t;
typedef fr_t scalar_t;

#include <msm/pippenger.cuh>
#include <ntt/ntt.cuh>

#include "../gpu/bench_common.cuh"
extern "C" {
#include "msm/msm.h"
}

#ifndef SPPARK_COMMIT
#define SPPARK_COMMIT "unknown" /* build-sppark.sh names the commit built */
#endif

typedef msm_t<bucket_t, point_t, affine_t, scalar_t> sppark_msm;

/* cuzk's layouts are sppark's: Montgomery form with R = 2^384, affine
 * (x, y), Jacobian (X, Y, Z), little-endian 64-bit limbs */
static_assert(sizeof(affine_t) == sizeof(bls12_381_g1_affine), "affine layout");
static_assert(sizeof(point_t) == sizeof(bls12_381_g1_jac), "jacobian layout");
static_assert(sizeof(scalar_t) == sizeof(bls12_381_fr), "scalar layout");

static const size_t distinct_bases = (size_t)1 << 16;
static int checks_failed;

static void report_check(const char *what, unsigned lg, const char *detail, bool ok)
{
    printf("sppark check %s log=%u %s %s\n", what, lg, detail, ok ? "ok" : "FAILED");
    fflush(stdout);
    checks_failed += !ok;
}

/* ---- MSM ---- */

static void msm_run(sppark_msm &msm, point_t &out, affine_t *bases, scalar_t *scalars, size_t n)
{
    RustError e = msm.invoke(out, dev_ptr_t<affine_t>(bases, n), n, dev_ptr_t<scalar_t>(scalars, n), false);
    if (e.code) {
        fprintf(stderr, "sppark-bench: msm_t::invoke: code %d: %s\n", e.code, e.message ? e.message : "");
        exit(1);
    }
}

/* Whether got = sum_{i<n} s_i P_{i mod m}, m = min(n, pts.size()), for the
 * n scalars at dev: the scalars of each base are summed mod r, then the CPU
 * code sums m terms (naive at m <= 2^12, else its Pippenger). */
static bool msm_matches(const point_t &got, const std::vector<bls12_381_g1_affine> &pts, const void *dev, size_t n)
{
    std::vector<bls12_381_fr> s(n);
    BENCH_CHECK(cudaMemcpy(s.data(), dev, n * sizeof s[0], cudaMemcpyDeviceToHost));
    const size_t m = std::min(n, pts.size());
    for (size_t i = m; i < n; i++)
        bls12_381_fr_add(&s[i % m], &s[i % m], &s[i]); /* addition mod r: the same in normal form */
    bls12_381_g1_jac want, have;
    if (m <= 4096)
        bls12_381_g1_msm_naive(&want, pts.data(), s.data(), m);
    else if (bls12_381_g1_msm(&want, pts.data(), s.data(), m, (int)std::thread::hardware_concurrency()))
        return false;
    memcpy(&have, &got, sizeof have);
    return bls12_381_g1_jac_on_curve(&have) && bls12_381_g1_jac_eq(&have, &want);
}

/* The MSM rows of 2^lg points, one per shape; with check, each result
 * against the CPU code. runs = 0: one untimed call a shape, checked. */
static void bench_msm(const gpu_t &gpu, const std::vector<bls12_381_g1_affine> &pts, unsigned lg,
                      const std::vector<bench_shape> &shapes, int runs, bool check)
{
    const size_t n = (size_t)1 << lg;
    affine_t *bases = nullptr;
    scalar_t *scalars = nullptr;
    BENCH_CHECK(cudaMalloc(&bases, n * sizeof *bases));
    BENCH_CHECK(cudaMalloc(&scalars, n * sizeof *scalars));
    BENCH_CHECK(bench_tile_points(bases, n, pts));
    {
        sppark_msm msm(nullptr, n);
        for (bench_shape shape : shapes) {
            /* seed 3 + lg: gpu-bench's, so both time the same scalars */
            BENCH_CHECK(bench_fill_scalars(gpu, scalars, n, BLS12_381_FR_BITS, 3 + lg, shape));
            point_t out;
            if (runs == 0) {
                msm_run(msm, out, bases, scalars, n);
            } else {
                const bench_timing t = bench_time(gpu, runs, [&] { msm_run(msm, out, bases, scalars, n); });
                printf("sppark msm_g1 bls12_381 log=%u shape=%s ms=%.3f min=%.3f runs=%d\n", lg,
                       bench_shape_names[shape], t.median_ms, t.min_ms, runs);
                fflush(stdout);
            }
            if (check || runs == 0) {
                char detail[32];
                snprintf(detail, sizeof detail, "shape=%s", bench_shape_names[shape]);
                report_check("msm_g1", lg, detail, msm_matches(out, pts, scalars, n));
            }
        }
    }
    BENCH_CHECK(cudaFree(bases));
    BENCH_CHECK(cudaFree(scalars));
}

/* ---- NTT ---- */

static void ntt_run(const gpu_t &gpu, scalar_t *d, unsigned lg, NTT::InputOutputOrder order, NTT::Direction dir)
{
    NTT::Base_dev_ptr(gpu, d, lg, order, dir, NTT::Type::standard);
}

/* r <- a mod r, for a below 2^256 */
static void fr_reduce(bls12_381_fr *a)
{
    while (!bls12_381_fr_is_canonical(a))
        mont_sub_raw(a->l, a->l, bls12_381_fr_MODULUS, 4);
}

/* Whether the inverse NN NTT undoes the forward one at 2^lg. */
static bool ntt_round_trip(const gpu_t &gpu, unsigned lg)
{
    const size_t n = (size_t)1 << lg;
    scalar_t *d = nullptr;
    BENCH_CHECK(cudaMalloc(&d, n * sizeof *d));
    BENCH_CHECK(bench_fill_scalars(gpu, d, n, BLS12_381_FR_BITS, 7 + lg, BENCH_SHAPE_RANDOM));
    std::vector<bls12_381_fr> before(n), after(n);
    BENCH_CHECK(cudaMemcpy(before.data(), d, n * sizeof before[0], cudaMemcpyDeviceToHost));
    ntt_run(gpu, d, lg, NTT::InputOutputOrder::NN, NTT::Direction::forward);
    ntt_run(gpu, d, lg, NTT::InputOutputOrder::NN, NTT::Direction::inverse);
    BENCH_CHECK(cudaStreamSynchronize(gpu));
    BENCH_CHECK(cudaMemcpy(after.data(), d, n * sizeof after[0], cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaFree(d));
    bool same = true;
    for (size_t i = 0; i < n && same; i++) {
        fr_reduce(&after[i]);
        same = !memcmp(&before[i], &after[i], sizeof before[i]);
    }
    return same;
}

static void bench_ntt(const gpu_t &gpu, unsigned lg, int runs)
{
    const size_t n = (size_t)1 << lg;
    scalar_t *d = nullptr;
    BENCH_CHECK(cudaMalloc(&d, n * sizeof *d));
    /* seed 7 + lg: gpu-bench's NTT data */
    BENCH_CHECK(bench_fill_scalars(gpu, d, n, BLS12_381_FR_BITS, 7 + lg, BENCH_SHAPE_RANDOM));
    static const struct {
        NTT::InputOutputOrder order;
        const char *name;
    } orders[] = {{NTT::InputOutputOrder::NN, "nn"}, {NTT::InputOutputOrder::NR, "nr"}};
    for (const auto &o : orders) {
        const bench_timing t = bench_time(gpu, runs, [&] { ntt_run(gpu, d, lg, o.order, NTT::Direction::forward); });
        printf("sppark ntt bls12_381 log=%u order=%s ms=%.3f min=%.3f runs=%d\n", lg, o.name, t.median_ms, t.min_ms,
               runs);
        fflush(stdout);
    }
    BENCH_CHECK(cudaFree(d));
}

/* ---- main ---- */

static int parse_shapes(const char *s, std::vector<bench_shape> *out)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = nullptr, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(nullptr, ",", &save)) {
        bench_shape shape;
        if (bench_shape_from_name(tok, &shape))
            return -1;
        out->push_back(shape);
    }
    return 0;
}

static bool log_ok(unsigned lg, unsigned max) { return lg >= 1 && lg <= max; }

int main(int argc, char **argv)
{
    int runs = 5, check = 1, keep_pool = 1;
    unsigned check_log = 12;
    const char *logs = "24,26,27", *shapes_arg = "random,bits", *ntt_logs = "24,27";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--runs"))
            runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--logs"))
            logs = argv[i + 1];
        else if (!strcmp(argv[i], "--shapes"))
            shapes_arg = argv[i + 1];
        else if (!strcmp(argv[i], "--ntt-logs"))
            ntt_logs = argv[i + 1];
        else if (!strcmp(argv[i], "--check-log"))
            check_log = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--check"))
            check = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--keep-pool"))
            keep_pool = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "sppark-bench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    std::vector<bench_shape> shapes;
    const std::vector<unsigned> msm_logs = bench_parse_logs(logs), ntt = bench_parse_logs(ntt_logs);
    if (parse_shapes(shapes_arg, &shapes)) {
        fprintf(stderr, "sppark-bench: --shapes takes random,bits, not %s\n", shapes_arg);
        return 2;
    }
    for (unsigned lg : msm_logs)
        if (!log_ok(lg, 31)) {
            fprintf(stderr, "sppark-bench: MSM size 2^%u out of range\n", lg);
            return 2;
        }
    for (unsigned lg : ntt)
        if (!log_ok(lg, MAX_LG_DOMAIN_SIZE)) {
            fprintf(stderr, "sppark-bench: NTT size 2^%u out of range (2^%d at most)\n", lg, MAX_LG_DOMAIN_SIZE);
            return 2;
        }
    if (!log_ok(check_log, 16)) {
        fprintf(stderr, "sppark-bench: --check-log 1..16\n");
        return 2;
    }
    runs = std::max(runs, 1);
    try {
        const gpu_t &gpu = select_gpu(0);
        if (keep_pool) {
            cudaMemPool_t pool;
            uint64_t keep = UINT64_MAX;
            BENCH_CHECK(cudaDeviceGetDefaultMemPool(&pool, gpu.cid()));
            BENCH_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
        }
        printf("sppark-bench: sppark %s on %s, %d SMs, %.0f GiB; median of %d runs after a warm-up; inputs on the device, "
               "no host-to-device copy timed; memory pool %s\n",
               SPPARK_COMMIT, gpu.props().name, gpu.sm_count(), gpu.props().totalGlobalMem / 1073741824.0, runs,
               keep_pool ? "keeps freed memory" : "as the driver sets it");
        fflush(stdout);
        const std::vector<bls12_381_g1_affine> pts = bls12_381_g1_bench_points(distinct_bases);
        if (check) {
            bench_msm(gpu, pts, check_log, shapes, 0, true);
            report_check("ntt", check_log, "order=nn round-trip", ntt_round_trip(gpu, check_log));
        }
        for (unsigned lg : msm_logs)
            bench_msm(gpu, pts, lg, shapes, runs, check);
        for (unsigned lg : ntt)
            bench_ntt(gpu, lg, runs);
    } catch (const cuda_error &e) {
        fprintf(stderr, "sppark-bench: %s\n", e.what());
        return 1;
    }
    return checks_failed ? 1 : 0;
}
