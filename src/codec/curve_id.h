/* Which curve a file belongs to, from its primes or from a snarkjs curve
 * name, and the per-curve sizes the file readers need. Only raw
 * little-endian words here; the field and curve arithmetic live in ff/ and
 * ec/. */
#ifndef CUZK_CODEC_CURVE_ID_H
#define CUZK_CODEC_CURVE_ID_H

#include <stdint.h>

#include "cuzk/cuzk.h"

/* Words of the widest base field (bls12-381 q) and of any scalar field. */
#define CUZK_MAX_Q_WORDS 6
#define CUZK_R_WORDS 4

/* Finds the curve whose scalar field r (is_base_field = 0) or base field q
 * (is_base_field = 1) is the n8-byte little-endian prime_le. Returns CUZK_OK
 * and sets *out on a match, CUZK_ERR_ARG (leaving *out alone) otherwise,
 * including when n8 is not the prime's canonical width
 * (floor((bits - 1) / 64) + 1) * 8. */
int cuzk_curve_from_prime(const uint8_t *prime_le, uint32_t n8, int is_base_field, cuzk_curve_id *out);

/* "bn128|bls12381", the names snarkjs writes (CUZK_CURVES), a string literal */
#define CUZK_CURVE_CHOICE_(prefix, PREFIX, snarkjs) snarkjs
#define CUZK_CURVE_CHOICES CUZK_CURVE_ROWS(CUZK_CURVE_CHOICE_, "|")

/* "bn128" or "bls12381", the names snarkjs writes; "unknown" otherwise. */
const char *cuzk_curve_snarkjs_name(cuzk_curve_id curve);

/* Accepts the names snarkjs accepts: after upper-casing and dropping every
 * character that is not a letter or digit, BN128, BN254, ALTBN128 or
 * BLS12381 (so "bn128", "BN254", "alt_bn128", "bls12-381" all work).
 * Returns CUZK_OK and sets *out, or CUZK_ERR_ARG. */
int cuzk_curve_from_name(const char *name, cuzk_curve_id *out);

/* 1 for the two supported curves, 0 for anything else. */
int cuzk_curve_valid(cuzk_curve_id curve);

/* Moduli as little-endian words (4 or 6 for q, 4 for r); NULL for an
 * unknown curve. */
const uint64_t *cuzk_curve_q(cuzk_curve_id curve);
const uint64_t *cuzk_curve_r(cuzk_curve_id curve);

/* Words of q: 4 (bn254) or 6 (bls12-381); 0 for an unknown curve. The byte
 * widths used in files are n8q = 8 * q_words and n8r = 32. */
uint32_t cuzk_curve_q_words(cuzk_curve_id curve);

/* 1 when the n-word little-endian a is < m. */
int cuzk_words_lt(const uint64_t *a, const uint64_t *m, uint32_t n);

#endif
