/* Step 3's first pass with batch-affine additions (msm.cuh includes this
 * after the XYZZ walk, whose contract it keeps).
 *
 * The XYZZ walk adds a point into a bucket with 8 products and 2 squares.
 * An affine addition needs 3 products and a square once 1 / (x_q - x_a)
 * is known, and Montgomery's trick gets L such inverses for one inversion
 * and 3 (L - 1) products. So each thread owns L chunks of the sorted
 * sequence (lanes) and walks them in lock step: round r adds entry r of
 * every lane's chunk to that lane's accumulator, with one inversion for
 * the thread's L additions of the round:
 *   forward   d_l = x_q - x_a (2 y_a when doubling), pre_l = d_0 ... d_l
 *   inverse   i = 1 / pre_(L-1)
 *   backward  1 / d_l = i pre_(l-1), then i <- i d_l, and
 *             lambda = (y_q - y_a) / d_l   [3 x_a^2 / (2 y_a) doubling]
 *             x3 = lambda^2 - x_a - x_q,  y3 = lambda (x_a - x3) - y_a
 * Lanes are chunks, so the output is the XYZZ walk's: a run whose
 * neighbours hold other gids is a whole bucket (stored to out[gid] in
 * XYZZ), the first and last runs of a chunk may be partial sums, kept in
 * affine (the last one in the accumulator itself) for msm.cuh's later
 * passes (seq_affine_parts). A lane's accumulator, running product and
 * state live in global memory, lane l of thread t at l T + t so that a
 * warp's accesses are contiguous: ~600 bytes move per addition, which
 * costs more than the 4 products saved unless a product is dear. On the
 * H200 (bench/results/2026-12-04-h200-msm.md) BLS12-381 G2's first pass
 * is faster than the XYZZ walk; G1 of both curves is slower.
 *
 * Exceptional sums: q = a (doubling, in the same batch with d = 2 y_a),
 * q = -a (the accumulator becomes empty), y_a = 0 when doubling (a point
 * of order 2, in no prime-order subgroup: empty), an infinity base
 * (skipped). A zero d never enters the product. */
#ifndef CUZK_GPU_MSM_AFFINE_CUH
#define CUZK_GPU_MSM_AFFINE_CUH

/* Tuning knobs (the automatic choice; cuzk_gpu_set_msm_lanes forces one)
 * MSM_AFFINE_ROUNDS     entries a lane walks, at least: each lane ends in
 *                       up to two partial sums that later passes add
 * MSM_AFFINE_LANES_MIN  fewest lanes a thread worth it (the inversion,
 *                       ~1.5 bits products, shared by fewer costs more
 *                       than it saves)
 * MSM_AFFINE_LANES_MAX  most lanes a thread chosen
 * MSM_AFFINE_BYTES      most device memory the lanes and their partials
 *                       take (a proof's footprint stays bounded: the
 *                       engine admits proofs by a measured peak)
 * MSM_AFFINE_SPARE      device memory left to others when sizing lanes
 * MSM_AFFINE_MIN_COST   groups whose coordinate products cost at least
 *                       this (msm.cuh's MUL_COST) take the pass: it moves
 *                       ~6 points' bytes an addition through memory, and
 *                       pays only where the products dominate */
#ifndef MSM_AFFINE_ROUNDS
#define MSM_AFFINE_ROUNDS 16
#endif
#ifndef MSM_AFFINE_LANES_MIN
#define MSM_AFFINE_LANES_MIN 128
#endif
#ifndef MSM_AFFINE_LANES_MAX
#define MSM_AFFINE_LANES_MAX 1024
#endif
#ifndef MSM_AFFINE_MIN_COST
#define MSM_AFFINE_MIN_COST 6.0
#endif
#ifndef MSM_AFFINE_BYTES
#define MSM_AFFINE_BYTES ((size_t)8 << 30)
#endif
#ifndef MSM_AFFINE_SPARE
#define MSM_AFFINE_SPARE ((size_t)2 << 30)
#endif

namespace gpu {

/* a lane's state word: its accumulator holds a point; no run flushed yet;
 * this round's addition (set going forward, done going backward) */
enum : uint32_t { LANE_HAS = 1, LANE_FIRST = 2, LANE_ADD = 4, LANE_DBL = 8, LANE_OPS = LANE_ADD | LANE_DBL };

/* The lanes of a pass, nchunks of each (index l T + t). */
template <class F> struct affine_lanes {
    affine<F> *acc;   /* the running sum; at the end the last partial */
    affine<F> *first; /* the first run's sum, when it is partial */
    F *pre;           /* running products of a round */
    uint2 *state;     /* (current gid, LANE_* flags) */
};

/* device bytes a lane takes in the pass and the later passes' scratch
 * (msm_seq of two slots, half an XYZZ point of their partials) */
template <class F> static constexpr size_t affine_lane_bytes()
{
    return 2 * sizeof(affine<F>) + sizeof(F) + sizeof(uint2) + 2 * 5 * sizeof(uint32_t) + sizeof(xyzz<F>) / 2;
}

/* A finished run of lane ch: a whole bucket to out[gid] in XYZZ, else
 * (open) a partial sum: the first run's to first[ch], a later one's stays
 * in acc[ch]; no point is all-zero bytes (infinity) in either form. */
template <class F>
FF_INLINE void lane_flush(const affine_lanes<F> &ln, size_t ch, uint2 s, bool open, xyzz<F> *out,
                          uint32_t *part_gid)
{
    const affine<F> a = s.y & LANE_HAS ? load(ln.acc + ch) : affine<F>{F::zero(), F::zero()};
    if (!open) {
        store(out + s.x, s.y & LANE_HAS ? xyzz<F>{a.x, a.y, F::one(), F::one()} : xyzz<F>::inf());
    } else if (s.y & LANE_FIRST) {
        store(ln.first + ch, a);
        part_gid[2 * ch] = s.x;
    } else {
        store(ln.acc + ch, a);
        part_gid[2 * ch + 1] = s.x;
    }
}

/* gid of the entry before chunk ch, MSM_NO_GID for the first chunk */
template <class Src> FF_INLINE uint32_t gid_before(const Src &src, size_t ch, size_t K)
{
    return ch > 0 ? src.gid(ch * K - 1) : MSM_NO_GID;
}

/* Chunk ch = l T + t of thread t (T threads in the grid) is entries
 * [ch K, ch K + K) of `total`; part_gid[2 ch], [2 ch + 1] as the XYZZ
 * walk's slots (MSM_NO_GID: unused). */
template <class F, class Src>
__global__ void __launch_bounds__(MSM_THREADS, MSM_MIN_BLOCKS)
    msm_affine_kernel(Src src, size_t total, size_t K, unsigned lanes, affine_lanes<F> ln, xyzz<F> *out,
                      uint32_t *part_gid)
{
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned l = 0; l < lanes; l++) {
        const size_t ch = l * T + t;
        ln.state[ch] = make_uint2(MSM_NO_GID, LANE_FIRST);
        part_gid[2 * ch] = MSM_NO_GID;
        part_gid[2 * ch + 1] = MSM_NO_GID;
    }
    for (size_t r = 0; r < K; r++) {
        F run = F::one();
        for (unsigned l = 0; l < lanes; l++) {
            const size_t ch = l * T + t, p = ch * K + r;
            uint2 s = ln.state[ch];
            s.y &= ~LANE_OPS;
            const uint32_t gid = p < total ? src.gid(p) : MSM_NO_GID;
            if (gid != MSM_NO_GID) {
                if (gid != s.x) {
                    if (s.x != MSM_NO_GID) {
                        lane_flush(ln, ch, s, (s.y & LANE_FIRST) && s.x == gid_before(src, ch, K), out, part_gid);
                        s.y &= ~LANE_FIRST;
                    }
                    s.x = gid;
                    s.y &= ~LANE_HAS;
                }
                const affine<F> q = src.point(p);
                if (q.is_inf()) {
                } else if (!(s.y & LANE_HAS)) {
                    store(ln.acc + ch, q);
                    s.y |= LANE_HAS;
                } else {
                    const affine<F> a = load(ln.acc + ch);
                    F d = q.x - a.x;
                    if (!d.is_zero())
                        s.y |= LANE_ADD;
                    else if (q.y == a.y && !a.y.is_zero())
                        s.y |= LANE_DBL, d = a.y.dbl();
                    else
                        s.y &= ~LANE_HAS; /* a + (-a), or a point of order 2 doubled */
                    if (s.y & LANE_OPS)
                        run = run * d;
                }
            }
            store(ln.pre + ch, run);
            ln.state[ch] = s;
        }
        F inv = run.inv(); /* 1 / (d_0 ... d_l) as l walks down */
        for (unsigned l = lanes; l-- > 0;) {
            const size_t ch = l * T + t;
            const uint32_t op = ln.state[ch].y & LANE_OPS;
            if (!op)
                continue;
            const affine<F> a = load(ln.acc + ch);
            F num, d, qx;
            if (op == LANE_ADD) {
                const affine<F> q = src.point(ch * K + r);
                num = q.y - a.y, d = q.x - a.x, qx = q.x;
            } else {
                const F x2 = a.x.sqr();
                num = x2.dbl() + x2, d = a.y.dbl(), qx = a.x;
            }
            const F d_inv = l ? inv * load(ln.pre + ch - T) : inv;
            inv = inv * d;
            const F lambda = num * d_inv, x3 = lambda.sqr() - a.x - qx;
            store(ln.acc + ch, affine<F>{x3, lambda * (a.x - x3) - a.y});
        }
    }
    for (unsigned l = 0; l < lanes; l++) {
        const size_t ch = l * T + t, end = ch * K + K;
        const uint2 s = ln.state[ch];
        if (s.x == MSM_NO_GID)
            continue;
        const bool open = ((s.y & LANE_FIRST) && s.x == gid_before(src, ch, K)) || (end < total && s.x == src.gid(end));
        lane_flush(ln, ch, s, open, out, part_gid);
    }
}

/* The partial sums of a batch-affine pass as a sorted sequence (ref: slot
 * 2 ch is first[ch], 2 ch + 1 is acc[ch]) for msm.cuh's later passes. */
template <class F> struct seq_affine_parts {
    const uint32_t *gids, *refs;
    const affine<F> *first, *last;

    FF_INLINE uint32_t gid(size_t p) const { return gids[p]; }
    FF_INLINE void add(xyzz<F> &acc, size_t p) const
    {
        const uint32_t ref = refs[p];
        const affine<F> q = load((ref & 1 ? last : first) + (ref >> 1));
        if (!q.is_inf())
            xyzz_add_affine(acc, q);
    }
};

} /* namespace gpu */

#endif
