/* What the MSM instances share (internal to src/msm): the tuning knobs,
 * the choice of window size and the signed digit recoding. Included by
 * msm_<group>.c, each of which stamps msm.inc out for one group. */
#ifndef CUZK_MSM_MSM_PLAN_H
#define CUZK_MSM_MSM_PLAN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ff/field29.h"
#include "ff/field52.h"
#include "msm/msm.h"
#include "util/threads.h"

/* Tuning knobs.
 * MSM_CHUNK_LOG   most points counting-sorted together (8 bytes of digit
 *                 and index a point per thread: 8 MiB at 2^20)
 * MSM_CHUNK_MIN_LOG  fewest, unless the task has fewer points
 * MSM_CHUNK_PER_BUCKET  a chunk is this many points a bucket, within those
 *                 bounds: each pass over the buckets then does many
 *                 additions a bucket (a touched bucket is copied in and
 *                 out of the group being summed once a chunk)
 * MSM_PREFETCH    how far ahead (points, in bucket order) the gather of a
 *                 chunk's points asks for the next base: they come from
 *                 anywhere in the chunk
 * MSM_BATCH       additions sharing one inversion
 * MSM_GROUP       additions of a batch finished side by side (overlapping
 *                 their chains of dependent products)
 * MSM_CHAINS      interleaved product chains of a batch's Montgomery trick
 *                 (scalar path), for the same reason
 * MSM_AFFINE_MIN  fewest points per task for batch-affine buckets; smaller
 *                 tasks use Jacobian buckets (too few additions per level)
 * MSM_TREE_BYTES  the segments of a chunk are gathered and summed level by
 *                 level in groups of at most this many bytes of points,
 *                 which stay in the core's L2 cache (1 MiB on the
 *                 development machine)
 * MSM_LANES       most lanes of the bucket reduction (additions per batch
 *                 there; msm_reduce_lanes)
 * MSM_C_MIN, MSM_C_MAX  the range of window sizes tried
 * MSM_COST_*      cost model of msm_plan_choose, in field multiplications:
 *                 one point into a bucket (batch affine / Jacobian mixed
 *                 addition), one bucket in the running-sum reduction. */
#ifndef MSM_CHUNK_LOG
#define MSM_CHUNK_LOG 20
#endif
#ifndef MSM_CHUNK_MIN_LOG
#define MSM_CHUNK_MIN_LOG 13
#endif
#ifndef MSM_CHUNK_PER_BUCKET
#define MSM_CHUNK_PER_BUCKET 16
#endif
#ifndef MSM_PREFETCH
#define MSM_PREFETCH 64
#endif
#ifndef MSM_BATCH
#define MSM_BATCH 1024
#endif
#ifndef MSM_CHAINS
#define MSM_CHAINS 4
#endif
#ifndef MSM_AFFINE_MIN
#define MSM_AFFINE_MIN 2048
#endif
#ifndef MSM_GROUP
#define MSM_GROUP 2
#endif
#ifndef MSM_TREE_BYTES
#define MSM_TREE_BYTES (512 << 10)
#endif
#ifndef MSM_LANES
#define MSM_LANES 256
#endif
#ifndef MSM_C_MIN
#define MSM_C_MIN 2
#endif
#ifndef MSM_C_MAX
#define MSM_C_MAX 18
#endif
#ifndef MSM_COST_AFFINE
#define MSM_COST_AFFINE 7.0
#endif
#ifndef MSM_COST_JACOBIAN
#define MSM_COST_JACOBIAN 12.0
#endif
#ifndef MSM_COST_BUCKET
#define MSM_COST_BUCKET 16.0
#endif
#ifndef MSM_COST_SCAN
#define MSM_COST_SCAN 0.5
#endif
#ifndef MSM_SPARSE_SHARE
#define MSM_SPARSE_SHARE 0.7
#endif
_Static_assert(MSM_C_MIN >= 2 && MSM_C_MIN <= MSM_C_MAX && MSM_C_MAX <= 24, "window size: digits are (|d| << 1 | sign) in 32 bits");
_Static_assert(MSM_CHUNK_LOG >= 8 && MSM_CHUNK_LOG <= 24, "chunk indices are 32-bit");
_Static_assert(MSM_CHUNK_MIN_LOG >= 1 && MSM_CHUNK_MIN_LOG <= MSM_CHUNK_LOG, "chunk bounds");
_Static_assert(MSM_BATCH >= 1, "batch size");
_Static_assert(MSM_GROUP >= 1 && MSM_GROUP <= 8, "additions side by side");
_Static_assert(MSM_CHAINS >= 1 && MSM_CHAINS <= 8, "msm_inv_few takes up to 8");
_Static_assert(MSM_LANES >= 1 && (MSM_LANES & (MSM_LANES - 1)) == 0, "lanes: a power of two");

typedef struct {
    unsigned c;     /* window bits: digits in [-2^(c-1), 2^(c-1)] */
    unsigned nwin;  /* windows: bits / c + 1 (room for the last carry) */
    unsigned parts; /* point ranges per window, one task each */
    int affine;     /* batch-affine buckets, else Jacobian */
} msm_plan;

/* Modelled time of a plan: the tasks (windows times parts) run in rounds of
 * nthreads; a task reads the digits of n / parts points (scan a point),
 * puts the non-zero ones (`digits` a window over all points) into buckets
 * and reduces 2^(c-1) buckets. */
static double msm_plan_cost(const msm_plan *p, size_t n, double digits, double scan, int nthreads)
{
    size_t tasks = (size_t)p->nwin * p->parts;
    double rounds = (double)((tasks + (size_t)nthreads - 1) / (size_t)nthreads);
    double per_point = p->affine ? MSM_COST_AFFINE : MSM_COST_JACOBIAN;
    return rounds * (((double)n * scan + digits * per_point) / p->parts +
                     (double)((size_t)1 << (p->c - 1)) * MSM_COST_BUCKET);
}

/* The cheapest plan for n points of `bits`-bit scalars on nthreads threads. */
static msm_plan msm_plan_choose(size_t n, unsigned bits, int nthreads)
{
    msm_plan best = {0, 0, 0, 0};
    double best_cost = 0;
    for (unsigned c = MSM_C_MIN; c <= MSM_C_MAX; c++)
        for (unsigned parts = 1; parts <= (unsigned)nthreads && parts <= n; parts++) {
            msm_plan p = {c, bits / c + 1, parts, n / parts >= MSM_AFFINE_MIN};
            double cost = msm_plan_cost(&p, n, (double)n, 0, nthreads);
            if (best.c == 0 || cost < best_cost) {
                best = p;
                best_cost = cost;
            }
        }
    return best;
}

/* Scalars counted by bit length: lengths[b] of them have b bits (0: the
 * zero scalar; 256 at most). */
#define MSM_LENGTHS 257

static inline unsigned msm_scalar_length(const uint64_t k[4])
{
    for (unsigned j = 4; j-- > 0;)
        if (k[j])
            return 64 * j + 64 - (unsigned)__builtin_clzll(k[j]);
    return 0;
}

/* The cheapest plan for n points whose scalars have these lengths (a
 * bit-heavy witness: mostly 0 and 1). A window w of c bits has a non-zero
 * digit only for scalars of more than c w bits, so with sparse digits the
 * buckets to reduce dominate and narrower windows pay; each task still
 * reads every scalar's digit (MSM_COST_SCAN a point). Where more than
 * MSM_SPARSE_SHARE of the digits of msm_plan_choose's plan would be
 * non-zero, that plan. */
static msm_plan msm_plan_fitted(size_t n, unsigned bits, int nthreads, const uint64_t lengths[MSM_LENGTHS])
{
    msm_plan plain = msm_plan_choose(n, bits, nthreads);
    double longer[MSM_LENGTHS + 1]; /* longer[b]: scalars of more than b bits */
    longer[MSM_LENGTHS] = longer[MSM_LENGTHS - 1] = 0;
    for (unsigned b = MSM_LENGTHS - 1; b-- > 0;)
        longer[b] = longer[b + 1] + (double)lengths[b + 1];
    double digits = 0;
    for (unsigned w = 0; w < plain.nwin; w++)
        digits += longer[w * plain.c < MSM_LENGTHS ? w * plain.c : MSM_LENGTHS];
    if (digits > MSM_SPARSE_SHARE * (double)plain.nwin * (double)n)
        return plain;
    msm_plan best = {0, 0, 0, 0};
    double best_cost = 0;
    for (unsigned c = MSM_C_MIN; c <= MSM_C_MAX; c++) {
        const unsigned nwin = bits / c + 1;
        double nonzero = 0;
        for (unsigned w = 0; w < nwin; w++)
            nonzero += longer[w * c < MSM_LENGTHS ? w * c : MSM_LENGTHS];
        for (unsigned parts = 1; parts <= (unsigned)nthreads && parts <= n; parts++) {
            msm_plan p = {c, nwin, parts, n / parts >= MSM_AFFINE_MIN};
            double cost = msm_plan_cost(&p, n, nonzero / nwin, MSM_COST_SCAN, nthreads);
            if (best.c == 0 || cost < best_cost) {
                best = p;
                best_cost = cost;
            }
        }
    }
    return best;
}

/* Lanes of the reduction of nb buckets (msm.inc's msm_bucket_sum): each
 * lane's running sums step as batches of nl affine additions (one
 * inversion a step, 2 nb / nl of them), and the lanes then meet in about
 * 3 nl scalar Jacobian additions. Time ~ nl J + (2 nb / nl) I is least
 * near nl = sqrt(2 nb I / J), I / J (an inversion's batch overhead against
 * a Jacobian addition) about 2 for both groups on every engine: the power
 * of two at most 2 sqrt(nb), at most MSM_LANES (the lane counts compared:
 * bench/results/2026-12-07-measurements-from-comments.md). */
static inline size_t msm_reduce_lanes(size_t nb)
{
    size_t nl = 1;
    while (2 * nl <= MSM_LANES && 2 * nl <= nb && (2 * nl) * (2 * nl) <= 4 * nb)
        nl *= 2;
    return nl;
}

/* Points per chunk for a task of `points` points into nb buckets. */
static inline size_t msm_chunk_points(size_t points, size_t nb)
{
    size_t chunk = MSM_CHUNK_PER_BUCKET * nb, lo = (size_t)1 << MSM_CHUNK_MIN_LOG, hi = (size_t)1 << MSM_CHUNK_LOG;
    chunk = chunk < lo ? lo : chunk > hi ? hi : chunk;
    return points < chunk ? points : chunk;
}

/* c bits of the 256-bit k starting at bit off (< 256). */
static inline uint32_t msm_scalar_bits(const uint64_t k[4], unsigned off, unsigned c)
{
    unsigned w = off / 64, sh = off % 64;
    uint64_t v = k[w] >> sh;
    if (sh + c > 64 && w < 3)
        v |= k[w + 1] << (64 - sh);
    return (uint32_t)(v & ((1ULL << c) - 1));
}

/* Signed digits of k < 2^bits, k = sum_w d_w 2^(cw) with d_w in
 * [-2^(c-1), 2^(c-1)]: a window value above 2^(c-1) becomes value - 2^c
 * and carries one into the next window. With nwin = bits / c + 1 the top
 * window holds fewer than c - 1 bits, so it never carries out.
 * out[w * stride] = 0 for d_w = 0, else |d_w| << 1 | (d_w < 0).
 * The test oracle of msm_digit, which finds one window's digit alone. */
static void msm_recode(const uint64_t k[4], unsigned c, unsigned nwin, uint32_t *out, size_t stride)
{
    uint32_t carry = 0, half = 1u << (c - 1);
    for (unsigned w = 0; w < nwin; w++) {
        uint32_t v = msm_scalar_bits(k, w * c, c) + carry;
        carry = v > half;
        uint32_t mag = carry ? (1u << c) - v : v; /* v = 2^c: digit 0, carry 1 */
        out[(size_t)w * stride] = mag ? mag << 1 | carry : 0;
    }
}

/* The carry into window w of msm_recode, without the windows below: the
 * digits below sum to (k mod 2^(cw)) - carry 2^(cw) and lie in
 * [-(2^(c-1) - 1) S, 2^(c-1) S] with S = sum_{j<w} 2^(cj), so
 *   carry = [k mod 2^(cw) > T_w],  T_w = 2^(c-1) S = sum_{j<w} 2^(cj + c - 1)
 * (with a carry, k mod 2^(cw) >= 2^(cw) - (2^(c-1) - 1) S = T_w + 1, as
 * 2^(cw) - 1 = (2^c - 1) S). msm_carry_threshold makes T_w. */
static inline void msm_carry_threshold(uint64_t t[4], unsigned c, unsigned w)
{
    memset(t, 0, 4 * sizeof *t);
    for (unsigned j = 0; j < w; j++) /* bit c j + c - 1 < c w < 256 */
        t[(c * j + c - 1) / 64] |= 1ULL << ((c * j + c - 1) % 64);
}

/* Window w's digit of k as msm_recode writes it, given t = T_w: the low
 * c w bits of k compared with t from the top word down (a mask keeps the
 * top partial word to those bits), then the window's own bits. */
static inline uint32_t msm_digit(const uint64_t k[4], unsigned c, unsigned w, const uint64_t t[4])
{
    unsigned low = c * w; /* < 256: w < nwin = bits / c + 1 */
    uint32_t carry = 0;
    for (unsigned i = (low + 63) / 64; i-- > 0;) {
        uint64_t kw = k[i];
        if (i == low / 64)
            kw &= (1ULL << (low % 64)) - 1;
        if (kw != t[i]) {
            carry = kw > t[i];
            break;
        }
    }
    uint32_t half = 1u << (c - 1), v = msm_scalar_bits(k, low, c) + carry;
    uint32_t sign = v > half, mag = sign ? (1u << c) - v : v;
    return mag ? mag << 1 | sign : 0;
}

/* What one batched affine addition P + Q turns out to be. */
enum { MSM_ADD, MSM_DBL, MSM_KEEP_P, MSM_TAKE_Q, MSM_TO_INF };

#endif
