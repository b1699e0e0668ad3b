/* BLAKE2b-512, unkeyed (RFC 7693 section 3). */
#include "ceremony/blake2b.h"

#include <string.h>

#include "codec/binfile.h"

static const uint64_t IV[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                               0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                               0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

static inline uint64_t rotr(uint64_t x, int n) { return x >> n | x << (64 - n); }

/* G mixes two message words into four state words */
#define G(a, b, c, d, x, y)                                                                                    \
    do {                                                                                                       \
        v[a] = v[a] + v[b] + (x);                                                                              \
        v[d] = rotr(v[d] ^ v[a], 32);                                                                          \
        v[c] = v[c] + v[d];                                                                                    \
        v[b] = rotr(v[b] ^ v[c], 24);                                                                          \
        v[a] = v[a] + v[b] + (y);                                                                              \
        v[d] = rotr(v[d] ^ v[a], 16);                                                                          \
        v[c] = v[c] + v[d];                                                                                    \
        v[b] = rotr(v[b] ^ v[c], 63);                                                                          \
    } while (0)

/* one round: the columns, then the diagonals, with round r's permutation
 * of the message words (literal indices: m stays in registers) */
#define ROUND(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15)                        \
    do {                                                                                                       \
        G(0, 4, 8, 12, m[s0], m[s1]);                                                                          \
        G(1, 5, 9, 13, m[s2], m[s3]);                                                                          \
        G(2, 6, 10, 14, m[s4], m[s5]);                                                                         \
        G(3, 7, 11, 15, m[s6], m[s7]);                                                                         \
        G(0, 5, 10, 15, m[s8], m[s9]);                                                                         \
        G(1, 6, 11, 12, m[s10], m[s11]);                                                                       \
        G(2, 7, 8, 13, m[s12], m[s13]);                                                                        \
        G(3, 4, 9, 14, m[s14], m[s15]);                                                                        \
    } while (0)

static void compress(cuzk_blake2b_state *s, const uint8_t block[CUZK_BLAKE2B_BLOCK], int last)
{
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = cuzk_le64(block + 8 * i);
    memcpy(v, s->h, sizeof s->h);
    memcpy(v + 8, IV, sizeof IV);
    v[12] ^= s->t; /* the counter's high word stays 0 */
    if (last) v[14] = ~v[14];
    ROUND(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    ROUND(14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3);
    ROUND(11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4);
    ROUND(7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8);
    ROUND(9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13);
    ROUND(2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9);
    ROUND(12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11);
    ROUND(13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10);
    ROUND(6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5);
    ROUND(10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0);
    ROUND(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    ROUND(14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3);
    for (int i = 0; i < 8; i++) s->h[i] ^= v[i] ^ v[i + 8];
}

void cuzk_blake2b_init(cuzk_blake2b_state *s)
{
    memset(s, 0, sizeof *s);
    memcpy(s->h, IV, sizeof IV);
    s->h[0] ^= 0x01010000ULL ^ CUZK_BLAKE2B_BYTES; /* depth 1, fanout 1, no key, 64-byte digest */
}

void cuzk_blake2b_update(cuzk_blake2b_state *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len) {
        if (s->fill == CUZK_BLAKE2B_BLOCK) { /* a full block is compressed only once more input follows */
            s->t += CUZK_BLAKE2B_BLOCK;
            compress(s, s->buf, 0);
            s->fill = 0;
        }
        if (s->fill == 0) /* whole blocks straight from the input, the last one kept back */
            while (len > CUZK_BLAKE2B_BLOCK) {
                s->t += CUZK_BLAKE2B_BLOCK;
                compress(s, p, 0);
                p += CUZK_BLAKE2B_BLOCK;
                len -= CUZK_BLAKE2B_BLOCK;
            }
        size_t take = CUZK_BLAKE2B_BLOCK - s->fill < len ? CUZK_BLAKE2B_BLOCK - s->fill : len;
        memcpy(s->buf + s->fill, p, take);
        s->fill += take;
        p += take;
        len -= take;
    }
}

void cuzk_blake2b_final(cuzk_blake2b_state *s, uint8_t out[CUZK_BLAKE2B_BYTES])
{
    s->t += s->fill;
    memset(s->buf + s->fill, 0, CUZK_BLAKE2B_BLOCK - s->fill);
    compress(s, s->buf, 1);
    for (int i = 0; i < 8; i++) cuzk_put_le64(out + 8 * i, s->h[i]);
}

void cuzk_blake2b(const void *data, size_t len, uint8_t out[CUZK_BLAKE2B_BYTES])
{
    cuzk_blake2b_state s;
    cuzk_blake2b_init(&s);
    cuzk_blake2b_update(&s, data, len);
    cuzk_blake2b_final(&s, out);
}

void cuzk_blake2b_save(const cuzk_blake2b_state *s, uint8_t out[CUZK_BLAKE2B_PARTIAL_BYTES])
{
    memcpy(out, s->buf, CUZK_BLAKE2B_BLOCK);
    uint8_t *w = out + CUZK_BLAKE2B_BLOCK;
    for (int i = 0; i < 8; i++) cuzk_put_le64(w + 8 * i, s->h[i]);
    cuzk_put_le64(w + 64, s->t);
    cuzk_put_le64(w + 72, s->fill);
}

int cuzk_blake2b_load(cuzk_blake2b_state *s, const uint8_t in[CUZK_BLAKE2B_PARTIAL_BYTES])
{
    const uint8_t *w = in + CUZK_BLAKE2B_BLOCK;
    uint64_t fill = cuzk_le64(w + 72);
    if (fill > CUZK_BLAKE2B_BLOCK) return -1;
    memcpy(s->buf, in, CUZK_BLAKE2B_BLOCK);
    for (int i = 0; i < 8; i++) s->h[i] = cuzk_le64(w + 8 * i);
    s->t = cuzk_le64(w + 64);
    s->fill = (size_t)fill;
    return 0;
}
