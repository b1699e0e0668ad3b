/* Decimal strings <-> little-endian multi-word integers, for the JSON files
 * (snarkjs writes every field element as a decimal string). */
#ifndef CUZK_CODEC_DECIMAL_H
#define CUZK_CODEC_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* Largest nwords cuzk_dec_format handles. */
#define CUZK_DEC_MAX_WORDS 16
/* A buffer of this many chars holds any nwords-word value and its NUL
 * (2^64 - 1 has 20 digits). */
#define CUZK_DEC_CAP(nwords) (20 * (size_t)(nwords) + 1)

/* Parses a string of ASCII digits (at least one; leading zeros allowed; no
 * sign, space or other character) into out[0..nwords) (little-endian words).
 * Returns 0, or -1 when s is empty, holds a non-digit, or the value does not
 * fit in nwords words; out is then unspecified. */
int cuzk_dec_parse(const char *s, uint64_t *out, int nwords);

/* Writes v[0..nwords) in decimal, without leading zeros ("0" for zero), NUL
 * terminated. When cap < CUZK_DEC_CAP(nwords) would be needed for the actual
 * digits, or nwords is outside 1..CUZK_DEC_MAX_WORDS, writes "" (when
 * cap > 0). */
void cuzk_dec_format(const uint64_t *v, int nwords, char *buf, size_t cap);

#endif
