/* NTTs on the device, and the prover's fused coset chain (gpu.h).
 *
 * Transforms. n = 2^lg, radix-2 butterflies grouped into passes: a pass runs
 * S consecutive stages [s0, s0 + S) in shared memory. An index splits as
 * i = high 2^(s0+S) + mid 2^s0 + low with low < 2^s0; the pass's stages mix
 * only elements that differ in mid. One block takes one high and a group of
 * 2^L consecutive low (a "column group", L <= NTT_COLS_LOG, so global loads
 * are 2^L x 32 contiguous bytes): a tile of 2^(S+L) <= 2^NTT_TILE_LOG
 * elements. A thread holds four of them and runs two stages in registers
 * (a radix-4 round), so the tile crosses shared memory once per two stages.
 *   DIT (Cooley-Tukey), stages s = 0, 1, ..: (x, y) <- (x + w y, x - w y),
 *     bit-reversed input, natural output.
 *   DIF (Gentleman-Sande), stages s = lg-1, .., 0: (x, y) <- (x + y, (x - y) w),
 *     natural input, bit-reversed output.
 * with m = 2^s, pairs (i, i + m) for i mod 2m < m, w = w_2m^(i mod m).
 * Twiddles: tw[m + j] = w_2m^j for m = 2^s < n, j < m (tw[0] unused). The
 * inverse transform reads the same table: w_2m^-j = -w_2m^(m-j), since
 * w_2m^m = -1, so its butterfly takes tw[m + (m - j)] for j > 0 and
 * subtracts where the forward one adds (no product more, half the memory:
 * 8 GiB at 2^27). These entries do not depend on n, so the
 * table of the largest n seen serves every smaller one: the context keeps
 * it. It is built on the device: tw[n/2 + e] = w_n^e as hi[e >> K] lo[e mod
 * 2^K] from two small power tables, then the lower stages are gathered from
 * it, tw[m + j] = tw[n/2 + j n/(2m)]. Each entry holds the twiddle with its
 * Shoup quotient (ff.cuh), 64 bytes: the products by twiddles, the NTT's
 * whole arithmetic, take 207 multiply-adds instead of 264
 * (bench/results/2026-12-07-measurements-from-comments.md).
 *
 * cuzk_gpu_ntt = bit reversal (times 1/n for the inverse) + DIT passes, the
 * CPU's structure, with the bit reversal folded into the first pass's
 * reads. The coset chain needs no bit reversal at all:
 *   DIF with w^-1 (natural -> bit-reversed coefficients, times n),
 *   multiply position p by n^-1 g^rev(p) (g = w_2n; powers from two small
 *   tables, g^k = hi[k >> K] lo[k mod 2^K]),
 *   DIT with w (bit-reversed -> natural evaluations on the coset),
 * and finally a <- from_mont(a b - c). All values are canonical, so every
 * output equals the CPU's bit for bit. */
#include <cstring>

#include "gpu/ff.cuh"
#include "gpu/gpu_internal.cuh"

/* the CPU headers, as C; nvcc does not know their GCC loop pragmas */
#pragma nv_diag_suppress 1675
extern "C" {
#include "ff/field.h"
#include "poly/ntt.h"
}
#pragma nv_diag_default 1675

/* Tuning knobs: the tile (elements per block, 32 bytes each, in shared
 * memory: 2^10 is 32 KiB; even, see ntt_plan) and the blocks per
 * multiprocessor the pass kernel's registers are bounded for. */
#ifndef NTT_TILE_LOG
#define NTT_TILE_LOG 10
#endif
#ifndef NTT_MIN_BLOCKS
#define NTT_MIN_BLOCKS 3
#endif
static_assert(NTT_TILE_LOG >= 4 && NTT_TILE_LOG <= 10 && NTT_TILE_LOG % 2 == 0,
              "an even tile of 8-limb elements that fits 32 KiB of shared memory");
/* The column group of the passes after the first: 2^2 elements, 128 bytes. */
static constexpr unsigned NTT_COLS_LOG = 2;

namespace gpu {

static constexpr unsigned ELEMENT_THREADS = 256;

/* A twiddle table's entry: the factor with its Shoup quotient (ff.cuh), so
 * that products by it take 207 multiply-adds instead of 264 */
template <class F> using twiddle = typename F::shoup;

/* ---- kernels ---- */

/* The tile in dynamic shared memory: element p's 16-byte words k at
 * sh[k size + p], so that threads reading consecutive elements read
 * consecutive words. Sized to the pass's tile, so that small tiles leave
 * room for more blocks. */
template <class F> struct ntt_tile {
    static constexpr int W = sizeof(F) / 16;
    uint4 *sh;
    unsigned size;
    static size_t bytes(unsigned size) { return (size_t)W * size * sizeof(uint4); }
    FF_INLINE F get(unsigned p) const
    {
        F x;
        uint4 *d = reinterpret_cast<uint4 *>(&x);
#pragma unroll
        for (int k = 0; k < W; k++)
            d[k] = sh[k * size + p];
        return x;
    }
    FF_INLINE void put(unsigned p, const F &x) const
    {
        const uint4 *s = reinterpret_cast<const uint4 *>(&x);
#pragma unroll
        for (int k = 0; k < W; k++)
            sh[k * size + p] = s[k];
    }
};

/* i with its low `bits` bits in reverse order (bits <= 64; 0 for none) */
static __device__ __forceinline__ size_t bit_reverse(size_t i, unsigned bits)
{
    return bits ? (size_t)(__brevll((unsigned long long)i) >> (64 - bits)) : 0;
}

/* A butterfly's factor: the table's entry, negated when neg (the inverse
 * transform's w^-j = -w^(m-j)). */
template <class F> struct factor {
    twiddle<F> w;
    bool neg;
};

/* One butterfly of stage (see the top of the file), w = +-f.w; unit: w =
 * 1, skip the product. With w = -f.w the signs of the product's terms
 * turn: DIF (x + y, (y - x) f.w), DIT (x - y f.w, x + y f.w). */
template <class F, bool DIF> FF_INLINE void butterfly(F &x, F &y, const factor<F> &f, bool unit)
{
    if (DIF) {
        const F s = x + y;
        const F p = f.neg ? y : x, q = f.neg ? x : y;
        y = unit ? p - q : (p - q) * f.w;
        x = s;
    } else {
        const F t = unit ? y : y * f.w;
        const F sum = x + t, diff = x - t;
        x = f.neg ? diff : sum;
        y = f.neg ? sum : diff;
    }
}

/* One pass (see the top of the file): stages [s0, s0 + S) of the column
 * group's tile, S >= 2, from src to dst (the same array but for the first
 * and last pass of cuzk_gpu_ntt). blockDim.x = 2^(S+L-2): each thread
 * holds 4 elements and runs two stages on them in registers (a radix-4
 * round; one stage, two butterflies, for the last DIT round of an odd S),
 * so shared memory is crossed once per two stages. The first round reads
 * global memory and the last writes it.
 * REV_IN (the first DIT pass of cuzk_gpu_ntt, s0 = 0, lg the transform's
 * size): the input is in natural order and the pass reads it bit-reversed,
 * each element times scale when scaled. Element p = high 2^S + mid comes
 * from rev(p) = rev(mid) 2^(lg-S) + rev(high): the block takes 2^L
 * consecutive rev(high) (its column group, in the reversed view), so reads
 * and writes both run 2^L or 2^S contiguous elements, and no separate bit
 * reversal pass is needed. */
template <class F, bool DIF, bool REV_IN>
__global__ void __launch_bounds__(1 << (NTT_TILE_LOG - 2), NTT_MIN_BLOCKS)
    ntt_pass_kernel(const F *src, F *dst, const twiddle<F> *tw, bool inverse, unsigned s0, unsigned S, unsigned L,
                    unsigned lg, bool scaled, F scale)
{
    extern __shared__ uint4 sh[];
    const ntt_tile<F> tile{sh, 1u << (S + L)};
    const unsigned tid = threadIdx.x, lc = tid & ((1u << L) - 1), r = tid >> L; /* r: S - 2 bits of mid */
    const unsigned cg_bits = REV_IN ? 0 : s0 - L; /* a REV_IN pass has s0 = 0 and no column bits below */
    const size_t cg = blockIdx.x & (((size_t)1 << cg_bits) - 1), high = blockIdx.x >> cg_bits;
    const size_t col = REV_IN ? 0 : (cg << L) | lc, rhigh = ((size_t)blockIdx.x << L) | lc;
    /* where the tile's element mid is read and written */
    auto in = [&](unsigned mid) {
        return REV_IN ? (bit_reverse(mid, S) << (lg - S)) | rhigh
                      : (high << (s0 + S)) + ((size_t)mid << s0) + col;
    };
    auto out = [&](unsigned mid) {
        return REV_IN ? (bit_reverse(rhigh, lg - S) << S) | mid : in(mid);
    };
    /* the factor of stage s0 + st for j = mid mod 2^st: e = j << s0 | col,
     * tw[m + e] (m = 2^(s0+st)), or for the inverse -tw[m + (m - e)] (e > 0) */
    auto twiddle_at = [&](unsigned st, unsigned j) {
        const size_t m = (size_t)1 << (s0 + st), e = ((size_t)j << s0) | col;
        const size_t at = inverse ? (m - e) & (m - 1) : e;
        return factor<F>{load_ro(tw + m + at), inverse && e != 0};
    };
    const unsigned rounds = (S + 1) / 2;
    for (unsigned q = 0; q < rounds; q++) {
        const unsigned st = 2 * (DIF ? rounds - 1 - q : q), two = S - st >= 2;
        /* the four elements: mid with bits b inserted at st (two stages),
         * or with bit b at st and bit e at S - 2 of r (one stage); slot 2e + b */
        unsigned mid[4];
#pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            const unsigned rr = two ? r : r | ((k >> 1) << (S - 2)), b = two ? k : k & 1, width = two ? 2 : 1;
            mid[k] = ((rr >> st) << (st + width)) | (b << st) | (rr & ((1u << st) - 1));
        }
        F x[4];
#pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            if (q > 0)
                x[k] = tile.get((mid[k] << L) | lc);
            else if (REV_IN && scaled)
                x[k] = load(src + in(mid[k])) * scale;
            else
                x[k] = load(src + in(mid[k]));
        }

        const unsigned lo = mid[0] & ((1u << st) - 1);
        if (two) {
            /* stage st: (0,1), (2,3) with j = lo; stage st+1: (0,2) with j = lo,
             * (1,3) with j = lo + 2^st. Stages 0 and 1 of the transform have
             * w = 1 but for (1,3) of stage 1. */
            const bool first = s0 == 0 && st == 0;
            /* each twiddle is loaded where it is used: all three at once
             * would hold 48 registers */
            auto stage_low = [&] {
                const factor<F> w = first ? factor<F>() : twiddle_at(st, lo);
                butterfly<F, DIF>(x[0], x[1], w, first);
                butterfly<F, DIF>(x[2], x[3], w, first);
            };
            auto stage_high = [&] {
                butterfly<F, DIF>(x[0], x[2], first ? factor<F>() : twiddle_at(st + 1, lo), first);
                butterfly<F, DIF>(x[1], x[3], twiddle_at(st + 1, lo + (1u << st)), false);
            };
            if (DIF) {
                stage_high();
                stage_low();
            } else {
                stage_low();
                stage_high();
            }
        } else {
            /* one stage, st = S - 1: (0,1) and (2,3), j = their mid below st */
            butterfly<F, DIF>(x[0], x[1], twiddle_at(st, lo), false);
            butterfly<F, DIF>(x[2], x[3], twiddle_at(st, mid[2] & ((1u << st) - 1)), false);
        }

        if (q + 1 == rounds) {
#pragma unroll
            for (unsigned k = 0; k < 4; k++)
                store(dst + out(mid[k]), x[k]);
        } else {
#pragma unroll
            for (unsigned k = 0; k < 4; k++)
                tile.put((mid[k] << L) | lc, x[k]);
            __syncthreads();
        }
    }
}

/* n = 2: one butterfly with w = 1, the same both ways (and its own bit
 * reversal), times scale when scaled */
template <class F> __global__ void ntt2_kernel(F *a, bool scaled, F scale)
{
    F x = load(a), y = load(a + 1);
    butterfly<F, false>(x, y, factor<F>(), true);
    store(a, scaled ? x * scale : x);
    store(a + 1, scaled ? y * scale : y);
}

/* out[i] = mult base^i for i < count */
template <class F> __global__ void pow_table_kernel(F *out, size_t count, F base, F mult)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        store(out + i, mult * base.pow(i));
}

/* top[e] = hi[e >> K] lo[e mod 2^K] for e < count */
template <class F>
__global__ void twiddle_top_kernel(twiddle<F> *top, size_t count, const F *lo, const F *hi, unsigned K)
{
    const size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < count)
        store(top + e, (load_ro(hi + (e >> K)) * load_ro(lo + (e & (((size_t)1 << K) - 1)))).to_shoup());
}

/* tw[m + j] = tw[half + j half/m] for 1 <= m + j < half; tw[0] = 1 */
template <class F> __global__ void twiddle_lower_kernel(twiddle<F> *tw, unsigned lg, size_t half)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= half)
        return;
    if (i == 0) {
        store(tw, F::one().to_shoup());
        return;
    }
    const unsigned s = 63 - __clzll((long long)i);
    const size_t j = i - ((size_t)1 << s);
    store(tw + i, load(tw + half + (j << (lg - 1 - s))));
}

/* a[p] <- a[p] hi[k >> K] lo[k mod 2^K], k = rev(p): the coset shift (with
 * 1/n folded into hi) on bit-reversed coefficients */
template <class F>
__global__ void coset_scale_kernel(F *a, size_t n, unsigned lg, const F *lo, const F *hi, unsigned K)
{
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n)
        return;
    const size_t k = bit_reverse(p, lg);
    const F f = load_ro(hi + (k >> K)) * load_ro(lo + (k & (((size_t)1 << K) - 1)));
    store(a + p, load(a + p) * f);
}

/* a <- from_mont(a b - c) */
template <class F> __global__ void coset_h_kernel(F *a, const F *b, const F *c, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        store(a + i, (load(a + i) * load_ro(b + i) - load_ro(c + i)).from_mont());
}

/* out[(k i) mod n] <- in[i], i < n = mask + 1: evaluations on the domain of
 * the root w^k put where the domain of w has them (k odd: a permutation) */
template <class F> __global__ void root_order_kernel(const F *in, size_t n, size_t k, F *out)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        store(out + ((k * i) & (n - 1)), load_ro(in + i));
}

/* ---- the CPU field of each curve, for constants computed on the host ---- */

#define NTT_FIELD(NAME, CPU, DEV, IDX, ADICITY)                                                \
    struct NAME {                                                                              \
        using dev = DEV;                                                                       \
        using host = CPU;                                                                      \
        static constexpr int curve = IDX;                                                      \
        static constexpr unsigned two_adicity = ADICITY;                                       \
        static void root(host *w, unsigned lg) { CPU##_ntt_root(w, lg); }                      \
        static void root_of(host *w, unsigned lg, uint64_t g) { CPU##_ntt_root_of(w, lg, g); } \
        static bool is_one(const host *a) { return CPU##_is_one(a); }                          \
        static void inv(host *r, const host *a) { CPU##_inv(r, a); }                           \
        static void mul(host *r, const host *a, const host *b) { CPU##_mul(r, a, b); }         \
        static void sub(host *r, const host *a, const host *b) { CPU##_sub(r, a, b); }         \
        static void from_u64(host *r, uint64_t v) { CPU##_from_u64(r, v); }                    \
    };                                                                                         \
    static_assert(sizeof(DEV) == sizeof(CPU), "device and CPU elements are the same bytes");

NTT_FIELD(bn254_ntt, bn254_fr, bn254_fr_t, CUZK_CURVE_BN254, BN254_FR_TWO_ADICITY)
NTT_FIELD(bls12_381_ntt, bls12_381_fr, bls12_381_fr_t, CUZK_CURVE_BLS12_381, BLS12_381_FR_TWO_ADICITY)
#undef NTT_FIELD

template <class T> static typename T::dev to_dev(const typename T::host &h)
{
    typename T::dev d;
    memcpy(&d, &h, sizeof d);
    return d;
}

/* h^(2^k) */
template <class T> static typename T::host host_pow2k(typename T::host h, unsigned k)
{
    for (unsigned i = 0; i < k; i++)
        T::mul(&h, &h, &h);
    return h;
}

/* ---- host orchestration ---- */

struct ntt_pass {
    unsigned s0, S, L;
};

/* The passes of a size-2^lg transform (lg >= 2), in DIT order (DIF runs
 * them backwards); returns their number. As few passes as hold lg stages:
 * 2b = NTT_TILE_LOG - NTT_COLS_LOG stages each, but the first pass 2a =
 * NTT_TILE_LOG unless it reads bit-reversed input (rev_in: it has a
 * column group too). The stages are dealt out in pairs, so that every
 * round but at most one runs two stages; the odd stage goes to the first
 * pass with room. No pass overflows: count passes hold lg <= 2a + 2b
 * (count - 1) stages. With a = b, pairs <= b count, and for an odd lg
 * pairs < b count, leaving room. With a = b + 1, pairs <= b count + 1, and
 * only at equality, with lg even, does one pass, the first, get b + 1. */
static int ntt_plan(unsigned lg, bool rev_in, ntt_pass *p)
{
    const unsigned later = NTT_TILE_LOG - NTT_COLS_LOG, first = rev_in ? later : NTT_TILE_LOG;
    unsigned count = 1;
    while (first + (count - 1) * later < lg)
        count++;
    const unsigned pairs = lg / 2;
    bool odd = lg % 2;
    for (unsigned i = 0, s0 = 0; i < count; i++) {
        unsigned S = 2 * (pairs / count + (i < pairs % count));
        if (odd && S < (i == 0 ? first : later)) {
            S++;
            odd = false;
        }
        const unsigned cols = i == 0 && rev_in ? lg - S : s0; /* bits a column group can take */
        p[i] = {s0, S, cols < NTT_COLS_LOG ? cols : NTT_COLS_LOG};
        s0 += S;
    }
    return (int)count;
}

/* queues pass p from src to dst (see ntt_pass_kernel) */
template <class F, bool DIF, bool REV_IN>
static int launch_pass(cuzk_gpu *g, const ntt_pass &p, const F *src, F *dst, const twiddle<F> *tw, bool inverse,
                       unsigned lg, bool scaled, const F &scale, cuzk_error *err)
{
    const unsigned tile = 1u << (p.S + p.L);
    const unsigned blocks = (unsigned)(((size_t)1 << lg) / tile);
    ntt_pass_kernel<F, DIF, REV_IN><<<blocks, tile / 4, ntt_tile<F>::bytes(tile), g->stream>>>(
        src, dst, tw, inverse, p.s0, p.S, p.L, lg, scaled, scale);
    GPU_LAUNCHED();
    return 0;
}

/* out[i] = mult base^i, i < count, in a fresh pool buffer */
template <class F>
static int pow_table(cuzk_gpu *g, dev_buf<F> &out, size_t count, const F &base, const F &mult, cuzk_error *err)
{
    GPU_TRY(out.alloc(g, count, err));
    pow_table_kernel<F><<<grid_for(count, ELEMENT_THREADS), ELEMENT_THREADS, 0, g->stream>>>(out, count, base, mult);
    GPU_LAUNCHED();
    return 0;
}

/* *out <- the context's twiddle table for 2^lg (lg >= 1), built or grown as
 * needed: the forward one, which the inverse transform reads too. */
template <class T> static int twiddles(cuzk_gpu *g, unsigned lg, const twiddle<typename T::dev> **out, cuzk_error *err)
{
    using F = typename T::dev;
    auto &slot = g->tw[T::curve];
    if (slot.ptr && slot.lg >= lg) {
        *out = static_cast<const twiddle<F> *>(slot.ptr);
        return 0;
    }
    if (slot.ptr) {
        GPU_CHECK(cudaStreamSynchronize(g->stream)); /* earlier work may still read it */
        GPU_CHECK(cudaFree(slot.ptr));
        slot.ptr = nullptr;
    }
    const size_t half = (size_t)1 << (lg - 1);
    void *p = nullptr;
    GPU_CHECK(cudaMalloc(&p, 2 * half * sizeof(twiddle<F>)));
    slot.ptr = p;
    slot.lg = lg;

    typename T::host w, one;
    T::root(&w, lg);
    T::from_u64(&one, 1);
    const unsigned K = (lg - 1) / 2; /* e = hi 2^K + lo */
    dev_buf<F> lo, hi;
    GPU_TRY(pow_table(g, lo, (size_t)1 << K, to_dev<T>(w), to_dev<T>(one), err));
    GPU_TRY(pow_table(g, hi, half >> K, to_dev<T>(host_pow2k<T>(w, K)), to_dev<T>(one), err));
    twiddle<F> *tw = static_cast<twiddle<F> *>(p);
    twiddle_top_kernel<F><<<grid_for(half, ELEMENT_THREADS), ELEMENT_THREADS, 0, g->stream>>>(tw + half, half, lo, hi,
                                                                                            K);
    GPU_LAUNCHED();
    twiddle_lower_kernel<F><<<grid_for(half, ELEMENT_THREADS), ELEMENT_THREADS, 0, g->stream>>>(tw, lg, half);
    GPU_LAUNCHED();
    *out = tw;
    return 0;
}

/* The passes of a DIT (dif = false) or DIF transform of a[0..2^lg) in
 * place, lg >= 1. */
template <class F>
static int run_passes(cuzk_gpu *g, F *a, unsigned lg, const twiddle<F> *tw, bool inverse, bool dif, cuzk_error *err)
{
    if (lg == 1) {
        ntt2_kernel<F><<<1, 1, 0, g->stream>>>(a, false, F());
        GPU_LAUNCHED();
        return 0;
    }
    ntt_pass plan[64];
    const int count = ntt_plan(lg, false, plan);
    for (int q = 0; q < count; q++) {
        if (dif)
            GPU_TRY((launch_pass<F, true, false>(g, plan[count - 1 - q], a, a, tw, inverse, lg, false, F(), err)));
        else
            GPU_TRY((launch_pass<F, false, false>(g, plan[q], a, a, tw, inverse, lg, false, F(), err)));
    }
    return 0;
}

/* a[0..2^lg) <- NTT or iNTT, natural order in and out (queued on g's
 * stream): DIT passes, the first reading a bit-reversed (times 1/n for the
 * inverse). That pass must not write a while other blocks still read it:
 * with several passes they run through a scratch array, the last writing
 * a. One pass is one block, whose reads (its first round) all come before
 * its writes (its last round, after a barrier, or by the same thread). */
template <class T> static int ntt_queue(cuzk_gpu *g, typename T::dev *a, unsigned lg, bool inverse, cuzk_error *err)
{
    using F = typename T::dev;
    if (lg == 0)
        return 0; /* one point: the identity, and 1/n = 1 */
    const twiddle<F> *tw;
    GPU_TRY(twiddles<T>(g, lg, &tw, err));
    typename T::host ninv;
    T::from_u64(&ninv, (uint64_t)1 << lg);
    T::inv(&ninv, &ninv);
    const F scale = to_dev<T>(ninv);
    if (lg == 1) {
        ntt2_kernel<F><<<1, 1, 0, g->stream>>>(a, inverse, scale);
        GPU_LAUNCHED();
        return 0;
    }
    ntt_pass plan[64];
    const int count = ntt_plan(lg, true, plan);
    dev_buf<F> scratch;
    F *work = a;
    if (count > 1) {
        GPU_TRY(scratch.alloc(g, (size_t)1 << lg, err));
        work = scratch;
    }
    GPU_TRY((launch_pass<F, false, true>(g, plan[0], a, work, tw, inverse, lg, inverse, scale, err)));
    for (int q = 1; q < count; q++)
        GPU_TRY((launch_pass<F, false, false>(g, plan[q], work, q + 1 == count ? a : work, tw, inverse, lg, false,
                                              F(), err)));
    return 0;
}

/* v <- evaluations on the coset w_2n <w_n> of the polynomial whose
 * evaluations on <w_n> v holds (queued on g's stream) */
template <class T>
static int to_coset_queue(cuzk_gpu *g, typename T::dev *v, unsigned lg, const twiddle<typename T::dev> *tw,
                          const typename T::dev *lo, const typename T::dev *hi, unsigned K, cuzk_error *err)
{
    using F = typename T::dev;
    const size_t n = (size_t)1 << lg;
    GPU_TRY(run_passes(g, v, lg, tw, true, true, err));
    coset_scale_kernel<F><<<grid_for(n, ELEMENT_THREADS), ELEMENT_THREADS, 0, g->stream>>>(v, n, lg, lo, hi, K);
    GPU_LAUNCHED();
    return run_passes(g, v, lg, tw, false, false, err);
}

template <class T>
static int coset_h_queue(cuzk_gpu *g, typename T::dev *a, typename T::dev *b, typename T::dev *c, unsigned lg,
                         cuzk_error *err)
{
    using F = typename T::dev;
    const size_t n = (size_t)1 << lg;
    typename T::host shift, ninv, one;
    T::root(&shift, lg + 1);
    T::from_u64(&ninv, n);
    T::inv(&ninv, &ninv);
    T::from_u64(&one, 1);
    if (lg > 0) {
        const twiddle<F> *tw;
        GPU_TRY(twiddles<T>(g, lg, &tw, err));
        const unsigned K = lg / 2; /* k = hi 2^K + lo */
        dev_buf<F> lo, hi;
        GPU_TRY(pow_table(g, lo, (size_t)1 << K, to_dev<T>(shift), to_dev<T>(one), err));
        GPU_TRY(pow_table(g, hi, n >> K, to_dev<T>(host_pow2k<T>(shift, K)), to_dev<T>(ninv), err));
        F *polys[3] = {a, b, c};
        for (F *v : polys)
            GPU_TRY(to_coset_queue<T>(g, v, lg, tw, lo, hi, K, err));
    } else {
        /* n = 1: the constant polynomial v, evaluated anywhere: v */
    }
    coset_h_kernel<F><<<grid_for(n, ELEMENT_THREADS), ELEMENT_THREADS, 0, g->stream>>>(a, b, c, n);
    GPU_LAUNCHED();
    return 0;
}

/* k with w_g = w^k, w_g the root of order n = 2^lg from generator g and w
 * ours (F_ntt_root), both primitive: bit j of k is set when w_g w^-k, k
 * its bits below j, has order 2^(lg - j) (its 2^(lg-1-j)-th power is -1,
 * not 1). -1 when g gives no primitive root (not a generator of Fr*). */
template <class T> static long long root_power(unsigned lg, uint64_t generator)
{
    typename T::host w, wg, w_inv;
    T::root(&w, lg);
    T::root_of(&wg, lg, generator);
    T::inv(&w_inv, &w);
    size_t k = 0;
    for (unsigned j = 0; j < lg; j++) {
        const typename T::host u = host_pow2k<T>(wg, lg - 1 - j);
        if (!T::is_one(&u)) {
            k |= (size_t)1 << j;
            const typename T::host step = host_pow2k<T>(w_inv, j);
            T::mul(&wg, &wg, &step); /* wg <- wg w^-(2^j) */
        }
    }
    return T::is_one(&wg) && (lg == 0 || (k & 1)) ? (long long)k : -1;
}

/* a <- a b, pointwise */
template <class F> __global__ void product_kernel(F *a, const F *b, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        store(a + i, load(a + i) * load_ro(b + i));
}

/* out[k] <- from_mont(q[p] hi[k >> K] lo[k mod 2^K] - c[p] cz), p = rev(k):
 * q the inverse passes' bit-reversed output on the coset's a b, c on c's
 * evaluations (both times n), hi and lo the coset's unshift with 1/n and
 * 1/Z folded in, cz = 1/(n Z): h's coefficients in natural order */
template <class F>
__global__ void quotient_coefficients_kernel(const F *q, const F *c, F cz, size_t n, unsigned lg, const F *lo,
                                             const F *hi, unsigned K, F *out)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const size_t p = bit_reverse(k, lg);
    const F f = load_ro(hi + (k >> K)) * load_ro(lo + (k & (((size_t)1 << K) - 1)));
    store(out + k, (load_ro(q + p) * f - load_ro(c + p) * cz).from_mont());
}

/* What both forms of bellman's quotient share. Z is the constant g^n - 1
 * on the coset g<w>, and every step is linear in c, so
 *   h = coset_iFFT((A B - C) / Z) = coset_iFFT(A B) / Z - iFFT(c) / Z
 * with A, B, C the coset evaluations: c needs only its inverse transform,
 * not the coset's forward one (the same h, one transform fewer). Holds the
 * domain's root as a power k of our NTT's, the coset's shift g, 1/n, 1/Z,
 * and the tables of the shift's powers (k = hi 2^K + lo). */
template <class T> struct bellman_quotient {
    using F = typename T::dev;
    cuzk_gpu *g;
    unsigned lg, K;
    size_t n;
    long long k;
    typename T::host shift, shift_inv, ninv, one, zinv;
    const twiddle<F> *tw = nullptr;
    dev_buf<F> lo, hi;

    int init(cuzk_gpu *gpu, unsigned lg_n, uint64_t generator, cuzk_error *err)
    {
        g = gpu;
        lg = lg_n;
        n = (size_t)1 << lg;
        K = lg / 2;
        k = root_power<T>(lg, generator);
        if (k < 0)
            return cuzk_fail(err, CUZK_ERR_ARG, "%llu generates no root of unity of order 2^%u",
                             (unsigned long long)generator, lg);
        T::from_u64(&shift, generator);
        T::inv(&shift_inv, &shift);
        T::from_u64(&ninv, n);
        T::inv(&ninv, &ninv);
        T::from_u64(&one, 1);
        zinv = host_pow2k<T>(shift, lg); /* Z(g w^i) = g^n - 1 */
        T::sub(&zinv, &zinv, &one);
        T::inv(&zinv, &zinv);
        if (lg > 0) {
            GPU_TRY(twiddles<T>(g, lg, &tw, err));
            GPU_TRY(pow_table(g, lo, (size_t)1 << K, to_dev<T>(shift), to_dev<T>(one), err));
            GPU_TRY(pow_table(g, hi, n >> K, to_dev<T>(host_pow2k<T>(shift, K)), to_dev<T>(ninv), err));
        }
        return 0;
    }

    /* to <- from's evaluations (the generator's domain) in our domain's order */
    void in_our_order(const F *from, F *to)
    {
        root_order_kernel<F><<<grid_for(n, ELEMENT_THREADS), ELEMENT_THREADS, 0, g->stream>>>(from, n, (size_t)k, to);
    }

    /* to <- from's evaluations on the coset (the identity at n = 1) */
    int to_coset(const F *from, F *to, cuzk_error *err)
    {
        in_our_order(from, to);
        GPU_LAUNCHED();
        if (lg > 0)
            GPU_TRY(to_coset_queue<T>(g, to, lg, tw, lo, hi, K, err));
        return 0;
    }

    /* to <- n times from's coefficients, bit-reversed (the inverse passes
     * without their 1/n) */
    int to_coefficients_times_n(const F *from, F *to, cuzk_error *err)
    {
        in_our_order(from, to);
        GPU_LAUNCHED();
        if (lg > 0)
            GPU_TRY(run_passes(g, to, lg, tw, true, true, err));
        return 0;
    }

    /* out <- h's coefficients in normal form, from ab = A B on the coset
     * (overwritten) and c_n = to_coefficients_times_n(c) */
    int coefficients(F *ab, const F *c_n, F *out, cuzk_error *err)
    {
        if (lg > 0) /* DIF with w^-1: bit-reversed coefficients of (A B)(g x), times n */
            GPU_TRY(run_passes(g, ab, lg, tw, true, true, err));
        typename T::host cz; /* 1 / (n Z) */
        T::mul(&cz, &ninv, &zinv);
        GPU_TRY(pow_table(g, lo, (size_t)1 << K, to_dev<T>(shift_inv), to_dev<T>(one), err));
        GPU_TRY(pow_table(g, hi, n >> K, to_dev<T>(host_pow2k<T>(shift_inv, K)), to_dev<T>(cz), err));
        quotient_coefficients_kernel<F><<<grid_for(n, ELEMENT_THREADS), ELEMENT_THREADS, 0, g->stream>>>(
            ab, c_n, to_dev<T>(cz), n, lg, lo, hi, K, out);
        GPU_LAUNCHED();
        return 0;
    }
};

/* Bellman's quotient (gpu_internal.cuh, bellman_h) on buffers v[0..4) */
template <class T>
static int bellman_h_queue(cuzk_gpu *g, typename T::dev *const v[4], unsigned lg, uint64_t generator,
                           cuzk_error *err)
{
    using F = typename T::dev;
    bellman_quotient<T> q;
    GPU_TRY(q.init(g, lg, generator, err));
    /* each vector one buffer along: A in v[3], B in v[0], c's coefficients in v[1] */
    F *const a = v[3], *const b = v[0], *const c = v[1];
    GPU_TRY(q.to_coset(v[0], a, err));
    GPU_TRY(q.to_coset(v[1], b, err));
    GPU_TRY(q.to_coefficients_times_n(v[2], c, err));
    product_kernel<F><<<grid_for(q.n, ELEMENT_THREADS), ELEMENT_THREADS, 0, g->stream>>>(a, b, q.n);
    GPU_LAUNCHED();
    return q.coefficients(a, c, v[0], err);
}

/* The same in three buffers, a, b and c loaded one at a time
 * (gpu_internal.cuh, bellman_h_lean) */
template <class T>
static int bellman_h_lean_queue(cuzk_gpu *g, typename T::dev *const v[3], unsigned lg, uint64_t generator,
                                const bellman_loader &load, cuzk_error *err)
{
    using F = typename T::dev;
    bellman_quotient<T> q;
    GPU_TRY(q.init(g, lg, generator, err));
    F *const landing = v[0], *const ab = v[1], *const other = v[2];
    GPU_TRY(load.fn(load.ctx, 0, landing, err));
    GPU_TRY(q.to_coset(landing, ab, err));
    GPU_TRY(load.fn(load.ctx, 1, landing, err));
    GPU_TRY(q.to_coset(landing, other, err));
    product_kernel<F><<<grid_for(q.n, ELEMENT_THREADS), ELEMENT_THREADS, 0, g->stream>>>(ab, other, q.n);
    GPU_LAUNCHED();
    GPU_TRY(load.fn(load.ctx, 2, landing, err));
    GPU_TRY(q.to_coefficients_times_n(landing, other, err));
    return q.coefficients(ab, other, v[0], err);
}

/* log2 n when n = 2^k with k <= max_lg, else -1 */
static int log2_exact(size_t n, unsigned max_lg)
{
    if (n == 0 || (n & (n - 1)))
        return -1;
    unsigned lg = 0;
    while (((size_t)1 << lg) < n)
        lg++;
    return lg <= max_lg ? (int)lg : -1;
}

template <class T> static unsigned max_lg_for(bool coset) { return T::two_adicity - (coset ? 1 : 0); }

/* ---- the door's NTT calls, per curve ---- */

template <class T>
static int ntt_call(cuzk_gpu *given, void *data, size_t n, int inverse, bool on_device, cuzk_error *err)
{
    using F = typename T::dev;
    int lg = log2_exact(n, max_lg_for<T>(false));
    if (!data || lg < 0)
        return cuzk_fail(err, CUZK_ERR_ARG, "NTT size %zu is not a power of two up to 2^%u (or no data)", n,
                         max_lg_for<T>(false));
    ctx_scope cs;
    GPU_TRY(cs.enter(given, err));
    cuzk_gpu *g = cs.get();
    if (on_device) {
        GPU_TRY(ntt_queue<T>(g, static_cast<F *>(data), (unsigned)lg, inverse != 0, err));
    } else {
        dev_buf<F> d;
        GPU_TRY(d.alloc(g, n, err));
        GPU_CHECK(cudaMemcpyAsync(d, data, n * sizeof(F), cudaMemcpyHostToDevice, g->stream));
        GPU_TRY(ntt_queue<T>(g, d, (unsigned)lg, inverse != 0, err));
        GPU_CHECK(cudaMemcpyAsync(data, d, n * sizeof(F), cudaMemcpyDeviceToHost, g->stream));
    }
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

template <class T>
static int coset_h_call(cuzk_gpu *given, void *a, const void *b, const void *c, size_t n, bool on_device,
                        cuzk_error *err)
{
    using F = typename T::dev;
    int lg = log2_exact(n, max_lg_for<T>(true));
    if (!a || !b || !c || lg < 0)
        return cuzk_fail(err, CUZK_ERR_ARG, "coset size %zu is not a power of two up to 2^%u (or no data)", n,
                         max_lg_for<T>(true));
    ctx_scope cs;
    GPU_TRY(cs.enter(given, err));
    cuzk_gpu *g = cs.get();
    if (on_device) {
        GPU_TRY(coset_h_queue<T>(g, static_cast<F *>(a), static_cast<F *>(const_cast<void *>(b)),
                                 static_cast<F *>(const_cast<void *>(c)), (unsigned)lg, err));
    } else {
        dev_buf<F> d;
        GPU_TRY(d.alloc(g, 3 * n, err));
        const size_t bytes = n * sizeof(F);
        GPU_CHECK(cudaMemcpyAsync(d, a, bytes, cudaMemcpyHostToDevice, g->stream));
        GPU_CHECK(cudaMemcpyAsync(d + n, b, bytes, cudaMemcpyHostToDevice, g->stream));
        GPU_CHECK(cudaMemcpyAsync(d + 2 * n, c, bytes, cudaMemcpyHostToDevice, g->stream));
        GPU_TRY(coset_h_queue<T>(g, d, d + n, d + 2 * n, (unsigned)lg, err));
        GPU_CHECK(cudaMemcpyAsync(a, d, bytes, cudaMemcpyDeviceToHost, g->stream));
    }
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

static int bad_curve(cuzk_error *err, int curve)
{
    return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve id %d", curve);
}

/* fn(T{}, lg) with T the curve's field, once n is checked as a domain of
 * 2^lg points that field has: what both forms of bellman's quotient share */
template <class Fn> static int on_bellman_domain(cuzk_curve_id curve, size_t n, cuzk_error *err, Fn fn)
{
    const unsigned max_lg = curve == CUZK_CURVE_BN254 ? bn254_ntt::two_adicity : bls12_381_ntt::two_adicity;
    const int lg = log2_exact(n, max_lg);
    if (lg < 0)
        return cuzk_fail(err, CUZK_ERR_ARG, "domain size %zu is not a power of two up to 2^%u", n, max_lg);
    switch (curve) {
    case CUZK_CURVE_BN254: return fn(bn254_ntt{}, (unsigned)lg);
    case CUZK_CURVE_BLS12_381: return fn(bls12_381_ntt{}, (unsigned)lg);
    }
    return bad_curve(err, curve);
}

int bellman_h(cuzk_gpu *g, cuzk_curve_id curve, void *const v[4], size_t n, uint64_t generator, cuzk_error *err)
{
    return on_bellman_domain(curve, n, err, [&](auto field, unsigned lg) {
        using T = decltype(field);
        return bellman_h_queue<T>(g, reinterpret_cast<typename T::dev *const *>(v), lg, generator, err);
    });
}

int bellman_h_lean(cuzk_gpu *g, cuzk_curve_id curve, void *const v[3], size_t n, uint64_t generator,
                   const bellman_loader &load, cuzk_error *err)
{
    return on_bellman_domain(curve, n, err, [&](auto field, unsigned lg) {
        using T = decltype(field);
        return bellman_h_lean_queue<T>(g, reinterpret_cast<typename T::dev *const *>(v), lg, generator, load, err);
    });
}

} /* namespace gpu */

extern "C" int cuzk_gpu_ntt(cuzk_gpu *g, cuzk_curve_id curve, void *data, size_t n, int inverse, cuzk_error *err)
{
    switch (curve) {
    case CUZK_CURVE_BN254: return gpu::ntt_call<gpu::bn254_ntt>(g, data, n, inverse, false, err);
    case CUZK_CURVE_BLS12_381: return gpu::ntt_call<gpu::bls12_381_ntt>(g, data, n, inverse, false, err);
    }
    return gpu::bad_curve(err, curve);
}

extern "C" int cuzk_gpu_ntt_dev(cuzk_gpu *g, cuzk_curve_id curve, void *data, size_t n, int inverse, cuzk_error *err)
{
    if (!g)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_ntt_dev needs a context");
    switch (curve) {
    case CUZK_CURVE_BN254: return gpu::ntt_call<gpu::bn254_ntt>(g, data, n, inverse, true, err);
    case CUZK_CURVE_BLS12_381: return gpu::ntt_call<gpu::bls12_381_ntt>(g, data, n, inverse, true, err);
    }
    return gpu::bad_curve(err, curve);
}

extern "C" int cuzk_gpu_coset_h(cuzk_gpu *g, cuzk_curve_id curve, void *a, const void *b, const void *c, size_t n,
                                cuzk_error *err)
{
    switch (curve) {
    case CUZK_CURVE_BN254: return gpu::coset_h_call<gpu::bn254_ntt>(g, a, b, c, n, false, err);
    case CUZK_CURVE_BLS12_381: return gpu::coset_h_call<gpu::bls12_381_ntt>(g, a, b, c, n, false, err);
    }
    return gpu::bad_curve(err, curve);
}

extern "C" int cuzk_gpu_coset_h_dev(cuzk_gpu *g, cuzk_curve_id curve, void *a, void *b, void *c, size_t n,
                                    cuzk_error *err)
{
    if (!g)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_coset_h_dev needs a context");
    switch (curve) {
    case CUZK_CURVE_BN254: return gpu::coset_h_call<gpu::bn254_ntt>(g, a, b, c, n, true, err);
    case CUZK_CURVE_BLS12_381: return gpu::coset_h_call<gpu::bls12_381_ntt>(g, a, b, c, n, true, err);
    }
    return gpu::bad_curve(err, curve);
}
