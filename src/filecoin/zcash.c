/* The zcash point encoding (contracts in zcash.h). */
#include "filecoin/zcash.h"

#include <string.h>

#include "ec/bls12_381_endo.h"

enum { FLAG_COMPRESSED = 0x80, FLAG_INFINITY = 0x40, FLAG_SIGN = 0x20, FLAGS = 0xe0 };
enum { FP_BYTES = 48, FP_WORDS = 6 };

const char *fil_point_status_name(fil_point_status s)
{
    switch (s) {
    case FIL_POINT_OK: return "a valid point";
    case FIL_POINT_BAD_FLAGS: return "wrong flag bits";
    case FIL_POINT_INFINITY: return "the point at infinity";
    case FIL_POINT_NOT_CANONICAL: return "a coordinate not below the field modulus";
    case FIL_POINT_OFF_CURVE: return "not on the curve";
    case FIL_POINT_NOT_IN_SUBGROUP: return "not in the prime-order subgroup";
    }
    return "an unknown point status";
}

/* ---- Fp: 48 big-endian bytes <-> Montgomery ---- */

static void fp_write(uint8_t out[FP_BYTES], const bls12_381_fp *a)
{
    bls12_381_fp t;
    bls12_381_fp_from_mont(&t, a);
    for (int i = 0; i < FP_BYTES; i++)
        out[i] = (uint8_t)(t.l[FP_WORDS - 1 - i / 8] >> (8 * (7 - i % 8)));
}

/* the big-endian 8 bytes at in (a .params holds billions of them: one
 * load, not eight) */
static uint64_t be64(const uint8_t *in)
{
    uint64_t w;
    memcpy(&w, in, sizeof w);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* in's value with the flag bits of byte 0 cleared when first; -1 when >= p */
static int fp_read(bls12_381_fp *a, const uint8_t in[FP_BYTES], int first)
{
    bls12_381_fp t;
    for (int w = 0; w < FP_WORDS; w++)
        t.l[FP_WORDS - 1 - w] = be64(in + 8 * w);
    if (first)
        t.l[FP_WORDS - 1] &= ~((uint64_t)FLAGS << 56);
    if (!bls12_381_fp_is_canonical(&t))
        return -1;
    bls12_381_fp_to_mont(a, &t);
    return 0;
}

/* 1 when a is the larger of a and -a (as integers < p) */
static int fp_is_larger(const bls12_381_fp *a)
{
    bls12_381_fp v, n;
    bls12_381_fp_from_mont(&v, a);
    bls12_381_fp_neg(&n, a);
    bls12_381_fp_from_mont(&n, &n);
    for (int i = FP_WORDS - 1; i >= 0; i--)
        if (v.l[i] != n.l[i])
            return v.l[i] > n.l[i];
    return 0;
}

static int fp2_is_larger(const bls12_381_fp2 *a)
{
    return bls12_381_fp_is_zero(&a->c1) ? fp_is_larger(&a->c0) : fp_is_larger(&a->c1);
}

/* e = (p + add) >> shift, for the exponents of the square roots; p's low
 * word is 0x...aaab, so adding 1 or taking 3 stays within it */
static void p_exponent(uint64_t e[FP_WORDS], int add, unsigned shift)
{
    memcpy(e, bls12_381_fp_MODULUS, FP_WORDS * 8);
    e[0] += (uint64_t)(int64_t)add;
    for (unsigned s = 0; s < shift; s++)
        for (int i = 0; i < FP_WORDS; i++)
            e[i] = e[i] >> 1 | (i + 1 < FP_WORDS ? e[i + 1] << 63 : 0);
}

/* y = sqrt(a) when a is a square (p = 3 mod 4: y = a^((p+1)/4)); -1 when not */
static int fp_sqrt(bls12_381_fp *y, const bls12_381_fp *a)
{
    uint64_t e[FP_WORDS];
    p_exponent(e, 1, 2);
    bls12_381_fp r, sq;
    bls12_381_fp_pow(&r, a, e, 64 * FP_WORDS);
    bls12_381_fp_sqr(&sq, &r);
    if (!bls12_381_fp_eq(&sq, a))
        return -1;
    *y = r;
    return 0;
}

/* Square roots in Fp2 for p = 3 mod 4 (Adj and Rodriguez-Henriquez,
 * "Square root computation over even extension fields", algorithm 9):
 *   a1 = a^((p-3)/4), alpha = a1^2 a, x0 = a1 a;
 *   alpha = -1: x = u x0; else x = (1 + alpha)^((p-1)/2) x0.
 * The result is checked by squaring; -1 when a is not a square. */
static int fp2_sqrt(bls12_381_fp2 *y, const bls12_381_fp2 *a)
{
    uint64_t e_a1[FP_WORDS], e_b[FP_WORDS];
    p_exponent(e_a1, -3, 2);
    p_exponent(e_b, -1, 1);
    bls12_381_fp2 a1, alpha, x0, x, minus_one, t;
    bls12_381_fp2_pow(&a1, a, e_a1, 64 * FP_WORDS);
    bls12_381_fp2_sqr(&alpha, &a1);
    bls12_381_fp2_mul(&alpha, &alpha, a);
    bls12_381_fp2_mul(&x0, &a1, a);
    bls12_381_fp2_set_one(&minus_one);
    bls12_381_fp2_neg(&minus_one, &minus_one);
    if (bls12_381_fp2_eq(&alpha, &minus_one)) {
        bls12_381_fp_neg(&x.c0, &x0.c1); /* u (c0 + c1 u) = -c1 + c0 u */
        x.c1 = x0.c0;
    } else {
        bls12_381_fp2_set_one(&t);
        bls12_381_fp2_add(&t, &t, &alpha);
        bls12_381_fp2_pow(&t, &t, e_b, 64 * FP_WORDS);
        bls12_381_fp2_mul(&x, &t, &x0);
    }
    bls12_381_fp2_sqr(&t, &x);
    if (!bls12_381_fp2_eq(&t, a))
        return -1;
    *y = x;
    return 0;
}

/* ---- G1 ---- */

void fil_g1_encode(uint8_t out[FIL_G1_BYTES], const bls12_381_g1_affine *p)
{
    memset(out, 0, FIL_G1_BYTES);
    if (bls12_381_g1_affine_is_inf(p)) {
        out[0] = FLAG_INFINITY;
        return;
    }
    fp_write(out, &p->x);
    fp_write(out + FP_BYTES, &p->y);
}

/* the checks shared by both forms once the coordinates are read; the
 * subgroup's only when asked */
static fil_point_status g1_check(const bls12_381_g1_affine *p, fil_check check)
{
    if (bls12_381_g1_affine_is_inf(p) || !bls12_381_g1_affine_on_curve(p))
        return FIL_POINT_OFF_CURVE; /* (0, 0) is on no curve of ours: b != 0 */
    return check == FIL_CHECK_CURVE || bls12_381_g1_in_subgroup_endo(p) ? FIL_POINT_OK : FIL_POINT_NOT_IN_SUBGROUP;
}

fil_point_status fil_g1_decode(bls12_381_g1_affine *p, const uint8_t in[FIL_G1_BYTES], fil_check check)
{
    if (in[0] & (FLAG_COMPRESSED | FLAG_SIGN))
        return FIL_POINT_BAD_FLAGS;
    if (in[0] & FLAG_INFINITY)
        return FIL_POINT_INFINITY;
    if (fp_read(&p->x, in, 1) || fp_read(&p->y, in + FP_BYTES, 0))
        return FIL_POINT_NOT_CANONICAL;
    return g1_check(p, check);
}

void fil_g1_compress(uint8_t out[FIL_G1_COMPRESSED_BYTES], const bls12_381_g1_affine *p)
{
    memset(out, 0, FIL_G1_COMPRESSED_BYTES);
    if (bls12_381_g1_affine_is_inf(p)) {
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    fp_write(out, &p->x);
    out[0] |= FLAG_COMPRESSED | (fp_is_larger(&p->y) ? FLAG_SIGN : 0);
}

/* infinity in compressed form: the two flags and nothing else */
static fil_point_status infinity_compressed(const uint8_t *in, size_t len, int allow)
{
    if (in[0] != (FLAG_COMPRESSED | FLAG_INFINITY))
        return FIL_POINT_BAD_FLAGS;
    for (size_t i = 1; i < len; i++)
        if (in[i])
            return FIL_POINT_BAD_FLAGS;
    return allow ? FIL_POINT_OK : FIL_POINT_INFINITY;
}

fil_point_status fil_g1_decompress(bls12_381_g1_affine *p, const uint8_t in[FIL_G1_COMPRESSED_BYTES],
                                   int allow_infinity)
{
    if (!(in[0] & FLAG_COMPRESSED))
        return FIL_POINT_BAD_FLAGS;
    if (in[0] & FLAG_INFINITY) {
        bls12_381_g1_affine_set_inf(p);
        return infinity_compressed(in, FIL_G1_COMPRESSED_BYTES, allow_infinity);
    }
    if (fp_read(&p->x, in, 1))
        return FIL_POINT_NOT_CANONICAL;
    bls12_381_fp rhs, b;
    memcpy(b.l, bls12_381_fp_b, sizeof b.l);
    bls12_381_fp_sqr(&rhs, &p->x);
    bls12_381_fp_mul(&rhs, &rhs, &p->x);
    bls12_381_fp_add(&rhs, &rhs, &b); /* x^3 + b */
    if (fp_sqrt(&p->y, &rhs))
        return FIL_POINT_OFF_CURVE;
    if (fp_is_larger(&p->y) != !!(in[0] & FLAG_SIGN))
        bls12_381_fp_neg(&p->y, &p->y);
    return g1_check(p, FIL_CHECK_ALL);
}

/* ---- G2 ---- */

void fil_g2_encode(uint8_t out[FIL_G2_BYTES], const bls12_381_g2_affine *p)
{
    memset(out, 0, FIL_G2_BYTES);
    if (bls12_381_g2_affine_is_inf(p)) {
        out[0] = FLAG_INFINITY;
        return;
    }
    fp_write(out, &p->x.c1);
    fp_write(out + FP_BYTES, &p->x.c0);
    fp_write(out + 2 * FP_BYTES, &p->y.c1);
    fp_write(out + 3 * FP_BYTES, &p->y.c0);
}

static fil_point_status g2_check(const bls12_381_g2_affine *p, fil_check check)
{
    if (bls12_381_g2_affine_is_inf(p) || !bls12_381_g2_affine_on_curve(p))
        return FIL_POINT_OFF_CURVE;
    return check == FIL_CHECK_CURVE || bls12_381_g2_in_subgroup_endo(p) ? FIL_POINT_OK : FIL_POINT_NOT_IN_SUBGROUP;
}

fil_point_status fil_g2_decode(bls12_381_g2_affine *p, const uint8_t in[FIL_G2_BYTES], fil_check check)
{
    if (in[0] & (FLAG_COMPRESSED | FLAG_SIGN))
        return FIL_POINT_BAD_FLAGS;
    if (in[0] & FLAG_INFINITY)
        return FIL_POINT_INFINITY;
    if (fp_read(&p->x.c1, in, 1) || fp_read(&p->x.c0, in + FP_BYTES, 0) ||
        fp_read(&p->y.c1, in + 2 * FP_BYTES, 0) || fp_read(&p->y.c0, in + 3 * FP_BYTES, 0))
        return FIL_POINT_NOT_CANONICAL;
    return g2_check(p, check);
}

void fil_g2_compress(uint8_t out[FIL_G2_COMPRESSED_BYTES], const bls12_381_g2_affine *p)
{
    memset(out, 0, FIL_G2_COMPRESSED_BYTES);
    if (bls12_381_g2_affine_is_inf(p)) {
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    fp_write(out, &p->x.c1);
    fp_write(out + FP_BYTES, &p->x.c0);
    out[0] |= FLAG_COMPRESSED | (fp2_is_larger(&p->y) ? FLAG_SIGN : 0);
}

fil_point_status fil_g2_decompress(bls12_381_g2_affine *p, const uint8_t in[FIL_G2_COMPRESSED_BYTES],
                                   int allow_infinity)
{
    if (!(in[0] & FLAG_COMPRESSED))
        return FIL_POINT_BAD_FLAGS;
    if (in[0] & FLAG_INFINITY) {
        bls12_381_g2_affine_set_inf(p);
        return infinity_compressed(in, FIL_G2_COMPRESSED_BYTES, allow_infinity);
    }
    if (fp_read(&p->x.c1, in, 1) || fp_read(&p->x.c0, in + FP_BYTES, 0))
        return FIL_POINT_NOT_CANONICAL;
    bls12_381_fp2 rhs, b;
    memcpy(&b, bls12_381_fp2_twist_b, sizeof b);
    bls12_381_fp2_sqr(&rhs, &p->x);
    bls12_381_fp2_mul(&rhs, &rhs, &p->x);
    bls12_381_fp2_add(&rhs, &rhs, &b); /* x^3 + b' */
    if (fp2_sqrt(&p->y, &rhs))
        return FIL_POINT_OFF_CURVE;
    if (fp2_is_larger(&p->y) != !!(in[0] & FLAG_SIGN))
        bls12_381_fp2_neg(&p->y, &p->y);
    return g2_check(p, FIL_CHECK_ALL);
}
