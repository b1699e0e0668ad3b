/* Whole proofs on the device (gpu.h, "whole proofs"): the proving key kept
 * resident (or streamed from host memory when it does not fit), and the
 * device part of one proof timed phase by phase with CUDA events. */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "gpu/abc.cuh"
#include "gpu/msm.cuh"
#include "gpu/unpack.cuh"
extern "C" {
#include "util/threads.h"
}

/* the key's point arrays, in a setup's order */
enum { KEY_A, KEY_B1, KEY_B2, KEY_C, KEY_H, KEY_ARRAYS };
static_assert((int)KEY_A == (int)CUZK_SETUP_A && (int)KEY_B2 == (int)CUZK_SETUP_B2 &&
                  (int)KEY_H == (int)CUZK_SETUP_H && (int)KEY_ARRAYS == (int)CUZK_SETUP_ARRAYS,
              "a setup's arrays are the key's");

struct cuzk_gpu_key {
    int device;
    cuzk_curve_id curve;
    uint32_t n_vars, n_public, domain_size;
    size_t count[KEY_ARRAYS], point_bytes[KEY_ARRAYS];
    /* resident: device copies of the points, or (tables) window tables of
     * them, all with the c and nwin of `table`. An array with many points
     * at infinity (a real key's A and B: wires absent from a matrix) keeps
     * only its kept[i] others, idx[i] (device) their indices; else idx[i]
     * is NULL and kept[i] = count[i]. same_set[i]: the first array with
     * the same indices (its MSM's digits serve array i too). C's device
     * array carries H's kept points after its own and H has none: one MSM
     * makes C' + H', the only use the finisher has for either. */
    void *pts[KEY_ARRAYS];
    size_t kept[KEY_ARRAYS];
    uint32_t *idx[KEY_ARRAYS];
    int same_set[KEY_ARRAYS];
    bool tables;
    gpu::msm_plan table;
    /* streamed: the zkey's own arrays, page-locked in place by us where
     * `registered`, sent slice points at a time */
    bool streamed;
    size_t slice;
    const void *host[KEY_ARRAYS];
    bool registered[KEY_ARRAYS];
    /* the A and B matrices, once given (row_start NULL until then) */
    gpu::abc_rows rows;
};

namespace gpu {

/* Scalars of both curves: four little-endian words. */
struct fr_words {
    uint64_t l[4];
};

static constexpr size_t STREAM_SLICE_DEFAULT = (size_t)1 << 22;

static void describe(cuzk_gpu_key *k, const cuzk_zkey *z)
{
    const size_t g1 = 2 * (size_t)z->n8q, g2 = 4 * (size_t)z->n8q;
    const void *arrays[KEY_ARRAYS] = {z->a, z->b1, z->b2, z->c, z->h};
    const size_t count[KEY_ARRAYS] = {z->n_vars, z->n_vars, z->n_vars, (size_t)z->n_vars - z->n_public - 1,
                                      z->domain_size};
    k->curve = z->curve;
    k->n_vars = z->n_vars;
    k->n_public = z->n_public;
    k->domain_size = z->domain_size;
    for (int i = 0; i < KEY_ARRAYS; i++) {
        k->host[i] = arrays[i];
        k->count[i] = count[i];
        k->point_bytes[i] = i == KEY_B2 ? g2 : g1;
    }
}

/* points in resident array i (see cuzk_gpu_key) */
static size_t device_points(const cuzk_gpu_key *k, int i)
{
    return i == KEY_C ? k->kept[KEY_C] + k->kept[KEY_H] : i == KEY_H ? 0 : k->kept[i];
}

/* points in the largest resident array */
static size_t largest_array(const cuzk_gpu_key *k)
{
    size_t most = 0;
    for (int i = 0; i < KEY_ARRAYS; i++)
        most = device_points(k, i) > most ? device_points(k, i) : most;
    return most;
}

/* The plan of an MSM over resident array i: its table's, or G1's for that
 * many points (G2 follows it: A, B1 and B2 may share digits). */
static msm_plan array_plan(cuzk_gpu *g, const cuzk_gpu_key *k, int i)
{
    if (!k->tables)
        return msm_group_of(k->curve, false)->plan(g, device_points(k, i));
    msm_plan p = k->table;
    p.table_rows = device_points(k, i);
    return p;
}

/* Compact an array when at least 1/COMPACT_SHARE of its points are
 * infinity: below that the gather and a sort of its own cost more than
 * the skipped entries. */
static constexpr size_t COMPACT_SHARE = 16;

/* whether the point of pb bytes (a multiple of 8) at p is all zero: infinity */
static bool all_zero(const uint8_t *p, size_t pb)
{
    uint64_t any = 0;
    for (size_t i = 0; i < pb; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        any |= w;
    }
    return any == 0;
}

/* Host passes over a key's arrays on every CPU: multi-GB arrays at 2^24
 * and beyond, which one thread scans and copies in seconds. */
struct finite_scan {
    const uint8_t *p;
    size_t pb;
    uint8_t *finite; /* one flag a point */
};

static void finite_range(void *ctx, size_t begin, size_t end, int)
{
    const finite_scan *x = static_cast<const finite_scan *>(ctx);
    for (size_t j = begin; j < end; j++)
        x->finite[j] = !all_zero(x->p + j * x->pb, x->pb);
}

/* flags[j] <- whether point j of n (words 8-byte words each, device) is
 * not all zero: not infinity */
__global__ void finite_kernel(const uint64_t *p, size_t n, unsigned words, uint8_t *flags)
{
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    uint64_t any = 0;
    for (unsigned w = 0; w < words; w++)
        any |= p[j * words + w];
    flags[j] = any != 0;
}

/* dst[j] <- src[idx[j]] for n points of words 8-byte words (device) */
__global__ void gather_points_kernel(const uint64_t *src, const uint32_t *idx, size_t n, unsigned words,
                                     uint64_t *dst)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n * words)
        return;
    const size_t j = t / words, w = t % words;
    dst[t] = src[(size_t)idx[j] * words + w];
}

/* Where upload_points reads a key's points: the zkey's arrays in host
 * memory (k->host; dev NULL), or arrays a setup left on the device (dev:
 * C's holding H's after its own), read there: no trip through host memory. */
struct point_source {
    void *const *dev = nullptr;
    cudaStream_t stream = nullptr; /* with dev: where its kernels and copies run */
    const uint8_t *at(const cuzk_gpu_key *k, int i) const
    {
        if (!dev)
            return static_cast<const uint8_t *>(k->host[i]);
        return i == KEY_H ? static_cast<const uint8_t *>(dev[KEY_C]) + k->count[KEY_C] * k->point_bytes[KEY_C]
                          : static_cast<const uint8_t *>(dev[i]);
    }
};

/* idx <- the indices of the points of array i that are not infinity, when
 * there are few enough of those; empty otherwise. false: no host memory, or
 * (device source) the device failed. */
static bool finite_points(const cuzk_gpu_key *k, const point_source &src, int i, std::vector<uint32_t> &idx)
{
    const size_t n = k->count[i];
    idx.clear();
    if (n == 0)
        return true;
    std::unique_ptr<uint8_t[]> finite(new (std::nothrow) uint8_t[n]);
    if (!finite)
        return false;
    if (src.dev) {
        uint8_t *flags = nullptr;
        bool ok = cudaMalloc(&flags, n) == cudaSuccess;
        if (ok) {
            finite_kernel<<<grid_for(n, 256), 256, 0, src.stream>>>(reinterpret_cast<const uint64_t *>(src.at(k, i)),
                                                                     n, (unsigned)(k->point_bytes[i] / 8), flags);
            ok = cudaGetLastError() == cudaSuccess &&
                 cudaMemcpyAsync(finite.get(), flags, n, cudaMemcpyDeviceToHost, src.stream) == cudaSuccess &&
                 cudaStreamSynchronize(src.stream) == cudaSuccess;
            cudaFree(flags);
        }
        if (!ok)
            return cudaGetLastError(), false;
    } else {
        finite_scan x = {src.at(k, i), k->point_bytes[i], finite.get()};
        cuzk_parallel_for(cuzk_cpu_count(), n, finite_range, &x);
    }
    size_t kept = 0;
    for (size_t j = 0; j < n; j++)
        kept += finite[j];
    if (n - kept < n / COMPACT_SHARE)
        return true;
    idx.reserve(kept);
    for (size_t j = 0; j < n; j++)
        if (finite[j])
            idx.push_back((uint32_t)j);
    return true;
}

/* Whether window tables of plan's c and nwin for every array fit in free
 * device memory (and `freed` bytes about to be freed), with room for two
 * proofs' scratch: digits and their sorts (~32 bytes an entry), a, b, c
 * (96 bytes a row), G2 buckets (XYZZ: twice an affine point). */
static bool tables_fit(const cuzk_gpu_key *k, const msm_plan &plan, size_t freed)
{
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    free_bytes += freed;
    if ((size_t)plan.nwin * largest_array(k) > MSM_MAX_POINTS)
        return false;
    size_t need = 0;
    for (int i = 0; i < KEY_ARRAYS; i++)
        need += plan.nwin * device_points(k, i) * k->point_bytes[i];
    const size_t scratch = 32 * plan.nwin * largest_array(k) + 96 * (size_t)k->domain_size +
                           (size_t)plan.nbuckets * 2 * k->point_bytes[KEY_B2];
    return need + 2 * scratch + ((size_t)1 << 30) <= free_bytes;
}

struct kept_copy {
    const uint8_t *p;
    size_t pb;
    const uint32_t *idx; /* NULL: every point */
    uint8_t *out;
};

static void kept_range(void *ctx, size_t begin, size_t end, int)
{
    const kept_copy *x = static_cast<const kept_copy *>(ctx);
    if (!x->idx) {
        memcpy(x->out + begin * x->pb, x->p + begin * x->pb, (end - begin) * x->pb);
        return;
    }
    for (size_t j = begin; j < end; j++)
        memcpy(x->out + j * x->pb, x->p + (size_t)x->idx[j] * x->pb, x->pb);
}

/* out <- the kept points of array i (idx: finite_points; in host memory, or
 * for a device source on the device, with k->idx[i] its device copy);
 * returns the end */
static uint8_t *copy_kept(const cuzk_gpu_key *k, const point_source &src, int i, const std::vector<uint32_t> &idx,
                          uint8_t *out)
{
    const size_t n = idx.empty() ? k->count[i] : idx.size(), pb = k->point_bytes[i];
    if (src.dev && idx.empty()) {
        cudaMemcpyAsync(out, src.at(k, i), n * pb, cudaMemcpyDeviceToDevice, src.stream);
    } else if (src.dev) {
        const unsigned words = (unsigned)(pb / 8);
        gather_points_kernel<<<grid_for(n * words, 256), 256, 0, src.stream>>>(
            reinterpret_cast<const uint64_t *>(src.at(k, i)), k->idx[i], n, words, reinterpret_cast<uint64_t *>(out));
    } else {
        kept_copy x = {src.at(k, i), pb, idx.empty() ? nullptr : idx.data(), out};
        cuzk_parallel_for(cuzk_cpu_count(), n, kept_range, &x);
    }
    return out + n * pb;
}

/* kept[i] and same_set[i] from the arrays' index lists (empty: all kept) */
static void keep_points(cuzk_gpu_key *k, const std::vector<uint32_t> idx[KEY_ARRAYS])
{
    for (int i = 0; i < KEY_ARRAYS; i++) {
        k->kept[i] = idx[i].empty() ? k->count[i] : idx[i].size();
        k->same_set[i] = i;
        for (int j = 0; j < i; j++)
            if (k->count[j] == k->count[i] && idx[j] == idx[i]) {
                k->same_set[i] = j;
                break;
            }
    }
}

/* A device buffer of gathered points (upload_points, a device source) */
struct dev_points {
    void *p = nullptr;
    ~dev_points() { reset(); }
    void reset()
    {
        if (p)
            cudaFree(p);
        p = nullptr;
    }
};

/* The points from src to the device (cuzk_gpu_key: compacted, C with H):
 * as window tables when tables_allowed, g allows and they fit, else as
 * they are (a device source leaves its arrays alone: the caller frees
 * them). */
static int upload_points(cuzk_gpu *g, cuzk_gpu_key *k, const point_source &from, bool tables_allowed,
                         cuzk_error *err, const key_progress &progress = key_progress())
{
    std::vector<uint32_t> idx[KEY_ARRAYS];
    std::unique_ptr<uint8_t[]> packed;
    dev_points gathered;
    for (int i = 0; i < KEY_ARRAYS; i++)
        if (!finite_points(k, from, i, idx[i]))
            return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory scanning the key's points");
    keep_points(k, idx);
    /* one window for every table: the largest array's */
    const msm_plan plan = msm_group_of(k->curve, false)->table_plan(g, largest_array(k));
    k->tables = tables_allowed && !g->no_key_tables && plan.nwin > 1 && tables_fit(k, plan, 0);
    k->table = plan;
    for (int i = 0; i < KEY_ARRAYS; i++) /* all first: C's gather reads H's */
        if (!idx[i].empty()) {
            GPU_CHECK(cudaMalloc(&k->idx[i], idx[i].size() * sizeof(uint32_t)));
            GPU_TRY(copy_to_device(k->idx[i], idx[i].data(), idx[i].size() * sizeof(uint32_t), err));
        }
    for (int i = 0; i < KEY_ARRAYS; i++) {
        if (i == KEY_H)
            continue; /* in C's array */
        const size_t bytes = device_points(k, i) * k->point_bytes[i];
        const void *src = from.at(k, i);
        const bool whole = idx[i].empty() && (i != KEY_C || (from.dev && idx[KEY_H].empty()));
        if (!whole) { /* the kept points gathered where the source lies (C's array holds H's already) */
            uint8_t *dst;
            if (from.dev) {
                gathered.reset();
                GPU_CHECK(cudaMalloc(&gathered.p, bytes ? bytes : 1));
                dst = static_cast<uint8_t *>(gathered.p);
            } else {
                packed.reset(new (std::nothrow) uint8_t[bytes ? bytes : 1]); /* not zero-filled: all is written */
                if (!packed)
                    return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory packing %zu bytes of points", bytes);
                dst = packed.get();
            }
            uint8_t *end = copy_kept(k, from, i, idx[i], dst);
            if (i == KEY_C)
                copy_kept(k, from, KEY_H, idx[KEY_H], end);
            if (from.dev) {
                GPU_LAUNCHED();
                GPU_CHECK(cudaStreamSynchronize(from.stream));
            }
            src = dst;
        }
        if (k->tables) {
            static const char *const names[] = {"A (G1)", "B1 (G1)", "B2 (G2)", "C and H (G1)"};
            char what[96];
            snprintf(what, sizeof what, "window table of %s: %u rows of %u-bit windows", names[i], plan.nwin,
                     plan.c);
            progress(what);
            GPU_TRY(table_upload(g, msm_group_of(k->curve, i == KEY_B2), array_plan(g, k, i), src, &k->pts[i], err));
        } else {
            GPU_CHECK(cudaMalloc(&k->pts[i], bytes ? bytes : 1));
            if (from.dev)
                GPU_CHECK(cudaMemcpy(k->pts[i], src, bytes, cudaMemcpyDeviceToDevice));
            else
                GPU_TRY(copy_to_device(k->pts[i], src, bytes, err));
        }
    }
    for (const void *&h : k->host)
        h = nullptr;
    return 0;
}

/* Page-locks the arrays in place for fast asynchronous copies. Optional:
 * when the driver refuses (memory limits, an array sharing pages with
 * another already locked) the copies still work from pageable memory. */
static void lock_host_arrays(cuzk_gpu_key *k)
{
    for (int i = 0; i < KEY_ARRAYS; i++) {
        const size_t bytes = k->count[i] * k->point_bytes[i];
        if (bytes)
            k->registered[i] =
                cudaHostRegister(const_cast<void *>(k->host[i]), bytes, cudaHostRegisterPortable) == cudaSuccess;
        cudaGetLastError();
    }
}

static double elapsed_s(cudaEvent_t from, cudaEvent_t to)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, from, to) == cudaSuccess ? ms / 1000.0 : 0.0;
}

/* The phases, each ending at an event on the context's stream:
 *   0 start  1 h2d  2 abc  3 ntt  4 msm_a  5 msm_b1  6 msm_b2  7 msm_c  8 msm_h
 * each marked once per proof, 0 first and 8 last, the MSMs in the order
 * they run (a phase lasts from the mark before it). Each MSM brings its
 * window sums back itself and finishes on the host, so the results need no
 * copy of their own: d2h is folded into the MSMs. */
static int mark(cuzk_gpu *g, int i, cuzk_error *err)
{
    static_assert(sizeof g->phase_ev / sizeof g->phase_ev[0] >= 9, "nine phase events");
    if (!g->phase_ev[i])
        GPU_CHECK(cudaEventCreate(&g->phase_ev[i]));
    GPU_CHECK(cudaEventRecord(g->phase_ev[i], g->stream));
    if (i == 0)
        g->phases_run = 0;
    g->phase_order[g->phases_run++] = i;
    return 0;
}

/* t's fields from the last proof's marks; a, b, c's only when the device
 * built them (host_abc false) */
static void phase_times(const cuzk_gpu *g, bool host_abc, cuzk_prove_timings *t)
{
    double *phase_time[9] = {nullptr,   &t->h2d,    &t->abc,   &t->ntt,  &t->msm_a,
                             &t->msm_b1, &t->msm_b2, &t->msm_c, &t->msm_h};
    const cudaEvent_t *ev = g->phase_ev;
    for (int j = 1; j < g->phases_run; j++) {
        const int p = g->phase_order[j];
        if (p != 2 || !host_abc)
            *phase_time[p] = elapsed_s(ev[g->phase_order[j - 1]], ev[p]);
    }
    t->d2h = 0;
    t->device = t->total = elapsed_s(ev[0], ev[8]);
}

/* r += p on the host, for the curve and group of the key array; fails on
 * an unknown curve */
static int add_partial(cuzk_curve_id curve, bool g2, void *r, const void *p, cuzk_error *err)
{
#define ADD(G) G##_jac_add_var(static_cast<G##_jac *>(r), static_cast<const G##_jac *>(r), static_cast<const G##_jac *>(p))
    switch (curve) {
    case CUZK_CURVE_BN254:
        g2 ? ADD(bn254_g2) : ADD(bn254_g1);
        return 0;
    case CUZK_CURVE_BLS12_381:
        g2 ? ADD(bls12_381_g2) : ADD(bls12_381_g1);
        return 0;
    }
#undef ADD
    return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve id %d", (int)curve);
}

/* One MSM of a streamed key: slice j's points are copied on the copy
 * stream while slice j - 1's MSM runs; the partial sums add up on the host.
 * A buffer is refilled only after the MSM that read it has returned (each
 * MSM waits for its own result). */
static int streamed_msm(cuzk_gpu *g, const cuzk_gpu_key *k, int which, const fr_words *scalars, size_t n,
                        void *result, cuzk_error *err)
{
    const bool g2 = which == KEY_B2;
    const size_t pb = k->point_bytes[which], slice = k->slice;
    const uint8_t *host = static_cast<const uint8_t *>(k->host[which]);
    const size_t result_bytes = g2 ? sizeof(cuzk_msm_results::b2) : sizeof(cuzk_msm_results::a);
    memset(result, 0, result_bytes); /* infinity: Z = 0 */
    if (n == 0)
        return 0;
    dev_buf<uint8_t> buf[2];
    GPU_TRY(buf[0].alloc(g, slice * pb, err));
    GPU_TRY(buf[1].alloc(g, slice * pb, err));
    for (cudaEvent_t &e : g->slice_ready)
        if (!e)
            GPU_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    const size_t slices = (n + slice - 1) / slice;
    auto len = [&](size_t j) { return n - j * slice < slice ? n - j * slice : slice; };
    auto send = [&](size_t j) -> int {
        GPU_CHECK(cudaMemcpyAsync(buf[j % 2].get(), host + j * slice * pb, len(j) * pb, cudaMemcpyHostToDevice,
                                  g->copy_stream));
        GPU_CHECK(cudaEventRecord(g->slice_ready[j % 2], g->copy_stream));
        return 0;
    };
    GPU_TRY(send(0));
    for (size_t j = 0; j < slices; j++) {
        if (j + 1 < slices)
            GPU_TRY(send(j + 1));
        GPU_CHECK(cudaStreamWaitEvent(g->stream, g->slice_ready[j % 2], 0));
        uint64_t partial[sizeof(cuzk_msm_results::b2) / 8];
        GPU_TRY(msm_group_of(k->curve, g2)->call(g, partial, buf[j % 2].get(), scalars + j * slice, len(j), true,
                                                 err));
        GPU_TRY(add_partial(k->curve, g2, result, partial, err));
    }
    return 0;
}

/* out[j] = in[idx[j]] */
static __global__ void gather_kernel(const fr_words *in, const uint32_t *idx, size_t n, fr_words *out)
{
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        out[j] = in[idx[j]];
}

/* dst[0..kept[i]) <- the scalars of array i's kept points, on st: all
 * count[i] of them, or those at its index list */
static int kept_scalars(cudaStream_t st, const cuzk_gpu_key *k, int i, const fr_words *scalars, fr_words *dst,
                        cuzk_error *err)
{
    const size_t n = k->kept[i];
    if (!k->idx[i]) {
        GPU_CHECK(cudaMemcpyAsync(dst, scalars, n * sizeof *dst, cudaMemcpyDeviceToDevice, st));
        return 0;
    }
    gather_kernel<<<grid_for(n, 256), 256, 0, st>>>(scalars, k->idx[i], n, dst);
    GPU_LAUNCHED();
    return 0;
}

/* msm_prepare for n scalars of resident array i, with G1's plan fitted to
 * the scalars (A, B1 and B2 may share digits), or its table's where the
 * cost model says that is cheaper for them: a table's one set of 2^23
 * buckets costs more than it saves when most scalars are 0 and 1 (the
 * plain plan then reads the table's row 0, its bases). */
static int array_prepare(cuzk_gpu *g, const cuzk_gpu_key *k, int i, const fr_words *scalars, size_t n,
                         msm_sorted &out, cuzk_error *err, cudaStream_t st)
{
    const uint32_t *sc = reinterpret_cast<const uint32_t *>(scalars);
    const msm_group *grp = msm_group_of(k->curve, false);
    uint64_t lengths[MSM_LENGTHS];
    GPU_TRY(msm_scalar_lengths(g, sc, n, lengths, err, st));
    const msm_plan plain = grp->plan_fitted(g, n, lengths);
    const bool table = k->tables && grp->cost(array_plan(g, k, i), n, lengths) <= grp->cost(plain, n, lengths);
    return msm_prepare(g, sc, n, table ? array_plan(g, k, i) : plain, out, err, st, lengths);
}

/* The digits of a proof's MSMs on a resident key: per index set of A, B1
 * and B2 (the arrays with the same index list share them: B1 and B2
 * always, A too when nothing is compacted; w[same_set[i]] serves array
 * i), and for C' + H', one MSM over C's array with the scalars
 * [C's ; H's]. Those are sorted on the context's copy stream while the
 * stream sums B2, A and B1 (sorting is memory bound, bucket sums compute
 * bound: C' + H' 188 -> 177 ms at 2^24). Sorting A's and B's digits there
 * during the NTTs was tried: the NTTs slowed as much (34 -> 40 ms). When
 * C' + H' is made in slices, ch holds H's digits where they are sorted
 * the same way (h_digits_aside), from ch_scalars, [C's ; H's]: freed on
 * the stream, after the copy stream is done with them (digits_release). */
struct proof_digits {
    msm_sorted w[KEY_B2 + 1], ch;
    dev_buf<fr_words> ch_scalars;
};

static int witness_digits(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w, proof_digits &d, cuzk_error *err)
{
    const cudaStream_t st = g->stream;
    for (int i = KEY_A; i <= KEY_B2; i++) {
        if (k->same_set[i] != i)
            continue;
        const fr_words *scalars = w;
        dev_buf<fr_words> gathered;
        if (k->idx[i]) {
            GPU_TRY(gathered.alloc(g, k->kept[i], err, st));
            GPU_TRY(kept_scalars(st, k, i, w, gathered, err));
            scalars = gathered;
        }
        GPU_TRY(array_prepare(g, k, i, scalars, k->kept[i], d.w[i], err, st));
    }
    return 0;
}

/* scalars <- [C's kept scalars ; H's], the scalars of C's device array, on st */
static int c_plus_h_scalars(cuzk_gpu *g, cudaStream_t st, const cuzk_gpu_key *k, const fr_words *w_c,
                            const fr_words *h, dev_buf<fr_words> &scalars, cuzk_error *err)
{
    GPU_TRY(scalars.alloc(g, device_points(k, KEY_C), err, st));
    GPU_TRY(kept_scalars(st, k, KEY_C, w_c, scalars, err));
    return kept_scalars(st, k, KEY_H, h, scalars.get() + k->kept[KEY_C], err);
}

static int c_plus_h_digits(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w_c, const fr_words *h,
                           proof_digits &d, cuzk_error *err)
{
    const cudaStream_t st = g->copy_stream;
    dev_buf<fr_words> scalars;
    GPU_TRY(c_plus_h_scalars(g, st, k, w_c, h, scalars, err));
    return array_prepare(g, k, KEY_C, scalars.get(), device_points(k, KEY_C), d.ch, err, st);
}

/* the hand-overs between the stream and the copy stream (g->side_ev) */
enum { SIDE_H, SIDE_CH_DIGITS, SIDE_DONE, SIDE_RELEASE, SIDE_EVENTS };

static cudaError_t side_event(cuzk_gpu *g, int i)
{
    static_assert(sizeof g->side_ev / sizeof g->side_ev[0] == SIDE_EVENTS, "one event per hand-over");
    return g->side_ev[i] ? cudaSuccess : cudaEventCreateWithFlags(&g->side_ev[i], cudaEventDisableTiming);
}

/* side_ev[i] recorded on `from`, waited for by `to` */
static int hand_over(cuzk_gpu *g, int i, cudaStream_t from, cudaStream_t to, cuzk_error *err)
{
    GPU_CHECK(side_event(g, i));
    GPU_CHECK(cudaEventRecord(g->side_ev[i], from));
    GPU_CHECK(cudaStreamWaitEvent(to, g->side_ev[i], 0));
    return 0;
}

/* Declared last in a proof, destroyed first: the stream waits for the
 * copy stream's work, which reads the witness and h that the stream frees
 * next (this matters when a proof fails half way); then the copy stream,
 * which frees the digits, waits for the stream's last use of them. */
struct digits_release {
    cuzk_gpu *g;
    ~digits_release()
    {
        cudaEvent_t &done = g->side_ev[SIDE_DONE], &release = g->side_ev[SIDE_RELEASE];
        if (side_event(g, SIDE_DONE) == cudaSuccess && cudaEventRecord(done, g->copy_stream) == cudaSuccess)
            cudaStreamWaitEvent(g->stream, done, 0);
        if (side_event(g, SIDE_RELEASE) == cudaSuccess && cudaEventRecord(release, g->stream) == cudaSuccess)
            cudaStreamWaitEvent(g->copy_stream, release, 0);
        cudaGetLastError();
    }
};

/* room kept for buckets, window sums and the sorts' own scratch */
static constexpr size_t MSM_ROOM = (size_t)6 << 30;

/* Slices of points the C' + H' MSM is made in: 1 when its digits and their
 * sort (16 bytes an entry at the most) fit in what is left next to the key,
 * else as many as make them fit (a 2^27 key on an H200, no tables), or as
 * many as cuzk_gpu_set_c_plus_h forced. */
static size_t c_plus_h_slices(cuzk_gpu *g, const cuzk_gpu_key *k)
{
    const size_t n = device_points(k, KEY_C);
    if (k->tables || n == 0)
        return 1;
    if (g->ch_slices)
        return g->ch_slices;
    const size_t digits = 16 * (size_t)array_plan(g, k, KEY_C).nwin * n, fixed = 32 * n + MSM_ROOM;
    const size_t left = memory_left(g);
    size_t slices = 1;
    while (slices < CUZK_GPU_C_PLUS_H_SLICES_MAX && digits / slices + fixed > left)
        slices *= 2;
    return slices;
}

/* The sliced C' + H' (c_plus_h_slices > 1) with H's digits sorted on the
 * copy stream while the stream sums B2, A, B1 and C (a sort is memory
 * bound, bucket sums compute bound; 2^27 bit-heavy on an H200: C' + H'
 * 0.819 -> 0.769 s, A and B1 slowed 36 ms beside the sort when they ran
 * first, both streams at one priority): all of H's points as one MSM,
 * where its digits, C's largest slice's and the MSMs' room fit in what is
 * left (the slices count every digit; the lengths know a witness's are
 * mostly zero, as at 2^27 bits, where H is one point over a slice), and
 * unless the context says not (cuzk_gpu_set_c_plus_h). *aside says whether
 * they went there (into d.ch). d.ch_scalars <- [C's ; H's], on the
 * stream, either way. */
static int h_digits_aside(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w_c, const fr_words *h, size_t slices,
                          proof_digits &d, bool *aside, cuzk_error *err)
{
    *aside = false;
    dev_buf<fr_words> &scalars = d.ch_scalars;
    GPU_TRY(c_plus_h_scalars(g, g->stream, k, w_c, h, scalars, err));
    const size_t n = device_points(k, KEY_C), slice = (n + slices - 1) / slices, n_c = k->kept[KEY_C];
    const size_t n_h = n - n_c;
    if (n_h == 0 || g->no_h_aside)
        return 0;
    const msm_group *grp = msm_group_of(k->curve, false);
    const uint32_t *sc = reinterpret_cast<const uint32_t *>(scalars.get());
    uint64_t lengths[MSM_LENGTHS];
    size_t c_bytes = 0; /* C's largest slice's digits, prepared on the stream meanwhile */
    for (size_t at = 0; at < n_c; at += slice) {
        const size_t len = n_c - at < slice ? n_c - at : slice;
        GPU_TRY(msm_scalar_lengths(g, sc + 8 * at, len, lengths, err));
        const size_t b = msm_prepare_bytes(grp->plan_fitted(g, len, lengths), len, lengths);
        c_bytes = b > c_bytes ? b : c_bytes;
    }
    GPU_TRY(msm_scalar_lengths(g, sc + 8 * n_c, n_h, lengths, err));
    const msm_plan plan = grp->plan_fitted(g, n_h, lengths);
    if (msm_prepare_bytes(plan, n_h, lengths) + c_bytes + MSM_ROOM > memory_left(g))
        return 0;
    GPU_TRY(hand_over(g, SIDE_H, g->stream, g->copy_stream, err));
    GPU_TRY(msm_prepare(g, sc + 8 * n_c, n_h, plan, d.ch, err, g->copy_stream, lengths));
    *aside = true;
    return 0;
}

/* C' + H' in slices of at most n / slices points, one after another on the
 * stream, C's points and H's never in one slice (a witness's digits are
 * compacted, h's are not: each slice sorts as suits it), over scalars
 * [C's ; H's]; H's digits sorted already when h_aside is not NULL
 * (h_digits_aside); the partial sums add up on the host */
static int c_plus_h_sliced(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *scalars, size_t slices,
                           const msm_sorted *h_aside, void *result, cuzk_error *err)
{
    const size_t n = device_points(k, KEY_C), slice = (n + slices - 1) / slices, pb = k->point_bytes[KEY_C];
    const size_t ends[2] = {k->kept[KEY_C], n};
    const msm_group *grp = msm_group_of(k->curve, false);
    const uint8_t *pts = static_cast<const uint8_t *>(k->pts[KEY_C]);
    memset(result, 0, sizeof(cuzk_msm_results::a));
    const auto sum = [&](const msm_sorted &d, size_t at) -> int {
        uint64_t partial[sizeof(cuzk_msm_results::a) / 8];
        GPU_TRY(grp->sorted(g, partial, pts + at * pb, d, err));
        return add_partial(k->curve, false, result, partial, err);
    };
    size_t at = 0;
    for (int part = 0; part < 2; part++) { /* C's points, then H's */
        const size_t end = ends[part];
        if (part == 1 && h_aside && at < end) {
            GPU_TRY(hand_over(g, SIDE_CH_DIGITS, g->copy_stream, g->stream, err));
            GPU_TRY(sum(*h_aside, at));
            at = end;
        }
        while (at < end) {
            const size_t len = end - at < slice ? end - at : slice;
            msm_sorted d;
            GPU_TRY(msm_prepare_fitted(g, grp, reinterpret_cast<const uint32_t *>(scalars + at), len, d, err));
            GPU_TRY(sum(d, at));
            at += len;
        }
    }
    return 0;
}

/* The MSMs of a resident key, phases 4-8, once h is on the device */
static int resident_msms(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w, const fr_words *h,
                         proof_digits &d, cuzk_msm_results *m, cuzk_error *err)
{
    void *result[KEY_B2 + 1] = {m->a, m->b1, m->b2};
    const fr_words *w_c = w + k->n_public + 1;
    GPU_TRY(witness_digits(g, k, w, d, err));
    const size_t slices = c_plus_h_slices(g, k);
    bool h_aside = false;
    if (slices == 1) {
        GPU_TRY(hand_over(g, SIDE_H, g->stream, g->copy_stream, err));
        GPU_TRY(c_plus_h_digits(g, k, w_c, h, d, err));
    } else {
        GPU_TRY(h_digits_aside(g, k, w_c, h, slices, d, &h_aside, err));
    }
    /* B2 first: C' + H''s digits are sorted on the copy stream meanwhile,
     * and a G2 sum (compute bound) loses less beside a sort (memory bound)
     * than G1's (2^26 bit-heavy on an H100, priorities on: A + B1 + B2
     * 0.106 s either way, B2 0.057 -> 0.071 and A 0.031 -> 0.018) */
    static const int order[3] = {KEY_B2, KEY_A, KEY_B1};
    for (const int i : order) {
        GPU_TRY(msm_group_of(k->curve, i == KEY_B2)->sorted(g, result[i], k->pts[i], d.w[k->same_set[i]], err));
        GPU_TRY(mark(g, 4 + i, err));
    }
    if (slices == 1) {
        GPU_TRY(hand_over(g, SIDE_CH_DIGITS, g->copy_stream, g->stream, err));
        GPU_TRY(msm_group_of(k->curve, false)->sorted(g, m->c, k->pts[KEY_C], d.ch, err)); /* m->h stays infinity */
    } else {
        for (int i = KEY_A; i <= KEY_B2; i++)
            d.w[i].release(); /* their digits are done with */
        GPU_TRY(c_plus_h_sliced(g, k, d.ch_scalars, slices, h_aside ? &d.ch : nullptr, m->c, err));
    }
    GPU_TRY(mark(g, 7, err));
    return mark(g, 8, err);
}

/* The MSMs of a streamed key, phases 4-8, each slice by slice */
static int streamed_msms(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w, const fr_words *h,
                         cuzk_msm_results *m, cuzk_error *err)
{
    const size_t nv = k->n_vars, first_private = (size_t)k->n_public + 1;
    void *result[KEY_ARRAYS] = {m->a, m->b1, m->b2, m->c, m->h};
    for (int i = 0; i < KEY_ARRAYS; i++) {
        const fr_words *scalars = i == KEY_H ? h : i == KEY_C ? w + first_private : w;
        const size_t n = i == KEY_H ? k->domain_size : i == KEY_C ? nv - first_private : nv;
        GPU_TRY(streamed_msm(g, k, i, scalars, n, result[i], err));
        GPU_TRY(mark(g, 4 + i, err));
    }
    return 0;
}

/* witness (host values) or packed gives the witness */
static int prove(cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, const void *witness,
                 const cuzk_wtns_packed *packed, cuzk_msm_results *m, cuzk_prove_timings *t, cuzk_error *err)
{
    const size_t n = k->domain_size, nv = k->n_vars;
    const cuzk_curve_id curve = k->curve;
    /* a (h once the coset chain is done) apart from b, c, which go back to
     * the pool before the MSMs need its memory for their digits */
    dev_buf<fr_words> d_a, d_bc, d_w;
    GPU_TRY(d_a.alloc(g, n, err));
    GPU_TRY(d_bc.alloc(g, 2 * n, err));
    GPU_TRY(d_w.alloc(g, nv, err));
    fr_words *a = d_a, *b = d_bc, *c = b + n;
    proof_digits digits;
    digits_release release = {g};

    GPU_TRY(mark(g, 0, err));
    if (packed)
        GPU_TRY(wtns_unpack(g, packed, d_w, err));
    else
        GPU_CHECK(cudaMemcpyAsync(d_w, witness, nv * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    if (abc) {
        const fr_words *h_abc = static_cast<const fr_words *>(abc);
        GPU_CHECK(cudaMemcpyAsync(a, h_abc, n * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
        GPU_CHECK(cudaMemcpyAsync(b, h_abc + n, 2 * n * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    }
    GPU_TRY(mark(g, 1, err));
    if (!abc)
        GPU_TRY(abc_build(g, curve, k->rows, d_w, a, b, c, err));
    GPU_TRY(mark(g, 2, err));
    /* h = a o b - c on the coset, normal form, written over a */
    GPU_TRY(cuzk_gpu_coset_h_dev(g, curve, a, b, c, n, err));
    d_bc.release();
    GPU_TRY(mark(g, 3, err));
    memset(m, 0, sizeof *m);
    m->curve = curve;
    if (k->streamed)
        GPU_TRY(streamed_msms(g, k, d_w, a, m, err));
    else
        GPU_TRY(resident_msms(g, k, d_w, a, digits, m, err));
    GPU_CHECK(cudaEventSynchronize(g->phase_ev[8]));
    if (t)
        phase_times(g, abc != nullptr, t);
    return 0;
}

/* A new key on g's device described from z, with no points yet. */
static int new_key(cuzk_gpu *g, const cuzk_zkey *z, cuzk_gpu_key **out, cuzk_error *err)
{
    GPU_CHECK(cudaSetDevice(g->device));
    cuzk_gpu_key *k = static_cast<cuzk_gpu_key *>(calloc(1, sizeof *k));
    if (!k)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory for a device key");
    k->device = g->device;
    k->rows = abc_rows();
    describe(k, z);
    *out = k;
    return 0;
}

/* Frees k's device arrays (points and index lists). */
static void free_points(cuzk_gpu_key *k)
{
    for (int i = 0; i < KEY_ARRAYS; i++) {
        if (k->pts[i])
            cudaFree(k->pts[i]);
        if (k->idx[i])
            cudaFree(k->idx[i]);
        k->pts[i] = nullptr;
        k->idx[i] = nullptr;
    }
    cudaGetLastError();
}

/* restage_points when the tables fit beside the points: made from them
 * where they lie, with no trip through host memory (2^24: 7.6 of the
 * setup's 25.6 s went to that trip). Out of device memory on the way the
 * key stays as the setup made it. */
static int restage_on_device(cuzk_gpu *g, cuzk_gpu_key *k, const key_progress &progress, cuzk_error *err)
{
    void *made[KEY_ARRAYS];
    memcpy(made, k->pts, sizeof made);
    memset(k->pts, 0, sizeof k->pts);
    point_source from;
    from.dev = made;
    from.stream = g->stream;
    int rc = upload_points(g, k, from, true, err, progress);
    if (rc) {
        free_points(k); /* what was made of the tables and index lists */
        memcpy(k->pts, made, sizeof made);
        const std::vector<uint32_t> all[KEY_ARRAYS];
        keep_points(k, all);
        k->tables = false;
        if (rc != CUZK_ERR_NOMEM)
            return rc;
        progress("no room for the window tables: the points as made");
        return 0;
    }
    for (void *p : made)
        if (p)
            cudaFree(p);
    return 0;
}

/* Fresh host memory's pages faulted in on every core (zeros written), so
 * that a copy into it is not held up faulting them one at a time. */
struct fresh_pages {
    uint8_t *p;
    size_t bytes;
};

static void touch_range(void *ctx, size_t begin, size_t end, int)
{
    const fresh_pages *f = static_cast<const fresh_pages *>(ctx);
    const size_t unit = (size_t)1 << 20, from = begin * unit, to = std::min(end * unit, f->bytes);
    memset(f->p + from, 0, to - from);
}

static void touch_pages(uint8_t *p, size_t bytes)
{
    fresh_pages f = {p, bytes};
    cuzk_parallel_for(cuzk_cpu_count(), (bytes + ((size_t)1 << 20) - 1) >> 20, touch_range, &f);
}

/* A setup's key, on the device with every point (C's array with H's after
 * it), made what an uploaded key is (points at infinity dropped, window
 * tables) when its tables would fit: beside its points, from the points
 * where they lie (restage_on_device); else in place of them: the points go
 * to host memory, are freed on the device and uploaded from there. Out of
 * device memory on the way the key is uploaded again without tables; with
 * no host memory to stage in it stays as it is (slower MSMs, not wrong). */
static int restage_points(cuzk_gpu *g, cuzk_gpu_key *k, const key_progress &progress, cuzk_error *err)
{
    const msm_plan plan = msm_group_of(k->curve, false)->table_plan(g, largest_array(k));
    size_t bytes[KEY_ARRAYS], total = 0;
    for (int i = 0; i < KEY_ARRAYS; i++)
        total += bytes[i] = device_points(k, i) * k->point_bytes[i];
    if (g->no_key_tables || plan.nwin < 2)
        return 0;
    if (tables_fit(k, plan, 0))
        return restage_on_device(g, k, progress, err);
    if (!tables_fit(k, plan, total))
        return 0;
    std::unique_ptr<uint8_t, decltype(&free)> staged[KEY_ARRAYS] = {
        {nullptr, free}, {nullptr, free}, {nullptr, free}, {nullptr, free}, {nullptr, free}};
    for (int i = 0; i < KEY_ARRAYS; i++) /* malloc: its pages are touched on every core below */
        if (bytes[i] && !(staged[i] = {static_cast<uint8_t *>(malloc(bytes[i])), free}))
            return 0;
    progress("the key's points staged in host memory for its window tables");
    for (int i = 0; i < KEY_ARRAYS; i++)
        if (bytes[i]) {
            touch_pages(staged[i].get(), bytes[i]);
            GPU_CHECK(cudaMemcpy(staged[i].get(), k->pts[i], bytes[i], cudaMemcpyDeviceToHost));
        }
    free_points(k);
    progress("the key's points in host memory, freed on the device");
    for (int i = 0; i < KEY_ARRAYS; i++)
        k->host[i] = i == KEY_H ? staged[KEY_C].get() + k->count[KEY_C] * k->point_bytes[KEY_C] : staged[i].get();
    int rc = upload_points(g, k, point_source(), true, err, progress);
    if (rc == CUZK_ERR_NOMEM) {
        free_points(k);
        progress("no room for the window tables: the points as made");
        rc = upload_points(g, k, point_source(), false, err);
    }
    for (const void *&h : k->host)
        h = nullptr; /* the staging goes */
    return rc;
}

int key_adopt(cuzk_gpu *g, const cuzk_zkey *z, void *pts[KEY_ARRAYS], const key_progress &progress,
              cuzk_gpu_key **out, cuzk_error *err)
{
    cuzk_gpu_key *k = nullptr;
    int rc = new_key(g, z, &k, err);
    if (rc) {
        for (int i = 0; i < KEY_ARRAYS; i++)
            if (pts[i])
                cudaFree(pts[i]);
        return rc;
    }
    const std::vector<uint32_t> all[KEY_ARRAYS];
    keep_points(k, all);
    for (int i = 0; i < KEY_ARRAYS; i++) {
        k->pts[i] = pts[i];
        k->host[i] = nullptr;
    }
    if ((rc = restage_points(g, k, progress, err))) {
        cuzk_gpu_key_free(k);
        return rc;
    }
    *out = k;
    return 0;
}

/* A key of either kind: the shared description, then the points resident
 * or streamed (slice points at a time). */
/* Gives the memory g's pool holds unused back to the device (a key's
 * cudaMalloc cannot take it otherwise); true when there was some. */
static bool pool_trim(cuzk_gpu *g)
{
    size_t before = 0, after = 0;
    bool ok = cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrReservedMemCurrent, &before) == cudaSuccess &&
              cudaMemPoolTrimTo(g->pool, 0) == cudaSuccess &&
              cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrReservedMemCurrent, &after) == cudaSuccess;
    cudaGetLastError();
    return ok && after < before;
}

static int make_key(cuzk_gpu *g, const cuzk_zkey *z, bool streamed, size_t slice, cuzk_gpu_key **out,
                    cuzk_error *err)
{
    if (!g || !z || !out || !z->a)
        return cuzk_fail(err, CUZK_ERR_ARG, "a device key needs a context, a whole key and an output");
    *out = NULL;
    cuzk_gpu_key *k = nullptr;
    GPU_TRY(new_key(g, z, &k, err));
    int rc = 0;
    if (streamed) {
        k->streamed = true;
        k->slice = slice ? slice : STREAM_SLICE_DEFAULT;
        lock_host_arrays(k);
    } else if ((rc = upload_points(g, k, point_source(), true, err)) == CUZK_ERR_NOMEM && pool_trim(g)) {
        cuzk_gpu_key_free(k); /* again, with what the pool held */
        k = nullptr;
        GPU_TRY(new_key(g, z, &k, err));
        rc = upload_points(g, k, point_source(), true, err);
    }
    if (rc) {
        cuzk_gpu_key_free(k);
        return rc;
    }
    *out = k;
    return 0;
}

} /* namespace gpu */

extern "C" int cuzk_gpu_key_upload(cuzk_gpu *g, const cuzk_zkey *z, cuzk_gpu_key **out, cuzk_error *err)
{
    return gpu::make_key(g, z, false, 0, out, err);
}

extern "C" int cuzk_gpu_key_stream(cuzk_gpu *g, const cuzk_zkey *z, size_t slice_points, cuzk_gpu_key **out,
                                   cuzk_error *err)
{
    return gpu::make_key(g, z, true, slice_points, out, err);
}

extern "C" int cuzk_gpu_key_streamed(const cuzk_gpu_key *k)
{
    return k && k->streamed;
}

extern "C" int cuzk_gpu_key_set_rows(cuzk_gpu *g, cuzk_gpu_key *k, const cuzk_gpu_rows *rows, cuzk_error *err)
{
    if (!g || !k || !rows || k->device != g->device)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_key_set_rows: needs a context on the key's device and rows");
    if (k->rows.row_start)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_key_set_rows: the key has its rows already");
    if (rows->n_rows != k->domain_size)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_key_set_rows: %u rows for a key of domain size %u",
                         rows->n_rows, k->domain_size);
    GPU_CHECK(cudaSetDevice(g->device));
    gpu::abc_rows r;
    int rc = gpu::abc_rows_upload(g, k->curve, rows, &r, err);
    if (rc) {
        gpu::abc_rows_free(&r);
        return rc;
    }
    k->rows = r;
    return 0;
}

extern "C" int cuzk_gpu_key_has_rows(const cuzk_gpu_key *k)
{
    return k && k->rows.row_start;
}

extern "C" void cuzk_gpu_key_free(cuzk_gpu_key *k)
{
    if (!k)
        return;
    cudaSetDevice(k->device);
    gpu::free_points(k);
    for (int i = 0; i < KEY_ARRAYS; i++)
        if (k->registered[i])
            cudaHostUnregister(const_cast<void *>(k->host[i]));
    gpu::abc_rows_free(&k->rows);
    cudaGetLastError();
    free(k);
}

/* What cuzk_gpu_prove and cuzk_gpu_prove_packed require alike */
static int prove_args(const char *call, cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, bool has_witness,
                      cuzk_msm_results *m, cuzk_error *err)
{
    if (!g || !k || !has_witness || !m)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: needs a context, a device key, witness, results", call);
    if (k->device != g->device)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: the key is on device %d, the context on device %d", call,
                         k->device, g->device);
    if (!abc && !k->rows.row_start)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: no a, b, c given and the key has no rows to build "
                         "them (cuzk_gpu_key_set_rows)", call);
    GPU_CHECK(cudaSetDevice(g->device));
    return 0;
}

extern "C" int cuzk_gpu_prove(cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, const void *witness,
                              cuzk_msm_results *m, cuzk_prove_timings *t, cuzk_error *err)
{
    GPU_TRY(prove_args("cuzk_gpu_prove", g, k, abc, witness != nullptr, m, err));
    return gpu::prove(g, k, abc, witness, nullptr, m, t, err);
}

extern "C" int cuzk_gpu_prove_packed(cuzk_gpu *g, const cuzk_gpu_key *k, const cuzk_wtns_packed *w,
                                     cuzk_msm_results *m, cuzk_prove_timings *t, cuzk_error *err)
{
    GPU_TRY(prove_args("cuzk_gpu_prove_packed", g, k, nullptr, w && w->base, m, err));
    if (w->n != k->n_vars)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove_packed: %zu values packed, the key has %u wires", w->n,
                         k->n_vars);
    return gpu::prove(g, k, nullptr, nullptr, w, m, t, err);
}

extern "C" void *cuzk_gpu_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

extern "C" void cuzk_gpu_host_free(void *p)
{
    if (p)
        cudaFreeHost(p);
    cudaGetLastError();
}
