/* Eight field elements at once: Montgomery arithmetic on 52-bit limbs with
 * AVX-512 IFMA (vpmadd52luq / vpmadd52huq: the low or high 52 bits of a
 * 52 x 52-bit product added to a 64-bit lane).
 *
 * A vector element (mont52 with n limbs) holds lane k's value in limb j at
 * v[j] lane k, value = sum_j v[j] 2^(52 j), every limb below 2^52 on input
 * to a product. The values are the same integers as mont.h's (x R mod m,
 * R = 2^(64 n64)), only in another radix, so the scalar and the vector code
 * exchange elements by a change of radix (mont52_load, mont52_store).
 *
 * Range: vector elements are kept below 2m (not canonical); mont52_store
 * makes them canonical. With a, b < 2m the product a b / R + m' (m' < m)
 * stays below 2m as long as 4m < R, true for the base fields of both curves
 * (BN254: R/m ~ 5.3, BLS12-381: R/m ~ 9.9).
 *
 * The routines are always inlined with the limb counts as constants; a
 * caller must itself carry MONT52_TARGET and run only when
 * mont52_enabled (mont_cpu.c: the CPU has AVX-512F and IFMA). */
#ifndef CUZK_FF_MONT52_H
#define CUZK_FF_MONT52_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && !defined(CUZK_PORTABLE) && !defined(__CUDACC__)
#define MONT52_HAVE 1
#include <immintrin.h>

extern int mont52_enabled;

#define MONT52_TARGET __attribute__((target("avx512f,avx512ifma")))
#define MONT52_INLINE static inline __attribute__((always_inline)) MONT52_TARGET
#define MONT52_LANES 8
#define MONT52_MASK ((1ULL << 52) - 1)

/* A field as the vector code needs it: n 52-bit limbs of m, -m^-1 mod 2^52,
 * n64 = the scalar limb count (R = 2^(64 n64)). */
typedef struct {
    uint64_t m[8];
    uint64_t inv;
    int n, n64;
} mont52_field;

/* Limbs back below 2^52 after lane-wise additions and subtractions on
 * signed 64-bit lanes: one pass of carries by arithmetic shifts, so a
 * negative limb borrows from the next; the top limb keeps the sign. */
MONT52_INLINE void mont52_carry(__m512i *r, int n)
{
    const __m512i mask = _mm512_set1_epi64((long long)MONT52_MASK);
    for (int j = 0; j + 1 < n; j++) {
        r[j + 1] = _mm512_add_epi64(r[j + 1], _mm512_srai_epi64(r[j], 52));
        r[j] = _mm512_and_si512(r[j], mask);
    }
}

/* r = a - k m (k = 1 or 2) where that is not negative, else a; a < 2^(52n)
 * with limbs below 2^52. Branch-free: a lane chooses by the sign of its
 * top limb. */
MONT52_INLINE void mont52_sub_km_if_geq(__m512i *r, const __m512i *a, const mont52_field *f, int k, int n)
{
    __m512i d[8];
    for (int j = 0; j < n; j++)
        d[j] = _mm512_sub_epi64(a[j], _mm512_set1_epi64((long long)(f->m[j] * (uint64_t)k)));
    mont52_carry(d, n);
    __mmask8 neg = _mm512_cmplt_epi64_mask(d[n - 1], _mm512_setzero_si512());
    for (int j = 0; j < n; j++)
        r[j] = _mm512_mask_blend_epi64(neg, d[j], a[j]);
}

/* r = a + b mod m, inputs and output below 2m: a + b < 4m, less 2m if it
 * is at least 2m. r may alias a or b. */
MONT52_INLINE void mont52_add(__m512i *r, const __m512i *a, const __m512i *b, const mont52_field *f, int n)
{
    __m512i s[8];
    for (int j = 0; j < n; j++)
        s[j] = _mm512_add_epi64(a[j], b[j]);
    mont52_carry(s, n);
    mont52_sub_km_if_geq(r, s, f, 2, n);
}

/* r = a + 2m - b in (0, 4m) for a, b < 2m (a NULL: 2m - b in (0, 2m]),
 * limb by limb, then carried. r may alias a or b. */
MONT52_INLINE void mont52_add_2m_minus(__m512i *r, const __m512i *a, const __m512i *b, const mont52_field *f, int n)
{
    for (int j = 0; j < n; j++) {
        __m512i t = _mm512_sub_epi64(_mm512_set1_epi64((long long)(2 * f->m[j])), b[j]);
        r[j] = a ? _mm512_add_epi64(t, a[j]) : t;
    }
    mont52_carry(r, n);
}

/* r = a - b mod m, inputs and output below 2m: a - b + 2m lies in (0, 4m),
 * less 2m if it is at least 2m. */
MONT52_INLINE void mont52_sub(__m512i *r, const __m512i *a, const __m512i *b, const mont52_field *f, int n)
{
    __m512i s[8];
    mont52_add_2m_minus(s, a, b, f, n);
    mont52_sub_km_if_geq(r, s, f, 2, n);
}

/* r = (a b [+ c d]) / 2^(52 (n - 1) + last) mod m (c, d NULL: a b alone).
 * Operand scanning with lazy carries: t accumulates the 52-bit halves of
 * the products in 64-bit lanes. Step i adds a b_i (and c d_i), then
 * q = t_0 (-m^-1) mod 2^s and t += q m, which clears t's low s bits, and
 * divides t by 2^s. The first n - 1 steps take s = 52, the last s = last;
 * the result is t's limbs after the carries, shifted right by `last` bits.
 * r may alias any operand. */
MONT52_INLINE void mont52_mul_by(__m512i *r, const __m512i *a, const __m512i *b, const __m512i *c, const __m512i *d,
                                 const mont52_field *f, int n, unsigned last)
{
    const __m512i zero = _mm512_setzero_si512(), inv = _mm512_set1_epi64((long long)f->inv);
    __m512i t[9];
    for (int j = 0; j <= n; j++)
        t[j] = zero;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], a[j], b[i]);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a[j], b[i]);
            if (c) {
                t[j] = _mm512_madd52lo_epu64(t[j], c[j], d[i]);
                t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], c[j], d[i]);
            }
        }
        __m512i q = _mm512_madd52lo_epu64(zero, t[0], inv);
        if (i == n - 1)
            q = _mm512_and_si512(q, _mm512_set1_epi64((long long)((1ULL << last) - 1)));
        for (int j = 0; j < n; j++) {
            const __m512i mj = _mm512_set1_epi64((long long)f->m[j]);
            t[j] = _mm512_madd52lo_epu64(t[j], q, mj);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], q, mj);
        }
        if (i == n - 1)
            break;
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
        for (int j = 0; j < n; j++)
            t[j] = t[j + 1];
        t[n] = zero;
    }
    /* t's limbs are nonnegative here: the carries go by logical shifts */
    const __m512i mask = _mm512_set1_epi64((long long)MONT52_MASK);
    for (int j = 0; j < n; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
    for (int j = 0; j < n; j++)
        r[j] = _mm512_and_si512(
            _mm512_or_si512(_mm512_srli_epi64(t[j], last), _mm512_slli_epi64(t[j + 1], 52 - last)), mask);
}

/* r = a b / R mod m, R = 2^(64 n64): mont.h's product. a, b < 2m, r < 2m
 * (needs 4m < R). The last step clears 64 n64 - 52 (n - 1) bits (48 for
 * BN254, 20 for BLS12-381). */
MONT52_INLINE void mont52_mul(__m512i *r, const __m512i *a, const __m512i *b, const mont52_field *f, int n)
{
    mont52_mul_by(r, a, b, NULL, NULL, f, n, (unsigned)(64 * f->n64 - 52 * (n - 1)));
}

/* r = (a b + c d) / R mod m, as mont52_mul: a, b, c, d < 2m, r < 2m (the
 * sum is below (8m^2 + R m) / R = m (1 + 8m / R) < 4m, less 2m if at least
 * 2m). One pass: the q m products are made once for both. */
MONT52_INLINE void mont52_mulsum(__m512i *r, const __m512i *a, const __m512i *b, const __m512i *c, const __m512i *d,
                                 const mont52_field *f, int n)
{
    mont52_mul_by(r, a, b, c, d, f, n, (unsigned)(64 * f->n64 - 52 * (n - 1)));
    mont52_sub_km_if_geq(r, r, f, 2, n);
}

/* r = 2m - b, in (0, 2m] for b < 2m (a factor of a product: -b mod m). */
MONT52_INLINE void mont52_twice_m_minus(__m512i *r, const __m512i *b, const mont52_field *f, int n)
{
    mont52_add_2m_minus(r, NULL, b, f, n);
}

/* r = a b / 2^(52 n) mod m: with b = x 2^(52 n) (a constant made so),
 * r = a x in a's own Montgomery form. a < 2m, b < m: r < m + 2m^2 / 2^(52 n)
 * < 2m. This serves Fr of BLS12-381 too, where 4r > 2^256 rules out
 * mont52_mul. */
MONT52_INLINE void mont52_mul_wide(__m512i *r, const __m512i *a, const __m512i *b, const mont52_field *f, int n)
{
    mont52_mul_by(r, a, b, NULL, NULL, f, n, 52);
}

/* Eight 4-word elements <-> four vectors of one word each: w[i] lane k =
 * word i of element k. Two steps of 64-bit shuffles instead of 32 scalar
 * moves through the stack (whose vector reload stalls on store forwarding).
 * With the elements a..h as 256-bit rows (a = a0 a1 a2 a3):
 *   u0 = [a | c], u1 = [e | g], u2 = [b | d], u3 = [f | h]
 *   t0 = a0 a1 c0 c1 e0 e1 g0 g1 (u0, u1's low word pairs), t2 = their high pairs,
 *   t1, t3 the same from u2, u3 (b d f h)
 *   w0 = unpacklo(t0, t1) = a0 b0 c0 d0 e0 f0 g0 h0, w1 = unpackhi(t0, t1),
 *   w2 = unpacklo(t2, t3), w3 = unpackhi(t2, t3)
 * and mont52_words_out4 runs the same steps backwards. */
MONT52_INLINE void mont52_words_in4(__m512i w[4], const uint64_t *const src[MONT52_LANES])
{
    static const int order[4][2] = {{0, 2}, {4, 6}, {1, 3}, {5, 7}};
    const __m512i lo_pairs = _mm512_setr_epi64(0, 1, 4, 5, 8, 9, 12, 13);
    const __m512i hi_pairs = _mm512_setr_epi64(2, 3, 6, 7, 10, 11, 14, 15);
    __m512i u[4], t[4];
    for (int q = 0; q < 4; q++)
        u[q] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)src[order[q][0]])),
                                  _mm256_loadu_si256((const __m256i *)src[order[q][1]]), 1);
    t[0] = _mm512_permutex2var_epi64(u[0], lo_pairs, u[1]);
    t[2] = _mm512_permutex2var_epi64(u[0], hi_pairs, u[1]);
    t[1] = _mm512_permutex2var_epi64(u[2], lo_pairs, u[3]);
    t[3] = _mm512_permutex2var_epi64(u[2], hi_pairs, u[3]);
    w[0] = _mm512_unpacklo_epi64(t[0], t[1]);
    w[1] = _mm512_unpackhi_epi64(t[0], t[1]);
    w[2] = _mm512_unpacklo_epi64(t[2], t[3]);
    w[3] = _mm512_unpackhi_epi64(t[2], t[3]);
}

MONT52_INLINE void mont52_words_out4(uint64_t *const dst[MONT52_LANES], const __m512i w[4])
{
    static const int order[4][2] = {{0, 2}, {4, 6}, {1, 3}, {5, 7}};
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);  /* [a | c] from t0, t2 */
    const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15); /* [e | g] */
    __m512i t[4], u[4];
    t[0] = _mm512_unpacklo_epi64(w[0], w[1]);
    t[1] = _mm512_unpackhi_epi64(w[0], w[1]);
    t[2] = _mm512_unpacklo_epi64(w[2], w[3]);
    t[3] = _mm512_unpackhi_epi64(w[2], w[3]);
    u[0] = _mm512_permutex2var_epi64(t[0], first, t[2]);
    u[1] = _mm512_permutex2var_epi64(t[0], second, t[2]);
    u[2] = _mm512_permutex2var_epi64(t[1], first, t[3]);
    u[3] = _mm512_permutex2var_epi64(t[1], second, t[3]);
    for (int q = 0; q < 4; q++) {
        _mm256_storeu_si256((__m256i *)dst[order[q][0]], _mm512_castsi512_si256(u[q]));
        _mm256_storeu_si256((__m256i *)dst[order[q][1]], _mm512_extracti64x4_epi64(u[q], 1));
    }
}

/* Lane k of r = the n64-word element src[k] in radix 2^52 (value < m):
 * limb j holds bits [52 j, 52 j + 52), from word 52 j / 64 and the next. */
MONT52_INLINE void mont52_load(__m512i *r, const uint64_t *const src[MONT52_LANES], const mont52_field *f, int n)
{
    if (f->n64 == 4 && n == 5) {
        const __m512i mask = _mm512_set1_epi64((long long)MONT52_MASK);
        __m512i w[4];
        mont52_words_in4(w, src);
        r[0] = _mm512_and_si512(w[0], mask);
        for (int j = 1; j < 4; j++) /* bit 52 j = word j - 1, shift 64 - 12 j */
            r[j] = _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64(w[j - 1], 64 - 12 * j), _mm512_slli_epi64(w[j], 12 * j)), mask);
        r[4] = _mm512_srli_epi64(w[3], 16);
        return;
    }
    uint64_t lanes[8][MONT52_LANES] __attribute__((aligned(64)));
    for (int k = 0; k < MONT52_LANES; k++) {
        const uint64_t *x = src[k];
        for (int j = 0; j < n; j++) {
            unsigned bit = 52u * (unsigned)j, w = bit / 64, sh = bit % 64;
            uint64_t v = x[w] >> sh;
            if (sh > 12 && (int)w + 1 < f->n64)
                v |= x[w + 1] << (64 - sh);
            lanes[j][k] = v & MONT52_MASK;
        }
    }
    for (int j = 0; j < n; j++)
        r[j] = _mm512_load_si512(lanes[j]);
}

/* dst[k] = lane k of a, canonical (a < 2m on input), in n64 words: word i
 * (bits [64 i, 64 i + 64)) of all lanes from limbs 64 i / 52 on, then each
 * lane's words copied out (for 4 words by mont52_words_out4). (mont52_load
 * keeps its scalar form: gathers were slower,
 * bench/results/2026-12-07-measurements-from-comments.md.) */
MONT52_INLINE void mont52_store(uint64_t *const dst[MONT52_LANES], const __m512i *a, const mont52_field *f, int n)
{
    __m512i c[8], words[6];
    mont52_sub_km_if_geq(c, a, f, 1, n);
    for (int i = 0; i < f->n64; i++) {
        int bit = 64 * i, j = bit / 52, sh = bit % 52;
        __m512i v = _mm512_srli_epi64(c[j], (unsigned)sh);
        for (int got = 52 - sh; got < 64 && ++j < n; got += 52)
            v = _mm512_or_si512(v, _mm512_slli_epi64(c[j], (unsigned)got));
        words[i] = v;
    }
    if (f->n64 == 4) {
        mont52_words_out4(dst, words);
        return;
    }
    uint64_t out[6][MONT52_LANES] __attribute__((aligned(64)));
    for (int i = 0; i < f->n64; i++)
        _mm512_store_si512(out[i], words[i]);
    for (int k = 0; k < MONT52_LANES; k++)
        for (int i = 0; i < f->n64; i++)
            dst[k][i] = out[i][k];
}

#else
#define MONT52_HAVE 0
#endif

#endif
