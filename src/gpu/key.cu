/* Keeping a proving key on the device (gpu.h, cuzk_gpu_key_*): its points
 * uploaded (compacted, as window tables where they fit), restaged from
 * where a setup left them, or streamed from host memory during each proof
 * when they do not fit; and its A and B matrices. */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "gpu/key.cuh"
extern "C" {
#include "util/threads.h"
}

namespace gpu {

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

size_t device_points(const cuzk_gpu_key *k, int i)
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

msm_plan array_plan(cuzk_gpu *g, const cuzk_gpu_key *k, int i)
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

size_t host_points(const cuzk_gpu_key *k, int i)
{
    return k->bellman_generator ? k->kept[i] : k->count[i];
}

void lock_host_arrays(cuzk_gpu_key *k)
{
    for (int i = 0; i < KEY_ARRAYS; i++) {
        const size_t bytes = host_points(k, i) * k->point_bytes[i];
        if (bytes)
            k->registered[i] =
                cudaHostRegister(const_cast<void *>(k->host[i]), bytes, cudaHostRegisterPortable) == cudaSuccess;
        cudaGetLastError();
    }
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
 * where they lie, with no trip through host memory (which took a large
 * share of a setup's time). Out of device memory on the way the
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

/* A key of either kind: the shared description, then the points resident
 * or streamed (slice points at a time). */
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
