/* A circuit's input JSON as circom's witness calculator takes it, with
 * snarkjs's (0.7.6, circom_runtime 0.1.28) reading of values:
 *
 *   {"a": "3", "b": ["1", 2, "-1"], "m": [["0x1f", "5"], ["6", "7"]]}
 *
 * The top level is an object of signal names; each value is one number or
 * an array of them, nested arrays flattened depth first (row-major, as
 * circom lays a signal array out). A number is what JavaScript's BigInt()
 * takes: a JSON integer, or a string holding a decimal integer with an
 * optional sign, or an unsigned 0x (hex), 0o (octal) or 0b (binary)
 * integer, spaces around it allowed; true and false are 1 and 0. Values of
 * any size are reduced mod p, negative ones to p - (|v| mod p).
 *
 * Refused, where snarkjs would not make a witness or would silently make a
 * wrong one: a fraction, an exponent that does not give an integer, a JSON
 * number beyond 2^53 (JavaScript rounds it: write it as a string), null,
 * an object as a value (circom 2.2's buses: give the qualified names
 * "bus.field" as keys instead), an empty string (BigInt("") is 0 to
 * snarkjs). Messages name the file, the signal and which of its values,
 * quoting signal names but no value. */
#ifndef CUZK_WITNESS_INPUT_H
#define CUZK_WITNESS_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

/* Words of a value (the field's prime fits in 4 64-bit words). */
#define WITNESS_INPUT_WORDS 4

typedef struct {
    char *name;
    uint64_t hash;       /* witness_fnv1a64 of the name: how circom finds the signal */
    uint32_t n_values;   /* after flattening */
    uint64_t (*values)[WITNESS_INPUT_WORDS]; /* little-endian words, each < p */
} witness_input_signal;

typedef struct {
    uint32_t n_signals;
    witness_input_signal *signals; /* in the file's order */
} witness_input;

/* Reads the JSON text (len bytes; name stands for it in messages) into in,
 * which it overwrites (free with witness_input_free), values reduced mod
 * the prime p (little-endian words, p > 1). CUZK_OK, or CUZK_ERR_FORMAT
 * (not JSON, not an object, a value that is not a number),
 * CUZK_ERR_NOMEM; on failure in holds nothing. */
int witness_input_parse(witness_input *in, const char *text, size_t len, const char *name,
                        const uint64_t p[WITNESS_INPUT_WORDS], cuzk_error *err);
/* The same from a file; CUZK_ERR_IO when it cannot be read. */
int witness_input_read(witness_input *in, const char *path, const uint64_t p[WITNESS_INPUT_WORDS],
                       cuzk_error *err);
void witness_input_free(witness_input *in);

/* FNV-1a, 64 bits, over the len bytes of s: offset basis
 * 0xcbf29ce484222325, prime 0x100000001b3 (circom hashes a signal's name
 * so; for ASCII names the bytes are JavaScript's char codes). */
uint64_t witness_fnv1a64(const char *s, size_t len);

#endif
