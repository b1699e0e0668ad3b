/* Four field elements at once: Montgomery arithmetic on 29-bit limbs with
 * AVX2 (vpmuludq: the 64-bit product of the low 32 bits of each 64-bit
 * lane), for CPUs without AVX-512 IFMA (mont52.h's 8 lanes).
 *
 * A vector element (n limbs) holds lane k's value in limb j at v[j] lane
 * k, value = sum_j v[j] 2^(29 j), every limb below 2^29 between
 * operations. The values are the same integers as mont.h's (x R mod m,
 * R = 2^(64 n64)): the scalar and the vector code exchange elements by a
 * change of radix (mont29_load, mont29_store).
 *
 * Why 29 bits: a product of two limbs is below 2^58, and a Montgomery
 * product adds at most 2n of them (a_j b_i and q m_j for every row that
 * reaches a position) to one 64-bit accumulator: 2n 2^58 < 2^64 for
 * n <= 31, so the products need no carries until the end (n = 9 for
 * BN254, 14 for BLS12-381).
 *
 * Range: elements are kept below 2m (not canonical); mont29_store makes
 * them canonical. A product of a, b < 2m is below (4m^2 + R m) / R < 2m
 * when 4m < R, true for the base fields of both curves.
 *
 * No 64-bit arithmetic shift exists in AVX2, so limbs stay nonnegative:
 * subtraction adds the complement (2^29 - 1 - b_j per limb) and the carries
 * go by logical shifts. The routines are always inlined with the limb
 * counts as constants (the products call assembly, below); a caller must
 * itself carry MONT29_TARGET and run only when mont29_enabled (mont_cpu.c:
 * the CPU has AVX2). */
#ifndef CUZK_FF_MONT29_H
#define CUZK_FF_MONT29_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && !defined(CUZK_PORTABLE) && !defined(__CUDACC__)
#define MONT29_HAVE 1
#include <immintrin.h>

extern int mont29_enabled;

#define MONT29_TARGET __attribute__((target("avx2")))
#define MONT29_INLINE static inline __attribute__((always_inline)) MONT29_TARGET
#define MONT29_LANES 4
#define MONT29_MASK ((1ULL << 29) - 1)
#define MONT29_MAX_LIMBS 14

/* r = a b / R mod m, R = 2^(64 n64): mont.h's product, for n = 9 or 14
 * limbs. a, b < 2m, r < 2m (needs 4m < R). k: the field's vectors
 * (constants.h, *_MONT29_VEC). r may alias a or b. In assembly
 * (mont29_x86_64.S, written by tools/gen_mont29_asm.py, which says how),
 * so that the accumulator stays in registers. */
void mont29_mul_9_avx2(__m256i *r, const __m256i *a, const __m256i *b, const uint64_t k[][4]);
void mont29_mul_14_avx2(__m256i *r, const __m256i *a, const __m256i *b, const uint64_t k[][4]);
/* r = (a b + c d) / R mod m, below 4m (a, b, c, d < 2m): the same pass
 * with two products a step (tools/gen_mont29_asm.py says the bound). */
void mont29_mulsum_9_avx2(__m256i *r, const __m256i *a, const __m256i *b, const __m256i *c, const __m256i *d,
                          const uint64_t k[][4]);
void mont29_mulsum_14_avx2(__m256i *r, const __m256i *a, const __m256i *b, const __m256i *c, const __m256i *d,
                           const uint64_t k[][4]);

/* A field as the vector code needs it (tools/gen_constants.py: *_MONT29),
 * in 29-bit limbs: 2m, the complements 2^(29 n) - 2m and 2^(29 n) - m
 * (adding one tells by the carry out of the top whether a value reached
 * 2m or m), n, the scalar limb count n64, and the product's vectors
 * (*_MONT29_VEC: m's limbs, -m^-1 mod 2^29, the masks, four lanes each). */
typedef struct {
    uint32_t m2[MONT29_MAX_LIMBS], neg_m2[MONT29_MAX_LIMBS], neg_m[MONT29_MAX_LIMBS];
    int n, n64;
    const uint64_t (*vec)[4];
} mont29_field;

MONT29_INLINE __m256i mont29_set(uint32_t v) { return _mm256_set1_epi64x((long long)v); }

/* Limbs below 2^29 again after additions of nonnegative limbs; the top
 * limb keeps what is above. */
MONT29_INLINE void mont29_carry(__m256i *r, int n)
{
    const __m256i mask = mont29_set((uint32_t)MONT29_MASK);
    for (int j = 0; j + 1 < n; j++) {
        r[j + 1] = _mm256_add_epi64(r[j + 1], _mm256_srli_epi64(r[j], 29));
        r[j] = _mm256_and_si256(r[j], mask);
    }
}

/* r = s - k where s >= k (k = m or 2m as the complement neg_k =
 * 2^(29 n) - k), else s; s < 2^(29 n) with normalized limbs. s + neg_k
 * carries out of the top limb (bit 29) exactly when s >= k. Branch-free. */
MONT29_INLINE void mont29_sub_if_geq(__m256i *r, const __m256i *s, const uint32_t *neg_k, int n)
{
    const __m256i mask = mont29_set((uint32_t)MONT29_MASK);
    __m256i d[MONT29_MAX_LIMBS];
    for (int j = 0; j < n; j++)
        d[j] = _mm256_add_epi64(s[j], mont29_set(neg_k[j]));
    mont29_carry(d, n);
    /* all ones where the top carried (s >= k) */
    const __m256i geq = _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_srli_epi64(d[n - 1], 29));
    d[n - 1] = _mm256_and_si256(d[n - 1], mask);
    for (int j = 0; j < n; j++)
        r[j] = _mm256_blendv_epi8(s[j], d[j], geq);
}

/* r = a + b mod m, inputs and output below 2m: a + b < 4m, less 2m if it
 * is at least 2m. r may alias a or b. */
MONT29_INLINE void mont29_add(__m256i *r, const __m256i *a, const __m256i *b, const mont29_field *f, int n)
{
    __m256i s[MONT29_MAX_LIMBS];
    for (int j = 0; j < n; j++)
        s[j] = _mm256_add_epi64(a[j], b[j]);
    mont29_carry(s, n);
    mont29_sub_if_geq(r, s, f->neg_m2, n);
}

/* r = a + 2m - b in (0, 4m) for a, b < 2m (a NULL: 2m - b in (0, 2m]):
 * a + 2m + (2^(29 n) - 1 - b) + 1, limb by limb (2^29 - 1 - b_j is b_j's
 * complement, never negative); dropping the top's bit 29 takes 2^(29 n)
 * off. */
MONT29_INLINE void mont29_add_2m_minus(__m256i *r, const __m256i *a, const __m256i *b, const mont29_field *f, int n)
{
    const __m256i mask = mont29_set((uint32_t)MONT29_MASK);
    for (int j = 0; j < n; j++) {
        const __m256i t = _mm256_sub_epi64(mont29_set(f->m2[j] + (uint32_t)MONT29_MASK + (j == 0)), b[j]);
        r[j] = a ? _mm256_add_epi64(t, a[j]) : t; /* r may alias a or b */
    }
    mont29_carry(r, n);
    r[n - 1] = _mm256_and_si256(r[n - 1], mask);
}

/* r = a - b mod m, inputs and output below 2m: a - b + 2m, less 2m if it
 * is at least 2m. */
MONT29_INLINE void mont29_sub(__m256i *r, const __m256i *a, const __m256i *b, const mont29_field *f, int n)
{
    __m256i s[MONT29_MAX_LIMBS];
    mont29_add_2m_minus(s, a, b, f, n);
    mont29_sub_if_geq(r, s, f->neg_m2, n);
}

/* r = 2m - b, in (0, 2m] for b < 2m (a factor of a product: -b mod m). */
MONT29_INLINE void mont29_twice_m_minus(__m256i *r, const __m256i *b, const mont29_field *f, int n)
{
    mont29_add_2m_minus(r, NULL, b, f, n);
}

/* r = a b / R mod m (mont.h's product): a, b < 2m, r < 2m. */
MONT29_INLINE void mont29_mul(__m256i *r, const __m256i *a, const __m256i *b, const mont29_field *f, int n)
{
    if (n == 9)
        mont29_mul_9_avx2(r, a, b, f->vec);
    else
        mont29_mul_14_avx2(r, a, b, f->vec);
}

/* r = (a b + c d) / R mod m: a, b, c, d < 2m, r < 2m. */
MONT29_INLINE void mont29_mulsum(__m256i *r, const __m256i *a, const __m256i *b, const __m256i *c, const __m256i *d,
                                 const mont29_field *f, int n)
{
    __m256i s[MONT29_MAX_LIMBS];
    if (n == 9)
        mont29_mulsum_9_avx2(s, a, b, c, d, f->vec);
    else
        mont29_mulsum_14_avx2(s, a, b, c, d, f->vec);
    mont29_sub_if_geq(r, s, f->neg_m2, n);
}

/* Four elements of 4 words <-> four vectors of one word each (a 4 x 4
 * transpose of 64-bit words): w[i] lane k = word i of element k. */
MONT29_INLINE void mont29_transpose4(__m256i w[4], const __m256i row[4])
{
    const __m256i t0 = _mm256_unpacklo_epi64(row[0], row[1]), t1 = _mm256_unpackhi_epi64(row[0], row[1]);
    const __m256i t2 = _mm256_unpacklo_epi64(row[2], row[3]), t3 = _mm256_unpackhi_epi64(row[2], row[3]);
    w[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    w[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    w[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    w[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/* words[i] lane k = word i of src[k], n64 = 4 or 6 (words 2..5 of a 6-word
 * element by a second transpose of the rows read from word 2). */
MONT29_INLINE void mont29_words_in(__m256i *words, const uint64_t *const src[MONT29_LANES], int n64)
{
    __m256i row[4], w[4];
    for (int k = 0; k < 4; k++)
        row[k] = _mm256_loadu_si256((const __m256i *)src[k]);
    mont29_transpose4(words, row);
    if (n64 == 6) {
        for (int k = 0; k < 4; k++)
            row[k] = _mm256_loadu_si256((const __m256i *)(src[k] + 2));
        mont29_transpose4(w, row);
        words[4] = w[2];
        words[5] = w[3];
    }
}

/* dst[k] = lane k of words (the transpose is its own inverse); for 6
 * words, words 2..5 written again over the first store's 2 and 3. */
MONT29_INLINE void mont29_words_out(uint64_t *const dst[MONT29_LANES], const __m256i *words, int n64)
{
    __m256i row[4];
    mont29_transpose4(row, words);
    for (int k = 0; k < 4; k++)
        _mm256_storeu_si256((__m256i *)dst[k], row[k]);
    if (n64 == 6) {
        mont29_transpose4(row, words + 2);
        for (int k = 0; k < 4; k++)
            _mm256_storeu_si256((__m256i *)(dst[k] + 2), row[k]);
    }
}

/* Lane k of r = the n64-word element src[k] (value < 2m) in radix 2^29:
 * limb j holds bits [29 j, 29 j + 29), from word 29 j / 64 and the next. */
MONT29_INLINE void mont29_load(__m256i *r, const uint64_t *const src[MONT29_LANES], const mont29_field *f, int n)
{
    const __m256i mask = mont29_set((uint32_t)MONT29_MASK);
    __m256i w[6];
    mont29_words_in(w, src, f->n64);
    for (int j = 0; j < n; j++) {
        const unsigned bit = 29u * (unsigned)j, i = bit / 64, sh = bit % 64;
        __m256i v = _mm256_srli_epi64(w[i], (int)sh);
        if (sh > 64 - 29 && (int)i + 1 < f->n64)
            v = _mm256_or_si256(v, _mm256_slli_epi64(w[i + 1], (int)(64 - sh)));
        r[j] = _mm256_and_si256(v, mask);
    }
}

/* dst[k] = lane k of a, canonical (a < 2m on input), in n64 words: word i
 * (bits [64 i, 64 i + 64)) from limbs 64 i / 29 on. */
MONT29_INLINE void mont29_store(uint64_t *const dst[MONT29_LANES], const __m256i *a, const mont29_field *f, int n)
{
    __m256i c[MONT29_MAX_LIMBS], words[6];
    mont29_sub_if_geq(c, a, f->neg_m, n);
    for (int i = 0; i < f->n64; i++) {
        int j = 64 * i / 29;
        const int sh = 64 * i % 29;
        __m256i v = _mm256_srli_epi64(c[j], sh);
        for (int got = 29 - sh; got < 64 && ++j < n; got += 29)
            v = _mm256_or_si256(v, _mm256_slli_epi64(c[j], got));
        words[i] = v;
    }
    mont29_words_out(dst, words, f->n64);
}

#else
#define MONT29_HAVE 0
#endif

#endif
