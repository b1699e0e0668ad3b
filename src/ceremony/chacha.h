/* The ChaCha20 stream ffjavascript's ChaCha class gives (snarkjs's seeded
 * generator): key = 8 u32 seed words, the 4 words after it a 128-bit block
 * counter from 0 (no nonce), each block's 16 words handed out in order.
 * What snarkjs derives from a seed must be derived here the same way: the
 * G2 point of a phase-2 transcript (keypair.js's hashToG2), a beacon's
 * keys. */
#ifndef CUZK_CEREMONY_CHACHA_H
#define CUZK_CEREMONY_CHACHA_H

#include <stdint.h>

typedef struct {
    uint32_t state[16];
    uint32_t block[16];
    unsigned next; /* 16: a new block is due */
} cuzk_chacha;

void cuzk_chacha_init(cuzk_chacha *c, const uint32_t seed[8]);
/* The seed words a 32-byte digest prefix makes: big-endian u32s, as
 * snarkjs reads a hash with DataView.getUint32. */
void cuzk_chacha_init_from_hash(cuzk_chacha *c, const uint8_t hash[32]);
uint32_t cuzk_chacha_u32(cuzk_chacha *c);
/* ffjavascript's nextU64: the first word drawn is the high half. */
uint64_t cuzk_chacha_u64(cuzk_chacha *c);
/* Wipes the generator (it may have been seeded from a secret). */
void cuzk_chacha_wipe(cuzk_chacha *c);

#endif
