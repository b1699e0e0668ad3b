/* The four curve groups against tools/ff_oracle.py (affine chord-and-tangent
 * on Python integers): k*G for edge and random k, the published generators,
 * curve and subgroup membership (including points on the curve outside the
 * r-torsion), and the group law of the Jacobian formulas on randomly scaled
 * representatives, checked against jac_mul_var once that has been checked
 * against the oracle. Reproduce a failure with CUZK_ORACLE_SEED=<seed>. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ec/ec.h"
#include "oracle_io.h"

#ifdef CUZK_VERIFY /* sanitizer build: fewer vectors and pairs */
#define EC_ORACLE_COUNT 32
#define EC_POOL 6
#else
#define EC_ORACLE_COUNT 128
#define EC_POOL 12
#endif
#define EC_DEFAULT_SEED 20240602UL
#define EC_WORDS 5         /* scalars: below 2^256 from the oracle, sums of two below 2^257 */
#define EC_BATCH 13        /* points in the batch-conversion test */
#define EC_POOL_SPECIAL 4  /* G, 2G, -G and (r+1)G, the first entries of the pool */
#define EC_POOL_REST 7     /* the rest: spread over the finite G lines from this one on */

static oracle_set ec_vec;

ORACLE_FIELD_IO(bn254_fp)
ORACLE_FIELD_IO(bls12_381_fp)

#define EC_EXPECT(cond, ln, ...)                                                                   \
    do {                                                                                           \
        if (!(cond))                                                                               \
            oracle_fail(ln, #cond, __VA_ARGS__);                                                   \
    } while (0)

static void ec_replay(const char *tag, const char *name, int ntok,
                      void (*check)(const oracle_line *ln))
{
    unsigned long before = oracle_failures();
    size_t seen = oracle_replay(&ec_vec, tag, name, ntok, check);
    print_message("%zu %s %s vectors\n", seen, tag, name);
    assert_true(seen > 0);
    assert_int_equal(oracle_failures() - before, 0);
}

static int ec_bits(const uint64_t *k)
{
    for (int w = EC_WORDS - 1; w >= 0; w--)
        if (k[w])
            return 64 * w + 64 - __builtin_clzll(k[w]);
    return 0;
}

/* r = a + b over EC_WORDS words (no overflow: both are below 2^256) */
static void ec_scalar_add(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    unsigned __int128 c = 0;
    for (int i = 0; i < EC_WORDS; i++) {
        c += (unsigned __int128)a[i] + b[i];
        r[i] = (uint64_t)c;
        c >>= 64;
    }
}

static int ec_scalar(uint64_t *k, const oracle_line *ln, int idx)
{
    int bits = oracle_hex(k, EC_WORDS, ln->tok[idx]);
    if (bits < 0)
        oracle_fail(ln, "scalar", "token %d is not a scalar below 2^%d", idx, 64 * EC_WORDS);
    return bits;
}

/* G: group prefix; F: coordinate field (Fp or Fp2); B: its prime field;
 * K: Fp coefficients per coordinate; BCONST: the curve's b in constants.h. */
#define EC_GROUP_TESTS(G, F, B, K, BCONST)                                                         \
    _Static_assert(sizeof(G##_affine) == 2 * K * sizeof(B), "affine point is 2K Fp, unpadded");    \
                                                                                                   \
    static int G##_load(G##_affine *p, const oracle_line *ln, int *pos)                            \
    {                                                                                              \
        B v[2 * K];                                                                                \
        if (B##_oracle_load(v, 2 * K, ln, pos) < 0)                                                \
            return -1;                                                                             \
        memcpy(p, v, sizeof(*p));                                                                  \
        return 0;                                                                                  \
    }                                                                                              \
    static void G##_expect(const G##_affine *p, const oracle_line *ln, int *pos, const char *what) \
    {                                                                                              \
        B v[2 * K];                                                                                \
        memcpy(v, p, sizeof(*p));                                                                  \
        B##_oracle_expect(v, 2 * K, ln, pos, what);                                                \
    }                                                                                              \
    static void G##_rand_coord(F *c)                                                               \
    {                                                                                              \
        B v[K];                                                                                    \
        for (int i = 0; i < K; i++)                                                                \
            oracle_rand_below(v[i].l, B##_MODULUS, B##_LIMBS_N);                                   \
        memcpy(c, v, sizeof(*c));                                                                  \
    }                                                                                              \
    /* A random representative (l^2 x, l^3 y, l) of a; for infinity, random x, y and z = 0. */     \
    static __attribute__((noinline)) void G##_scaled(G##_jac *r, const G##_affine *a)              \
    {                                                                                              \
        F l, t;                                                                                    \
        if (G##_affine_is_inf(a)) {                                                                \
            G##_rand_coord(&r->x);                                                                 \
            G##_rand_coord(&r->y);                                                                 \
            memset(&r->z, 0, sizeof(r->z));                                                        \
            return;                                                                                \
        }                                                                                          \
        do                                                                                         \
            G##_rand_coord(&l);                                                                    \
        while (F##_is_zero(&l));                                                                   \
        F##_sqr(&t, &l);                                                                           \
        F##_mul(&r->x, &a->x, &t);                                                                 \
        F##_mul(&t, &t, &l);                                                                       \
        F##_mul(&r->y, &a->y, &t);                                                                 \
        r->z = l;                                                                                  \
    }                                                                                              \
    /* r = [k] generator, k of EC_WORDS words */                                                   \
    static void G##_gen_mul(G##_jac *r, const uint64_t *k)                                         \
    {                                                                                              \
        G##_affine g;                                                                              \
        G##_jac j;                                                                                 \
        G##_generator(&g);                                                                         \
        G##_jac_from_affine(&j, &g);                                                               \
        G##_jac_mul_var(r, &j, k, ec_bits(k));                                                     \
    }                                                                                              \
    static int G##_aff_eq(const G##_affine *a, const G##_affine *b)                                \
    {                                                                                              \
        return memcmp(a, b, sizeof(*a)) == 0;                                                      \
    }                                                                                              \
                                                                                                   \
    /* GEN group x y: the published generator, on the curve, of order r */                         \
    static void G##_check_gen(const oracle_line *ln)                                               \
    {                                                                                              \
        G##_affine g;                                                                              \
        int pos = 2;                                                                               \
        G##_generator(&g);                                                                         \
        G##_expect(&g, ln, &pos, "generator() coordinates");                                       \
        EC_EXPECT(!G##_affine_is_inf(&g), ln, "generator is infinity");                            \
        EC_EXPECT(G##_affine_on_curve(&g), ln, "generator off the curve");                         \
        EC_EXPECT(G##_affine_in_subgroup(&g), ln, "generator outside the subgroup");               \
    }                                                                                              \
                                                                                                   \
    /* CURVEB group b: the curve constant (G2: the twist's b') */                                  \
    static void G##_check_b(const oracle_line *ln)                                                 \
    {                                                                                              \
        _Static_assert(sizeof(BCONST) == K * sizeof(B), #BCONST " is one coordinate");             \
        B v[K];                                                                                    \
        int pos = 2;                                                                               \
        memcpy(v, BCONST, sizeof(v));                                                              \
        B##_oracle_expect(v, K, ln, &pos, #BCONST);                                                \
    }                                                                                              \
                                                                                                   \
    /* G group k x y: [k]G, also with leading zero bits and from a scaled base */                  \
    static void G##_check_mul(const oracle_line *ln)                                               \
    {                                                                                              \
        uint64_t k[EC_WORDS];                                                                      \
        G##_affine g, got;                                                                         \
        G##_jac j, r, t;                                                                           \
        int pos = 3, bits = ec_scalar(k, ln, 2);                                                   \
        if (bits < 0)                                                                              \
            return;                                                                                \
        G##_generator(&g);                                                                         \
        G##_jac_from_affine(&j, &g);                                                               \
        G##_jac_mul_var(&r, &j, k, bits);                                                          \
        G##_jac_to_affine(&got, &r);                                                               \
        G##_expect(&got, ln, &pos, "jac_mul_var(G, k) then jac_to_affine");                        \
        EC_EXPECT(G##_affine_on_curve(&got), ln, "[k]G off the curve");                            \
        G##_jac_mul_var(&t, &j, k, 64 * EC_WORDS);                                                 \
        EC_EXPECT(G##_jac_eq(&t, &r), ln, "jac_mul_var with %d leading zero bits",                 \
                  64 * EC_WORDS - bits);                                                           \
        G##_jac_mul_secret(&t, &j, k, 64 * EC_WORDS);                                              \
        EC_EXPECT(G##_jac_eq(&t, &r), ln, "jac_mul_secret (complete formulas)");                   \
        G##_scaled(&j, &g);                                                                        \
        G##_jac_mul_var(&t, &j, k, bits);                                                          \
        EC_EXPECT(G##_jac_eq(&t, &r), ln, "jac_mul_var from a base with Z != 1");                  \
        G##_jac_mul_secret(&t, &j, k, 64 * EC_WORDS);                                              \
        EC_EXPECT(G##_jac_eq(&t, &r), ln, "jac_mul_secret from a base with Z != 1");               \
    }                                                                                              \
                                                                                                   \
    /* GAB group a b c, c = ab mod r: [a][b]G = [b][a]G = [c]G */                                  \
    static void G##_check_ab(const oracle_line *ln)                                                \
    {                                                                                              \
        uint64_t a[EC_WORDS], b[EC_WORDS], c[EC_WORDS];                                            \
        G##_jac ab, ba, cg;                                                                        \
        if (ec_scalar(a, ln, 2) < 0 || ec_scalar(b, ln, 3) < 0 || ec_scalar(c, ln, 4) < 0)         \
            return;                                                                                \
        G##_gen_mul(&ab, b);                                                                       \
        G##_jac_mul_var(&ab, &ab, a, ec_bits(a));                                                  \
        G##_gen_mul(&ba, a);                                                                       \
        G##_jac_mul_var(&ba, &ba, b, ec_bits(b));                                                  \
        G##_gen_mul(&cg, c);                                                                       \
        EC_EXPECT(G##_jac_eq(&ab, &cg), ln, "[a][b]G != [ab]G");                                   \
        EC_EXPECT(G##_jac_eq(&ba, &cg), ln, "[b][a]G != [ab]G");                                   \
    }                                                                                              \
                                                                                                   \
    /* OFF group x y */                                                                            \
    static void G##_check_off(const oracle_line *ln)                                               \
    {                                                                                              \
        G##_affine p;                                                                              \
        int pos = 2;                                                                               \
        if (G##_load(&p, ln, &pos) == 0)                                                           \
            EC_EXPECT(!G##_affine_on_curve(&p), ln, "a point off the curve is accepted");          \
    }                                                                                              \
                                                                                                   \
    /* PT group s x y: on the curve; in the subgroup iff s */                                      \
    static void G##_check_pt(const oracle_line *ln)                                                \
    {                                                                                              \
        G##_affine p;                                                                              \
        int pos = 3, s = ln->tok[2][0] == '1';                                                     \
        if (G##_load(&p, ln, &pos) < 0)                                                            \
            return;                                                                                \
        EC_EXPECT(G##_affine_on_curve(&p), ln, "a point on the curve is rejected");                \
        EC_EXPECT(G##_affine_in_subgroup(&p) == s, ln, "affine_in_subgroup should be %d", s);      \
    }                                                                                              \
                                                                                                   \
    /* Non-infinity multiples of G from the oracle's G lines, and their k: the                     \
     * EC_POOL_SPECIAL (G, 2G, -G, (r+1)G), then some spread over the rest. */                     \
    static int G##_pool(G##_affine *pts, uint64_t (*ks)[EC_WORDS])                                 \
    {                                                                                              \
        G##_affine all[64];                                                                        \
        uint64_t allk[64][EC_WORDS];                                                               \
        static const int special[EC_POOL_SPECIAL] = {0, 1, 4, 6}; /* k = 1, 2, r-1, r+1 */         \
        int n = 0, m = 0;                                                                          \
        for (size_t i = 0; i < ec_vec.n && n < 64; i++) {                                          \
            const oracle_line *ln = &ec_vec.line[i];                                               \
            int pos = 3;                                                                           \
            if (!oracle_is(ln, "G", #G) || ln->ntok != 3 + 2 * K || ec_scalar(allk[n], ln, 2) < 0) \
                continue;                                                                          \
            if (G##_load(&all[n], ln, &pos) == 0 && !G##_affine_is_inf(&all[n]))                   \
                n++;                                                                               \
        }                                                                                          \
        for (int i = 0; i < EC_POOL; i++) {                                                        \
            int rest = (i - EC_POOL_SPECIAL) * (n - EC_POOL_REST) / (EC_POOL - EC_POOL_SPECIAL);   \
            int src = i < EC_POOL_SPECIAL ? special[i] : EC_POOL_REST + rest;                      \
            if (src < 0 || src >= n)                                                               \
                continue;                                                                          \
            pts[m] = all[src];                                                                     \
            memcpy(ks[m++], allk[src], sizeof(allk[src]));                                         \
        }                                                                                          \
        return m;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* ORDER group r: [r]P = infinity for P in the pool, [r-1]G = -G, [r+1]G = G */                \
    static void G##_check_order(const oracle_line *ln)                                             \
    {                                                                                              \
        uint64_t r[EC_WORDS], rm1[EC_WORDS], rp1[EC_WORDS], one[EC_WORDS] = {1};                   \
        G##_affine pts[EC_POOL], g, ng;                                                            \
        uint64_t ks[EC_POOL][EC_WORDS];                                                            \
        G##_jac j, t;                                                                              \
        if (ec_scalar(r, ln, 2) < 0)                                                               \
            return;                                                                                \
        int n = G##_pool(pts, ks);                                                                 \
        EC_EXPECT(n > 0, ln, "no points in the pool");                                             \
        for (int i = 0; i < n; i++) {                                                              \
            G##_scaled(&j, &pts[i]);                                                               \
            G##_jac_mul_var(&t, &j, r, ec_bits(r));                                                \
            EC_EXPECT(G##_jac_is_inf(&t), ln, "[r]P is not infinity for pool point %d", i);        \
        }                                                                                          \
        memcpy(rm1, r, sizeof(r));                                                                 \
        rm1[0] ^= 1; /* r is odd */                                                                \
        ec_scalar_add(rp1, r, one);                                                                \
        G##_generator(&g);                                                                         \
        G##_affine_neg(&ng, &g);                                                                   \
        G##_jac_from_affine(&j, &ng);                                                              \
        G##_gen_mul(&t, rm1);                                                                      \
        EC_EXPECT(G##_jac_eq(&t, &j), ln, "[r-1]G != -G");                                         \
        G##_jac_from_affine(&j, &g);                                                               \
        G##_gen_mul(&t, rp1);                                                                      \
        EC_EXPECT(G##_jac_eq(&t, &j), ln, "[r+1]G != G");                                          \
    }                                                                                              \
                                                                                                   \
    static void test_##G##_generator(void **state)                                                 \
    {                                                                                              \
        (void)state;                                                                               \
        ec_replay("GEN", #G, 2 + 2 * K, G##_check_gen);                                            \
        ec_replay("CURVEB", #G, 2 + K, G##_check_b);                                               \
    }                                                                                              \
    static void test_##G##_mul_oracle(void **state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        ec_replay("G", #G, 3 + 2 * K, G##_check_mul);                                              \
    }                                                                                              \
    static void test_##G##_mul_ab(void **state)                                                    \
    {                                                                                              \
        (void)state;                                                                               \
        ec_replay("GAB", #G, 5, G##_check_ab);                                                     \
    }                                                                                              \
    static void test_##G##_order(void **state)                                                     \
    {                                                                                              \
        (void)state;                                                                               \
        ec_replay("ORDER", #G, 3, G##_check_order);                                                \
    }                                                                                              \
    static void test_##G##_membership(void **state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        G##_affine inf;                                                                            \
        G##_affine_set_inf(&inf);                                                                  \
        EC_EXPECT(G##_affine_on_curve(&inf) && G##_affine_in_subgroup(&inf), NULL,                 \
                  #G ": infinity counts as on the curve and in the subgroup");                     \
        ec_replay("OFF", #G, 2 + 2 * K, G##_check_off);                                            \
        ec_replay("PT", #G, 3 + 2 * K, G##_check_pt);                                              \
    }                                                                                              \
                                                                                                   \
    /* One pair of the pool: P + Q against [kp + kq]G by every addition path,                      \
     * with outputs aliasing inputs, both orders, and each operand scaled. */                      \
    static void G##_check_sum(const G##_affine *p, const uint64_t *kp, const G##_affine *q,        \
                              const uint64_t *kq, int i, int j)                                    \
    {                                                                                              \
        uint64_t ks[EC_WORDS];                                                                     \
        G##_jac want, pj, qj, s, t;                                                                \
        G##_affine sa;                                                                             \
        ec_scalar_add(ks, kp, kq);                                                                 \
        G##_gen_mul(&want, ks);                                                                    \
        G##_scaled(&pj, p);                                                                        \
        G##_scaled(&qj, q);                                                                        \
        G##_jac_add_var(&s, &pj, &qj);                                                                 \
        EC_EXPECT(G##_jac_eq(&s, &want), NULL, #G " jac_add, pool %d + %d", i, j);                 \
        G##_jac_add_var(&s, &qj, &pj);                                                                 \
        EC_EXPECT(G##_jac_eq(&s, &want), NULL, #G " jac_add commuted, pool %d + %d", i, j);        \
        G##_jac_add_affine_var(&s, &pj, q);                                                            \
        EC_EXPECT(G##_jac_eq(&s, &want), NULL, #G " jac_add_affine, pool %d + %d", i, j);          \
        t = pj;                                                                                    \
        G##_jac_add_var(&t, &t, &qj);                                                                  \
        EC_EXPECT(G##_jac_eq(&t, &want), NULL, #G " jac_add r = p, pool %d + %d", i, j);           \
        t = qj;                                                                                    \
        G##_jac_add_var(&t, &pj, &t);                                                                  \
        EC_EXPECT(G##_jac_eq(&t, &want), NULL, #G " jac_add r = q, pool %d + %d", i, j);           \
        t = pj;                                                                                    \
        G##_jac_add_affine_var(&t, &t, q);                                                             \
        EC_EXPECT(G##_jac_eq(&t, &want), NULL, #G " jac_add_affine r = p, pool %d + %d", i, j);    \
        G##_jac_to_affine(&sa, &s);                                                                \
        EC_EXPECT(G##_affine_on_curve(&sa), NULL, #G " sum off the curve, pool %d + %d", i, j);    \
        EC_EXPECT(G##_jac_eq(&pj, &qj) == G##_aff_eq(p, q), NULL, #G " jac_eq, pool %d, %d", i,    \
                  j);                                                                              \
    }                                                                                              \
                                                                                                   \
    /* One point: doubling, negation, infinity on either side. */                                  \
    static void G##_check_point(const G##_affine *p, const uint64_t *kp, int i)                    \
    {                                                                                              \
        uint64_t k2[EC_WORDS];                                                                     \
        G##_jac want, pj, pj2, s, t, inf;                                                          \
        G##_affine np, ainf;                                                                       \
        ec_scalar_add(k2, kp, kp);                                                                 \
        G##_gen_mul(&want, k2);                                                                    \
        G##_scaled(&pj, p);                                                                        \
        G##_scaled(&pj2, p);                                                                       \
        EC_EXPECT(G##_jac_eq(&pj, &pj2), NULL, #G " jac_eq of two scalings, pool %d", i);          \
        G##_jac_dbl_var(&s, &pj);                                                                      \
        EC_EXPECT(G##_jac_eq(&s, &want), NULL, #G " jac_dbl, pool %d", i);                         \
        t = pj;                                                                                    \
        G##_jac_dbl_var(&t, &t);                                                                       \
        EC_EXPECT(G##_jac_eq(&t, &want), NULL, #G " jac_dbl in place, pool %d", i);                \
        G##_jac_add_var(&s, &pj, &pj2);                                                                \
        EC_EXPECT(G##_jac_eq(&s, &want), NULL, #G " jac_add(P, P), pool %d", i);                   \
        G##_jac_add_var(&s, &pj, &pj);                                                                 \
        EC_EXPECT(G##_jac_eq(&s, &want), NULL, #G " jac_add(P, P) same pointer, pool %d", i);      \
        G##_jac_add_affine_var(&s, &pj, p);                                                            \
        EC_EXPECT(G##_jac_eq(&s, &want), NULL, #G " jac_add_affine(P, P), pool %d", i);            \
        G##_affine_neg(&np, p);                                                                    \
        G##_jac_add_affine_var(&s, &pj, &np);                                                          \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " jac_add_affine(P, -P), pool %d", i);              \
        G##_jac_neg(&t, &pj2);                                                                     \
        G##_jac_add_var(&s, &pj, &t);                                                                  \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " jac_add(P, -P), pool %d", i);                     \
        G##_affine_set_inf(&ainf);                                                                 \
        G##_scaled(&inf, &ainf); /* z = 0, x and y arbitrary */                                    \
        G##_jac_add_var(&s, &inf, &pj);                                                                \
        EC_EXPECT(G##_jac_eq(&s, &pj), NULL, #G " jac_add(inf, P), pool %d", i);                   \
        G##_jac_add_var(&s, &pj, &inf);                                                                \
        EC_EXPECT(G##_jac_eq(&s, &pj), NULL, #G " jac_add(P, inf), pool %d", i);                   \
        G##_jac_add_affine_var(&s, &inf, p);                                                           \
        EC_EXPECT(G##_jac_eq(&s, &pj), NULL, #G " jac_add_affine(inf, P), pool %d", i);            \
        G##_jac_add_affine_var(&s, &pj, &ainf);                                                        \
        EC_EXPECT(G##_jac_eq(&s, &pj), NULL, #G " jac_add_affine(P, inf), pool %d", i);            \
        G##_jac_add_var(&s, &inf, &inf);                                                               \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " jac_add(inf, inf)");                              \
        G##_jac_dbl_var(&s, &inf);                                                                     \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " jac_dbl(inf)");                                   \
        EC_EXPECT(!G##_jac_eq(&pj, &inf) && !G##_jac_eq(&inf, &pj), NULL, #G " jac_eq(P, inf)");   \
        EC_EXPECT(G##_jac_eq(&inf, &inf), NULL, #G " jac_eq(inf, inf)");                           \
        G##_jac_mul_var(&s, &inf, kp, ec_bits(kp));                                                \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " [k]inf, pool %d", i);                             \
        G##_jac_mul_var(&s, &pj, kp, 0);                                                           \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " [0]P with no scalar bits, pool %d", i);           \
        G##_jac_mul_secret(&s, &inf, kp, 64 * EC_WORDS);                                           \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " jac_mul_secret([k]inf), pool %d", i);             \
        G##_jac_mul_secret(&s, &pj, kp, 0);                                                        \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " jac_mul_secret with no scalar bits, pool %d", i); \
        G##_affine_neg(&np, &ainf);                                                                \
        EC_EXPECT(G##_affine_is_inf(&np), NULL, #G " affine_neg(inf)");                            \
        G##_jac_from_affine(&s, &ainf);                                                            \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " jac_from_affine(inf)");                           \
        G##_jac_add_affine_var(&s, &inf, &ainf);                                                       \
        EC_EXPECT(G##_jac_is_inf(&s), NULL, #G " jac_add_affine(inf, inf)");                       \
        t = pj;                                                                                    \
        G##_jac_add_var(&t, &t, &t);                                                                   \
        EC_EXPECT(G##_jac_eq(&t, &want), NULL, #G " jac_add(P, P) all aliased, pool %d", i);       \
    }                                                                                              \
                                                                                                   \
    static void test_##G##_group_law(void **state)                                                 \
    {                                                                                              \
        (void)state;                                                                               \
        unsigned long before = oracle_failures();                                                  \
        G##_affine pts[EC_POOL];                                                                   \
        uint64_t ks[EC_POOL][EC_WORDS];                                                            \
        int n = G##_pool(pts, ks);                                                                 \
        assert_true(n >= EC_POOL_SPECIAL);                                                         \
        for (int i = 0; i < n; i++) {                                                              \
            G##_check_point(&pts[i], ks[i], i);                                                    \
            for (int j = 0; j < n; j++)                                                            \
                G##_check_sum(&pts[i], ks[i], &pts[j], ks[j], i, j);                               \
        }                                                                                          \
        for (int i = 0; i + 2 < n; i++) { /* (P + Q) + R = P + (Q + R) */                          \
            G##_jac p, q, r, l, rr;                                                                \
            G##_scaled(&p, &pts[i]);                                                               \
            G##_scaled(&q, &pts[i + 1]);                                                           \
            G##_scaled(&r, &pts[i + 2]);                                                           \
            G##_jac_add_var(&l, &p, &q);                                                               \
            G##_jac_add_var(&l, &l, &r);                                                               \
            G##_jac_add_var(&rr, &q, &r);                                                              \
            G##_jac_add_var(&rr, &p, &rr);                                                             \
            EC_EXPECT(G##_jac_eq(&l, &rr), NULL, #G " associativity, pool %d", i);                 \
        }                                                                                          \
        assert_int_equal(oracle_failures() - before, 0);                                           \
    }                                                                                              \
                                                                                                   \
    /* batch_to_affine of in[0..len) against to_affine of each */                                  \
    static __attribute__((noinline)) void G##_check_batch(const G##_jac *in, int len, int off)     \
    {                                                                                              \
        G##_affine got[EC_BATCH], want;                                                            \
        F scratch[EC_BATCH];                                                                       \
        memset(got, 0x5a, sizeof(got));                                                            \
        G##_jac_batch_to_affine(got, in, (size_t)len, scratch);                                    \
        for (int i = 0; i < len; i++) {                                                            \
            G##_jac_to_affine(&want, &in[i]);                                                      \
            EC_EXPECT(G##_aff_eq(&got[i], &want), NULL,                                            \
                      #G " batch_to_affine of %d points from %d, entry %d", len, off, i);          \
            EC_EXPECT(G##_affine_on_curve(&got[i]), NULL, #G " batch entry %d off curve", i);      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* batch_to_affine with infinities (garbage x, y) mixed in; all, one, none */                  \
    static void test_##G##_batch_to_affine(void **state)                                           \
    {                                                                                              \
        (void)state;                                                                               \
        unsigned long before = oracle_failures();                                                  \
        G##_affine pts[EC_POOL], inf;                                                              \
        uint64_t ks[EC_POOL][EC_WORDS];                                                            \
        G##_jac in[EC_BATCH];                                                                      \
        int n = G##_pool(pts, ks);                                                                 \
        assert_true(n > 0);                                                                        \
        G##_affine_set_inf(&inf);                                                                  \
        /* {offset, length}: all, one finite, one infinity, a run of infinities, none */           \
        static const int sizes[][2] = {{0, EC_BATCH}, {1, 1}, {0, 1}, {4, 1}, {8, 3}, {0, 0}};     \
        for (int i = 0; i < EC_BATCH; i++) {                                                       \
            int is_inf = i % 4 == 0 || i == EC_BATCH - 1 || (i >= 8 && i < 11);                    \
            G##_scaled(&in[i], is_inf ? &inf : &pts[i % n]);                                       \
        }                                                                                          \
        for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)                              \
            G##_check_batch(in + sizes[c][0], sizes[c][1], sizes[c][0]);                           \
        assert_int_equal(oracle_failures() - before, 0);                                           \
    }

EC_GROUP_TESTS(bn254_g1, bn254_fp, bn254_fp, 1, bn254_fp_b)
EC_GROUP_TESTS(bn254_g2, bn254_fp2, bn254_fp, 2, bn254_fp2_twist_b)
EC_GROUP_TESTS(bls12_381_g1, bls12_381_fp, bls12_381_fp, 1, bls12_381_fp_b)
EC_GROUP_TESTS(bls12_381_g2, bls12_381_fp2, bls12_381_fp, 2, bls12_381_fp2_twist_b)

#define EC_ENTRIES(G)                                                                              \
    cmocka_unit_test(test_##G##_generator), cmocka_unit_test(test_##G##_mul_oracle),               \
        cmocka_unit_test(test_##G##_mul_ab), cmocka_unit_test(test_##G##_order),                   \
        cmocka_unit_test(test_##G##_membership), cmocka_unit_test(test_##G##_group_law),           \
        cmocka_unit_test(test_##G##_batch_to_affine)

int main(void)
{
    char err[512];
    unsigned long seed = oracle_env_seed(EC_DEFAULT_SEED);
    oracle_rng_seed(seed);
    fprintf(stderr, "test_ec: seed %lu (set CUZK_ORACLE_SEED to change)\n", seed);
    if (oracle_load(&ec_vec, seed, EC_ORACLE_COUNT, "ec", err, sizeof(err)) < 0) {
        fprintf(stderr, "test_ec: FAILED: %s\n", err);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        EC_ENTRIES(bn254_g1),
        EC_ENTRIES(bn254_g2),
        EC_ENTRIES(bls12_381_g1),
        EC_ENTRIES(bls12_381_g2),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    oracle_free(&ec_vec);
    return failed ? 1 : 0;
}
