/* Device prime fields and Fp2, the GPU twins of src/ff/field.h and tower.inc.
 *
 * fp<P> is an element of the field described by P (constants.cuh):
 *   bn254_fp, bn254_fr, bls12_381_fr   8 limbs of 32 bits (R = 2^256)
 *   bls12_381_fp                       12 limbs           (R = 2^384)
 * Limbs are little-endian, so an element has exactly the bytes of the CPU
 * element (4 or 6 little-endian 64-bit words) of the same value. Values are
 * in Montgomery form (x R mod m) unless a function says otherwise, and
 * every operation takes and returns fully reduced values (< m): results
 * are canonical, so they equal the CPU's bit for bit whatever formula
 * computed them.
 *
 * Multiplication is CIOS on 32-bit limbs with PTX carry chains: per limb of
 * b, t += a b_i, then q = t_0 (-m^-1) mod 2^32, t += q m, t >>= 32. With
 * a, b < m the running t stays below 2m (t' = (t + a b_i + q m) / 2^32 <
 * (2m + 2 (2^32 - 1) m) / 2^32 < 2m), so one conditional subtraction ends
 * it; 4 N^2 + O(N) integer multiply-adds in all. Every modulus leaves its
 * top limb's top bit clear (2m < 2^(32N)), so sums never carry out of N
 * limbs.
 *
 * A carry chain is serial (each step waits for the last one's carry), so
 * t is kept as two numbers, t = x + 2^32 y, each summed by its own chain:
 * x takes the products of the even limbs of a (or m), whose low and high
 * halves tile x's limbs 0..N-1 exactly; y those of the odd limbs, one limb
 * down. The two chains are independent, so the GPU overlaps them. y stays
 * below 2^(32N): its share of t + a b_i + q m is at most 2m / 2^32 + (a b_i
 * + q m) / 2^32 < 2m + 1. x needs a carry limb x_N. Shifting t right by one
 * limb (x_0 = 0) swaps the roles: the new x is y plus x_1, the new y is
 * x_2..x_N.
 *
 * The same pieces also make double-width products (mul_wide, sqr_wide: no
 * reduction) and a separate Montgomery reduction of them (redc), for the
 * square (N^2 + N multiply-adds instead of 2N^2 before the reduction), for
 * a b - c d reduced once (mul_sub, the point formulas' Y3) and for Fp2
 * products reduced once per coefficient (fp2, below). Products by
 * a factor known in advance (the NTT's twiddles) take Shoup's route
 * instead (fp::shoup): partial products, no Montgomery reduction. The GPU's
 * integer multiply-add pipe is the limit of the MSM (ncu on the BLS12-381
 * G1 bucket kernel), so fewer multiply-adds is what counts.
 *
 * The carry flag lives between separate asm statements of one chain; no
 * compiler-generated PTX in between uses it (only explicit .cc/.c PTX
 * instructions read or write it), the usual practice of CUDA big-integer
 * code. */
#ifndef CUZK_GPU_FF_CUH
#define CUZK_GPU_FF_CUH

#include <cstddef>
#include <cstdint>

#include "gpu/constants.cuh"

#define FF_INLINE __device__ __forceinline__

/* Fields of at least this many limbs (BLS12-381's Fp) multiply in an
 * out-of-line function, operands and result in registers: one copy of the
 * ~700 instructions instead of one per product, so the MSM's point
 * addition loop fits the instruction cache: with every product inlined,
 * the BLS12-381 G1 bucket kernel's warps stalled mostly on instruction
 * fetches (bench/results/2026-12-07-measurements-from-comments.md).
 * 8-limb fields stay inlined (their kernels are smaller). */
#ifndef FF_MUL_OUTLINE_LIMBS
#define FF_MUL_OUTLINE_LIMBS 12
#endif

/* Products in lock step: two independent products (or reductions) of an
 * out-of-line field run in one call, row by row, so that their carry
 * chains overlap (four chains instead of two); the bucket kernels' warps
 * wait on the chains' latency. The settings kept, as measured in
 * bench/results/2026-12-06-h100-lockstep.md:
 * FF_MUL2          1: the point formulas' pairs (mul2, sqr2) of BLS12-381
 *                  G1's Fp as well. Off (0) is faster for G1 (the pair
 *                  comes back through the stack)
 * FF_FP2_LOCKSTEP  1: an Fp2 product's two reductions and its square's
 *                  two base products, inside the Fp2 call: faster G2 */
#ifndef FF_MUL2
#define FF_MUL2 0
#endif
#ifndef FF_FP2_LOCKSTEP
#define FF_FP2_LOCKSTEP 1
#endif

namespace gpu {

/* ---- PTX carry-chain primitives ---- */
/* tests/unit/test_gpu_ff_host.cpp runs this file's arithmetic on the CPU
 * (so that CI, with no GPU, checks it against the CPU's fields): it brings
 * its own ptx namespace, the carry flag emulated, and defines this. */
#ifndef FF_PTX_EMULATED
namespace ptx {

FF_INLINE uint32_t add_cc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
FF_INLINE uint32_t addc_cc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
FF_INLINE uint32_t addc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
FF_INLINE uint32_t sub_cc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
FF_INLINE uint32_t subc_cc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
FF_INLINE uint32_t subc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
/* low / high half of a b, plus c, with carry out (and in, for madc) */
FF_INLINE uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
FF_INLINE uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
FF_INLINE uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
FF_INLINE uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

} /* namespace ptx */
#endif

/* ---- Fp ---- */

template <class P> struct alignas(16) fp {
    static constexpr int N = P::N;
    static_assert(N * 4 % 16 == 0, "elements are moved as 16-byte vectors");
    uint32_t v[N];

    /* the element whose limb i is limb(i) (constants fold after unrolling) */
    template <class Limb> static FF_INLINE fp from_limbs(Limb limb)
    {
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = limb(i);
        return r;
    }
    static FF_INLINE fp zero() { return from_limbs([](int) { return 0u; }); }
    static FF_INLINE fp modulus() { return from_limbs([](int i) { return P::mod(i); }); }
    /* one in Montgomery form (R mod m) */
    static FF_INLINE fp one() { return from_limbs([](int i) { return P::one(i); }); }
    FF_INLINE bool is_zero() const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= v[i];
        return acc == 0;
    }
    FF_INLINE bool operator==(const fp &b) const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= v[i] ^ b.v[i];
        return acc == 0;
    }

    /* v < 2m -> v mod m: subtract m, keep the difference unless it borrowed */
    FF_INLINE fp reduce_once() const
    {
        fp s, r;
        s.v[0] = ptx::sub_cc(v[0], P::mod(0));
#pragma unroll
        for (int i = 1; i < N; i++)
            s.v[i] = ptx::subc_cc(v[i], P::mod(i));
        const uint32_t keep = ptx::subc(0, 0); /* all ones when v < m */
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = (v[i] & keep) | (s.v[i] & ~keep);
        return r;
    }

    friend FF_INLINE fp operator+(const fp &a, const fp &b) { return raw_add(a, b).reduce_once(); }

    /* a - b, plus m when it borrowed */
    friend FF_INLINE fp operator-(const fp &a, const fp &b)
    {
        fp r;
        r.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < N; i++)
            r.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
        const uint32_t mask = ptx::subc(0, 0);
        r.v[0] = ptx::add_cc(r.v[0], P::mod(0) & mask);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            r.v[i] = ptx::addc_cc(r.v[i], P::mod(i) & mask);
        r.v[N - 1] = ptx::addc(r.v[N - 1], P::mod(N - 1) & mask);
        return r;
    }

    /* m - a, or 0 for a = 0 */
    FF_INLINE fp neg() const
    {
        fp r = raw_sub(modulus(), *this);
        const uint32_t nz = is_zero() ? 0u : ~0u;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] &= nz;
        return r;
    }

    FF_INLINE fp dbl() const { return *this + *this; }

    /* a b R^-1 mod m (CIOS, see the top of this file) */
    friend FF_INLINE fp operator*(const fp &a, const fp &b)
    {
        if (N >= FF_MUL_OUTLINE_LIMBS)
            return mul_outline(a, b);
        return mul_inline(a, b);
    }
    static __device__ __noinline__ fp mul_outline(const fp a, const fp b) { return mul_inline(a, b); }

    /* two products (a b, c d) or squares (a^2, b^2) of independent
     * operands, in one out-of-line call where FF_MUL2 says so */
    static constexpr bool OUTLINED = N >= FF_MUL_OUTLINE_LIMBS;
    static constexpr bool LOCKSTEP_PAIRS = OUTLINED && FF_MUL2;
    struct pair {
        fp first, second;
    };
    static FF_INLINE pair mul2(const fp &a, const fp &b, const fp &c, const fp &d)
    {
        if constexpr (LOCKSTEP_PAIRS)
            return mul2_outline(a, b, c, d);
        else
            return {a * b, c * d};
    }
    static FF_INLINE pair sqr2(const fp &a, const fp &b)
    {
        if constexpr (LOCKSTEP_PAIRS)
            return sqr2_outline(a, b);
        else
            return {a.sqr(), b.sqr()};
    }
    static __device__ __noinline__ pair mul2_outline(const fp a, const fp b, const fp c, const fp d)
    {
        fp r[2];
        const fp left[2] = {a, c}, right[2] = {b, d};
        mul_lockstep<2>(r, left, right);
        return {r[0], r[1]};
    }
    static __device__ __noinline__ pair sqr2_outline(const fp a, const fp b)
    {
        uint32_t t[2][2 * N];
        sqr_wide(t[0], a);
        sqr_wide(t[1], b);
        fp r[2];
        redc_lockstep<2>(r, t);
        return {r[0], r[1]};
    }

    /* (a b - c d) R^-1 mod m with one reduction for both products (lazy
     * reduction): redc(a b + c (m - d)), where m - d is in (0, m] and the
     * sum below 2 m^2 < m R (2m < R), so redc leaves it below 2m. The point
     * formulas' Y3 = R (Q - X3) - Y1 PPP: 6 N^2 + N multiply-adds instead
     * of 8 N^2 + 2N. Out of line for the fields whose product is. */
    static FF_INLINE fp mul_sub(const fp &a, const fp &b, const fp &c, const fp &d)
    {
        if (N >= FF_MUL_OUTLINE_LIMBS)
            return mul_sub_outline(a, b, c, d);
        return mul_sub_inline(a, b, c, d);
    }
    static __device__ __noinline__ fp mul_sub_outline(const fp a, const fp b, const fp c, const fp d)
    {
        return mul_sub_inline(a, b, c, d);
    }
    static FF_INLINE fp mul_sub_inline(const fp &a, const fp &b, const fp &c, const fp &d)
    {
        static_assert(P::mod(N - 1) < (1u << 31), "2m < R");
        const fp md = raw_sub(modulus(), d);
        uint32_t t[2 * N], u[2 * N];
        mul_wide(t, a, b);
        mul_wide(u, c, md);
        wide_chain<false>(t, u); /* below 2 m^2 */
        return redc(t);
    }
    /* t += u (the sum must fit 2N limbs; returns 0) or t -= u (returns all
     * ones when it borrowed) */
    template <bool SUB> static FF_INLINE uint32_t wide_chain(uint32_t (&t)[2 * N], const uint32_t (&u)[2 * N])
    {
        t[0] = SUB ? ptx::sub_cc(t[0], u[0]) : ptx::add_cc(t[0], u[0]);
#pragma unroll
        for (int k = 1; k < 2 * N - 1; k++)
            t[k] = SUB ? ptx::subc_cc(t[k], u[k]) : ptx::addc_cc(t[k], u[k]);
        if (!SUB) {
            t[2 * N - 1] = ptx::addc(t[2 * N - 1], u[2 * N - 1]);
            return 0;
        }
        t[2 * N - 1] = ptx::subc_cc(t[2 * N - 1], u[2 * N - 1]);
        return ptx::subc(0, 0);
    }

    /* a^2 R^-1 mod m. Out of line: the square's fewer multiply-adds
     * (sqr_wide), then the reduction. Inlined fields square as a product:
     * sqr_wide and redc inlined made the BN254 G1 MSM slower, where out of
     * line the BLS12-381 G1 MSM gains
     * (bench/results/2026-12-07-measurements-from-comments.md). */
    FF_INLINE fp sqr() const
    {
        if (N >= FF_MUL_OUTLINE_LIMBS)
            return sqr_outline(*this);
        return mul_inline(*this, *this);
    }
    static __device__ __noinline__ fp sqr_outline(const fp a)
    {
        uint32_t t[2 * N];
        sqr_wide(t, a);
        return redc(t);
    }

    /* ---- products by a factor known in advance (Shoup) ----
     * Next to a fixed factor w < m keep W = floor(w R / m) < R. For a < m,
     * q = floor(a W / R) leaves a w - q m in [0, (1 + a / R) m): a w / m -
     * a W / R = a (w R / m - W) / R < a / R, plus the floor's part below 1.
     * q is taken from the limbs >= N - 1 of a W only (mul_cols): the terms
     * dropped sum below 2N 2^(32(N-1)), at most 2N per limb below, so q is
     * low by one at most, and only where a W / R lies within 2N 2^-32 above
     * an integer; a w - q m is then below (1 + a / R + 2N 2^-32) m. Either
     * way it is below 2m < R, so a w and q m are needed mod R only:
     * N^2 + 2N - 1 multiply-adds for q and N^2 for each low half, 207
     * against the Montgomery product's 264 for 8 limbs. */
    struct shoup {
        fp w, W; /* w in normal form, not Montgomery */
    };
    /* The factor whose Montgomery form this is. Its stored value is w R mod
     * m, so W m = w R - (this value), W = -(this value) m^-1 mod R. */
    FF_INLINE shoup to_shoup() const
    {
        const fp minv = from_limbs([](int i) { return P::minv(i); });
        return {from_mont(), mul_low(raw_sub(zero(), *this), minv)};
    }
    /* a w for a in Montgomery form: (x R) w = (x w) R, the Montgomery
     * product of a and w's Montgomery form, bit for bit */
    friend FF_INLINE fp operator*(const fp &a, const shoup &s)
    {
        static_assert(P::mod(N - 1) < (1u << 31), "2m < R");
        uint32_t h[2 * N];
        mul_cols<N - 1, 2 * N>(h, a, s.W);
        const fp q = from_limbs([&](int i) { return h[N + i]; });
        return raw_sub(mul_low(a, s.w), mul_low(modulus(), q)).reduce_once();
    }

    /* ---- the pieces of the products ---- */

    /* x += sum over even j of src(j) k 2^(32 j), the carry into x_N */
    template <class Src> static FF_INLINE void mad_even(uint32_t (&x)[N + 1], Src src, uint32_t k)
    {
        x[0] = ptx::mad_lo_cc(src(0), k, x[0]);
        x[1] = ptx::madc_hi_cc(src(0), k, x[1]);
#pragma unroll
        for (int j = 2; j < N; j += 2) {
            x[j] = ptx::madc_lo_cc(src(j), k, x[j]);
            x[j + 1] = ptx::madc_hi_cc(src(j), k, x[j + 1]);
        }
        x[N] = ptx::addc(x[N], 0);
    }
    /* y += sum over odd j of src(j) k 2^(32 (j - 1)), after the caller's
     * first step y_0 += lo(src(1) k) (with or without a carry in); no carry
     * out: y stays below 2^(32 N) (top of this file) */
    template <class Src> static FF_INLINE void mad_odd_rest(uint32_t (&y)[N], Src src, uint32_t k)
    {
        y[1] = ptx::madc_hi_cc(src(1), k, y[1]);
#pragma unroll
        for (int j = 3; j < N; j += 2) {
            y[j - 1] = ptx::madc_lo_cc(src(j), k, y[j - 1]);
            y[j] = ptx::madc_hi_cc(src(j), k, y[j]);
        }
    }
    /* t >>= 32 for t = x + 2^32 y with x_0 = 0: x <- (y_0 + x_1, y_1, ...,
     * y_(N-1)), y <- (x_2, ..., x_N, 0). The carry of y_0 + x_1 is left in
     * the carry flag: the caller's next carry step must add it into y_0. */
    static FF_INLINE void shift_limb(uint32_t (&x)[N + 1], uint32_t (&y)[N])
    {
        uint32_t nx[N + 1], ny[N];
        nx[0] = ptx::add_cc(y[0], x[1]);
#pragma unroll
        for (int j = 1; j < N; j++)
            nx[j] = y[j];
        nx[N] = 0;
#pragma unroll
        for (int j = 0; j < N; j++)
            ny[j] = j + 2 <= N ? x[j + 2] : 0;
#pragma unroll
        for (int j = 0; j < N; j++) {
            x[j] = nx[j];
            y[j] = ny[j];
        }
        x[N] = nx[N];
    }
    /* t += q m with q = x_0 (-m^-1) mod 2^32, which makes x_0, the lowest
     * limb of t, zero; carry_in: a carry pending for y_0 (shift_limb) */
    static FF_INLINE void reduce_step(uint32_t (&x)[N + 1], uint32_t (&y)[N], bool carry_in)
    {
        const uint32_t q = x[0] * P::INV;
        y[0] = carry_in ? ptx::madc_lo_cc(q, P::mod(1), y[0]) : ptx::mad_lo_cc(q, P::mod(1), y[0]);
        mad_odd_rest(y, [](int j) { return P::mod(j); }, q);
        mad_even(x, [](int j) { return P::mod(j); }, q);
    }
    /* the last t >>= 32: y + (x_1, ..., x_N) */
    static FF_INLINE fp shifted_sum(const uint32_t (&x)[N + 1], const uint32_t (&y)[N])
    {
        fp r;
        r.v[0] = ptx::add_cc(y[0], x[1]);
#pragma unroll
        for (int j = 1; j < N - 1; j++)
            r.v[j] = ptx::addc_cc(y[j], x[j + 1]);
        r.v[N - 1] = ptx::addc(y[N - 1], x[N]);
        return r;
    }

    static FF_INLINE fp mul_inline(const fp &a, const fp &b)
    {
        fp r[1];
        const fp left[1] = {a}, right[1] = {b};
        mul_lockstep<1>(r, left, right);
        return r[0];
    }
    /* r[m] <- a[m] b[m] R^-1 for M products, row i of each in turn (no
     * carry is pending between rows, so the chains of different products
     * may interleave) */
    template <int M> static FF_INLINE void mul_lockstep(fp (&r)[M], const fp (&a)[M], const fp (&b)[M])
    {
        static_assert(N % 2 == 0, "even and odd limbs pair up");
        uint32_t x[M][N + 1], y[M][N]; /* t = x + 2^32 y */
#pragma unroll
        for (int m = 0; m < M; m++) {
#pragma unroll
            for (int j = 0; j < N; j++)
                x[m][j] = y[m][j] = 0;
            x[m][N] = 0;
        }
#pragma unroll
        for (int i = 0; i < N; i++) {
#pragma unroll
            for (int m = 0; m < M; m++) {
                const auto al = [&](int j) { return a[m].v[j]; };
                const uint32_t bi = b[m].v[i];
                /* t += a b_i: odd limbs of a into y, even limbs into x */
                if (i == 0) {
                    y[m][0] = ptx::mad_lo_cc(a[m].v[1], bi, 0);
                } else {
                    shift_limb(x[m], y[m]);
                    y[m][0] = ptx::madc_lo_cc(a[m].v[1], bi, y[m][0]);
                }
                mad_odd_rest(y[m], al, bi);
                mad_even(x[m], al, bi);
                reduce_step(x[m], y[m], false);
            }
        }
#pragma unroll
        for (int m = 0; m < M; m++)
            r[m] = shifted_sum(x[m], y[m]).reduce_once(); /* < 2m */
    }

    /* t <- a b, 2N limbs, no reduction (any a, b < 2^(32N)) */
    static FF_INLINE void mul_wide(uint32_t (&t)[2 * N], const fp &a, const fp &b) { mul_cols<0, 2 * N>(t, a, b); }

    /* a b mod R */
    static FF_INLINE fp mul_low(const fp &a, const fp &b)
    {
        uint32_t t[2 * N];
        mul_cols<0, N>(t, a, b);
        return from_limbs([&](int i) { return t[i]; });
    }
    /* Limbs LO..HI-1 of a b, from only the terms that land there: a_j b_i
     * puts its low half at limb i + j and its high half at i + j + 1; terms
     * below LO are dropped (the caller bounds what that costs) and carries
     * out of limb HI - 1 too. t's other limbs are left unset. As in the
     * product above, two independent chains per row i: the limbs a_j of one
     * parity tile limbs i+j, i+j+1, i+j+2, ... (low, high, low, ...). The
     * terms go to one of two sums by the parity of i + j, e (even) stored
     * at their limb, o (odd) one limb down, so that every low and high
     * half pair up at an even index: the register pairs the GPU's wide
     * multiply-add writes, without moves between rows. */
    template <int LO, int HI> static FF_INLINE void mul_cols(uint32_t (&t)[2 * N], const fp &a, const fp &b)
    {
        uint32_t e[2 * N + 1], o[2 * N + 1];
#pragma unroll
        for (int k = 0; k <= 2 * N; k++)
            e[k] = o[k] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
#pragma unroll
            for (int p = 0; p < 2; p++) {
                if ((i + p) % 2 == 0)
                    mad_row<LO, HI>(e, 0, a, b.v[i], i, p);
                else
                    mad_row<LO, HI>(o, 1, a, b.v[i], i, p);
            }
        }
        /* limb c = e_c + o_(c-1) */
        const auto o_at = [&](int c) { return c > 0 ? o[c - 1] : 0u; };
        t[LO] = ptx::add_cc(e[LO], o_at(LO));
#pragma unroll
        for (int c = LO + 1; c < HI - 1; c++)
            t[c] = ptx::addc_cc(e[c], o_at(c));
        t[HI - 1] = ptx::addc(e[HI - 1], o_at(HI - 1));
    }
    /* acc += the terms of row i whose a_j has the parity p and which land in
     * limbs LO..HI-1, limb c at acc[c - down]: limb i + p + k takes the low
     * half of a_(p + k) b_i for even k, the high half of a_(p + k - 1) b_i
     * for odd k; the carry goes to the next limb */
    template <int LO, int HI>
    static FF_INLINE void mad_row(uint32_t (&acc)[2 * N + 1], int down, const fp &a, uint32_t bi, int i, int p)
    {
        bool started = false;
#pragma unroll
        for (int k = 0; k < N; k++) {
            const int c = i + p + k, j = p + (k & ~1);
            if (c < LO || c >= HI)
                continue;
            uint32_t &r = acc[c - down];
            if (k % 2 == 0)
                r = started ? ptx::madc_lo_cc(a.v[j], bi, r) : ptx::mad_lo_cc(a.v[j], bi, r);
            else
                r = started ? ptx::madc_hi_cc(a.v[j], bi, r) : ptx::mad_hi_cc(a.v[j], bi, r);
            started = true;
        }
        if (started && i + p + N < HI)
            acc[i + p + N - down] = ptx::addc(acc[i + p + N - down], 0);
    }

    /* t <- a^2, 2N limbs: the products a_i a_j, i < j (rows i alternating
     * between two sums, each row a low-half chain then a high-half chain),
     * doubled by a shift, plus the squares a_i^2: N^2 + N multiply-adds
     * against 2N^2 for a product. */
    static FF_INLINE void sqr_wide(uint32_t (&t)[2 * N], const fp &a)
    {
        uint32_t u[2][2 * N];
#pragma unroll
        for (int j = 0; j < 2 * N; j++)
            u[0][j] = u[1][j] = 0;
#pragma unroll
        for (int i = 0; i < N - 1; i++) {
            uint32_t(&s)[2 * N] = u[i % 2];
            s[2 * i + 1] = ptx::mad_lo_cc(a.v[i], a.v[i + 1], s[2 * i + 1]);
#pragma unroll
            for (int j = i + 2; j < N; j++)
                s[i + j] = ptx::madc_lo_cc(a.v[i], a.v[j], s[i + j]);
            s[i + N] = ptx::addc(0, 0);
            s[2 * i + 2] = ptx::mad_hi_cc(a.v[i], a.v[i + 1], s[2 * i + 2]);
#pragma unroll
            for (int j = i + 2; j < N; j++)
                s[i + j + 1] = ptx::madc_hi_cc(a.v[i], a.v[j], s[i + j + 1]);
            s[i + N + 1] = ptx::addc(0, 0);
        }
        /* t = 2 (u_0 + u_1) + sum a_i^2 2^(64 i) */
        uint32_t d[2 * N];
        d[0] = ptx::add_cc(u[0][0], u[1][0]);
#pragma unroll
        for (int k = 1; k < 2 * N; k++)
            d[k] = ptx::addc_cc(u[0][k], u[1][k]);
        t[0] = d[0] << 1;
#pragma unroll
        for (int k = 1; k < 2 * N; k++)
            t[k] = __funnelshift_l(d[k - 1], d[k], 1);
        t[0] = ptx::mad_lo_cc(a.v[0], a.v[0], t[0]);
        t[1] = ptx::madc_hi_cc(a.v[0], a.v[0], t[1]);
#pragma unroll
        for (int i = 1; i < N; i++) {
            t[2 * i] = ptx::madc_lo_cc(a.v[i], a.v[i], t[2 * i]);
            t[2 * i + 1] = ptx::madc_hi_cc(a.v[i], a.v[i], t[2 * i + 1]);
        }
    }

    /* T R^-1 mod m for T < m R (2N limbs): N reduction steps on the low
     * half as in the product above, then the high half added: (T_lo + Q m)
     * / R + T_hi <= m + (m - 1) < 2m. */
    static FF_INLINE fp redc(const uint32_t (&T)[2 * N])
    {
        fp r[1];
        redc_lockstep<1>(r, reinterpret_cast<const uint32_t(&)[1][2 * N]>(T));
        return r[0];
    }
    /* r[m] <- redc(T[m]) for M values, step i of each in turn (as
     * mul_lockstep) */
    template <int M> static FF_INLINE void redc_lockstep(fp (&r)[M], const uint32_t (&T)[M][2 * N])
    {
        uint32_t x[M][N + 1], y[M][N];
#pragma unroll
        for (int m = 0; m < M; m++) {
#pragma unroll
            for (int j = 0; j < N; j++) {
                x[m][j] = T[m][j];
                y[m][j] = 0;
            }
            x[m][N] = 0;
        }
#pragma unroll
        for (int i = 0; i < N; i++) {
#pragma unroll
            for (int m = 0; m < M; m++) {
                if (i > 0)
                    shift_limb(x[m], y[m]);
                reduce_step(x[m], y[m], i > 0);
            }
        }
#pragma unroll
        for (int m = 0; m < M; m++) {
            fp hi;
#pragma unroll
            for (int j = 0; j < N; j++)
                hi.v[j] = T[m][N + j];
            r[m] = raw_add(shifted_sum(x[m], y[m]), hi).reduce_once();
        }
    }

    /* a + b without reduction (the sum must fit N limbs) */
    static FF_INLINE fp raw_add(const fp &a, const fp &b) { return raw_chain<false>(a, b); }
    /* a - b mod R, no reduction */
    static FF_INLINE fp raw_sub(const fp &a, const fp &b) { return raw_chain<true>(a, b); }
    template <bool SUB> static FF_INLINE fp raw_chain(const fp &a, const fp &b)
    {
        fp r;
        r.v[0] = SUB ? ptx::sub_cc(a.v[0], b.v[0]) : ptx::add_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            r.v[i] = SUB ? ptx::subc_cc(a.v[i], b.v[i]) : ptx::addc_cc(a.v[i], b.v[i]);
        r.v[N - 1] = SUB ? ptx::subc(a.v[N - 1], b.v[N - 1]) : ptx::addc(a.v[N - 1], b.v[N - 1]);
        return r;
    }

    /* normal -> Montgomery form: a R^2 R^-1 */
    FF_INLINE fp to_mont() const
    {
        return *this * from_limbs([](int i) { return P::r2(i); });
    }

    /* 1 in normal form (the plain integer 1) */
    static FF_INLINE fp raw_one() { return from_limbs([](int i) { return i == 0 ? 1u : 0u; }); }

    /* Montgomery -> normal form: a 1 R^-1 */
    FF_INLINE fp from_mont() const { return *this * raw_one(); }

    /* this^e, e a plain integer (square and multiply, variable time) */
    FF_INLINE fp pow(uint64_t e) const
    {
        fp r = one(), b = *this;
        while (e) {
            if (e & 1)
                r = r * b;
            b = b.sqr();
            e >>= 1;
        }
        return r;
    }

    /* this^-1 = this^(m - 2) (Fermat; 0 -> 0), square and multiply over the
     * modulus' limbs: setup work (window tables), not a hot path */
    FF_INLINE fp inv() const
    {
        fp r = one();
#pragma unroll 1
        for (int i = N - 1; i >= 0; i--) {
            const uint32_t e = P::mod(i) - (i == 0 ? 2u : 0u); /* m is odd and > 2: no borrow */
#pragma unroll 1
            for (int bit = 31; bit >= 0; bit--) {
                r = r.sqr();
                if ((e >> bit) & 1)
                    r = r * *this;
            }
        }
        return r;
    }
};

/* ---- Fp2 = Fp[u] / (u^2 + 1) ---- */

template <class P> struct fp2 {
    using base = fp<P>;
    static constexpr int N = base::N;
    /* the product's two reductions and the square's two products in lock
     * step (FF_FP2_LOCKSTEP), for out-of-line base fields */
    static constexpr bool LOCKSTEP = base::OUTLINED && FF_FP2_LOCKSTEP;
    base c0, c1;

    static FF_INLINE fp2 zero() { return {base::zero(), base::zero()}; }
    static FF_INLINE fp2 one() { return {base::one(), base::zero()}; }
    FF_INLINE bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    FF_INLINE bool operator==(const fp2 &b) const { return c0 == b.c0 && c1 == b.c1; }

    friend FF_INLINE fp2 operator+(const fp2 &a, const fp2 &b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
    friend FF_INLINE fp2 operator-(const fp2 &a, const fp2 &b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
    FF_INLINE fp2 neg() const { return {c0.neg(), c1.neg()}; }
    FF_INLINE fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }

    /* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u
     * with one reduction per coefficient (lazy reduction): the three
     * products double-width, the sums a0 + a1, b0 + b1 unreduced (< 2m),
     *   c1 = redc(t2 - t0 - t1) = redc(a0 b1 + a1 b0), below 2m^2 < m R;
     *   c0 = redc(t0 - t1 + K when it is negative), K = m 2^(32N - 2),
     *        a multiple of m, >= m^2 and with m^2 + K < m R as m < R / 4.
     * 10 N^2 multiply-adds instead of 12 N^2. Out of line: one copy of the
     * code, called by the point formulas. */
    friend FF_INLINE fp2 operator*(const fp2 &a, const fp2 &b) { return mul_outline(a, b); }
    static __device__ __noinline__ fp2 mul_outline(const fp2 a, const fp2 b)
    {
        static_assert(P::mod(N - 1) < (1u << 30), "m < R / 4");
        uint32_t t[2][2 * N], t1[2 * N]; /* t[0] = t0, t[1] = t2 */
        base::mul_wide(t[0], a.c0, b.c0);
        base::mul_wide(t1, a.c1, b.c1);
        base::mul_wide(t[1], base::raw_add(a.c0, a.c1), base::raw_add(b.c0, b.c1));
        base::template wide_chain<true>(t[1], t[0]);
        base::template wide_chain<true>(t[1], t1);
        const uint32_t negative = base::template wide_chain<true>(t[0], t1);
        add_k_masked(t[0], negative);
        if constexpr (LOCKSTEP) {
            base r[2];
            base::template redc_lockstep<2>(r, t);
            return {r[0], r[1]};
        } else {
            return {base::redc(t[0]), base::redc(t[1])};
        }
    }
    /* t += K & mask, K = m 2^(32N - 2): limb N - 1 + k of K is
     * (m_k << 30) | (m_(k-1) >> 2), the limbs below N - 1 zero */
    static FF_INLINE void add_k_masked(uint32_t (&t)[2 * N], uint32_t mask)
    {
        const auto k_limb = [](int k) {
            return (k < N ? P::mod(k) << 30 : 0u) | (k > 0 ? P::mod(k - 1) >> 2 : 0u);
        };
        t[N - 1] = ptx::add_cc(t[N - 1], k_limb(0) & mask);
#pragma unroll
        for (int k = 1; k < N; k++)
            t[N - 1 + k] = ptx::addc_cc(t[N - 1 + k], k_limb(k) & mask);
        t[2 * N - 1] = ptx::addc(t[2 * N - 1], k_limb(N) & mask);
    }
    /* two products or squares: fp2's product already overlaps six chains */
    struct pair {
        fp2 first, second;
    };
    static FF_INLINE pair mul2(const fp2 &a, const fp2 &b, const fp2 &c, const fp2 &d) { return {a * b, c * d}; }
    static FF_INLINE pair sqr2(const fp2 &a, const fp2 &b) { return {a.sqr(), b.sqr()}; }
    /* a b - c d: the two products, each reduced once per coefficient */
    static FF_INLINE fp2 mul_sub(const fp2 &a, const fp2 &b, const fp2 &c, const fp2 &d) { return a * b - c * d; }

    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u, two products likewise */
    FF_INLINE fp2 sqr() const
    {
        const base s = c0 + c1, d = c0 - c1;
        if constexpr (LOCKSTEP) {
            const typename base::pair p = base::mul2_outline(s, d, c0, c1);
            return {p.first, p.second.dbl()};
        } else {
            base t0, t1; /* one inlined product, twice */
#pragma unroll 1
            for (int k = 0; k < 2; k++) {
                const base p = (k == 0 ? s : c0) * (k == 0 ? d : c1);
                if (k == 0)
                    t0 = p;
                else
                    t1 = p;
            }
            return {t0, t1.dbl()};
        }
    }
    /* (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2); 0 -> 0 */
    FF_INLINE fp2 inv() const
    {
        const base t = (c0.sqr() + c1.sqr()).inv();
        return {c0 * t, (c1 * t).neg()};
    }
};

/* ---- moving elements through global memory in 16-byte vectors ---- */

template <class T> FF_INLINE T load(const T *p)
{
    static_assert(sizeof(T) % 16 == 0 && alignof(T) >= 16, "16-byte vectors");
    T r;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
#pragma unroll
    for (size_t i = 0; i < sizeof(T) / 16; i++)
        d[i] = s[i];
    return r;
}

/* read-only path (data no kernel writes during the launch) */
template <class T> FF_INLINE T load_ro(const T *p)
{
    static_assert(sizeof(T) % 16 == 0 && alignof(T) >= 16, "16-byte vectors");
    T r;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
#pragma unroll
    for (size_t i = 0; i < sizeof(T) / 16; i++)
        d[i] = __ldg(s + i);
    return r;
}

template <class T> FF_INLINE void store(T *p, const T &x)
{
    static_assert(sizeof(T) % 16 == 0 && alignof(T) >= 16, "16-byte vectors");
    uint4 *d = reinterpret_cast<uint4 *>(p);
    const uint4 *s = reinterpret_cast<const uint4 *>(&x);
#pragma unroll
    for (size_t i = 0; i < sizeof(T) / 16; i++)
        d[i] = s[i];
}

/* The four fields, and their bytes, checked against the CPU types in gpu.cu. */
using bn254_fp_t = fp<bn254_fp_params>;
using bn254_fr_t = fp<bn254_fr_params>;
using bls12_381_fp_t = fp<bls12_381_fp_params>;
using bls12_381_fr_t = fp<bls12_381_fr_params>;
using bn254_fp2_t = fp2<bn254_fp_params>;
using bls12_381_fp2_t = fp2<bls12_381_fp_params>;

} /* namespace gpu */

#endif
