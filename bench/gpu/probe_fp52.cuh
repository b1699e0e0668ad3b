/* BLS12-381 Fp on the FP64 pipe: 8 limbs of 52 bits held as exact doubles,
 * Montgomery form with R = 2^416, for the product probe
 * (bench/gpu/probe_mul.cu). Not part of the library.
 *
 * An exact 104-bit limb product from two fused multiply-adds (Emmart, Luo,
 * Weems, "Faster modular exponentiation using double precision floating
 * point arithmetic on the GPU", ARITH 2018): for integers a, b < 2^52,
 *   h = fma(a, b, 2^104) rounded toward zero = 2^104 + H 2^52,
 *       H = floor(a b / 2^52) (in [2^104, 2^105) a double's unit is 2^52);
 *   s = (2^104 + 2^52) - h = (1 - H) 2^52            (exact);
 *   l = fma(a, b, s) = 2^52 + L, L = a b mod 2^52    (exact: below 2^53).
 * Bit-cast to integers, h = H + bits(2^104) and l = L + bits(2^52): the
 * halves are summed into 64-bit integer columns, column k taking the low
 * halves of the products of limbs i + j = k and the high halves of
 * i + j = k - 1; the exponent bits of every term are one constant, so each
 * column starts at minus the sum of its terms' constants and holds the
 * true sum once its terms are in (below 32 2^52 + carry: no overflow).
 * A product is 3 FP64 operations and ~2 integer additions (a three-input
 * 64-bit add, IADD3 + IADD3.X, takes two terms).
 *
 * Montgomery reduction in the same columns (operand scanning): for
 * i = 0..7, q_i = (c_i mod 2^52) mu mod 2^52 with mu = -m^-1 mod 2^52 (the
 * low half of one more limb product), then c += q_i m 2^(52 i), which
 * clears c_i's low 52 bits, and c_(i+1) += c_i >> 52. The result is
 * columns 8..15 with their carries: (a b + q m) / 2^416 < (4 m^2 + m
 * 2^416) / 2^416 < 2m for a, b < 2m, since 4m < 2^416: inputs and outputs
 * stay below 2m, no conditional subtraction (fp52_to_words leaves the
 * last one to the caller). 136 limb products (64 + 64 + 8 for q): ~430
 * FP64 operations and ~300 integer ones per field product.
 *
 * Integers enter and leave the FP64 representation with the same bit
 * trick: bits(2^52) | x is the double 2^52 + x for x < 2^52. */
#ifndef CUZK_BENCH_PROBE_FP52_CUH
#define CUZK_BENCH_PROBE_FP52_CUH

#include "probe_limbs.cuh"

namespace probe {

struct fp52 {
    static constexpr int W = 52, L = 8;
    double v[L]; /* limb j: bits [52 j, 52 j + 52), an integer below 2^52 */
};

static constexpr uint64_t FP52_MASK = ((uint64_t)1 << 52) - 1;
static constexpr uint64_t FP52_LO_EXP = 0x4330000000000000ull; /* bits(2^52) */
static constexpr uint64_t FP52_HI_EXP = 0x4670000000000000ull; /* bits(2^104) */

/* x < 2^52 as a double, and back */
static __device__ __forceinline__ double fp52_of_int(uint64_t x)
{
    return __dsub_rn(__longlong_as_double((long long)(x | FP52_LO_EXP)), 0x1p52);
}
static __device__ __forceinline__ uint64_t fp52_to_int(double x)
{
    return (uint64_t)__double_as_longlong(__dadd_rn(x, 0x1p52)) & FP52_MASK;
}

/* a b for a, b < 2^52: lo = bits(2^52 + L), hi = bits(2^104 + H 2^52) */
static __device__ __forceinline__ void fp52_limb_mul(double a, double b, uint64_t &lo, uint64_t &hi)
{
    const double h = __fma_rz(a, b, 0x1p104);
    const double s = __dsub_rn(0x1p104 + 0x1p52, h);
    const double l = __fma_rz(a, b, s);
    lo = (uint64_t)__double_as_longlong(l);
    hi = (uint64_t)__double_as_longlong(h);
}

/* pairs (i, j) of limbs with i + j = s */
static __host__ __device__ constexpr uint64_t fp52_pairs(int s)
{
    return s < 0 || s > 2 * fp52::L - 2 ? 0 : (uint64_t)(s < fp52::L ? s + 1 : 2 * fp52::L - 1 - s);
}

/* a b / 2^416 mod m, below 2m for a, b < 2m */
static __device__ __forceinline__ fp52 fp52_mul(const fp52 &a, const fp52 &b)
{
    constexpr int L = fp52::L;
    uint64_t c[2 * L];
    /* each column: the exponent bits of its terms, two products' halves per
     * pair (a b and q m) */
#pragma unroll
    for (int k = 0; k < 2 * L; k++)
        c[k] = 0 - 2 * (fp52_pairs(k) * FP52_LO_EXP + fp52_pairs(k - 1) * FP52_HI_EXP);
#pragma unroll
    for (int i = 0; i < L; i++) {
#pragma unroll
        for (int j = 0; j < L; j++) {
            uint64_t lo, hi;
            fp52_limb_mul(a.v[i], b.v[j], lo, hi);
            c[i + j] += lo;
            c[i + j + 1] += hi;
        }
    }
    constexpr double mu = (double)mont_mu<52>();
    constexpr limb_table m = mod_limbs<52>();
#pragma unroll
    for (int i = 0; i < L; i++) {
        /* c_i's low 52 bits are final (the constant still owed for q_i m_0's
         * low half has zero low bits) */
        uint64_t lo, hi;
        fp52_limb_mul(fp52_of_int(c[i] & FP52_MASK), mu, lo, hi);
        const double q = __dsub_rn(__longlong_as_double((long long)lo), 0x1p52);
#pragma unroll
        for (int j = 0; j < L; j++) {
            fp52_limb_mul(q, (double)m.v[j], lo, hi);
            c[i + j] += lo;
            c[i + j + 1] += hi;
        }
        c[i + 1] += c[i] >> 52; /* c_i = 0 mod 2^52 now */
    }
    fp52 r;
    uint64_t carry = 0;
#pragma unroll
    for (int k = 0; k < L; k++) {
        const uint64_t x = c[L + k] + carry;
        r.v[k] = fp52_of_int(x & FP52_MASK);
        carry = x >> 52;
    }
    return r;
}

/* 12 words (a value below 2^416) -> fp52 */
static __device__ __forceinline__ fp52 fp52_from_words(const uint32_t *w)
{
    uint64_t limb[fp52::L];
    limbs_from_words<fp52::W, fp52::L>(limb, w);
    fp52 r;
#pragma unroll
    for (int j = 0; j < fp52::L; j++)
        r.v[j] = fp52_of_int(limb[j]);
    return r;
}

/* fp52 (a value below 2^384) -> 12 words */
static __device__ __forceinline__ void fp52_to_words(uint32_t *w, const fp52 &x)
{
    uint64_t limb[fp52::L];
#pragma unroll
    for (int j = 0; j < fp52::L; j++)
        limb[j] = fp52_to_int(x.v[j]);
    words_from_limbs<fp52::W, fp52::L>(w, limb);
}

} /* namespace probe */

#endif
