/* BLS12-381 Fp on the host for the GPU microbenchmarks (bench/gpu/probe_*):
 * a plain Montgomery product (6 limbs of 64 bits, R = 2^384, unsigned
 * __int128), the oracle the GPU's products are checked against, and random
 * field elements as the library's 12 little-endian 32-bit words. Plain C++
 * (probe_forms_check.cpp builds it without CUDA); everything here is
 * static. */
#ifndef CUZK_BENCH_PROBE_FP_HOST_H
#define CUZK_BENCH_PROBE_FP_HOST_H

#include <cstdint>
#include <vector>

#include "gpu/constants.cuh"

typedef unsigned __int128 probe_u128;
struct probe_fp_host {
    uint64_t v[6];
};

static inline uint64_t probe_mod64(int i)
{
    return (uint64_t)gpu::bls12_381_fp_params::mod(2 * i) | (uint64_t)gpu::bls12_381_fp_params::mod(2 * i + 1) << 32;
}

/* -m^-1 mod 2^64 (Newton) */
static inline uint64_t probe_inv64(void)
{
    const uint64_t m0 = probe_mod64(0);
    uint64_t inv = m0;
    for (int k = 0; k < 6; k++)
        inv *= 2 - m0 * inv;
    return 0 - inv;
}

/* a b R^-1 mod m for a, b < m (CIOS: per limb of b, t += a b_i, then
 * t += q m with q = t_0 (-m^-1) mod 2^64, t >>= 64; t < 2m, one
 * conditional subtraction) */
static inline probe_fp_host probe_mont_mul_host(const probe_fp_host &a, const probe_fp_host &b)
{
    static const uint64_t inv = probe_inv64();
    uint64_t t[8] = {0};
    for (int i = 0; i < 6; i++) {
        probe_u128 c = 0;
        for (int j = 0; j < 6; j++) {
            c += (probe_u128)a.v[j] * b.v[i] + t[j];
            t[j] = (uint64_t)c;
            c >>= 64;
        }
        c += t[6];
        t[6] = (uint64_t)c;
        t[7] = (uint64_t)(c >> 64);
        const uint64_t q = t[0] * inv;
        c = (probe_u128)q * probe_mod64(0) + t[0];
        c >>= 64;
        for (int j = 1; j < 6; j++) {
            c += (probe_u128)q * probe_mod64(j) + t[j];
            t[j - 1] = (uint64_t)c;
            c >>= 64;
        }
        c += t[6];
        t[5] = (uint64_t)c;
        t[6] = t[7] + (uint64_t)(c >> 64);
    }
    probe_fp_host r, s;
    uint64_t borrow = 0;
    for (int j = 0; j < 6; j++) {
        r.v[j] = t[j];
        const probe_u128 d = (probe_u128)t[j] - probe_mod64(j) - borrow;
        s.v[j] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    const bool below_m = t[6] == 0 && borrow; /* t < m: keep t */
    return below_m ? r : s;
}

static inline probe_fp_host probe_fp_from_words(const uint32_t *w)
{
    probe_fp_host r;
    for (int j = 0; j < 6; j++)
        r.v[j] = (uint64_t)w[2 * j] | (uint64_t)w[2 * j + 1] << 32;
    return r;
}

static inline void probe_fp_to_words(uint32_t *w, const probe_fp_host &x)
{
    for (int j = 0; j < 6; j++) {
        w[2 * j] = (uint32_t)x.v[j];
        w[2 * j + 1] = (uint32_t)(x.v[j] >> 32);
    }
}

/* 2^e R mod m, the Montgomery form of 2^e: mont(2^e, R^2). For x < m,
 * mont(x, it) = x 2^e mod m. */
static inline probe_fp_host probe_fp_pow2_mont(int e)
{
    uint32_t w[12] = {0}, r2[12];
    w[e / 32] = 1u << (e % 32);
    for (int i = 0; i < 12; i++)
        r2[i] = gpu::bls12_381_fp_params::r2(i);
    return probe_mont_mul_host(probe_fp_from_words(w), probe_fp_from_words(r2));
}

/* n random elements below m, 12 words each (splitmix64 from a seed): the
 * top word below m's (0x1a0111ea), so every value is below m */
static inline std::vector<uint32_t> probe_random_fp_words(size_t n, uint64_t seed)
{
    std::vector<uint32_t> w(n * 12);
    uint64_t s = seed;
    for (size_t i = 0; i < n * 12; i++) {
        s += 0x9e3779b97f4a7c15ull;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        w[i] = (uint32_t)z;
        if (i % 12 == 11)
            w[i] %= gpu::bls12_381_fp_params::mod(11);
    }
    return w;
}

#endif
