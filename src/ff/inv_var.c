/* Variable-time modular inversion by Bernstein and Yang's divsteps
 * ("Fast constant-time gcd computation and modular inversion", 2019), in the
 * variable-time form that skips runs of zero bits and clears several low
 * bits of g per step; contract in mont.h (mont_inv_var).
 *
 * State: f = m, g = x, d = 0, e = 1, with f = d x and g = e x (mod m)
 * throughout. A divstep with delta > 0 and g odd maps (delta, f, g) to
 * (1 - delta, g, (g - f) / 2), otherwise to (1 + delta, f, (g + (g mod 2) f) / 2);
 * g reaches 0 with f = +-1, so x^-1 = d / f. Divsteps go 62 at a time on
 * the low 64 bits of f and g, which decide them, recorded as a matrix
 * T = [u v; q r] with (f', g') = T (f, g) / 2^62, then applied to the full
 * f, g and to d, e (adding a multiple of m that makes T (d, e) divisible by
 * 2^62). Numbers are signed in limbs of 62 bits: limbs below the top in
 * [0, 2^62), the top one signed. */
#include "ff/mont.h"

#include <stdint.h>

#define INV62_LIMBS 8
#define M62 ((1ULL << 62) - 1)

typedef __int128 inv_i128;

typedef struct {
    int64_t u, v, q, r;
} inv_matrix;

/* 62 divsteps on the low words of f (odd) and g; eta = -delta, kept across
 * calls. Returns T scaled so that T (f, g) = 2^62 (f', g'). The entries
 * stay within +-2^62 (|u| + |v| <= 2^62); they are computed modulo 2^64. */
static inv_matrix inv_divsteps_62(int64_t *eta_io, uint64_t f, uint64_t g)
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    int64_t eta = *eta_io;
    int left = 62;
    for (;;) {
        /* halve g over its zero low bits: each is a divstep of the second kind */
        int zeros = __builtin_ctzll(g | (~0ULL << left));
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= zeros;
        left -= zeros;
        if (left == 0)
            break;
        /* g odd: with delta > 0 swap, (f, g) = (g, -f) */
        int64_t limit;
        uint64_t mask, w;
        if (eta < 0) {
            uint64_t tf = f, tu = u, tv = v;
            eta = -eta;
            f = g;
            g = 0 - tf;
            u = q;
            v = r;
            q = 0 - tu;
            r = 0 - tv;
            /* clear up to 6 low bits of g at once: g += w f, w = -g / f mod 2^6 */
            limit = eta + 1 > left ? left : eta + 1;
            mask = (~0ULL >> (64 - limit)) & 63;
            w = (f * g * (f * f - 2)) & mask;
        } else {
            /* up to 4 bits: w = -g / f mod 2^4 (f^-1 mod 16 = f + ((f + 1) & 4) * 2) */
            limit = eta + 1 > left ? left : eta + 1;
            mask = (~0ULL >> (64 - limit)) & 15;
            uint64_t finv = f + (((f + 1) & 4) << 1);
            w = (0 - finv * g) & mask;
        }
        g += f * w;
        q += u * w;
        r += v * w;
    }
    *eta_io = eta;
    return (inv_matrix){(int64_t)u, (int64_t)v, (int64_t)q, (int64_t)r};
}

/* (x, y) = (T (x, y) + (mx, my) m) / 2^62 on n limbs, the division exact:
 * for f, g with mx = my = 0; for d, e with the multiples of m that make it so. */
static void inv_apply(int64_t *x, int64_t *y, const inv_matrix *t, const int64_t *m, int64_t mx, int64_t my, int n)
{
    inv_i128 cx = (inv_i128)t->u * x[0] + (inv_i128)t->v * y[0] + (inv_i128)mx * m[0];
    inv_i128 cy = (inv_i128)t->q * x[0] + (inv_i128)t->r * y[0] + (inv_i128)my * m[0];
    cx >>= 62;
    cy >>= 62;
    for (int i = 1; i < n; i++) {
        cx += (inv_i128)t->u * x[i] + (inv_i128)t->v * y[i] + (inv_i128)mx * m[i];
        cy += (inv_i128)t->q * x[i] + (inv_i128)t->r * y[i] + (inv_i128)my * m[i];
        x[i - 1] = (int64_t)((uint64_t)cx & M62);
        y[i - 1] = (int64_t)((uint64_t)cy & M62);
        cx >>= 62;
        cy >>= 62;
    }
    x[n - 1] = (int64_t)cx;
    y[n - 1] = (int64_t)cy;
}

/* Limbs below the top back into [0, 2^62), carrying into the top one. */
static void inv_carry(int64_t *x, int n)
{
    for (int i = 0; i < n - 1; i++) {
        x[i + 1] += x[i] >> 62;
        x[i] = (int64_t)((uint64_t)x[i] & M62);
    }
}

/* x = x + s m (s = +-1). */
static void inv_add_m(int64_t *x, const int64_t *m, int64_t s, int n)
{
    for (int i = 0; i < n; i++)
        x[i] += s * m[i];
    inv_carry(x, n);
}

/* Brings |x| < 2m back to |x| < m. */
static void inv_fold(int64_t *x, const int64_t *m, int n)
{
    int64_t t[INV62_LIMBS];
    for (int i = 0; i < n; i++)
        t[i] = x[i];
    int64_t s = x[n - 1] < 0 ? 1 : -1;
    inv_add_m(t, m, s, n);
    if ((t[n - 1] < 0) == (x[n - 1] < 0))
        for (int i = 0; i < n; i++)
            x[i] = t[i];
}

/* (d, e) = (T (d, e) + (md, me) m) / 2^62 with md, me in [0, 2^62) making
 * the sums divisible; |d|, |e| < m before, < 2m after, then folded.
 * minv = m^-1 mod 2^62. */
static void inv_update_de(int64_t *d, int64_t *e, const inv_matrix *t, const int64_t *m, uint64_t minv, int n)
{
    uint64_t lo_d = (uint64_t)t->u * (uint64_t)d[0] + (uint64_t)t->v * (uint64_t)e[0];
    uint64_t lo_e = (uint64_t)t->q * (uint64_t)d[0] + (uint64_t)t->r * (uint64_t)e[0];
    int64_t md = (int64_t)((0 - lo_d * minv) & M62), me = (int64_t)((0 - lo_e * minv) & M62);
    inv_apply(d, e, t, m, md, me, n);
    inv_fold(d, m, n);
    inv_fold(e, m, n);
}

static void inv_to62(int64_t *out, const uint64_t *a, int n64, int n)
{
    for (int i = 0; i < n; i++) {
        int bit = 62 * i, w = bit / 64, sh = bit % 64;
        uint64_t v = w < n64 ? a[w] >> sh : 0;
        if (sh > 2 && w + 1 < n64)
            v |= a[w + 1] << (64 - sh);
        out[i] = (int64_t)(v & M62);
    }
}

/* a >= 0. Word w starts at bit 64 w = 62 i + 2 w (w < 31): two limbs cover it. */
static void inv_from62(uint64_t *out, const int64_t *a, int n64)
{
    for (int w = 0; w < n64; w++) {
        int i = 64 * w / 62, sh = 64 * w % 62;
        out[w] = (uint64_t)a[i] >> sh | (uint64_t)a[i + 1] << (62 - sh);
    }
}

static int inv_is_zero(const int64_t *a, int n)
{
    int64_t acc = 0;
    for (int i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

void mont_inv_var(uint64_t *r, const uint64_t *a, const uint64_t *m, const uint64_t *r3, uint64_t inv, int n64)
{
    int n = 64 * n64 / 62 + 1;
    int64_t f[INV62_LIMBS], g[INV62_LIMBS], d[INV62_LIMBS] = {0}, e[INV62_LIMBS] = {1}, m62[INV62_LIMBS];
    int64_t eta = -1;
    uint64_t minv = (0 - inv) & M62; /* inv = -m^-1 mod 2^64 */
    inv_to62(m62, m, n64, n);
    inv_to62(f, m, n64, n);
    inv_to62(g, a, n64, n);
    while (!inv_is_zero(g, n)) {
        inv_matrix t = inv_divsteps_62(&eta, (uint64_t)f[0] | (uint64_t)f[1] << 62,
                                       (uint64_t)g[0] | (uint64_t)g[1] << 62);
        inv_apply(f, g, &t, m62, 0, 0, n);
        inv_update_de(d, e, &t, m62, minv, n);
    }
    /* x^-1 = d / f, f = +-1; then into [0, m) */
    if (f[n - 1] < 0) {
        for (int i = 0; i < n; i++)
            d[i] = -d[i];
        inv_carry(d, n);
    }
    if (d[n - 1] < 0)
        inv_add_m(d, m62, 1, n);
    uint64_t plain[8];
    inv_from62(plain, d, n64);
    /* a = x R: plain = x^-1 R^-1, and x^-1 R = plain R^3 / R */
    mont_mul(r, plain, r3, m, inv, n64);
}
