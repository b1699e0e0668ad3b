/* BLS12-381 Fp on 64-bit wide multiply-adds alone: 14 limbs of 28 bits,
 * Montgomery form with R = 2^392, for the product probe
 * (bench/gpu/probe_mul.cu). Not part of the library.
 *
 * Today's product (ff.cuh) uses 32-bit limbs, whose partial products need
 * carry chains: 2 multiply-adds (low and high halves, or one wide one with
 * carry) per limb product. With 28-bit limbs a limb product is below 2^56
 * and a column of up to 28 of them (the a b and q m terms of one limb
 * position) sums in a 64-bit accumulator without carries: each limb product
 * is one `mad.wide.u32` (IMAD.WIDE.U32, acc += a_i b_j), nothing else, at
 * the price of more limbs (14^2 + 14^2 = 392 wide multiply-adds against
 * today's 4 12^2 = 576 32-bit ones). Whether that pays depends on the
 * wide multiply-add's issue rate, which probe_pipes.cu measures.
 *
 * Product scanning (Montgomery, column by column): column k sums
 * a_i b_(k-i) and q_i m_(k-i) (i < k) plus the carry from column k - 1;
 * for k < 14, q_k = (column mod 2^28) mu mod 2^28 (mu = -m^-1 mod 2^28)
 * and q_k m_0 clears the column's low 28 bits; the columns 14..26 and the
 * last carry are the result, (a b + q m) / 2^392 < 2m for a, b < 2m
 * (4m < 2^392). A column's terms go to four accumulators (a b and q m,
 * by the parity of i) so that four chains of dependent multiply-adds run
 * side by side instead of one. */
#ifndef CUZK_BENCH_PROBE_FP28_CUH
#define CUZK_BENCH_PROBE_FP28_CUH

#include "probe_limbs.cuh"

namespace probe {

struct fp28 {
    static constexpr int W = 28, L = 14;
    uint32_t v[L]; /* limb j: bits [28 j, 28 j + 28) */
};

static constexpr uint32_t FP28_MASK = (1u << 28) - 1;

/* acc + a b: mad.wide.u32, which ptxas (nvcc 13.0, sm_90) compiles as an
 * IMAD.WIDE.U32 without addend and the 64-bit add on the ALU (IADD3s, summed
 * three at a time), whether written in PTX or, as here, in C */
static __device__ __forceinline__ uint64_t fp28_mad_wide(uint32_t a, uint32_t b, uint64_t acc)
{
    return (uint64_t)a * b + acc;
}

/* a b / 2^392 mod m, below 2m for a, b < 2m */
static __device__ __forceinline__ fp28 fp28_mul(const fp28 &a, const fp28 &b)
{
    constexpr int L = fp28::L;
    constexpr uint32_t mu = (uint32_t)mont_mu<28>();
    constexpr limb_table m = mod_limbs<28>();
    uint32_t q[L];
    fp28 r;
    uint64_t carry = 0;
#pragma unroll
    for (int k = 0; k < 2 * L - 1; k++) {
        uint64_t acc[4] = {carry, 0, 0, 0};
#pragma unroll
        for (int i = 0; i < L; i++) {
            if (k - i < 0 || k - i >= L)
                continue;
            acc[i & 1] = fp28_mad_wide(a.v[i], b.v[k - i], acc[i & 1]);
            if (i < k)
                acc[2 + (i & 1)] = fp28_mad_wide(q[i], (uint32_t)m.v[k - i], acc[2 + (i & 1)]);
        }
        uint64_t t = acc[0] + acc[1] + acc[2] + acc[3];
        if (k < L) {
            q[k] = ((uint32_t)t * mu) & FP28_MASK;
            t = fp28_mad_wide(q[k], (uint32_t)m.v[0], t); /* low 28 bits now zero */
        } else {
            r.v[k - L] = (uint32_t)t & FP28_MASK;
        }
        carry = t >> 28;
    }
    r.v[L - 1] = (uint32_t)carry;
    return r;
}

static __device__ __forceinline__ fp28 fp28_from_words(const uint32_t *w)
{
    uint64_t limb[fp28::L];
    limbs_from_words<fp28::W, fp28::L>(limb, w);
    fp28 r;
#pragma unroll
    for (int j = 0; j < fp28::L; j++)
        r.v[j] = (uint32_t)limb[j];
    return r;
}

/* fp28 (a value below 2^384) -> 12 words */
static __device__ __forceinline__ void fp28_to_words(uint32_t *w, const fp28 &x)
{
    uint64_t limb[fp28::L];
#pragma unroll
    for (int j = 0; j < fp28::L; j++)
        limb[j] = x.v[j];
    words_from_limbs<fp28::W, fp28::L>(w, limb);
}

} /* namespace probe */

#endif
