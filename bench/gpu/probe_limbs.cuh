/* What the field-product probes share (bench/gpu/probe_mul.cu and the
 * forms it measures, probe_fp52.cuh and probe_fp28.cuh): moving a
 * BLS12-381 Fp value between the library's 12 little-endian 32-bit words
 * (ff.cuh's fp) and a form's L limbs of W bits, and the constants of a
 * form's Montgomery reduction derived from the modulus at compile time.
 *
 * A form with L limbs of W bits keeps x in Montgomery form with its own
 * R_f = 2^(W L) >= 2^384: x R_f = (x R) 2^(W L - 384), so a library
 * element (x R) enters the form multiplied by 2^(W L - 384) (probe_mul.cu
 * does that product with the library's own) and leaves it as the same
 * integer: results of any two forms are compared as canonical words. */
#ifndef CUZK_BENCH_PROBE_LIMBS_CUH
#define CUZK_BENCH_PROBE_LIMBS_CUH

#include <cstdint>

#include "gpu/constants.cuh"

namespace probe {

using P381 = gpu::bls12_381_fp_params;
static constexpr int WORDS = P381::N; /* 12 words of 32 bits */

/* bits [pos, pos + len) of the little-endian words w (len <= 64; bits past
 * the last word read as zero) */
template <class Word> __host__ __device__ constexpr uint64_t bits_at(Word w, int pos, int len)
{
    uint64_t r = 0;
    for (int k = 0; k < len; k++) {
        const int bit = pos + k;
        if (bit < 32 * WORDS && ((w(bit / 32) >> (bit % 32)) & 1u))
            r |= (uint64_t)1 << k;
    }
    return r;
}

/* the modulus in limbs of W bits (a constant once evaluated in a constexpr
 * local: indices known after unrolling fold to immediates) */
struct limb_table {
    uint64_t v[16];
};
template <int W> __host__ __device__ constexpr limb_table mod_limbs()
{
    limb_table t{};
    for (int j = 0; j < 16; j++)
        t.v[j] = bits_at([](int i) { return P381::mod(i); }, W * j, W);
    return t;
}

/* -m^-1 mod 2^W (Newton: each step doubles the bits of m_0^-1 mod 2^64) */
template <int W> __host__ __device__ constexpr uint64_t mont_mu()
{
    const uint64_t m0 = bits_at([](int i) { return P381::mod(i); }, 0, 64);
    uint64_t inv = m0; /* m0 inv = 1 mod 2^3 for odd m0 */
    for (int k = 0; k < 6; k++)
        inv *= 2 - m0 * inv;
    return (0 - inv) & (((uint64_t)1 << W) - 1);
}

/* words -> L limbs of W bits (the value must fit W L bits) */
template <int W, int L> __device__ __forceinline__ void limbs_from_words(uint64_t (&limb)[L], const uint32_t *w)
{
    uint32_t v[WORDS];
#pragma unroll
    for (int i = 0; i < WORDS; i++)
        v[i] = w[i];
#pragma unroll
    for (int j = 0; j < L; j++) {
        /* limb j spans words lo..lo+2 at most (W <= 64) */
        const int pos = W * j, lo = pos / 32, sh = pos % 32;
        uint64_t x = 0;
#pragma unroll
        for (int k = 0; k < 3; k++)
            if (lo + k < WORDS && 32 * k - sh < 64)
                x |= k == 0 ? (uint64_t)v[lo] >> sh : (uint64_t)v[lo + k] << (32 * k - sh);
        limb[j] = W == 64 ? x : x & (((uint64_t)1 << W) - 1);
    }
}

/* L limbs of W bits -> words; the value must be below 2^384 */
template <int W, int L> __device__ __forceinline__ void words_from_limbs(uint32_t *w, const uint64_t (&limb)[L])
{
#pragma unroll
    for (int i = 0; i < WORDS; i++) {
        uint32_t x = 0;
#pragma unroll
        for (int j = 0; j < L; j++) {
            const int lo = W * j, hi = W * j + W; /* limb j covers bits [lo, hi) */
            if (hi <= 32 * i || lo >= 32 * i + 32)
                continue;
            const int sh = lo - 32 * i;
            x |= sh >= 0 ? (uint32_t)(limb[j] << sh) : (uint32_t)(limb[j] >> -sh);
        }
        w[i] = x;
    }
}

} /* namespace probe */

#endif
