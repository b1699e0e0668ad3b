/* ChaCha20 block function (RFC 8439 section 2.3) over ffjavascript's state
 * layout: constants, 8 key words, a 4-word counter. */
#include "ceremony/chacha.h"

#include <string.h>

#include "util/random.h"

static inline uint32_t rotl(uint32_t x, int n) { return x << n | x >> (32 - n); }

/* the quarter round: a += b, d ^= a, d <<<= 16; c += d, b ^= c, b <<<= 12; then 8 and 7 */
#define QR(a, b, c, d)                                                                                         \
    do {                                                                                                       \
        x[a] += x[b];                                                                                          \
        x[d] = rotl(x[d] ^ x[a], 16);                                                                          \
        x[c] += x[d];                                                                                          \
        x[b] = rotl(x[b] ^ x[c], 12);                                                                          \
        x[a] += x[b];                                                                                          \
        x[d] = rotl(x[d] ^ x[a], 8);                                                                           \
        x[c] += x[d];                                                                                          \
        x[b] = rotl(x[b] ^ x[c], 7);                                                                           \
    } while (0)

void cuzk_chacha_init(cuzk_chacha *c, const uint32_t seed[8])
{
    static const uint32_t sigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574}; /* "expand 32-byte k" */
    memcpy(c->state, sigma, sizeof sigma);
    memcpy(c->state + 4, seed, 8 * sizeof *seed);
    memset(c->state + 12, 0, 4 * sizeof *c->state);
    c->next = 16;
}

void cuzk_chacha_init_from_hash(cuzk_chacha *c, const uint8_t hash[32])
{
    uint32_t seed[8];
    for (int i = 0; i < 8; i++)
        seed[i] = (uint32_t)hash[4 * i] << 24 | (uint32_t)hash[4 * i + 1] << 16 | (uint32_t)hash[4 * i + 2] << 8 |
                  hash[4 * i + 3];
    cuzk_chacha_init(c, seed);
    cuzk_wipe(seed, sizeof seed);
}

static void next_block(cuzk_chacha *c)
{
    uint32_t *x = c->block;
    memcpy(x, c->state, sizeof c->state);
    for (int i = 0; i < 10; i++) {
        QR(0, 4, 8, 12);
        QR(1, 5, 9, 13);
        QR(2, 6, 10, 14);
        QR(3, 7, 11, 15);
        QR(0, 5, 10, 15);
        QR(1, 6, 11, 12);
        QR(2, 7, 8, 13);
        QR(3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) x[i] += c->state[i];
    for (int i = 12; i < 16 && ++c->state[i] == 0; i++) /* the counter's carry */
        ;
    c->next = 0;
}

uint32_t cuzk_chacha_u32(cuzk_chacha *c)
{
    if (c->next == 16) next_block(c);
    return c->block[c->next++];
}

uint64_t cuzk_chacha_u64(cuzk_chacha *c)
{
    uint64_t hi = cuzk_chacha_u32(c);
    return hi << 32 | cuzk_chacha_u32(c);
}

void cuzk_chacha_wipe(cuzk_chacha *c) { cuzk_wipe(c, sizeof *c); }
