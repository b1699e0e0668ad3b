/* The ceremony's heavy multiplications on the device (gpu.h,
 * cuzk_gpu_ceremony_mul_make; the hook is ceremony/ceremony_mul.h):
 *   scale    pts[i] <- first inc^i pts[i] (contributions): a thread takes
 *            FIXED_PER_THREAD points, computes each scalar first inc^i
 *            itself (inc^i by square and multiply on the public index i),
 *            multiplies (scalar_mul.cuh: signed windows, GLV/GLS splits) and
 *            makes its points affine with one inversion (fixed_base.cuh,
 *            make_affine);
 *   combine  out[i] = sum of k_t B_t over output i's terms (zkey new): a
 *            thread per chunk of at most COMBINE_CHUNK terms of one output
 *            sums their products (k public: the shorter of k and r - k,
 *            scalar_mul.cuh); outputs longer than a chunk are then summed
 *            chunk by chunk, COMBINE_CHUNK partial sums a thread, level by
 *            level, until each has one; then affine.
 *   msm      zkey new's outputs of many terms: the MSM of msm.cuh;
 *   ifft     prepare phase2's inverse FFT of points: the points' XYZZ forms
 *            in bit-reversed order, a launch per stage of butterflies
 *            (a thread each: u + w v, u - w v, w a public twiddle), then
 *            1/n times each, affine; all 2^log_n points at once on the
 *            device, or CUZK_ERR_NOMEM (the ceremony then takes the CPU).
 * scale and combine go in rounds of at most `round` points or terms,
 * so device memory stays bounded for any size: an output whose terms
 * cross a round's end carries its partial sum (one point, on the device)
 * into the next round. The bases of a combine round are gathered on the
 * host's threads (the terms' points, in the terms' order): the tables
 * themselves (the Lagrange bases) never go to the device whole.
 *
 * The results are affine with canonical coordinates (ff.cuh), so byte for
 * byte the CPU's whatever formulas made them. first and inc (toxic waste)
 * are wiped from device memory before it is freed; the scalars made from
 * them live in registers and local memory only. Variable time: the host's
 * constant-time rule is the CPU's (its timing is observable); on the
 * device the rule is the wipe. */
#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "gpu/ec.cuh"
#include "gpu/fixed_base.cuh"
#include "gpu/gpu_internal.cuh"
#include "gpu/msm.cuh"
#include "gpu/scalar_mul.cuh"

extern "C" {
#include "util/threads.h"
}

namespace gpu {

/* COMBINE_CHUNK       terms, or partial sums, one thread adds up
 * CEREMONY_ROUND      points or terms per round by default */
static constexpr unsigned COMBINE_CHUNK = 16;
static constexpr size_t CEREMONY_ROUND = (size_t)1 << 22;
static constexpr size_t CEREMONY_ROUND_MAX = (size_t)1 << 30; /* chunk bounds are 32-bit */
static constexpr unsigned CEREMONY_THREADS = 128;
static constexpr size_t GATHER_MIN = (size_t)1 << 16; /* terms worth the host's threads */

struct ceremony_dev {
    cuzk_gpu *g;
    size_t round;
};

/* cuzk_lc_term as the device reads it (the same 40 bytes) */
struct lc_term_dev {
    uint32_t table, base;
    uint32_t k[8];
};
static_assert(sizeof(lc_term_dev) == sizeof(cuzk_lc_term), "a term's bytes");

/* pts[i] <- first inc^(from + i) pts[i], i < n; secret = {first, inc},
 * Montgomery */
template <class F, class FR>
__global__ void __launch_bounds__(CEREMONY_THREADS)
    scale_kernel(affine<F> *pts, size_t n, uint64_t from, const FR *secret, F *zz_s, F *zzz_s, F *pre_s)
{
    const FR first = load(secret), inc = load(secret + 1);
    make_affine<F>(n, pts, zz_s, zzz_s, pre_s, [&](size_t i) {
        const FR k = (first * inc.pow(from + i)).from_mont();
        return mul_scalar<F>(load(pts + i), k.v);
    });
}

/* k p for a public k (normal form, < r): by r - k, negated, when that is
 * shorter (the circuits' -1, -2, ... are r - 1, r - 2, ...) */
template <class F, class FR> FF_INLINE xyzz<F> mul_public(const affine<F> &p, const uint32_t (&k)[8])
{
    FR kk;
#pragma unroll
    for (int i = 0; i < 8; i++)
        kk.v[i] = k[i];
    const FR neg = FR::raw_sub(FR::modulus(), kk);
    bool high = false; /* k > r - k */
    for (int i = 7; i >= 0; i--)
        if (kk.v[i] != neg.v[i]) {
            high = kk.v[i] > neg.v[i];
            break;
        }
    const FR &use = high ? neg : kk;
    xyzz<F> r = mul_scalar<F>(p, use.v);
    if (high)
        r.y = r.y.neg();
    return r;
}

/* sums[c] <- sum of k_t B_t, t in [chunk[c], chunk[c + 1]) (bases[t] the
 * point of terms[t]) */
template <class F, class FR>
__global__ void __launch_bounds__(CEREMONY_THREADS)
    products_kernel(const lc_term_dev *terms, const affine<F> *bases, const uint32_t *chunk, size_t chunks,
                    xyzz<F> *sums)
{
    const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= chunks)
        return;
    xyzz<F> acc = xyzz<F>::inf();
    for (uint32_t t = chunk[c]; t < chunk[c + 1]; t++) {
        const xyzz<F> kb = mul_public<F, FR>(load_ro(bases + t), terms[t].k);
        xyzz_add_to(&acc, &kb);
    }
    store(sums + c, acc);
}

/* out[c] <- sum of in[chunk[c] .. chunk[c + 1]) */
template <class F>
__global__ void __launch_bounds__(CEREMONY_THREADS)
    sum_kernel(const xyzz<F> *in, const uint32_t *chunk, size_t chunks, xyzz<F> *out)
{
    const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= chunks)
        return;
    xyzz<F> acc = xyzz<F>::inf();
    for (uint32_t i = chunk[c]; i < chunk[c + 1]; i++) {
        const xyzz<F> q = load(in + i);
        xyzz_add_to(&acc, &q);
    }
    store(out + c, acc);
}

/* one thread: the round's first sum takes the carry in; its last, when its
 * output goes on in the next round, becomes the carry */
template <class F> __global__ void carry_kernel(xyzz<F> *sums, size_t s, xyzz<F> *carry, bool carry_in, bool carry_out)
{
    if (carry_in)
        xyzz_add_to(&sums[0], carry);
    if (carry_out)
        *carry = sums[s - 1];
}

template <class F>
__global__ void __launch_bounds__(CEREMONY_THREADS)
    affine_kernel(const xyzz<F> *in, size_t n, affine<F> *out, F *zz_s, F *zzz_s, F *pre_s)
{
    make_affine<F>(n, out, zz_s, zzz_s, pre_s, [&](size_t i) { return load(in + i); });
}

static void report(const cuzk_ceremony_report *r, uint64_t done, uint64_t total)
{
    if (r && r->fn)
        r->fn(r->ctx, r->stage, done, total);
}

/* ---- scale ---- */

/* scratch for make_affine over `count` points */
template <class F> struct affine_scratch {
    dev_buf<F> zz, zzz, pre;
    int alloc(cuzk_gpu *g, size_t count, cuzk_error *err)
    {
        GPU_TRY(zz.alloc(g, count, err));
        GPU_TRY(zzz.alloc(g, count, err));
        return pre.alloc(g, count, err);
    }
};

static unsigned affine_grid(size_t count)
{
    return grid_for((count + FIXED_PER_THREAD - 1) / FIXED_PER_THREAD, CEREMONY_THREADS);
}

/* one round of scale: len points from host, multiplied, back */
template <class F, class FR>
static int scale_round(cuzk_gpu *g, affine<F> *host, size_t len, uint64_t from, const FR *secret, affine<F> *d_pts,
                       affine_scratch<F> &s, cuzk_error *err)
{
    GPU_CHECK(cudaMemcpyAsync(d_pts, host, len * sizeof *host, cudaMemcpyHostToDevice, g->stream));
    scale_kernel<F, FR><<<affine_grid(len), CEREMONY_THREADS, 0, g->stream>>>(d_pts, len, from, secret, s.zz, s.zzz,
                                                                              s.pre);
    GPU_LAUNCHED();
    GPU_CHECK(cudaMemcpyAsync(host, d_pts, len * sizeof *host, cudaMemcpyDeviceToHost, g->stream));
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

template <class F, class FR>
static int scale_on(ceremony_dev *d, void *pts, size_t n, const uint64_t *first, const uint64_t *inc,
                    const cuzk_ceremony_report *rep, cuzk_error *err)
{
    if (n == 0)
        return 0;
    cuzk_gpu *g = d->g;
    const size_t round = std::min(n, d->round);
    dev_buf<affine<F>> d_pts;
    dev_buf<FR> secret;
    affine_scratch<F> scratch;
    GPU_TRY(secret.alloc(g, 2, err));
    GPU_TRY(d_pts.alloc(g, round, err));
    GPU_TRY(scratch.alloc(g, round, err));
    affine<F> *host = static_cast<affine<F> *>(pts);
    int rc = 0;
    cudaError_t e = cudaMemcpyAsync(secret.get(), first, sizeof(FR), cudaMemcpyHostToDevice, g->stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(secret.get() + 1, inc, sizeof(FR), cudaMemcpyHostToDevice, g->stream);
    if (e != cudaSuccess)
        rc = cuda_fail(err, e, "cudaMemcpyAsync(secret)", __FILE__, __LINE__);
    for (size_t at = 0; at < n && !rc; at += round) {
        const size_t len = std::min(round, n - at);
        rc = scale_round<F, FR>(g, host + at, len, at, secret, d_pts, scratch, err);
        if (!rc)
            report(rep, at + len, n);
    }
    /* the toxic waste off the device before its memory goes back: on failure too */
    e = cudaMemsetAsync(secret.get(), 0, 2 * sizeof(FR), g->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(g->stream);
    if (e != cudaSuccess && !rc)
        rc = cuda_fail(err, e, "wiping the secret scalars", __FILE__, __LINE__);
    return rc;
}

/* ---- the inverse FFT of points (prepare phase2) ---- */

/* a[rev(i)] <- pts[i] as XYZZ, rev reversing log_n bits (log_n >= 1) */
template <class F>
__global__ void __launch_bounds__(CEREMONY_THREADS)
    bitrev_kernel(const affine<F> *pts, size_t n, unsigned log_n, xyzz<F> *a)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const affine<F> p = load(pts + i);
    const xyzz<F> q = p.is_inf() ? xyzz<F>::inf() : xyzz<F>{p.x, p.y, F::one(), F::one()};
    store(a + (__brev((uint32_t)i) >> (32 - log_n)), q);
}

/* tw[k] <- root_inv^k in normal form, k < half_n */
template <class FR>
__global__ void __launch_bounds__(CEREMONY_THREADS) twiddle_kernel(const FR *root_inv, size_t half_n, FR *tw)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < half_n)
        store(tw + k, load(root_inv).pow(k).from_mont());
}

/* one stage of butterflies (n / 2 of them): b's pair is i, i + half in its
 * block of 2 half, (u, v) <- (u + w v, u - w v), w = tw[(b % half) stride] */
template <class F, class FR>
__global__ void __launch_bounds__(CEREMONY_THREADS)
    butterfly_kernel(xyzz<F> *a, size_t half_n, size_t half, size_t stride, const FR *tw)
{
    const size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= half_n)
        return;
    const size_t j = b % half, i = (b / half) * 2 * half + j;
    xyzz<F> u = load(a + i), v = load(a + i + half);
    if (j) {
        const FR w = load(tw + j * stride);
        v = mul_scalar<F>(v, w.v);
    }
    xyzz<F> sum = u;
    xyzz_add_to(&sum, &v);
    v.y = v.y.neg();
    xyzz_add_to(&u, &v);
    store(a + i, sum);
    store(a + i + half, u);
}

/* pts[i] <- n_inv a[i], affine */
template <class F, class FR>
__global__ void __launch_bounds__(CEREMONY_THREADS)
    ifft_out_kernel(const xyzz<F> *a, size_t n, const FR *n_inv, affine<F> *pts, F *zz_s, F *zzz_s, F *pre_s)
{
    const FR k = load(n_inv).from_mont();
    make_affine<F>(n, pts, zz_s, zzz_s, pre_s, [&](size_t i) { return mul_scalar<F>(load(a + i), k.v); });
}

/* The whole FFT on the device (2^log_n points and their XYZZ forms at
 * once): CUZK_ERR_NOMEM, nothing touched, when that does not fit. */
template <class F, class FR>
static int ifft_on(ceremony_dev *d, void *pts_v, unsigned log_n, const uint64_t *root_inv, const uint64_t *n_inv,
                   const cuzk_ceremony_report *rep, cuzk_error *err)
{
    if (log_n == 0) /* 1/1 times one point: itself */
        return 0;
    if (log_n > 31)
        return cuzk_fail(err, CUZK_ERR_ARG, "an FFT of 2^%u points", log_n);
    cuzk_gpu *g = d->g;
    const size_t n = (size_t)1 << log_n;
    const size_t need = n * (sizeof(xyzz<F>) + sizeof(affine<F>) + 3 * sizeof(F)) + n / 2 * sizeof(FR);
    if (need + need / 8 > memory_left(g))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "an FFT of 2^%u points needs %zu bytes of device memory", log_n,
                         need);
    affine<F> *host = static_cast<affine<F> *>(pts_v);
    dev_buf<affine<F>> d_pts;
    dev_buf<xyzz<F>> a;
    dev_buf<FR> consts, tw;
    affine_scratch<F> scratch;
    GPU_TRY(d_pts.alloc(g, n, err));
    GPU_TRY(a.alloc(g, n, err));
    GPU_TRY(consts.alloc(g, 2, err));
    GPU_TRY(tw.alloc(g, n / 2, err));
    GPU_TRY(scratch.alloc(g, n, err));
    GPU_CHECK(cudaMemcpyAsync(d_pts.get(), host, n * sizeof *host, cudaMemcpyHostToDevice, g->stream));
    GPU_CHECK(cudaMemcpyAsync(consts.get(), root_inv, sizeof(FR), cudaMemcpyHostToDevice, g->stream));
    GPU_CHECK(cudaMemcpyAsync(consts.get() + 1, n_inv, sizeof(FR), cudaMemcpyHostToDevice, g->stream));
    bitrev_kernel<F><<<grid_for(n, CEREMONY_THREADS), CEREMONY_THREADS, 0, g->stream>>>(d_pts, n, log_n, a);
    GPU_LAUNCHED();
    twiddle_kernel<FR><<<grid_for(n / 2, CEREMONY_THREADS), CEREMONY_THREADS, 0, g->stream>>>(consts, n / 2, tw);
    GPU_LAUNCHED();
    unsigned stage = 0;
    for (size_t half = 1; half < n; half *= 2, stage++) {
        butterfly_kernel<F, FR><<<grid_for(n / 2, CEREMONY_THREADS), CEREMONY_THREADS, 0, g->stream>>>(
            a, n / 2, half, n / (2 * half), tw);
        GPU_LAUNCHED();
        GPU_CHECK(cudaStreamSynchronize(g->stream)); /* a stage at a time: progress, and no long queue */
        report(rep, stage + 1, log_n + 1);
    }
    ifft_out_kernel<F, FR><<<affine_grid(n), CEREMONY_THREADS, 0, g->stream>>>(a, n, consts.get() + 1, d_pts,
                                                                               scratch.zz, scratch.zzz, scratch.pre);
    GPU_LAUNCHED();
    GPU_CHECK(cudaMemcpyAsync(host, d_pts.get(), n * sizeof *host, cudaMemcpyDeviceToHost, g->stream));
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    report(rep, log_n + 1, log_n + 1);
    return 0;
}

/* ---- combine ---- */

/* One level's chunks: each segment's items (len[s] of them, in order) cut
 * into chunks of at most COMBINE_CHUNK; bounds[c] .. bounds[c + 1] the
 * items of chunk c; len[s] becomes the segment's chunk count. */
static void cut_chunks(std::vector<uint32_t> &len, std::vector<uint32_t> &bounds)
{
    bounds.clear();
    uint32_t at = 0;
    for (uint32_t &l : len) {
        const uint32_t chunks = (l + COMBINE_CHUNK - 1) / COMBINE_CHUNK;
        for (uint32_t c = 0; c < chunks; c++)
            bounds.push_back(at + c * COMBINE_CHUNK);
        at += l;
        l = chunks;
    }
    bounds.push_back(at);
}

template <class F> struct combine_bufs {
    dev_buf<lc_term_dev> terms;
    dev_buf<affine<F>> bases, out;
    dev_buf<xyzz<F>> sums[2], carry;
    dev_buf<uint32_t> bounds;
    affine_scratch<F> scratch;
    std::vector<affine<F>> host_bases, host_out;
    std::vector<uint32_t> len, bounds_h;
    std::vector<size_t> seg_out; /* the output of each segment */

    int alloc(cuzk_gpu *g, size_t round, cuzk_error *err)
    {
        GPU_TRY(terms.alloc(g, round, err));
        GPU_TRY(bases.alloc(g, round, err));
        GPU_TRY(out.alloc(g, round, err));
        GPU_TRY(sums[0].alloc(g, round, err));
        GPU_TRY(sums[1].alloc(g, round, err));
        GPU_TRY(carry.alloc(g, 1, err));
        GPU_TRY(bounds.alloc(g, round + 1, err));
        GPU_TRY(scratch.alloc(g, round, err));
        host_bases.resize(round);
        host_out.resize(round);
        return 0;
    }
};

/* The terms' points, in the terms' order, on all CPUs: random reads
 * across the tables (a 2^24 key's Lagrange bases are gigabytes), each a
 * cache miss, too slow for one thread beside the device's products. */
template <class F> struct gather_ctx {
    affine<F> *dst;
    const cuzk_lc_term *terms;
    const void *const *tables;
};

template <class F> static void gather_range(void *vctx, size_t begin, size_t end, int tid)
{
    (void)tid;
    const gather_ctx<F> *x = static_cast<const gather_ctx<F> *>(vctx);
    for (size_t t = begin; t < end; t++) {
        const cuzk_lc_term &term = x->terms[t];
        std::memcpy(static_cast<void *>(&x->dst[t]),
                    static_cast<const uint8_t *>(x->tables[term.table]) + (size_t)term.base * sizeof(affine<F>),
                    sizeof(affine<F>));
    }
}

template <class F>
static void gather_bases(affine<F> *dst, const cuzk_lc_term *terms, size_t m, const void *const *tables)
{
    gather_ctx<F> x{dst, terms, tables};
    cuzk_parallel_for(m < GATHER_MIN ? 1 : cuzk_cpu_count(), m, gather_range<F>, &x);
}

/* bounds_h to the device; waits, so the host vector may change after */
static int upload_bounds(cuzk_gpu *g, uint32_t *d, const std::vector<uint32_t> &h, cuzk_error *err)
{
    GPU_CHECK(cudaMemcpyAsync(d, h.data(), h.size() * sizeof h[0], cudaMemcpyHostToDevice, g->stream));
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

/* One round: the terms [t0, t1) of outputs first.. (segments already in
 * b.len and b.seg_out); the finished outputs written to out. */
template <class F, class FR>
static int combine_round(cuzk_gpu *g, combine_bufs<F> &b, affine<F> *out, uint64_t t0, uint64_t t1,
                         const cuzk_lc_term *terms, const void *const *tables, bool carry_in, bool carry_out,
                         cuzk_error *err)
{
    const size_t m = t1 - t0, segs = b.len.size();
    gather_bases<F>(b.host_bases.data(), terms + t0, m, tables);
    GPU_CHECK(cudaMemcpyAsync(b.terms.get(), terms + t0, m * sizeof(cuzk_lc_term), cudaMemcpyHostToDevice, g->stream));
    GPU_CHECK(cudaMemcpyAsync(b.bases.get(), b.host_bases.data(), m * sizeof(affine<F>), cudaMemcpyHostToDevice,
                              g->stream));
    cut_chunks(b.len, b.bounds_h);
    GPU_TRY(upload_bounds(g, b.bounds, b.bounds_h, err));
    size_t chunks = b.bounds_h.size() - 1;
    products_kernel<F, FR><<<grid_for(chunks, CEREMONY_THREADS), CEREMONY_THREADS, 0, g->stream>>>(
        b.terms, b.bases, b.bounds, chunks, b.sums[0]);
    GPU_LAUNCHED();
    int cur = 0;
    while (chunks > segs) { /* outputs of more than one chunk: a level of partial sums */
        cut_chunks(b.len, b.bounds_h);
        GPU_TRY(upload_bounds(g, b.bounds, b.bounds_h, err));
        chunks = b.bounds_h.size() - 1;
        sum_kernel<F><<<grid_for(chunks, CEREMONY_THREADS), CEREMONY_THREADS, 0, g->stream>>>(b.sums[cur], b.bounds,
                                                                                              chunks, b.sums[1 - cur]);
        GPU_LAUNCHED();
        cur = 1 - cur;
    }
    carry_kernel<F><<<1, 1, 0, g->stream>>>(b.sums[cur], segs, b.carry, carry_in, carry_out);
    GPU_LAUNCHED();
    const size_t done = segs - (carry_out ? 1 : 0);
    if (done) {
        affine_kernel<F><<<affine_grid(done), CEREMONY_THREADS, 0, g->stream>>>(b.sums[cur], done, b.out,
                                                                                b.scratch.zz, b.scratch.zzz,
                                                                                b.scratch.pre);
        GPU_LAUNCHED();
        GPU_CHECK(cudaMemcpyAsync(b.host_out.data(), b.out.get(), done * sizeof(affine<F>), cudaMemcpyDeviceToHost,
                                  g->stream));
    }
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    for (size_t s = 0; s < done; s++)
        std::memcpy(static_cast<void *>(out + b.seg_out[s]), &b.host_out[s], sizeof(affine<F>));
    return 0;
}

template <class F, class FR>
static int combine_on(ceremony_dev *d, void *out_v, size_t n, const uint64_t *start, const cuzk_lc_term *terms,
                      const void *const *tables, const cuzk_ceremony_report *rep, cuzk_error *err)
{
    affine<F> *out = static_cast<affine<F> *>(out_v);
    if (n == 0)
        return 0;
    std::memset(static_cast<void *>(out), 0, n * sizeof *out); /* outputs of no terms: infinity */
    const uint64_t first = start[0], last = start[n];
    if (last <= first) {
        report(rep, n, n);
        return 0;
    }
    combine_bufs<F> b;
    const size_t round = std::min<uint64_t>(d->round, last - first);
    GPU_TRY(b.alloc(d->g, round, err));
    size_t o = 0; /* the first output with terms at or after t0 */
    bool carry = false;
    for (uint64_t t0 = first; t0 < last;) {
        const uint64_t t1 = std::min<uint64_t>(t0 + round, last);
        b.len.clear();
        b.seg_out.clear();
        while (o < n && start[o + 1] <= t0)
            o++;
        for (size_t i = o; i < n && start[i] < t1; i++) {
            const uint64_t s = std::max(start[i], t0), e = std::min(start[i + 1], t1);
            if (e > s) {
                b.len.push_back((uint32_t)(e - s));
                b.seg_out.push_back(i);
            }
        }
        const bool carry_out = start[b.seg_out.back() + 1] > t1;
        GPU_TRY((combine_round<F, FR>(d->g, b, out, t0, t1, terms, tables, carry, carry_out, err)));
        carry = carry_out;
        t0 = t1;
        report(rep, carry_out ? b.seg_out.back() : b.seg_out.back() + 1, n);
    }
    report(rep, n, n); /* the outputs of no terms after the last */
    return 0;
}

/* ---- the hook ---- */

template <class F, class FR> struct group_mul {
    static int combine(ceremony_dev *d, void *out, size_t n, const uint64_t *start, const cuzk_lc_term *terms,
                       const void *const *tables, const cuzk_ceremony_report *rep, cuzk_error *err)
    {
        return combine_on<F, FR>(d, out, n, start, terms, tables, rep, err);
    }
    static int scale(ceremony_dev *d, void *pts, size_t n, const uint64_t *first, const uint64_t *inc,
                     const cuzk_ceremony_report *rep, cuzk_error *err)
    {
        return scale_on<F, FR>(d, pts, n, first, inc, rep, err);
    }
    static int ifft(ceremony_dev *d, void *pts, unsigned log_n, const uint64_t *root_inv, const uint64_t *n_inv,
                    const cuzk_ceremony_report *rep, cuzk_error *err)
    {
        return ifft_on<F, FR>(d, pts, log_n, root_inv, n_inv, rep, err);
    }
};

/* f on the group (curve, g2): group_mul's F and FR */
template <class Fn> static int on_group(cuzk_curve_id curve, int g2, cuzk_error *err, Fn f)
{
    switch (curve) {
    case CUZK_CURVE_BN254:
        return g2 ? f(group_mul<bn254_fp2_t, bn254_fr_t>()) : f(group_mul<bn254_fp_t, bn254_fr_t>());
    case CUZK_CURVE_BLS12_381:
        return g2 ? f(group_mul<bls12_381_fp2_t, bls12_381_fr_t>()) : f(group_mul<bls12_381_fp_t, bls12_381_fr_t>());
    }
    return cuzk_fail(err, CUZK_ERR_ARG, "ceremony on the GPU: unknown curve %d", (int)curve);
}

static int hook_combine(void *ctx, cuzk_curve_id curve, int g2, void *out, size_t n, const uint64_t *start,
                        const cuzk_lc_term *terms, const void *const *tables, const cuzk_ceremony_report *rep,
                        cuzk_error *err)
{
    ceremony_dev *d = static_cast<ceremony_dev *>(ctx);
    GPU_CHECK(cudaSetDevice(d->g->device));
    return on_group(curve, g2, err,
                    [&](auto grp) { return grp.combine(d, out, n, start, terms, tables, rep, err); });
}

static int hook_scale(void *ctx, cuzk_curve_id curve, int g2, void *pts, size_t n, const uint64_t *first,
                      const uint64_t *inc, const cuzk_ceremony_report *rep, cuzk_error *err)
{
    ceremony_dev *d = static_cast<ceremony_dev *>(ctx);
    GPU_CHECK(cudaSetDevice(d->g->device));
    return on_group(curve, g2, err, [&](auto grp) { return grp.scale(d, pts, n, first, inc, rep, err); });
}

static int hook_ifft(void *ctx, cuzk_curve_id curve, int g2, void *pts, unsigned log_n, const uint64_t *root_inv,
                     const uint64_t *n_inv, const cuzk_ceremony_report *rep, cuzk_error *err)
{
    ceremony_dev *d = static_cast<ceremony_dev *>(ctx);
    GPU_CHECK(cudaSetDevice(d->g->device));
    return on_group(curve, g2, err,
                    [&](auto grp) { return grp.ifft(d, pts, log_n, root_inv, n_inv, rep, err); });
}

static int hook_msm(void *ctx, cuzk_curve_id curve, int g2, void *result_jac, const void *bases, const void *scalars,
                    size_t n, cuzk_error *err)
{
    ceremony_dev *d = static_cast<ceremony_dev *>(ctx);
    const msm_group *grp = msm_group_of(curve, g2 != 0);
    if (!grp)
        return cuzk_fail(err, CUZK_ERR_ARG, "ceremony on the GPU: unknown curve %d", (int)curve);
    GPU_CHECK(cudaSetDevice(d->g->device));
    return grp->call(d->g, result_jac, bases, scalars, n, false, err);
}

} /* namespace gpu */

extern "C" int cuzk_gpu_ceremony_mul_make(cuzk_gpu *g, size_t round, cuzk_ceremony_mul *mul, cuzk_error *err)
{
    if (!g || !mul)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_ceremony_mul_make: needs a context and a table to fill");
    if (round > gpu::CEREMONY_ROUND_MAX)
        return cuzk_fail(err, CUZK_ERR_ARG, "ceremony rounds of %zu points: at most %zu", round,
                         gpu::CEREMONY_ROUND_MAX);
    gpu::ceremony_dev *d = new (std::nothrow) gpu::ceremony_dev{g, round ? round : gpu::CEREMONY_ROUND};
    if (!d)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    *mul = cuzk_ceremony_mul{d, gpu::hook_combine, gpu::hook_scale, gpu::hook_ifft, gpu::hook_msm};
    return 0;
}

extern "C" void cuzk_gpu_ceremony_mul_free(cuzk_ceremony_mul *mul)
{
    if (!mul)
        return;
    delete static_cast<gpu::ceremony_dev *>(mul->ctx);
    *mul = cuzk_ceremony_mul{};
}
