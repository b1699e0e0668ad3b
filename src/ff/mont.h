/* Generic n-limb Montgomery arithmetic on 64-bit limbs, little-endian.
 *
 * Every field in cuzk (Fp and Fr of BN254 and BLS12-381) is an instance of
 * these routines with a compile-time limb count: the wrappers in field.h
 * call them with constant n, so the compiler unrolls the loops.
 * Contract for all routines: inputs are fully reduced (< m); outputs are too.
 * m's top word must be below 2^63 - 1 (true for all our moduli; mont_mul
 * relies on it).
 */
#ifndef CUZK_FF_MONT_H
#define CUZK_FF_MONT_H

#include <stdint.h>
#include <string.h>

typedef unsigned __int128 mont_u128;

#define MONT_INLINE static inline __attribute__((always_inline))

/* r = a - b over n limbs, returns the borrow (0 or 1). r may alias a or b. */
MONT_INLINE uint64_t mont_sub_raw(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        mont_u128 d = (mont_u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

/* r = a + b over n limbs, returns the carry. */
MONT_INLINE uint64_t mont_add_raw(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t carry = 0;
    for (int i = 0; i < n; i++) {
        mont_u128 s = (mont_u128)a[i] + b[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    return carry;
}

/* Returns 1 when a >= m. */
MONT_INLINE int mont_geq(const uint64_t *a, const uint64_t *m, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] != m[i])
            return a[i] > m[i];
    }
    return 1;
}

/* r = a + b mod m. Since m < 2^(64n-1), a + b never carries out. */
MONT_INLINE void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n)
{
    mont_add_raw(r, a, b, n);
    if (mont_geq(r, m, n))
        mont_sub_raw(r, r, m, n);
}

/* r = a - b mod m: on borrow, add m back. */
MONT_INLINE void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n)
{
    if (mont_sub_raw(r, a, b, n))
        mont_add_raw(r, r, m, n);
}

MONT_INLINE int mont_is_zero(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

/* r = -a mod m (0 stays 0). */
MONT_INLINE void mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, int n)
{
    if (mont_is_zero(a, n)) {
        memset(r, 0, (size_t)n * 8);
        return;
    }
    mont_sub_raw(r, m, a, n);
}

/* r = a * b * 2^(-64n) mod m: CIOS (coarsely integrated operand scanning)
 * in its "no-carry" form, valid because every modulus here has a top word
 * below 2^63 - 1, so the running sum t < 2m fits in n words and needs
 * neither of the two extra words of textbook CIOS. inv = -m^(-1) mod 2^64.
 *   for i: t += a * b[i];  q = t[0] inv;  t = (t + q m) / 2^64
 * then one subtraction of m if t >= m. */
MONT_INLINE void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                          uint64_t inv, int n)
{
    uint64_t t[8] = {0};
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) {
        mont_u128 s = (mont_u128)a[0] * b[i] + t[0];
        uint64_t hi_a = (uint64_t)(s >> 64);
        uint64_t t0 = (uint64_t)s;
        uint64_t q = t0 * inv;
        mont_u128 u = (mont_u128)q * m[0] + t0;
        uint64_t hi_m = (uint64_t)(u >> 64);
#pragma GCC unroll 8
        for (int j = 1; j < n; j++) {
            s = (mont_u128)a[j] * b[i] + t[j] + hi_a;
            hi_a = (uint64_t)(s >> 64);
            u = (mont_u128)q * m[j] + (uint64_t)s + hi_m;
            hi_m = (uint64_t)(u >> 64);
            t[j - 1] = (uint64_t)u;
        }
        t[n - 1] = hi_a + hi_m;
    }
    uint64_t d[8];
    uint64_t borrow = mont_sub_raw(d, t, m, n);
    uint64_t keep = 0 - borrow; /* all ones when t < m */
#pragma GCC unroll 8
    for (int j = 0; j < n; j++)
        r[j] = (t[j] & keep) | (d[j] & ~keep);
}

/* r = a^e (Montgomery in and out), e given as little-endian words and bit count. */
MONT_INLINE void mont_pow(uint64_t *r, const uint64_t *a, const uint64_t *e, int ebits,
                          const uint64_t *one, const uint64_t *m, uint64_t inv, int n)
{
    uint64_t acc[8], base[8];
    memcpy(acc, one, (size_t)n * 8);
    memcpy(base, a, (size_t)n * 8);
    for (int i = ebits - 1; i >= 0; i--) {
        mont_mul(acc, acc, acc, m, inv, n);
        if ((e[i / 64] >> (i % 64)) & 1)
            mont_mul(acc, acc, base, m, inv, n);
    }
    memcpy(r, acc, (size_t)n * 8);
}

#endif
