/* Pippenger MSM on the device, one template for the four groups (gpu.h).
 * Each group is compiled in its own translation unit (msm_<group>.cu, which
 * stamps MSM_INSTANCE below); the group-independent steps (digits, CUB
 * sorts and scans, compaction) and the door are in msm.cu.
 *
 * With c-bit signed window digits (the CPU's recoding, src/msm/msm.c),
 * k_i = sum_w d_iw 2^(cw), d_iw in [-2^(c-1), 2^(c-1)], nwin = bits/c + 1:
 *   sum_i k_i P_i = sum_w 2^(cw) W_w,  W_w = sum_b b B_wb,
 * bucket B_wb summing the P_i with d_iw = b and the -P_i with d_iw = -b.
 *
 *  1. digits: one thread per scalar writes, per window, key = |d| (0 for a
 *     zero digit) and value = i | sign << 31.
 *  2. sort: each window's (key, value) pairs by key (CUB radix sort, c
 *     bits), so a bucket's points are contiguous. Bucket id of an entry:
 *     gid = w 2^(c-1) + key - 1; along the sorted windows gids never
 *     decrease, and zero keys (no gid) sit only at each window's start.
 *     Steps 1-2 see only the scalars (msm_sorted): MSMs over the same
 *     scalars share them, as a proof's A, B1 (G1) and B2 (G2) do.
 *  3. buckets: a segmented sum of that sorted sequence into XYZZ buckets.
 *     An infinity base (all-zero bytes) is recognised once loaded and
 *     skipped: a test on registers, no extra memory access in the chain.
 *     Each thread walks a fixed-length chunk (so a bucket holding half of
 *     all points costs no more than an even spread), adding runs of one gid
 *     with mixed additions. A run whose neighbours outside the chunk hold
 *     other gids is a whole bucket and is stored; the (at most two) runs of a
 *     chunk that continue into the previous or next chunk are partial sums,
 *     kept in two slots per chunk. Kept partials, compacted in order (a
 *     scan), form a shorter sorted sequence that the same walk reduces
 *     again, now with XYZZ additions, until nothing is partial.
 *  4. window sums: each thread takes a segment [lo, lo + len) of one
 *     window's buckets and forms by running sums S = sum B_b and
 *     T = sum (b - lo + 1) B_b (from the top down: S += B_b, T += S); the
 *     segment's share of W is T + lo S, since bucket index b holds digit
 *     b + 1. The segments of each window are then added by the segmented
 *     sum of step 3 (gid = window).
 *  5. host: Horner's rule over the windows (c doublings each) with the CPU's
 *     Jacobian code, from XYZZ: (X ZZ ZZZ^2, Y ZZ^3 ZZZ^2, ZZ ZZZ).
 * The window size c minimises a cost model (knobs below). */
#ifndef CUZK_GPU_MSM_CUH
#define CUZK_GPU_MSM_CUH

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gpu/ec.cuh"
#include "gpu/gpu_internal.cuh"
#include "gpu/msm_table.cuh"
#include "gpu/fixed_base.cuh"

/* the CPU headers, as C; nvcc does not know their GCC loop pragmas */
#pragma nv_diag_suppress 1675
extern "C" {
#include "ec/ec.h"
}
#pragma nv_diag_default 1675

/* Tuning knobs.
 * MSM_COST_ADD      a point into a bucket (XYZZ mixed addition), in field
 *                   multiplications
 * MSM_COST_BUCKET   a bucket in the running sums (two XYZZ additions)
 * MSM_COST_SORT     an entry's share of a window's sort, same unit (of G1
 *                   over the 254-bit field)
 * MSM_COST_WINDOW   fixed cost of a window (launches, sort passes)
 * MSM_C_MAX         largest window (buckets: 2^(c-1) per window)
 * MSM_BUCKET_BYTES  most bytes of buckets a plan may use
 * MSM_CHUNK_MIN     fewest entries per thread in the first bucket pass
 * MSM_WAVES         chunks of the first bucket pass, in multiples of the
 *                   threads the GPU holds at once (its occupancy): whole
 *                   waves, no tail
 * MSM_LEVEL_CHUNK   entries per thread in later passes of the segmented sum
 * MSM_THREADS       threads per block of the point-adding kernels
 * MSM_MIN_BLOCKS    blocks per SM the compiler must fit them for (more
 *                   blocks: fewer registers per thread, maybe spills) */
#ifndef MSM_COST_ADD
#define MSM_COST_ADD 10.0
#endif
#ifndef MSM_COST_BUCKET
#define MSM_COST_BUCKET 28.0
#endif
#ifndef MSM_COST_SORT
#define MSM_COST_SORT 2.0
#endif
#ifndef MSM_COST_WINDOW
#define MSM_COST_WINDOW 2.0e5
#endif
#ifndef MSM_C_MAX
#define MSM_C_MAX 22
#endif
#ifndef MSM_BUCKET_BYTES
#define MSM_BUCKET_BYTES (6ull << 30)
#endif
#ifndef MSM_CHUNK_MIN
#define MSM_CHUNK_MIN 8
#endif
#ifndef MSM_WAVES
#define MSM_WAVES 2
#endif
#ifndef MSM_LEVEL_CHUNK
#define MSM_LEVEL_CHUNK 16
#endif
#ifndef MSM_THREADS
#define MSM_THREADS 128
#endif
#ifndef MSM_MIN_BLOCKS
#define MSM_MIN_BLOCKS 1
#endif
static_assert(MSM_C_MAX >= 2 && MSM_C_MAX <= CUZK_GPU_MSM_WINDOW_MAX, "windows of up to 24 bits: digit magnitudes and bucket ids fit 32 bits");
static_assert(MSM_LEVEL_CHUNK >= 3, "a later pass must shrink the sequence (two partials per chunk)");

namespace gpu {

static constexpr uint32_t MSM_NO_GID = 0xffffffffu;

/* ---- group-independent steps (msm.cu) ---- */

struct msm_plan {
    unsigned c, nwin;
    uint32_t nbuckets; /* per bucket window: 2^(c-1) */
    /* 0: plain bases, one bucket window per digit window. Else the bases
     * are a window table (msm_table.cuh): nwin rows of table_rows points,
     * row w holding 2^(cw) P_i, so digit d_iw adds d_iw times the point at
     * w table_rows + i, and all windows share one set of buckets. */
    size_t table_rows;
};

/* Points an MSM can address, a table's rows all counted: a digit's value
 * carries its point's index in 31 bits, the top bit its sign. */
static constexpr size_t MSM_MAX_POINTS = ((size_t)1 << 31) - 1;

/* bucket windows (sets of nbuckets buckets) of a plan */
static inline unsigned msm_sums(const msm_plan &p)
{
    return p.table_rows ? 1 : p.nwin;
}

/* Steps 1-2 for n scalars (8 words each, device memory): the (key, value)
 * pairs of each bucket window sorted by key, `seg` entries per window (n,
 * or nwin n with a table). When at most MSM_COMPACT_SHARE of the digits are
 * non-zero (the 0/1 scalars of real witnesses: a 1 has one non-zero digit,
 * a 0 none) only those are kept, as one segment keyed by bucket id + 1, so
 * the sort and the memory shrink with them. msm_prepare works on stream st
 * (default: g's stream; the buffers are freed on st too) and waits for st
 * once, to count the non-zero digits, unless the scalars' lengths
 * (msm_scalar_lengths; NULL: not known) say most digits are non-zero
 * (random scalars): then it does not wait. */
struct msm_sorted {
    msm_plan plan = {0, 0, 0, 0};
    size_t n = 0;
    size_t entries = 0; /* digits kept: all nwin n, or the non-zero ones */
    size_t seg = 0;     /* entries per sorted segment (the bucket id is segment 2^(c-1) + key - 1) */
    dev_buf<uint32_t> keys, vals;
    void release()
    {
        keys.release();
        vals.release();
    }
};
int msm_prepare(cuzk_gpu *g, const uint32_t *scalars, size_t n, const msm_plan &plan, msm_sorted &out,
                cuzk_error *err, cudaStream_t st = nullptr, const uint64_t *lengths = nullptr);

/* Device bytes msm_prepare takes at its peak for n scalars of these
 * lengths (msm_scalar_lengths) under plan: the (key, value) pairs before
 * and after the sort and the sort's scratch; an estimate, from above. */
size_t msm_prepare_bytes(const msm_plan &plan, size_t n, const uint64_t *lengths);

/* lengths[b] <- how many of the n scalars (device memory) have bit length
 * b, 0 <= b <= 256 (0: zero); waits for st (default: g's stream). */
static constexpr unsigned MSM_LENGTHS = 257;
int msm_scalar_lengths(cuzk_gpu *g, const uint32_t *scalars, size_t n, uint64_t lengths[MSM_LENGTHS],
                       cuzk_error *err, cudaStream_t st = nullptr);

struct msm_group;
/* msm_prepare with the plan of group grp fitted to the scalars' lengths
 * (plan_fitted below): sparse digits (a bit-heavy witness) get narrower
 * windows, so fewer buckets to sum. Waits for st twice. */
int msm_prepare_fitted(cuzk_gpu *g, const msm_group *grp, const uint32_t *scalars, size_t n, msm_sorted &out,
                       cuzk_error *err, cudaStream_t st = nullptr);

/* A sorted sequence of (gid, ref), at most `cap` entries, and the scratch
 * to compact partials into it: part_gid, flags and pos hold max(cap, slots)
 * entries (a first pass may write cap slots; a later pass over cap entries
 * writes at most `slots`). */
struct msm_seq {
    size_t cap = 0, slots = 0, scan_bytes = 0;
    dev_buf<uint32_t> gids, refs, flags, pos, count, part_gid;
    dev_buf<uint8_t> scan_tmp;
};
int msm_seq_alloc(cuzk_gpu *g, msm_seq &s, size_t cap, size_t slots, cuzk_error *err);

/* s.gids/s.refs <- the kept slots among part_gid[0..m) in order (ref = slot
 * index); *len <- their number */
int msm_compact(cuzk_gpu *g, msm_seq &s, const uint32_t *part_gid, size_t m, size_t *len, cuzk_error *err);

/* s.gids[k] = k / per, s.refs[k] = k for k < count */
int msm_iota(cuzk_gpu *g, msm_seq &s, size_t count, uint32_t per, cuzk_error *err);

/* ---- step 3: segmented sums of sorted sequences ---- */

/* Sources of a sorted sequence: gid(p) (MSM_NO_GID: skip), add(acc, p). */
template <class F> struct seq_bases {
    const uint32_t *keys, *vals;
    size_t seg; /* entries per bucket window */
    uint32_t nbuckets;
    const affine<F> *bases;

    FF_INLINE uint32_t gid(size_t p) const
    {
        const uint32_t k = keys[p];
        return k ? (uint32_t)(p / seg) * nbuckets + k - 1 : MSM_NO_GID;
    }
    /* the signed base of entry p (infinity as it is) */
    FF_INLINE affine<F> point(size_t p) const
    {
        const uint32_t v = vals[p];
        affine<F> q = load_ro(bases + (v & 0x7fffffffu));
        if ((v >> 31) && !q.is_inf())
            q.y = q.y.neg();
        return q;
    }
    FF_INLINE void add(xyzz<F> &acc, size_t p) const
    {
        const affine<F> q = point(p);
        if (!q.is_inf())
            xyzz_add_affine(acc, q);
    }
};

template <class F> struct seq_points {
    const uint32_t *gids, *refs;
    const xyzz<F> *pts;

    FF_INLINE uint32_t gid(size_t p) const { return gids[p]; }
    FF_INLINE void add(xyzz<F> &acc, size_t p) const { xyzz_add_to(&acc, pts + refs[p]); }
};

/* A finished run of chunk t: a whole bucket to out[gid], else (open: it
 * continues into a neighbouring chunk) to slot 2t (first run) or 2t+1. */
template <class F>
FF_INLINE void chunk_flush(const xyzz<F> &acc, uint32_t gid, bool open, bool first, size_t t, xyzz<F> *out,
                           xyzz<F> *part, uint32_t *part_gid)
{
    if (!open) {
        store(out + gid, acc);
        return;
    }
    const size_t slot = 2 * t + (first ? 0 : 1);
    store(part + slot, acc);
    part_gid[slot] = gid;
}

/* Chunk t = [t K, t K + K) of a sorted sequence of `total` entries: whole
 * runs to out[gid], partial runs to part (see chunk_flush), part_gid of an
 * unused slot MSM_NO_GID. A run continues outside the chunk only through
 * its first or last entry. */
template <class F, class Src>
__global__ void __launch_bounds__(MSM_THREADS, MSM_MIN_BLOCKS)
    msm_chunk_kernel(Src src, size_t total, size_t K, size_t nchunks, xyzz<F> *out, xyzz<F> *part,
                     uint32_t *part_gid)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nchunks)
        return;
    const size_t p0 = t * K, p1 = p0 + K < total ? p0 + K : total;
    const uint32_t before = p0 > 0 ? src.gid(p0 - 1) : MSM_NO_GID;
    const uint32_t after = p1 < total ? src.gid(p1) : MSM_NO_GID;
    part_gid[2 * t] = MSM_NO_GID;
    part_gid[2 * t + 1] = MSM_NO_GID;

    uint32_t cur = MSM_NO_GID;
    bool first = true;
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t p = p0; p < p1; p++) {
        const uint32_t gid = src.gid(p);
        if (gid == MSM_NO_GID)
            continue;
        if (gid != cur) {
            if (cur != MSM_NO_GID) {
                chunk_flush(acc, cur, first && cur == before, first, t, out, part, part_gid);
                first = false;
            }
            cur = gid;
            acc = xyzz<F>::inf();
        }
        src.add(acc, p);
    }
    if (cur != MSM_NO_GID)
        chunk_flush(acc, cur, (first && cur == before) || cur == after, first, t, out, part, part_gid);
}

} /* namespace gpu */
/* the batch-affine first pass (its kernels need the definitions above) */
#include "gpu/msm_affine.cuh"
namespace gpu {

/* ---- step 4: window sums ---- */

/* segment t = (window t / nseg, buckets [lo, lo + seglen)): S and T */
template <class F>
__global__ void __launch_bounds__(MSM_THREADS, MSM_MIN_BLOCKS)
    msm_running_sums_kernel(const xyzz<F> *buckets, uint32_t nbuckets, uint32_t seglen, uint32_t nseg,
                            size_t count, xyzz<F> *sum_s, xyzz<F> *sum_t)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count)
        return;
    const uint32_t lo = (uint32_t)(t % nseg) * seglen;
    const xyzz<F> *bw = buckets + (t / nseg) * nbuckets;
    xyzz<F> s = xyzz<F>::inf(), tsum = xyzz<F>::inf();
    for (uint32_t b = lo + seglen; b-- > lo;) {
        xyzz_add_to(&s, bw + b);
        xyzz_add_to(&tsum, &s);
    }
    store(sum_s + t, s);
    store(sum_t + t, tsum);
}

/* sum_t[t] <- T + lo S, the segment's share of its window */
template <class F>
__global__ void __launch_bounds__(MSM_THREADS, MSM_MIN_BLOCKS)
    msm_segment_share_kernel(const xyzz<F> *sum_s, xyzz<F> *sum_t, uint32_t seglen, uint32_t nseg, size_t count)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count)
        return;
    const xyzz<F> s = load(sum_s + t);
    xyzz<F> r;
    xyzz_mul_small(&r, &s, (uint32_t)(t % nseg) * seglen);
    xyzz_add_to(sum_t + t, &r);
}

/* ---- host side ---- */

/* Non-zero digits of the scalars at window c: a scalar of len bits has
 * them in windows 0 .. (len - 1) / c (a carry out of the top one is rare
 * enough to leave out for an estimate; carry = 1 counts it, for a bound);
 * `lengths` as msm_scalar_lengths, NULL: n scalars of every window. */
static inline double msm_digit_count(size_t n, const uint64_t *lengths, unsigned c, unsigned nwin,
                                     unsigned carry = 0)
{
    if (!lengths)
        return (double)nwin * (double)n;
    double digits = 0;
    for (unsigned len = 1; len < MSM_LENGTHS; len++) {
        const unsigned wins = (len - 1) / c + 1 + carry;
        digits += (double)lengths[len] * (wins < nwin ? wins : nwin);
    }
    return digits;
}

/* The cost model's estimate for plan p over n scalars (of these lengths:
 * msm_scalar_lengths; NULL: n of every window), in products over the
 * 254-bit field: each digit's addition and share of the sort, each bucket
 * set's running sums and fixed cost. */
template <class T> static double msm_cost(const msm_plan &p, size_t n, const uint64_t *lengths)
{
    const double sums = msm_sums(p);
    return msm_digit_count(n, lengths, p.c, p.nwin) * (MSM_COST_ADD * T::mul_cost + MSM_COST_SORT) +
           sums * ((double)p.nbuckets * MSM_COST_BUCKET * T::mul_cost + MSM_COST_WINDOW);
}

/* The window minimising the cost model for n points (over a window table
 * of table_rows points per row when that is not 0), or c = forced. A table
 * has one set of buckets, so its windows may be wider (fewer additions,
 * fewer rows). With the scalars' lengths (msm_scalar_lengths) the model
 * counts the digits they have, not nwin each: mostly 0/1 scalars then take
 * narrower windows (the buckets to sum dominate). */
template <class T>
static msm_plan msm_choose(size_t n, unsigned forced, size_t table_rows, const uint64_t *lengths = nullptr)
{
    const auto plan = [&](unsigned c) { return msm_plan{c, T::bits / c + 1, 1u << (c - 1), table_rows}; };
    if (forced)
        return plan(forced);
    const unsigned c_max = table_rows ? CUZK_GPU_MSM_WINDOW_MAX : MSM_C_MAX;
    msm_plan best = {0, 0, 0, 0};
    double best_cost = 0;
    for (unsigned c = 2; c <= c_max; c++) {
        const msm_plan p = plan(c);
        if ((double)p.nbuckets * msm_sums(p) * sizeof(xyzz<typename T::F>) > (double)MSM_BUCKET_BYTES)
            break;
        const double cost = msm_cost<T>(p, n, lengths);
        if (!best.c || cost < best_cost) {
            best = p;
            best_cost = cost;
        }
    }
    return best;
}

/* One pass of the segmented sum over the sorted sequence in s (*len
 * entries, read through src): whole runs to out[gid], the partials kept
 * to part and compacted into s (*len their number). */
template <class F, class Src>
static int reduce_pass(cuzk_gpu *g, msm_seq &s, size_t *len, const Src &src, xyzz<F> *out, xyzz<F> *part,
                       cuzk_error *err)
{
    const size_t K = MSM_LEVEL_CHUNK, nchunks = (*len + K - 1) / K;
    if (2 * nchunks > s.slots)
        return cuzk_fail(err, CUZK_ERR_ARG, "MSM: %zu partial sums exceed the scratch (%zu)", 2 * nchunks, s.slots);
    msm_chunk_kernel<F, Src><<<grid_for(nchunks, MSM_THREADS), MSM_THREADS, 0, g->stream>>>(src, *len, K, nchunks,
                                                                                           out, part, s.part_gid);
    GPU_LAUNCHED();
    return msm_compact(g, s, s.part_gid, 2 * nchunks, len, err);
}

/* Sums the sorted sequence in s (len entries, the first pass reading
 * them through `first`: seq_points or seq_affine_parts) into out[gid],
 * pass after pass. */
template <class F, class First>
static int reduce_sorted(cuzk_gpu *g, msm_seq &s, size_t len, const First &first, xyzz<F> *out, cuzk_error *err)
{
    dev_buf<xyzz<F>> part[2];
    GPU_TRY(part[0].alloc(g, s.slots, err));
    GPU_TRY(part[1].alloc(g, s.slots, err));
    if (len > 0)
        GPU_TRY(reduce_pass(g, s, &len, first, out, part[0].get(), err));
    for (int side = 1; len > 0; side ^= 1)
        GPU_TRY(reduce_pass(g, s, &len, seq_points<F>{s.gids, s.refs, part[side ^ 1]}, out, part[side].get(), err));
    return 0;
}

/* slots of a later pass over at most `entries` entries */
static inline size_t msm_level_slots(size_t entries)
{
    return 2 * ((entries + MSM_LEVEL_CHUNK - 1) / MSM_LEVEL_CHUNK);
}

/* threads of one wave of kernel k (MSM_THREADS a block) */
template <class Kernel> static int msm_wave(cuzk_gpu *g, Kernel k, size_t *threads, cuzk_error *err)
{
    int resident = 0; /* blocks per multiprocessor */
    GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, k, MSM_THREADS, 0));
    *threads = (size_t)g->sm_count * (resident > 0 ? resident : 1) * MSM_THREADS;
    return 0;
}

/* Lanes a thread of the batch-affine first pass over E entries with a
 * wave of `wave` threads (0: the XYZZ walk): forced, or for groups whose
 * products cost at least MSM_AFFINE_MIN_COST the most that give each lane
 * MSM_AFFINE_ROUNDS entries and fit MSM_AFFINE_BYTES and the free memory,
 * when that reaches MSM_AFFINE_LANES_MIN. */
template <class T> static unsigned msm_affine_lanes(cuzk_gpu *g, size_t E, size_t wave)
{
    using F = typename T::F;
    if (g->msm_lanes == CUZK_GPU_MSM_LANES_XYZZ)
        return 0;
    if (g->msm_lanes > 0)
        return (unsigned)g->msm_lanes;
    if (T::mul_cost < MSM_AFFINE_MIN_COST)
        return 0;
    size_t lanes = E / (wave * MSM_AFFINE_ROUNDS);
    if (lanes < MSM_AFFINE_LANES_MIN)
        return 0;
    size_t room = memory_left(g);
    room = room > MSM_AFFINE_SPARE ? room - MSM_AFFINE_SPARE : 0;
    room = room < MSM_AFFINE_BYTES ? room : MSM_AFFINE_BYTES;
    const size_t fit = room / (wave * affine_lane_bytes<F>());
    lanes = lanes < fit ? lanes : fit;
    lanes = lanes < MSM_AFFINE_LANES_MAX ? lanes : MSM_AFFINE_LANES_MAX;
    return lanes >= MSM_AFFINE_LANES_MIN ? (unsigned)lanes : 0;
}

/* Step 3's first pass by batch-affine lanes (msm_affine.cuh), then the
 * later passes over its partial sums. */
template <class F>
static int msm_fill_affine(cuzk_gpu *g, const seq_bases<F> &src, size_t E, unsigned lanes, size_t wave,
                           xyzz<F> *buckets, cuzk_error *err)
{
    /* threads: a wave, or fewer when E would give a lane under MSM_AFFINE_ROUNDS */
    size_t threads = (E + (size_t)lanes * MSM_AFFINE_ROUNDS - 1) / ((size_t)lanes * MSM_AFFINE_ROUNDS);
    threads = threads < wave ? threads : wave;
    const unsigned blocks = grid_for(threads, MSM_THREADS);
    const size_t nchunks = (size_t)blocks * MSM_THREADS * lanes, K = (E + nchunks - 1) / nchunks;
    msm_seq s;
    GPU_TRY(msm_seq_alloc(g, s, 2 * nchunks, msm_level_slots(2 * nchunks), err));
    dev_buf<affine<F>> acc, first;
    dev_buf<F> pre;
    dev_buf<uint2> state;
    GPU_TRY(acc.alloc(g, nchunks, err));
    GPU_TRY(first.alloc(g, nchunks, err));
    GPU_TRY(pre.alloc(g, nchunks, err));
    GPU_TRY(state.alloc(g, nchunks, err));
    const affine_lanes<F> ln = {acc, first, pre, state};
    snprintf(g->prof.plan, sizeof g->prof.plan, "affine: %u threads x %u lanes, %zu entries a lane", blocks * MSM_THREADS,
             lanes, K);
    msm_affine_kernel<F, seq_bases<F>><<<blocks, MSM_THREADS, 0, g->stream>>>(src, E, K, lanes, ln, buckets,
                                                                              s.part_gid);
    GPU_LAUNCHED();
    GPU_TRY(prof_mark(g, "buckets", err));
    size_t len = 0;
    GPU_TRY(msm_compact(g, s, s.part_gid, 2 * nchunks, &len, err));
    return reduce_sorted(g, s, len, seq_affine_parts<F>{s.gids, s.refs, first, acc}, buckets, err);
}

/* Step 3: buckets[s 2^(c-1) + |d| - 1] <- bucket sums of the sorted digits
 * of bucket window s (buckets zeroed first), infinity bases skipped. */
template <class T>
static int msm_fill_buckets(cuzk_gpu *g, const msm_sorted &sorted, const affine<typename T::F> *bases,
                            xyzz<typename T::F> *buckets, cuzk_error *err)
{
    using F = typename T::F;
    const msm_plan &plan = sorted.plan;
    const size_t E0 = sorted.entries;
    GPU_CHECK(cudaMemsetAsync(buckets, 0, (size_t)msm_sums(plan) * plan.nbuckets * sizeof(xyzz<F>), g->stream));
    if (E0 == 0)
        return 0;
    const seq_bases<F> src0 = {sorted.keys, sorted.vals, sorted.seg, plan.nbuckets, bases};

    size_t wave = 0;
    GPU_TRY(msm_wave(g, msm_affine_kernel<F, seq_bases<F>>, &wave, err));
    const unsigned lanes = msm_affine_lanes<T>(g, E0, wave);
    if (lanes) {
        GPU_TRY(msm_fill_affine(g, src0, E0, lanes, wave, buckets, err));
        return prof_mark(g, "partials", err);
    }
    GPU_TRY(msm_wave(g, msm_chunk_kernel<F, seq_bases<F>>, &wave, err));
    const size_t want = wave * MSM_WAVES;
    size_t K0 = (E0 + want - 1) / want;
    if (K0 < MSM_CHUNK_MIN)
        K0 = MSM_CHUNK_MIN;
    const size_t nchunks0 = (E0 + K0 - 1) / K0;
    msm_seq s;
    GPU_TRY(msm_seq_alloc(g, s, 2 * nchunks0, msm_level_slots(2 * nchunks0), err));
    dev_buf<xyzz<F>> part0;
    GPU_TRY(part0.alloc(g, 2 * nchunks0, err));
    snprintf(g->prof.plan, sizeof g->prof.plan, "xyzz: %zu threads, %zu entries a thread", nchunks0, K0);
    msm_chunk_kernel<F, seq_bases<F>><<<grid_for(nchunks0, MSM_THREADS), MSM_THREADS, 0, g->stream>>>(
        src0, E0, K0, nchunks0, buckets, part0, s.part_gid);
    GPU_LAUNCHED();
    GPU_TRY(prof_mark(g, "buckets", err));
    size_t len = 0;
    GPU_TRY(msm_compact(g, s, s.part_gid, 2 * nchunks0, &len, err));
    GPU_TRY(reduce_sorted(g, s, len, seq_points<F>{s.gids, s.refs, part0}, buckets, err));
    return prof_mark(g, "partials", err);
}

/* Step 4: windows[s] <- W_s for each bucket window s (zeroed first). */
template <class T>
static int msm_window_sums(cuzk_gpu *g, const msm_plan &plan, const xyzz<typename T::F> *buckets,
                           xyzz<typename T::F> *windows, cuzk_error *err)
{
    using F = typename T::F;
    const size_t want = (size_t)g->sm_count * 2 * MSM_THREADS;
    const unsigned sums = msm_sums(plan);
    uint32_t nseg = 1;
    while (nseg < plan.nbuckets && (size_t)nseg * sums < want)
        nseg *= 2;
    const uint32_t seglen = plan.nbuckets / nseg;
    const size_t count = (size_t)sums * nseg;
    dev_buf<xyzz<F>> sum_s, sum_t;
    GPU_TRY(sum_s.alloc(g, count, err));
    GPU_TRY(sum_t.alloc(g, count, err));
    msm_running_sums_kernel<F><<<grid_for(count, MSM_THREADS), MSM_THREADS, 0, g->stream>>>(
        buckets, plan.nbuckets, seglen, nseg, count, sum_s, sum_t);
    GPU_LAUNCHED();
    msm_segment_share_kernel<F><<<grid_for(count, MSM_THREADS), MSM_THREADS, 0, g->stream>>>(sum_s, sum_t, seglen,
                                                                                              nseg, count);
    GPU_LAUNCHED();
    GPU_TRY(prof_mark(g, "running_sums", err));
    GPU_CHECK(cudaMemsetAsync(windows, 0, sums * sizeof(xyzz<F>), g->stream));
    msm_seq s;
    GPU_TRY(msm_seq_alloc(g, s, count, msm_level_slots(count), err));
    GPU_TRY(msm_iota(g, s, count, nseg, err));
    GPU_TRY(reduce_sorted(g, s, count, seq_points<F>{s.gids, s.refs, sum_t}, windows, err));
    return prof_mark(g, "window_sums", err);
}

/* XYZZ -> CPU Jacobian: (X ZZ ZZZ^2, Y ZZ^3 ZZZ^2, ZZ ZZZ); ZZ = 0 is infinity */
template <class T> static void xyzz_to_jac(typename T::jac *r, const xyzz<typename T::F> &p)
{
    using fq = typename T::fq;
    fq x, y, zz, zzz, t, u, v;
    memcpy(&x, &p.x, sizeof x);
    memcpy(&y, &p.y, sizeof y);
    memcpy(&zz, &p.zz, sizeof zz);
    memcpy(&zzz, &p.zzz, sizeof zzz);
    if (T::is_zero(&zz)) {
        T::set_inf(r);
        return;
    }
    T::mul(&t, &zzz, &zzz); /* ZZZ^2 */
    T::mul(&u, &zz, &t);    /* ZZ ZZZ^2 */
    T::mul(&r->x, &x, &u);
    T::mul(&v, &zz, &zz);   /* ZZ^2 */
    T::mul(&t, &y, &u);
    T::mul(&r->y, &t, &v);
    T::mul(&r->z, &zz, &zzz);
}

/* *result = sum scalars[i] bases[i] for the scalars behind `sorted`,
 * bases in device memory (steps 3-5) */
template <class T>
static int msm_device(cuzk_gpu *g, typename T::jac *result, const affine<typename T::F> *bases,
                      const msm_sorted &sorted, cuzk_error *err)
{
    using F = typename T::F;
    T::set_inf(result);
    if (sorted.n == 0)
        return 0;
    const msm_plan &plan = sorted.plan;
    const unsigned sums = msm_sums(plan);
    dev_buf<xyzz<F>> windows;
    GPU_TRY(windows.alloc(g, sums, err));
    {
        dev_buf<xyzz<F>> buckets;
        GPU_TRY(buckets.alloc(g, (size_t)sums * plan.nbuckets, err));
        GPU_TRY(msm_fill_buckets<T>(g, sorted, bases, buckets, err));
        GPU_TRY(msm_window_sums<T>(g, plan, buckets, windows, err));
    }
    /* step 5 (one window sum, the result, with a table) */
    xyzz<F> *host = static_cast<xyzz<F> *>(malloc(sums * sizeof(xyzz<F>)));
    if (!host)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory for %u window sums", sums);
    cudaError_t e = cudaMemcpyAsync(host, windows, sums * sizeof(xyzz<F>), cudaMemcpyDeviceToHost, g->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(g->stream);
    if (e != cudaSuccess) {
        free(host);
        return cuda_fail(err, e, "copying the window sums back", __FILE__, __LINE__);
    }
    typename T::jac acc, wj;
    xyzz_to_jac<T>(&acc, host[sums - 1]);
    for (unsigned w = sums - 1; w-- > 0;) {
        for (unsigned i = 0; i < plan.c; i++)
            T::dbl(&acc, &acc);
        xyzz_to_jac<T>(&wj, host[w]);
        T::add(&acc, &acc, &wj);
    }
    free(host);
    *result = acc;
    return prof_mark(g, "host", err);
}

/* The door's work for one group: host or device inputs. */
template <class T>
static int msm_call(cuzk_gpu *given, void *result, const void *bases, const void *scalars, size_t n, bool on_device,
                    cuzk_error *err)
{
    using A = affine<typename T::F>;
    if (!result || (n && (!bases || !scalars)))
        return cuzk_fail(err, CUZK_ERR_ARG, "MSM: missing result, bases or scalars");
    if (n > MSM_MAX_POINTS)
        return cuzk_fail(err, CUZK_ERR_ARG, "MSM of %zu points: at most 2^31 - 1", n);
    ctx_scope cs;
    GPU_TRY(cs.enter(given, err));
    cuzk_gpu *g = cs.get();
    typename T::jac *res = static_cast<typename T::jac *>(result);
    dev_buf<A> db;
    dev_buf<uint32_t> ds;
    if (!on_device) {
        GPU_TRY(db.alloc(g, n, err));
        GPU_TRY(ds.alloc(g, 8 * n, err));
        GPU_CHECK(cudaMemcpyAsync(db, bases, n * sizeof(A), cudaMemcpyHostToDevice, g->stream));
        GPU_CHECK(cudaMemcpyAsync(ds, scalars, n * 32, cudaMemcpyHostToDevice, g->stream));
        bases = db.get();
        scalars = ds.get();
    }
    g->prof.n = 0;
    GPU_TRY(prof_mark(g, "start", err));
    uint64_t lengths[MSM_LENGTHS];
    GPU_TRY(msm_scalar_lengths(g, static_cast<const uint32_t *>(scalars), n, lengths, err));
    msm_sorted sorted;
    GPU_TRY(msm_prepare(g, static_cast<const uint32_t *>(scalars), n, msm_choose<T>(n, g->msm_c, 0, lengths), sorted,
                        err, nullptr, lengths));
    return msm_device<T>(g, res, static_cast<const A *>(bases), sorted, err);
}

/* The entry points of one group, defined in msm_<G>.cu:
 *   msm_<G>(g, result, bases, scalars, n, on_device, err)  the door's call
 *   msm_<G>_plan(g, n)   the window plan of n points (the context's forced
 *                        window applies)
 *   msm_<G>_table_plan(g, rows)  the same for a window table of `rows` bases
 *   msm_<G>_table_build(g, table, plan, err)  fills rows 1.. of a table
 *                        whose row 0 holds the bases (msm_table.cuh)
 *   msm_<G>_sorted(g, result, bases, sorted, err)  device bases (or a
 *                        table) against prepared scalars (msm_prepare)
 * from the CPU group G (its Jacobian type and the operations that finish
 * the sum on the host), coordinate field FQ, device group DEV, scalar bits,
 * and the cost of one coordinate multiplication relative to one over the
 * 254-bit field. */
#define MSM_INSTANCE(G, FQ, DEV, BITS, MUL_COST)                                               \
    namespace gpu {                                                                            \
    struct G##_msm {                                                                           \
        using F = DEV::F;                                                                      \
        using jac = G##_jac;                                                                   \
        using fq = FQ;                                                                         \
        static constexpr unsigned bits = BITS;                                                 \
        static constexpr double mul_cost = MUL_COST;                                           \
        static void mul(fq *r, const fq *a, const fq *b) { FQ##_mul(r, a, b); }                \
        static int is_zero(const fq *a) { return FQ##_is_zero(a); }                            \
        static void dbl(jac *r, const jac *p) { G##_jac_dbl_var(r, p); }                           \
        static void add(jac *r, const jac *p, const jac *q) { G##_jac_add_var(r, p, q); }          \
        static void set_inf(jac *r) { G##_jac_set_inf(r); }                                    \
    };                                                                                         \
    static_assert(sizeof(affine<DEV::F>) == sizeof(G##_affine), "device and CPU points differ"); \
    static_assert(sizeof(DEV::F) == sizeof(FQ), "device and CPU coordinates differ");         \
    int msm_##G(cuzk_gpu *g, void *result, const void *bases, const void *scalars, size_t n, bool on_device, \
                cuzk_error *err)                                                               \
    {                                                                                          \
        return msm_call<G##_msm>(g, result, bases, scalars, n, on_device, err);                \
    }                                                                                          \
    msm_plan msm_##G##_plan(const cuzk_gpu *g, size_t n) { return msm_choose<G##_msm>(n, g->msm_c, 0); } \
    msm_plan msm_##G##_plan_fitted(const cuzk_gpu *g, size_t n, const uint64_t *lengths)         \
    {                                                                                          \
        return msm_choose<G##_msm>(n, g->msm_c, 0, lengths);                                   \
    }                                                                                          \
    double msm_##G##_cost(const msm_plan &p, size_t n, const uint64_t *lengths)                \
    {                                                                                          \
        return msm_cost<G##_msm>(p, n, lengths);                                               \
    }                                                                                          \
    msm_plan msm_##G##_table_plan(const cuzk_gpu *g, size_t rows)                              \
    {                                                                                          \
        return msm_choose<G##_msm>(rows, g->msm_c, rows);                                      \
    }                                                                                          \
    int msm_##G##_table_build(cuzk_gpu *g, void *table, const msm_plan &plan, cuzk_error *err) \
    {                                                                                          \
        return msm_table_build(g, static_cast<affine<DEV::F> *>(table), plan.table_rows, plan.c, plan.nwin, err); \
    }                                                                                          \
    int msm_##G##_sorted(cuzk_gpu *g, void *result, const void *bases, const msm_sorted &sorted, cuzk_error *err) \
    {                                                                                          \
        return msm_device<G##_msm>(g, static_cast<G##_jac *>(result),                          \
                                   static_cast<const affine<DEV::F> *>(bases), sorted, err);   \
    }                                                                                          \
    int msm_##G##_fixed_mul(cuzk_gpu *g, const void *table, const void *scalars, size_t n, void *out, \
                            cuzk_error *err)                                                   \
    {                                                                                          \
        return fixed_mul(g, static_cast<const affine<DEV::F> *>(table), static_cast<const uint32_t *>(scalars), n, \
                         static_cast<affine<DEV::F> *>(out), err);                             \
    }                                                                                          \
    }

/* the four instances */
#define MSM_DECLARE(G)                                                                         \
    int msm_##G(cuzk_gpu *g, void *result, const void *bases, const void *scalars, size_t n, bool on_device, \
                cuzk_error *err);                                                              \
    msm_plan msm_##G##_plan(const cuzk_gpu *g, size_t n);                                      \
    msm_plan msm_##G##_plan_fitted(const cuzk_gpu *g, size_t n, const uint64_t *lengths);       \
    double msm_##G##_cost(const msm_plan &p, size_t n, const uint64_t *lengths);               \
    msm_plan msm_##G##_table_plan(const cuzk_gpu *g, size_t rows);                             \
    int msm_##G##_table_build(cuzk_gpu *g, void *table, const msm_plan &plan, cuzk_error *err); \
    int msm_##G##_sorted(cuzk_gpu *g, void *result, const void *bases, const msm_sorted &sorted, cuzk_error *err); \
    int msm_##G##_fixed_mul(cuzk_gpu *g, const void *table, const void *scalars, size_t n, void *out, cuzk_error *err);
MSM_DECLARE(bn254_g1)
MSM_DECLARE(bn254_g2)
MSM_DECLARE(bls12_381_g1)
MSM_DECLARE(bls12_381_g2)
#undef MSM_DECLARE

/* One group's entry points (above) and the bytes of its affine points. */
struct msm_group {
    int (*call)(cuzk_gpu *g, void *result, const void *bases, const void *scalars, size_t n, bool on_device,
                cuzk_error *err);
    msm_plan (*plan)(const cuzk_gpu *g, size_t n);
    /* the plan for n scalars of these lengths (msm_scalar_lengths) */
    msm_plan (*plan_fitted)(const cuzk_gpu *g, size_t n, const uint64_t *lengths);
    /* the cost model's estimate of a plan (msm_cost) */
    double (*cost)(const msm_plan &p, size_t n, const uint64_t *lengths);
    msm_plan (*table_plan)(const cuzk_gpu *g, size_t rows);
    int (*table_build)(cuzk_gpu *g, void *table, const msm_plan &plan, cuzk_error *err);
    int (*sorted)(cuzk_gpu *g, void *result, const void *bases, const msm_sorted &sorted, cuzk_error *err);
    /* out[0..n) <- scalars[i] G from a setup's fixed-base table of G
     * (fixed_base.cuh); all device memory, scalars normal form; queued on
     * g's stream */
    int (*fixed_mul)(cuzk_gpu *g, const void *table, const void *scalars, size_t n, void *out, cuzk_error *err);
    size_t point_bytes;
};

/* G1 (g2 false) or G2 of the curve; NULL for an unknown curve (msm.cu) */
const msm_group *msm_group_of(cuzk_curve_id curve, bool g2);

/* *out <- a window table for `plan` (table_rows bases, host or device memory)
 * in device memory of its own (cudaMalloc; the caller frees it, also after
 * a failure). msm.cu. */
int table_upload(cuzk_gpu *g, const msm_group *grp, const msm_plan &plan, const void *bases, void **out,
                 cuzk_error *err);

} /* namespace gpu */

#endif
