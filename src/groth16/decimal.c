#include "codec/decimal.h"

#include <string.h>

int cuzk_dec_parse(const char *s, uint64_t *out, int nwords)
{
    if (!s || !*s || nwords <= 0) return -1;
    memset(out, 0, sizeof *out * (size_t)nwords);
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        /* out = out * 10 + digit, carrying word by word */
        unsigned __int128 carry = (unsigned)(*s - '0');
        for (int i = 0; i < nwords; i++) {
            unsigned __int128 t = (unsigned __int128)out[i] * 10 + carry;
            out[i] = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry) return -1;
    }
    return 0;
}

/* q = q / d over n words; returns the remainder. */
static uint64_t div_small(uint64_t *q, int n, uint64_t d)
{
    unsigned __int128 rem = 0;
    for (int i = n; i-- > 0;) {
        unsigned __int128 cur = rem << 64 | q[i];
        q[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

void cuzk_dec_format(const uint64_t *v, int nwords, char *buf, size_t cap)
{
    enum { CHUNK_DIGITS = 19 };
    const uint64_t chunk = 10000000000000000000ULL; /* 10^19 */
    char tmp[CUZK_DEC_CAP(CUZK_DEC_MAX_WORDS)];
    uint64_t q[CUZK_DEC_MAX_WORDS];
    size_t len = 0;

    if (cap == 0) return;
    buf[0] = 0;
    if (nwords <= 0 || nwords > CUZK_DEC_MAX_WORDS) return;
    memcpy(q, v, sizeof *q * (size_t)nwords);

    /* Digits come out least significant first, 19 at a time. */
    int top = nwords;
    while (top > 0 && q[top - 1] == 0) top--;
    do {
        uint64_t r = div_small(q, top, chunk);
        while (top > 0 && q[top - 1] == 0) top--;
        for (int d = 0; d < CHUNK_DIGITS && (r || top > 0); d++) {
            tmp[len++] = (char)('0' + r % 10);
            r /= 10;
        }
    } while (top > 0);
    if (len == 0) tmp[len++] = '0';

    if (len + 1 > cap) return;
    for (size_t i = 0; i < len; i++) buf[i] = tmp[len - 1 - i];
    buf[len] = 0;
}
