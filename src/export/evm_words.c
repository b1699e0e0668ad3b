/* Points and scalars as the EVM's precompiles take them (evm_words.h). */
#include "export/evm_words.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "codec/curve_id.h"

uint32_t evm_fp_words(cuzk_curve_id curve)
{
    switch (curve) {
    case CUZK_CURVE_BN254:
        return 1;
    case CUZK_CURVE_BLS12_381:
        return 2;
    }
    return 0;
}

/* An Fp element (the curve's q words, little-endian) as its evm_fp_words
 * words, the most significant first: word k holds limbs 4k .. 4k+3. */
static uint32_t fp_encode(cuzk_curve_id curve, const uint64_t *v, evm_word *out)
{
    uint32_t n = evm_fp_words(curve), q_words = cuzk_curve_q_words(curve);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = n - 1 - i;
        for (uint32_t l = 0; l < 4; l++)
            out[i].limb[l] = 4 * k + l < q_words ? v[4 * k + l] : 0;
    }
    return n;
}

uint32_t evm_g1_encode(cuzk_curve_id curve, const cuzk_g1_plain *p, evm_word *out)
{
    static const uint64_t zero[6];
    uint32_t n = fp_encode(curve, p->infinity ? zero : p->x, out);
    return n + fp_encode(curve, p->infinity ? zero : p->y, out + n);
}

/* EIP-197 writes an Fp2 element c0 + c1 u as (c1, c0), EIP-2537 as (c0, c1). */
static uint32_t fp2_encode(cuzk_curve_id curve, const uint64_t (*c)[6], evm_word *out)
{
    int imaginary_first = curve == CUZK_CURVE_BN254;
    uint32_t n = fp_encode(curve, c[imaginary_first ? 1 : 0], out);
    return n + fp_encode(curve, c[imaginary_first ? 0 : 1], out + n);
}

uint32_t evm_g2_encode(cuzk_curve_id curve, const cuzk_g2_plain *p, evm_word *out)
{
    static const uint64_t zero[2][6];
    uint32_t n = fp2_encode(curve, p->infinity ? zero : p->x, out);
    return n + fp2_encode(curve, p->infinity ? zero : p->y, out + n);
}

void evm_word_from_scalar(const uint64_t v[4], evm_word *out) { memcpy(out->limb, v, sizeof out->limb); }

/* v = q - v when v != 0 (v < q): the negation in Fp, on plain words. */
static void fp_negate(const uint64_t *q, uint32_t words, uint64_t *v)
{
    uint64_t any = 0;
    for (uint32_t i = 0; i < words; i++)
        any |= v[i];
    if (!any)
        return;
    unsigned __int128 borrow = 0;
    for (uint32_t i = 0; i < words; i++) {
        unsigned __int128 d = (unsigned __int128)q[i] - v[i] - borrow;
        v[i] = (uint64_t)d;
        borrow = (d >> 64) & 1;
    }
}

void evm_g2_negate(cuzk_curve_id curve, cuzk_g2_plain *p)
{
    if (p->infinity)
        return;
    fp_negate(cuzk_curve_q(curve), cuzk_curve_q_words(curve), p->y[0]);
    fp_negate(cuzk_curve_q(curve), cuzk_curve_q_words(curve), p->y[1]);
}

void evm_word_hex(const evm_word *w, char out[EVM_WORD_HEX_CAP])
{
    snprintf(out, EVM_WORD_HEX_CAP, "0x%016" PRIx64 "%016" PRIx64 "%016" PRIx64 "%016" PRIx64, w->limb[3],
             w->limb[2], w->limb[1], w->limb[0]);
}
