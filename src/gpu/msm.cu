/* The MSM's group-independent steps (digits, CUB sorts and scans,
 * compaction) and its door (gpu.h). The method is described in msm.cuh; the
 * groups' own kernels are in msm_<group>.cu. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu/msm.cuh"

namespace gpu {

static constexpr unsigned SMALL_THREADS = 256;

/* word i of an 8-word scalar held in registers (0 past the end) */
static __device__ __forceinline__ uint32_t scalar_word(const uint32_t k[8], unsigned i)
{
    uint32_t r = 0;
#pragma unroll
    for (unsigned j = 0; j < 8; j++)
        r = i == j ? k[j] : r;
    return r;
}

/* Signed digits as src/msm/msm.c's msm_recode: a window value above 2^(c-1)
 * becomes value - 2^c and carries one into the next window. f(w, mag, neg)
 * for each window w of the scalar k. */
template <class Fn> static __device__ __forceinline__ void for_each_digit(const uint32_t k[8], unsigned c, unsigned nwin,
                                                                           Fn f)
{
    const uint32_t half = 1u << (c - 1), mask = (1u << c) - 1;
    uint32_t carry = 0;
    for (unsigned w = 0; w < nwin; w++) {
        const unsigned off = w * c;
        const uint64_t win = (uint64_t)scalar_word(k, off / 32) | (uint64_t)scalar_word(k, off / 32 + 1) << 32;
        const uint32_t v = (uint32_t)(win >> (off % 32) & mask) + carry;
        carry = v > half;
        const uint32_t mag = carry ? (1u << c) - v : v; /* v = 2^c: digit 0, carry 1 */
        f(w, mag, carry && mag);
    }
}

static __device__ __forceinline__ void load_scalar(const uint4 *scalars, size_t i, uint32_t k[8])
{
    const uint4 lo = __ldg(scalars + 2 * i), hi = __ldg(scalars + 2 * i + 1);
    k[0] = lo.x, k[1] = lo.y, k[2] = lo.z, k[3] = lo.w, k[4] = hi.x, k[5] = hi.y, k[6] = hi.z, k[7] = hi.w;
}

/* k's bit length (0 for zero) */
static __device__ __forceinline__ unsigned scalar_length(const uint32_t k[8])
{
    unsigned len = 0;
#pragma unroll
    for (unsigned j = 0; j < 8; j++)
        len = k[j] ? 32 * j + 32 - __clz(k[j]) : len;
    return len;
}

/* The windows that can hold k's non-zero digits: those over its bits and
 * one more for the carry out of the top one (its digit is then 1, and
 * nothing carries further: 1 <= 2^(c-1)). A 0 or 1 of a bit-heavy witness
 * has 1 or 2 of a plan's ~30 windows. */
static __device__ __forceinline__ unsigned digit_windows(const uint32_t k[8], unsigned c, unsigned nwin)
{
    const unsigned w = (scalar_length(k) + c - 1) / c + 1;
    return w < nwin ? w : nwin;
}

/* Every digit, zero or not, in window-major segments: key |d|, value the
 * base's index (i, or w rows + i in a window table of `rows` points per
 * row) with the sign in the top bit. */
static __global__ void msm_digits_kernel(const uint4 *scalars, size_t n, unsigned c, unsigned nwin, size_t rows,
                                         uint32_t *keys, uint32_t *vals)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t k[8];
    load_scalar(scalars, i, k);
    for_each_digit(k, c, nwin, [&](unsigned w, uint32_t mag, bool neg) {
        keys[w * n + i] = mag;
        vals[w * n + i] = (uint32_t)(w * rows + i) | (neg ? 0x80000000u : 0);
    });
}

/* The non-zero digits of the threads of a block go to consecutive places
 * from one atomic add on *cursor (one a warp made 2^27 bit-heavy scalars
 * queue 4M adds on one address); returns the thread's first place. Every
 * thread of the block must call it. */
template <unsigned THREADS>
static __device__ __forceinline__ unsigned long long block_claim(unsigned long long *cursor, uint32_t mine)
{
    __shared__ uint32_t warp_before[THREADS / 32];
    __shared__ unsigned long long block_base;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint32_t before = mine; /* inclusive scan over the lanes */
    for (unsigned d = 1; d < 32; d *= 2) {
        const uint32_t t = __shfl_up_sync(0xffffffffu, before, d);
        if (lane >= d)
            before += t;
    }
    if (lane == 31)
        warp_before[warp] = before; /* the warp's total, for now */
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t total = 0; /* exclusive scan over the warps */
        for (unsigned w = 0; w < THREADS / 32; w++) {
            const uint32_t t = warp_before[w];
            warp_before[w] = total;
            total += t;
        }
        block_base = total ? atomicAdd(cursor, (unsigned long long)total) : 0;
    }
    __syncthreads();
    return block_base + warp_before[warp] + before - mine;
}

/* The non-zero digits only (a bit-heavy witness: most digits of 0 and 1
 * are zero), as one sequence whose key is the bucket id + 1: gid = w
 * 2^(c-1) + |d| - 1, or |d| - 1 over a table (one bucket set). With keys
 * == NULL it only counts them into *cursor. */
static __global__ void __launch_bounds__(SMALL_THREADS)
    msm_nonzero_digits_kernel(const uint4 *scalars, size_t n, unsigned c, unsigned nwin, size_t rows, uint32_t nbuckets,
                              unsigned long long *cursor, uint32_t *keys, uint32_t *vals)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t k[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (i < n)
        load_scalar(scalars, i, k);
    uint32_t mine = 0;
    const unsigned windows = digit_windows(k, c, nwin); /* the rest are 0 */
    for_each_digit(k, c, windows, [&](unsigned, uint32_t mag, bool) { mine += mag != 0; });
    unsigned long long at = block_claim<SMALL_THREADS>(cursor, mine); /* every thread takes part */
    if (!keys || !mine)
        return;
    for_each_digit(k, c, windows, [&](unsigned w, uint32_t mag, bool neg) {
        if (!mag)
            return;
        keys[at] = (rows ? 0 : w * nbuckets) + mag;
        vals[at] = (uint32_t)(rows ? w * rows + i : i) | (neg ? 0x80000000u : 0);
        at++;
    });
}

/* sorts each of the `segs` runs of `seg` (key, value) pairs by key, on st */
static int msm_sort_windows(cuzk_gpu *g, cudaStream_t st, const uint32_t *keys, const uint32_t *vals, uint32_t *skeys,
                            uint32_t *svals, size_t seg, unsigned segs, unsigned c, cuzk_error *err)
{
    size_t bytes = 0;
    GPU_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, skeys, vals, svals, seg, 0, (int)c, st));
    dev_buf<uint8_t> tmp;
    GPU_TRY(tmp.alloc(g, bytes, err, st));
    for (unsigned w = 0; w < segs; w++) {
        const size_t off = (size_t)w * seg;
        size_t b = bytes;
        GPU_CHECK(cub::DeviceRadixSort::SortPairs(tmp.get(), b, keys + off, skeys + off, vals + off, svals + off,
                                                  seg, 0, (int)c, st));
    }
    return 0;
}

/* Compact the digits when at most this share of them is non-zero: one
 * sort over more key bits then costs less than a sort of every digit. */
static constexpr double MSM_COMPACT_SHARE = 0.7;
/* a sort's scratch beyond its second buffer (msm_prepare_bytes) */
static constexpr size_t MSM_SORT_SPARE = (size_t)64 << 20;

/* bits of the largest key */
static unsigned key_bits(uint32_t max_key)
{
    unsigned b = 1;
    while (b < 32 && (max_key >> b))
        b++;
    return b;
}

/* Whether msm_prepare may compact, from the scalars' lengths (NULL:
 * unknown): not when most digits are non-zero anyway (random scalars) */
static bool may_compact(size_t n, const uint64_t *lengths, const msm_plan &plan)
{
    const double all = (double)plan.nwin * (double)n;
    return !lengths || msm_digit_count(n, lengths, plan.c, plan.nwin) <= MSM_COMPACT_SHARE * all;
}

size_t msm_prepare_bytes(const msm_plan &plan, size_t n, const uint64_t *lengths)
{
    const bool compact = may_compact(n, lengths, plan);
    /* at most nwin digits a scalar, the carry window counted */
    const size_t E = compact ? (size_t)msm_digit_count(n, lengths, plan.c, plan.nwin, 1) : (size_t)plan.nwin * n;
    const size_t seg = compact || plan.table_rows ? E : n;
    return 16 * E + 8 * seg + MSM_SORT_SPARE;
}

int msm_prepare(cuzk_gpu *g, const uint32_t *scalars, size_t n, const msm_plan &plan, msm_sorted &out,
                cuzk_error *err, cudaStream_t st, const uint64_t *lengths)
{
    st = st ? st : g->stream;
    out.plan = plan;
    out.n = n;
    out.entries = out.seg = 0;
    if (n == 0)
        return 0;
    if (plan.table_rows && n > plan.table_rows)
        return cuzk_fail(err, CUZK_ERR_ARG, "MSM: %zu scalars for a table of %zu points", n, plan.table_rows);
    const size_t E0 = (size_t)plan.nwin * n;
    const uint4 *sc = reinterpret_cast<const uint4 *>(scalars);
    const unsigned grid = grid_for(n, SMALL_THREADS);
    dev_buf<unsigned long long> cursor;
    GPU_TRY(cursor.alloc(g, 1, err, st));
    unsigned long long nonzero = E0; /* counted (a wait for st) only where it may decide */
    if (may_compact(n, lengths, plan)) {
        GPU_CHECK(cudaMemsetAsync(cursor, 0, sizeof(unsigned long long), st));
        msm_nonzero_digits_kernel<<<grid, SMALL_THREADS, 0, st>>>(sc, n, plan.c, plan.nwin, plan.table_rows,
                                                                  plan.nbuckets, cursor, nullptr, nullptr);
        GPU_LAUNCHED();
        GPU_CHECK(cudaMemcpyAsync(&nonzero, cursor, sizeof nonzero, cudaMemcpyDeviceToHost, st));
        GPU_CHECK(cudaStreamSynchronize(st));
    }
    const bool compact = (double)nonzero <= MSM_COMPACT_SHARE * (double)E0;
    const size_t E = compact ? (size_t)nonzero : E0;
    out.entries = E;
    /* compacted: one segment whose keys are gid + 1; else one per bucket set */
    out.seg = compact || plan.table_rows ? E : n;
    GPU_TRY(out.keys.alloc(g, E, err, st));
    GPU_TRY(out.vals.alloc(g, E, err, st));
    if (E == 0)
        return 0;
    dev_buf<uint32_t> keys, vals;
    GPU_TRY(keys.alloc(g, E, err, st));
    GPU_TRY(vals.alloc(g, E, err, st));
    if (compact) {
        GPU_CHECK(cudaMemsetAsync(cursor, 0, sizeof(unsigned long long), st));
        msm_nonzero_digits_kernel<<<grid, SMALL_THREADS, 0, st>>>(sc, n, plan.c, plan.nwin, plan.table_rows,
                                                                  plan.nbuckets, cursor, keys, vals);
    } else {
        msm_digits_kernel<<<grid, SMALL_THREADS, 0, st>>>(sc, n, plan.c, plan.nwin, plan.table_rows, keys, vals);
    }
    GPU_LAUNCHED();
    GPU_TRY(prof_mark(g, "digits", err));
    const unsigned bits = compact ? key_bits((plan.table_rows ? 1 : plan.nwin) * plan.nbuckets) : plan.c;
    GPU_TRY(msm_sort_windows(g, st, keys, vals, out.keys, out.vals, out.seg, (unsigned)(E / out.seg), bits, err));
    return prof_mark(g, "sort", err);
}

/* lengths[b] += scalars of bit length b (0 for a zero scalar), counted per
 * block in shared memory, one add per length a warp (a bit-heavy witness's
 * warps are all lengths 0 and 1: 32 adds to one counter would serialize) */
static __global__ void msm_lengths_kernel(const uint4 *scalars, size_t n, unsigned long long *lengths)
{
    __shared__ unsigned counts[MSM_LENGTHS];
    for (unsigned b = threadIdx.x; b < MSM_LENGTHS; b += blockDim.x)
        counts[b] = 0;
    __syncthreads();
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t k[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (i < n)
        load_scalar(scalars, i, k);
    const unsigned len = i < n ? scalar_length(k) : MSM_LENGTHS; /* MSM_LENGTHS: no scalar */
    const unsigned peers = __match_any_sync(0xffffffffu, len);
    if (len < MSM_LENGTHS && threadIdx.x % 32 == (unsigned)__ffs(peers) - 1)
        atomicAdd(&counts[len], (unsigned)__popc(peers));
    __syncthreads();
    for (unsigned b = threadIdx.x; b < MSM_LENGTHS; b += blockDim.x)
        if (counts[b])
            atomicAdd(&lengths[b], (unsigned long long)counts[b]);
}

int msm_scalar_lengths(cuzk_gpu *g, const uint32_t *scalars, size_t n, uint64_t lengths[MSM_LENGTHS],
                       cuzk_error *err, cudaStream_t st)
{
    st = st ? st : g->stream;
    memset(lengths, 0, MSM_LENGTHS * sizeof *lengths);
    if (n == 0)
        return 0;
    dev_buf<unsigned long long> counts;
    GPU_TRY(counts.alloc(g, MSM_LENGTHS, err, st));
    GPU_CHECK(cudaMemsetAsync(counts, 0, MSM_LENGTHS * sizeof(unsigned long long), st));
    msm_lengths_kernel<<<grid_for(n, SMALL_THREADS), SMALL_THREADS, 0, st>>>(reinterpret_cast<const uint4 *>(scalars),
                                                                             n, counts);
    GPU_LAUNCHED();
    static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "counts copy as they are");
    GPU_CHECK(cudaMemcpyAsync(lengths, counts, MSM_LENGTHS * sizeof *lengths, cudaMemcpyDeviceToHost, st));
    GPU_CHECK(cudaStreamSynchronize(st));
    return 0;
}

int msm_prepare_fitted(cuzk_gpu *g, const msm_group *grp, const uint32_t *scalars, size_t n, msm_sorted &out,
                       cuzk_error *err, cudaStream_t st)
{
    uint64_t lengths[MSM_LENGTHS];
    GPU_TRY(msm_scalar_lengths(g, scalars, n, lengths, err, st));
    return msm_prepare(g, scalars, n, grp->plan_fitted(g, n, lengths), out, err, st, lengths);
}

int msm_seq_alloc(cuzk_gpu *g, msm_seq &s, size_t cap, size_t slots, cuzk_error *err)
{
    const size_t m = cap > slots ? cap : slots;
    s.cap = cap;
    s.slots = slots;
    GPU_TRY(s.gids.alloc(g, cap, err));
    GPU_TRY(s.refs.alloc(g, cap, err));
    GPU_TRY(s.flags.alloc(g, m, err));
    GPU_TRY(s.pos.alloc(g, m, err));
    GPU_TRY(s.part_gid.alloc(g, m, err));
    GPU_TRY(s.count.alloc(g, 1, err));
    s.scan_bytes = 0;
    GPU_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, s.scan_bytes, s.flags.get(), s.pos.get(), m, g->stream));
    GPU_TRY(s.scan_tmp.alloc(g, s.scan_bytes, err));
    return 0;
}

/* flags[i] = slot i holds a partial */
static __global__ void msm_flags_kernel(const uint32_t *part_gid, size_t m, uint32_t *flags)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        flags[i] = part_gid[i] != MSM_NO_GID;
}

/* kept slot i -> entry pos[i]; *count <- the number kept */
static __global__ void msm_scatter_kernel(const uint32_t *part_gid, const uint32_t *pos, size_t m, uint32_t *gids,
                                          uint32_t *refs, uint32_t *count)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const uint32_t gid = part_gid[i];
    if (gid != MSM_NO_GID) {
        gids[pos[i]] = gid;
        refs[pos[i]] = (uint32_t)i;
    }
    if (i == m - 1)
        *count = pos[i] + (gid != MSM_NO_GID);
}

int msm_compact(cuzk_gpu *g, msm_seq &s, const uint32_t *part_gid, size_t m, size_t *len, cuzk_error *err)
{
    if (m > s.cap && m > s.slots)
        return cuzk_fail(err, CUZK_ERR_ARG, "MSM: %zu slots exceed the compaction scratch", m);
    msm_flags_kernel<<<grid_for(m, SMALL_THREADS), SMALL_THREADS, 0, g->stream>>>(part_gid, m, s.flags);
    GPU_LAUNCHED();
    size_t bytes = s.scan_bytes;
    GPU_CHECK(cub::DeviceScan::ExclusiveSum(s.scan_tmp.get(), bytes, s.flags.get(), s.pos.get(), m, g->stream));
    msm_scatter_kernel<<<grid_for(m, SMALL_THREADS), SMALL_THREADS, 0, g->stream>>>(part_gid, s.pos, m, s.gids,
                                                                                      s.refs, s.count);
    GPU_LAUNCHED();
    uint32_t host_len = 0;
    GPU_CHECK(cudaMemcpyAsync(&host_len, s.count, sizeof host_len, cudaMemcpyDeviceToHost, g->stream));
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    if (host_len > s.cap)
        return cuzk_fail(err, CUZK_ERR_ARG, "MSM: %u partial sums exceed the sequence (%zu)", host_len, s.cap);
    *len = host_len;
    return 0;
}

static __global__ void msm_iota_kernel(uint32_t *gids, uint32_t *refs, size_t count, uint32_t per)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) {
        gids[k] = (uint32_t)(k / per);
        refs[k] = (uint32_t)k;
    }
}

int msm_iota(cuzk_gpu *g, msm_seq &s, size_t count, uint32_t per, cuzk_error *err)
{
    msm_iota_kernel<<<grid_for(count, SMALL_THREADS), SMALL_THREADS, 0, g->stream>>>(s.gids, s.refs, count, per);
    GPU_LAUNCHED();
    return 0;
}

int table_upload(cuzk_gpu *g, const msm_group *grp, const msm_plan &plan, const void *bases, void **out,
                 cuzk_error *err)
{
    const size_t rows = plan.table_rows, row_bytes = rows * grp->point_bytes;
    *out = nullptr;
    GPU_CHECK(cudaMalloc(out, plan.nwin * row_bytes + 1));
    /* host or device memory; on g's stream, so the build reads it after */
    GPU_CHECK(cudaMemcpyAsync(*out, bases, row_bytes, cudaMemcpyDefault, g->stream));
    return grp->table_build(g, *out, plan, err);
}

#define MSM_GROUP(G, DEV)                                                                      \
    {msm_##G, msm_##G##_plan, msm_##G##_plan_fitted, msm_##G##_cost, msm_##G##_table_plan, msm_##G##_table_build, msm_##G##_sorted,      \
     msm_##G##_fixed_mul, sizeof(affine<DEV::F>)}
static const msm_group groups[2][2] = {
    {MSM_GROUP(bn254_g1, bn254_g1_dev), MSM_GROUP(bn254_g2, bn254_g2_dev)},
    {MSM_GROUP(bls12_381_g1, bls12_381_g1_dev), MSM_GROUP(bls12_381_g2, bls12_381_g2_dev)},
};
#undef MSM_GROUP

const msm_group *msm_group_of(cuzk_curve_id curve, bool g2)
{
    switch (curve) {
    case CUZK_CURVE_BN254: return &groups[0][g2];
    case CUZK_CURVE_BLS12_381: return &groups[1][g2];
    }
    return nullptr;
}

} /* namespace gpu */

/* ---- the doors ---- */

static int msm_door(cuzk_gpu *g, cuzk_curve_id curve, bool g2, void *result, const void *bases,
                    const void *scalars, size_t n, bool on_device, cuzk_error *err)
{
    if (on_device && !g)
        return cuzk_fail(err, CUZK_ERR_ARG, "an MSM on device memory needs a context");
    const gpu::msm_group *grp = gpu::msm_group_of(curve, g2);
    if (!grp)
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve id %d", (int)curve);
    return grp->call(g, result, bases, scalars, n, on_device, err);
}

extern "C" int cuzk_gpu_msm_g1(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases,
                               const void *scalars, size_t n, cuzk_error *err)
{
    return msm_door(g, curve, false, result_jac, bases, scalars, n, false, err);
}

extern "C" int cuzk_gpu_msm_g2(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases,
                               const void *scalars, size_t n, cuzk_error *err)
{
    return msm_door(g, curve, true, result_jac, bases, scalars, n, false, err);
}

extern "C" int cuzk_gpu_msm_g1_dev(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases,
                                   const void *scalars, size_t n, cuzk_error *err)
{
    return msm_door(g, curve, false, result_jac, bases, scalars, n, true, err);
}

extern "C" int cuzk_gpu_msm_g2_dev(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases,
                                   const void *scalars, size_t n, cuzk_error *err)
{
    return msm_door(g, curve, true, result_jac, bases, scalars, n, true, err);
}

/* ---- window tables ---- */

struct cuzk_gpu_msm_table {
    int device;
    const gpu::msm_group *group;
    gpu::msm_plan plan;
    void *pts; /* plan.nwin rows of plan.table_rows points */
};

extern "C" size_t cuzk_gpu_msm_table_bytes(const cuzk_gpu *g, cuzk_curve_id curve, int g2, size_t n)
{
    const gpu::msm_group *grp = gpu::msm_group_of(curve, g2 != 0);
    if (!g || !grp)
        return 0;
    return (size_t)grp->table_plan(g, n).nwin * n * grp->point_bytes;
}

extern "C" int cuzk_gpu_msm_table_make(cuzk_gpu *g, cuzk_curve_id curve, int g2, const void *bases, size_t n,
                                       cuzk_gpu_msm_table **out, cuzk_error *err)
{
    const gpu::msm_group *grp = gpu::msm_group_of(curve, g2 != 0);
    if (!g || !grp || !out || (n && !bases))
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_msm_table_make: needs a context, a known curve, bases and "
                         "an output");
    *out = nullptr;
    const gpu::msm_plan plan = grp->table_plan(g, n);
    if (n && (size_t)plan.nwin * n > gpu::MSM_MAX_POINTS)
        return cuzk_fail(err, CUZK_ERR_ARG, "MSM table of %u x %zu points: at most 2^31 - 1", plan.nwin, n);
    GPU_CHECK(cudaSetDevice(g->device));
    cuzk_gpu_msm_table *t = static_cast<cuzk_gpu_msm_table *>(calloc(1, sizeof *t));
    if (!t)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory for an MSM table");
    t->device = g->device;
    t->group = grp;
    t->plan = plan;
    int rc = gpu::table_upload(g, grp, plan, bases, &t->pts, err);
    if (rc) {
        cuzk_gpu_msm_table_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

extern "C" int cuzk_gpu_msm_table_run(cuzk_gpu *g, const cuzk_gpu_msm_table *t, void *result_jac,
                                      const void *scalars, size_t n, cuzk_error *err)
{
    if (!g || !t || !result_jac || (n && !scalars))
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_msm_table_run: needs a context, a table, scalars, a result");
    if (t->device != g->device)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_msm_table_run: the table is on device %d, the context on %d",
                         t->device, g->device);
    GPU_CHECK(cudaSetDevice(g->device));
    g->prof.n = 0;
    GPU_TRY(gpu::prof_mark(g, "start", err));
    gpu::msm_sorted sorted;
    GPU_TRY(gpu::msm_prepare(g, static_cast<const uint32_t *>(scalars), n, t->plan, sorted, err));
    return t->group->sorted(g, result_jac, t->pts, sorted, err);
}

extern "C" void cuzk_gpu_msm_table_free(cuzk_gpu_msm_table *t)
{
    if (!t)
        return;
    cudaSetDevice(t->device);
    if (t->pts)
        cudaFree(t->pts);
    cudaGetLastError();
    free(t);
}
