/* Proofs and public signals as bytes for a database (the cluster's
 * PostgreSQL queue, the daemon's SQLite store): little-endian 64-bit
 * words, the same on every machine, so a store moves between hosts.
 *   proof: curve, then A (infinity, x[6], y[6]), B (infinity, x[2][6],
 *          y[2][6]), C as A: CUZK_PROOF_WORDS words
 *   public signals: 4 words each, in order */
#ifndef CUZK_CODEC_PROOF_WORDS_H
#define CUZK_CODEC_PROOF_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "codec/json_io.h"

enum { CUZK_PROOF_WORDS = 1 + 13 + 25 + 13, CUZK_PROOF_BYTES = CUZK_PROOF_WORDS * 8 };

void cuzk_proof_to_words(const cuzk_proof *p, unsigned char out[CUZK_PROOF_BYTES]);
void cuzk_proof_from_words(cuzk_proof *p, const unsigned char in[CUZK_PROOF_BYTES]);
/* n words to 8 n bytes, and back. */
void cuzk_words_to_bytes(const uint64_t *w, size_t n, unsigned char *out);
void cuzk_words_from_bytes(uint64_t *w, size_t n, const unsigned char *in);

#endif
