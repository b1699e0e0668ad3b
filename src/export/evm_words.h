/* Points and scalars as Ethereum's precompiles take them: 32-byte
 * big-endian words, what a contract's uint256 arguments and constants are.
 *
 * BN254 (EIP-196 ecAdd 0x06, ecMul 0x07; EIP-197 pairing 0x08): an Fp
 * element is one word; G1 = (x, y), 2 words; G2 = (x.c1, x.c0, y.c1, y.c0),
 * 4 words (the imaginary part first, as EIP-197 orders Fp2).
 *
 * BLS12-381 (EIP-2537, Prague): an Fp element is 64 bytes, its 48-byte
 * big-endian value after 16 zero bytes: two words, the high one holding the
 * top 128 bits; G1 = (x, y), 4 words (128 bytes); G2 = (x.c0, x.c1, y.c0,
 * y.c1), 8 words (256 bytes; the real part first, as EIP-2537 orders Fp2).
 *
 * Both encode the point at infinity as all zeros. */
#ifndef CUZK_EXPORT_EVM_WORDS_H
#define CUZK_EXPORT_EVM_WORDS_H

#include <stdint.h>

#include "codec/json_io.h"

/* One 256-bit word, its little-endian 64-bit limbs. */
typedef struct {
    uint64_t limb[4];
} evm_word;

/* The most words a point takes (a BLS12-381 G2). */
#define EVM_MAX_POINT_WORDS 8
/* "0x", 64 hexadecimal digits, NUL. */
#define EVM_WORD_HEX_CAP 67

/* Words of one Fp element: 1 (BN254) or 2 (BLS12-381); 0 for an unknown
 * curve. G1 takes twice that, G2 four times. */
uint32_t evm_fp_words(cuzk_curve_id curve);

/* p's encoding into out[0 .. 2 evm_fp_words) / [0 .. 4 evm_fp_words);
 * returns the count. p's coordinates must be below the curve's q (what
 * json_io's readers and the key's reader ensure). */
uint32_t evm_g1_encode(cuzk_curve_id curve, const cuzk_g1_plain *p, evm_word *out);
uint32_t evm_g2_encode(cuzk_curve_id curve, const cuzk_g2_plain *p, evm_word *out);

/* A scalar (4 little-endian words, below 2^256) as one word. */
void evm_word_from_scalar(const uint64_t v[4], evm_word *out);

/* -p = (x, -y) over the curve's q; infinity stays infinity. */
void evm_g2_negate(cuzk_curve_id curve, cuzk_g2_plain *p);

/* w as "0x" and 64 lower-case hexadecimal digits (snarkjs's calldata form). */
void evm_word_hex(const evm_word *w, char out[EVM_WORD_HEX_CAP]);

#endif
