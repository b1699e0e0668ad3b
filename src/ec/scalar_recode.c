/* Width-5 NAF digits and the GLV/GLS split (scalar_recode.h). */
#include "ec/scalar_recode.h"

/* c <- floor(k g / 2^256) (k < 2^256, g < 2^160: it fits CUZK_GLV_WORDS words) */
static void glv_quotient(const uint64_t k[4], const uint64_t g[CUZK_GLV_WORDS], uint64_t c[CUZK_GLV_WORDS])
{
    uint64_t prod[4 + CUZK_GLV_WORDS] = {0};
    for (int j = 0; j < CUZK_GLV_WORDS; j++) {
        uint64_t carry = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 t = (unsigned __int128)k[i] * g[j] + prod[i + j] + carry;
            prod[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        prod[4 + j] = carry;
    }
    for (int j = 0; j < CUZK_GLV_WORDS; j++) c[j] = prod[4 + j];
}

/* acc <- acc - c x mod 2^(64 CUZK_GLV_WORDS) */
static void glv_sub_product(uint64_t acc[CUZK_GLV_WORDS], const uint64_t c[CUZK_GLV_WORDS], const uint64_t x[CUZK_GLV_WORDS])
{
    uint64_t prod[CUZK_GLV_WORDS] = {0};
    for (int i = 0; i < CUZK_GLV_WORDS; i++) {
        uint64_t carry = 0;
        for (int j = 0; i + j < CUZK_GLV_WORDS; j++) {
            unsigned __int128 t = (unsigned __int128)c[i] * x[j] + prod[i + j] + carry;
            prod[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
    }
    uint64_t borrow = 0;
    for (int i = 0; i < CUZK_GLV_WORDS; i++) {
        uint64_t d = acc[i] - prod[i], b2 = d > acc[i];
        acc[i] = d - borrow;
        borrow = b2 | (acc[i] > d);
    }
}

/* v (two's complement) <- |v|; 1 if it was negative */
static int glv_abs(uint64_t v[CUZK_GLV_WORDS])
{
    if (!(v[CUZK_GLV_WORDS - 1] >> 63)) return 0;
    uint64_t carry = 1;
    for (int i = 0; i < CUZK_GLV_WORDS; i++) {
        v[i] = ~v[i] + carry;
        carry = carry && v[i] == 0;
    }
    return 1;
}

int cuzk_glv_split(const cuzk_glv_params *c, const uint64_t k[4], uint64_t m1[CUZK_GLV_WORDS], int *neg1,
                   uint64_t m2[CUZK_GLV_WORDS], int *neg2)
{
    uint64_t c1[CUZK_GLV_WORDS], c2[CUZK_GLV_WORDS];
    glv_quotient(k, c->g1, c1);
    glv_quotient(k, c->g2, c2);
    for (int i = 0; i < CUZK_GLV_WORDS; i++) {
        m1[i] = k[i];
        m2[i] = 0;
    }
    glv_sub_product(m1, c1, c->a1);
    glv_sub_product(m1, c2, c->a2);
    glv_sub_product(m2, c1, c->b1);
    glv_sub_product(m2, c2, c->b2);
    *neg1 = glv_abs(m1);
    *neg2 = glv_abs(m2);
    /* bits CUZK_GLV_BITS and up clear in both */
    return ((m1[2] | m2[2]) >> (CUZK_GLV_BITS - 128)) == 0;
}

int cuzk_wnaf5(const uint64_t *k, int words, int8_t *d)
{
    enum { HALF = 1 << (CUZK_WNAF_WIDTH - 1) };
    uint64_t t[5] = {0};
    for (int i = 0; i < words; i++) t[i] = k[i];
    int len = 0;
    while (t[0] | t[1] | t[2] | t[3] | t[4]) {
        int v = 0;
        if (t[0] & 1) {
            v = (int)(t[0] & (2 * HALF - 1));
            if (v >= HALF) v -= 2 * HALF;
            /* t -= v: v odd, |v| < 16, t >= v when v > 0 */
            uint64_t add = (uint64_t)(v < 0 ? -v : v);
            if (v > 0) {
                for (int i = 0; i < 5 && add; i++) {
                    uint64_t before = t[i];
                    t[i] -= add;
                    add = t[i] > before;
                }
            } else {
                for (int i = 0; i < 5 && add; i++) {
                    t[i] += add;
                    add = t[i] < add;
                }
            }
        }
        d[len++] = (int8_t)v;
        for (int i = 0; i < 4; i++) t[i] = t[i] >> 1 | t[i + 1] << 63;
        t[4] >>= 1;
    }
    return len;
}
