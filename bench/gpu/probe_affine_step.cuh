/* Affine bucket additions with one inversion a block a round (issue 50):
 * the algorithm of bench/gpu/probe_affine_shared.cu, over buckets stored
 * as limb planes in shared or in global memory, kept apart from the kernels
 * so that the host check (probe_affine_shared_check.cpp, under
 * probe_emulate.h) runs this very code. Not part of the library.
 *
 * A block owns n buckets (affine points, (0, 0) infinity) and in a round
 * adds one point p_e = src.point(first + e, r) to each bucket e; thread t of
 * T has the K = n / T buckets e = k T + t. With d_e the step's
 * denominator (below):
 *   forward   pre_k = d_0 ... d_k over the thread's buckets, stored in the
 *             pre plane (1 product a bucket)
 *   share     the thread's total pre_(K-1) inverted by the block together
 *             (probe_batch_inv.cuh, SHARE_BLOCK: a warp scan, one Fermat
 *             inversion by warp 0, the warps' shares handed back)
 *   backward  k = K-1 .. 0: 1/d_k = inv pre_(k-1), inv <- inv d_k (2
 *             products), then the step (2 products and a square for an
 *             addition)
 * The step, by the pair (acc, p):
 *   KEEP     p infinity: acc stays (d = 1)
 *   TAKE_P   acc infinity: acc = p (d = 1)
 *   ADD      x_p != x_acc: d = x_p - x_acc, lambda = (y_p - y_acc) / d
 *   DOUBLE   p = acc: d = 2 y_acc, lambda = 3 x_acc^2 / d (y = 0 has no
 *            point of G1: the group's order is odd)
 *   TO_INF   p = -acc (same x, other y): acc = infinity (d = 1)
 *   ADD and DOUBLE: x3 = lambda^2 - x_acc - x_p, y3 = lambda (x_acc - x3) - y_acc.
 * Products a bucket a round, ADD: 5 and a square; plus 12 / K of the
 * scan and the inversion (~613) for the block. */
#ifndef CUZK_BENCH_PROBE_AFFINE_STEP_CUH
#define CUZK_BENCH_PROBE_AFFINE_STEP_CUH

#include "probe_batch_inv.cuh"
#include "probe_points.cuh"

namespace probe {

/* n buckets as three planes of 12 words each: word i of bucket e's x at
 * x[i n + e] (a warp's 32-bit accesses to consecutive buckets are
 * contiguous: coalesced in global memory, conflict-free in shared) */
struct bucket_planes {
    uint32_t *x, *y, *pre;
    unsigned n;
    static constexpr unsigned WORDS_A_BUCKET = 3 * 12;
    /* the planes of n buckets at base (WORDS_A_BUCKET n words) */
    static __device__ __forceinline__ bucket_planes at(uint32_t *base, unsigned n)
    {
        return {base, base + 12 * n, base + 24 * n, n};
    }
    __device__ __forceinline__ g1_fp get(const uint32_t *plane, unsigned e) const
    {
        return g1_fp::from_limbs([&](int i) { return plane[i * n + e]; });
    }
    __device__ __forceinline__ void put(uint32_t *plane, unsigned e, const g1_fp &v) const
    {
#pragma unroll
        for (int i = 0; i < 12; i++)
            plane[i * n + e] = v.v[i];
    }
    __device__ __forceinline__ g1_affine bucket(unsigned e) const { return {get(x, e), get(y, e)}; }
    __device__ __forceinline__ void set_bucket(unsigned e, const g1_affine &a) const
    {
        put(x, e, a.x);
        put(y, e, a.y);
    }
};

enum affine_step_kind { STEP_ADD, STEP_DOUBLE, STEP_TAKE_P, STEP_TO_INF, STEP_KEEP, STEP_KINDS };

struct affine_step {
    affine_step_kind kind;
    g1_fp d; /* the denominator the batch inverts; one where none is needed */
};

/* The step for acc + p, from the x coordinates and, on the rare paths
 * only, the y ones (acc_y(), p_y(): the forward pass reads them only
 * there). */
template <class AccY, class PY>
static __device__ __forceinline__ affine_step affine_classify(const g1_fp &acc_x, const g1_fp &p_x, AccY acc_y,
                                                             PY p_y)
{
    if (p_x.is_zero() && p_y().is_zero())
        return {STEP_KEEP, g1_fp::one()};
    if (acc_x.is_zero() && acc_y().is_zero())
        return {STEP_TAKE_P, g1_fp::one()};
    const g1_fp dx = p_x - acc_x;
    if (!dx.is_zero())
        return {STEP_ADD, dx};
    const g1_fp ay = acc_y();
    if (ay == p_y())
        return {STEP_DOUBLE, ay.dbl()};
    return {STEP_TO_INF, g1_fp::one()};
}

/* acc + p by the step, d_inv = 1 / step.d */
static __device__ __forceinline__ g1_affine affine_apply(const g1_affine &acc, const g1_affine &p,
                                                         affine_step_kind kind, const g1_fp &d_inv)
{
    switch (kind) {
    case STEP_KEEP: return acc;
    case STEP_TAKE_P: return p;
    case STEP_TO_INF: return {g1_fp::zero(), g1_fp::zero()};
    default: break;
    }
    g1_fp lambda;
    if (kind == STEP_ADD) {
        lambda = (p.y - acc.y) * d_inv;
    } else {
        const g1_fp x2 = acc.x.sqr();
        lambda = (x2.dbl() + x2) * d_inv;
    }
    const g1_fp x3 = lambda.sqr() - acc.x - p.x;
    return {x3, lambda * (acc.x - x3) - acc.y};
}

/* The points bucket b gets, round by round, from a table of 2^m distinct
 * random multiples of G: point (b, r) is entry (b 2654435761 + r 40503) mod
 * 2^m (distinct for a bucket's first 2^m rounds: 40503 is odd), so no sum
 * of a bucket meets its next point. ADVERSARIAL plants the exceptional
 * steps, by the bucket's kind (a hash of b, so that a thread's buckets mix
 * kinds; with the buckets started at infinity, round 0 is TAKE_P
 * everywhere):
 *   1: round 1 repeats round 0's point                  DOUBLE
 *   2: round 1 is -(round 0's point)                    TO_INF
 *      round 2 a fresh point                            TAKE_P
 *      round 3 repeats round 2's                        DOUBLE
 *   3: round 1 is infinity                              KEEP
 * planted() gives the counts for 4 or more rounds. */
struct stream_source {
    static constexpr bool HAS_INFINITY = true;
    const g1_affine *pts;
    uint32_t mask; /* 2^m - 1 */
    bool adversarial;
    /* the top 2 bits of b times 2^64 / golden ratio */
    static __host__ __device__ __forceinline__ unsigned adversarial_kind(size_t b)
    {
        return (unsigned)(((uint64_t)b * 0x9e3779b97f4a7c15ull) >> 62);
    }
    /* the steps of each kind buckets 0 .. buckets - 1 take from infinity
     * over 4 or more rounds of the adversarial stream */
    static void planted(size_t buckets, unsigned long long (&want)[STEP_KINDS])
    {
        unsigned long long of_kind[4] = {0};
        for (size_t b = 0; b < buckets; b++)
            of_kind[adversarial_kind(b)]++;
        want[STEP_ADD] = 0; /* not counted */
        want[STEP_DOUBLE] = of_kind[1] + of_kind[2];
        want[STEP_TAKE_P] = buckets + of_kind[2];
        want[STEP_TO_INF] = of_kind[2];
        want[STEP_KEEP] = of_kind[3];
    }
    struct plan {
        uint32_t index;
        bool negate, infinity;
    };
    __device__ __forceinline__ plan plan_of(size_t b, unsigned r) const
    {
        unsigned rr = r;
        bool negate = false, infinity = false;
        if (adversarial) {
            const unsigned kind = adversarial_kind(b);
            if ((kind == 1 || kind == 2) && r == 1)
                rr = 0;
            negate = kind == 2 && r == 1;
            if (kind == 2 && r == 3)
                rr = 2;
            infinity = kind == 3 && r == 1;
        }
        return {((uint32_t)b * 2654435761u + rr * 40503u) & mask, negate, infinity};
    }
    __device__ __forceinline__ g1_affine point(size_t b, unsigned r) const
    {
        const plan pl = plan_of(b, r);
        if (pl.infinity)
            return {g1_fp::zero(), g1_fp::zero()};
        g1_affine p = gpu::load_ro(pts + pl.index);
        if (pl.negate)
            p.y = p.y.neg();
        return p;
    }
    __device__ __forceinline__ g1_fp x(size_t b, unsigned r) const
    {
        const plan pl = plan_of(b, r);
        return pl.infinity ? g1_fp::zero() : gpu::load_ro(&pts[pl.index].x);
    }
};

/* thread threadIdx.x's buckets (e = k T + t) start at src.point(first + e,
 * 0), or at infinity */
template <class Source>
static __device__ __forceinline__ void affine_buckets_start(const Source &src, const bucket_planes &s, size_t first,
                                                            bool at_infinity)
{
    for (unsigned e = threadIdx.x; e < s.n; e += blockDim.x) {
        const g1_affine a = at_infinity ? g1_affine{g1_fp::zero(), g1_fp::zero()} : src.point(first + e, 0);
        s.set_bucket(e, a);
    }
}

/* Rounds [r_begin, r_end) of the block's buckets (see the top); every
 * thread of the block calls it (barriers inside), n a multiple of
 * blockDim.x, blockDim.x a multiple of 32. kinds[STEP_KINDS]: the steps
 * taken, counted for the rare kinds only (an atomic each). */
template <class Source>
static __device__ void affine_buckets_rounds(const Source &src, const bucket_planes &s, size_t first, unsigned r_begin,
                                             unsigned r_end, unsigned long long *kinds)
{
    const unsigned T = blockDim.x, t = threadIdx.x, K = s.n / T;
#pragma unroll 1
    for (unsigned r = r_begin; r < r_end; r++) {
        g1_fp pre = g1_fp::one();
#pragma unroll 1
        for (unsigned k = 0; k < K; k++) {
            const unsigned e = k * T + t;
            const size_t b = first + e;
            const affine_step st = affine_classify(
                s.get(s.x, e), src.x(b, r), [&] { return s.get(s.y, e); }, [&] { return src.point(b, r).y; });
            pre = pre * st.d;
            s.put(s.pre, e, pre);
        }
        g1_fp inv[1] = {pre};
        batch_inverse<SHARE_BLOCK>(inv); /* 1 / (d_0 ... d_(K-1)) */
#pragma unroll 1
        for (unsigned k = K; k-- > 0;) {
            const unsigned e = k * T + t;
            const size_t b = first + e;
            const g1_affine acc = s.bucket(e), p = src.point(b, r);
            const affine_step st = affine_classify(
                acc.x, p.x, [&] { return acc.y; }, [&] { return p.y; });
            const g1_fp d_inv = k > 0 ? inv[0] * s.get(s.pre, e - T) : inv[0];
            if (st.kind == STEP_ADD || st.kind == STEP_DOUBLE)
                inv[0] = inv[0] * st.d;
            if (st.kind != STEP_ADD && kinds)
                atomicAdd(kinds + st.kind, 1ull);
            s.set_bucket(e, affine_apply(acc, p, st.kind, d_inv));
        }
    }
}

/* One level of a pairwise affine tree (the bit-heavy witness's one large
 * sum, of the points whose scalar is 1): out[i] = in[2i] + in[2i + 1] for
 * i < n_in / 2, and for odd n_in the last point carried to out[n_in / 2],
 * with one inversion for the block's pairs: block `block` has pairs
 * i = block K T + k T + t, k < K; out[i].x holds the running product
 * between the passes. in and out must not overlap. Every thread of the
 * block calls it (barriers inside); kinds as for the buckets. */
static __device__ void affine_tree_level(const g1_affine *in, size_t n_in, g1_affine *out, unsigned K, size_t block,
                                         unsigned long long *kinds)
{
    const unsigned T = blockDim.x, t = threadIdx.x;
    const size_t pairs = n_in / 2, first = block * K * T;
    if (n_in % 2 && block == 0 && t == 0)
        gpu::store(out + pairs, gpu::load(in + n_in - 1));
    g1_fp pre = g1_fp::one();
#pragma unroll 1
    for (unsigned k = 0; k < K && first + k * T + t < pairs; k++) {
        const size_t i = first + k * T + t;
        const affine_step st = affine_classify(
            gpu::load(&in[2 * i].x), gpu::load(&in[2 * i + 1].x), [&] { return gpu::load(&in[2 * i].y); },
            [&] { return gpu::load(&in[2 * i + 1].y); });
        pre = pre * st.d;
        gpu::store(&out[i].x, pre);
    }
    g1_fp inv[1] = {pre};
    batch_inverse<SHARE_BLOCK>(inv);
#pragma unroll 1
    for (unsigned k = K; k-- > 0;) {
        const size_t i = first + k * T + t;
        if (i >= pairs)
            continue;
        const g1_affine a = gpu::load(in + 2 * i), b = gpu::load(in + 2 * i + 1);
        const affine_step st = affine_classify(
            a.x, b.x, [&] { return a.y; }, [&] { return b.y; });
        const g1_fp d_inv = k > 0 ? inv[0] * gpu::load(&out[i - T].x) : inv[0];
        if (st.kind == STEP_ADD || st.kind == STEP_DOUBLE)
            inv[0] = inv[0] * st.d;
        if (st.kind != STEP_ADD && kinds)
            atomicAdd(kinds + st.kind, 1ull);
        gpu::store(out + i, affine_apply(a, b, st.kind, d_inv));
    }
}

} /* namespace probe */

#endif
