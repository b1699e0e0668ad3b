/* BLAKE2b-512 (RFC 7693), the hash of every ceremony transcript. Our own
 * rather than libcrypto's because phase 1 stores a hasher's state in the
 * .ptau (a contribution's 216-byte "partial hash", snarkjs's layout of
 * @noble/hashes' state) and resumes it: a state we can read and set. */
#ifndef CUZK_CEREMONY_BLAKE2B_H
#define CUZK_CEREMONY_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

enum { CUZK_BLAKE2B_BYTES = 64, CUZK_BLAKE2B_BLOCK = 128, CUZK_BLAKE2B_PARTIAL_BYTES = 216 };

typedef struct {
    uint64_t h[8];
    uint64_t t;               /* bytes compressed so far (the counter's low word; files stay < 2^64) */
    uint8_t buf[CUZK_BLAKE2B_BLOCK];
    size_t fill;              /* bytes in buf, 0..128: the last block waits for more or the end */
} cuzk_blake2b_state;

void cuzk_blake2b_init(cuzk_blake2b_state *s);
void cuzk_blake2b_update(cuzk_blake2b_state *s, const void *data, size_t len);
/* The 64-byte digest; s is spent (init again to reuse). */
void cuzk_blake2b_final(cuzk_blake2b_state *s, uint8_t out[CUZK_BLAKE2B_BYTES]);
/* The digest of len bytes at data, in one call. */
void cuzk_blake2b(const void *data, size_t len, uint8_t out[CUZK_BLAKE2B_BYTES]);

/* A running state as snarkjs stores it: the 128-byte buffer, then as u32
 * LE words h[0..7] (low, high each), bytes compressed (low, high), bytes
 * in the buffer (low, high); 216 bytes. */
void cuzk_blake2b_save(const cuzk_blake2b_state *s, uint8_t out[CUZK_BLAKE2B_PARTIAL_BYTES]);
/* The state saved above; -1 when it is not one (a buffer fill > 128). */
int cuzk_blake2b_load(cuzk_blake2b_state *s, const uint8_t in[CUZK_BLAKE2B_PARTIAL_BYTES]);

#endif
