/* Prime fields and the Fp2/Fp6/Fp12 towers against tools/ff_oracle.py (Python
 * integers), plus algebraic properties on random elements.
 *
 * Every vector the oracle writes is replayed through the library in
 * Montgomery form and converted back with from_mont; results must also be
 * canonical (< m), which a plain comparison after from_mont would not catch.
 * Reproduce a failure with CUZK_ORACLE_SEED=<seed printed at start>. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ff/field29.h"
#include "ff/field52.h"
#include "ff/mont52.h"
#include "ff/tower.h"
#include "oracle_io.h"

#ifdef CUZK_VERIFY /* sanitizer build: fewer vectors, same coverage of edges */
#define FF_ORACLE_COUNT 48
#define FF_PROP_ITERS 150
#else
#define FF_ORACLE_COUNT 256
#define FF_PROP_ITERS 2000
#endif
#define FF_DEFAULT_SEED 20240601UL

static oracle_set ff_vec;

/* r = op(a, b) computed again with r aliasing a, then b; both must agree with want */
#define FF_CHECK_ALIAS2(T, EQ, OP, want, a, b, ln, what)                                           \
    do {                                                                                           \
        T al_ = (a);                                                                               \
        OP(&al_, &al_, &(b));                                                                      \
        if (!EQ(&al_, &(want)))                                                                    \
            oracle_fail(ln, what, "result differs when the output aliases the first input");       \
        al_ = (b);                                                                                 \
        OP(&al_, &(a), &al_);                                                                      \
        if (!EQ(&al_, &(want)))                                                                    \
            oracle_fail(ln, what, "result differs when the output aliases the second input");      \
    } while (0)

#define FF_CHECK_ALIAS1(T, EQ, OP, want, a, ln, what)                                              \
    do {                                                                                           \
        T al_ = (a);                                                                               \
        OP(&al_, &al_);                                                                            \
        if (!EQ(&al_, &(want)))                                                                    \
            oracle_fail(ln, what, "result differs when computed in place");                        \
    } while (0)

#define FF_EXPECT(cond, ln, ...)                                                                   \
    do {                                                                                           \
        if (!(cond))                                                                               \
            oracle_fail(ln, #cond, __VA_ARGS__);                                                   \
    } while (0)

/* Out-of-line copies of the library's always-inline operations: the checks
 * below call each many times, and inlining them all makes this file take
 * minutes to compile. */
#define FF_WRAP2(T, OP)                                                                            \
    static __attribute__((noinline)) void w_##OP(T *r, const T *a) { OP(r, a); }
#define FF_WRAP3(T, OP)                                                                            \
    static __attribute__((noinline)) void w_##OP(T *r, const T *a, const T *b) { OP(r, a, b); }
#define FF_WRAP_POW(T, OP)                                                                         \
    static __attribute__((noinline)) void w_##OP(T *r, const T *a, const uint64_t *e, int bits)    \
    {                                                                                              \
        OP(r, a, e, bits);                                                                         \
    }

/* Runs check on every oracle line with tag and name; asserts that there were
 * some and that no check failed. */
static void ff_replay(const char *tag, const char *name, int ntok,
                      void (*check)(const oracle_line *ln))
{
    unsigned long before = oracle_failures();
    size_t seen = oracle_replay(&ff_vec, tag, name, ntok, check);
    print_message("%zu %s %s vectors\n", seen, tag, name);
    assert_true(seen > 0);
    assert_int_equal(oracle_failures() - before, 0);
}

/* ---- prime fields ------------------------------------------------------ */

#define FF_FIELD_TESTS(F)                                                                          \
    ORACLE_FIELD_IO(F)                                                                             \
    FF_WRAP3(F, F##_add) FF_WRAP3(F, F##_sub) FF_WRAP3(F, F##_mul) FF_WRAP2(F, F##_neg)            \
    FF_WRAP2(F, F##_dbl) FF_WRAP2(F, F##_sqr) FF_WRAP2(F, F##_inv) FF_WRAP_POW(F, F##_pow)         \
    FF_WRAP2(F, F##_to_mont) FF_WRAP2(F, F##_from_mont)                                            \
                                                                                                   \
    static void F##_rand(F *r) { oracle_rand_below(r->l, F##_MODULUS, F##_LIMBS_N); }              \
                                                                                                   \
    /* F name a b a+b a-b -a 2a a*b a^2 a^-1 e a^e a*R */                                          \
    static void F##_check_line(const oracle_line *ln)                                              \
    {                                                                                              \
        F x[2], r, an, bn;                                                                         \
        uint64_t e[F##_LIMBS_N];                                                                   \
        int pos = 2;                                                                               \
        if (F##_oracle_load(x, 2, ln, &pos) < 0)                                                   \
            return;                                                                                \
        const F a = x[0], b = x[1];                                                                \
        oracle_hex(an.l, F##_LIMBS_N, ln->tok[2]);                                                 \
        oracle_hex(bn.l, F##_LIMBS_N, ln->tok[3]);                                                 \
        w_##F##_add(&r, &a, &b);                                                                   \
        F##_oracle_expect(&r, 1, ln, &pos, "add");                                                 \
        FF_CHECK_ALIAS2(F, F##_eq, w_##F##_add, r, a, b, ln, "add");                               \
        w_##F##_sub(&r, &a, &b);                                                                   \
        F##_oracle_expect(&r, 1, ln, &pos, "sub");                                                 \
        FF_CHECK_ALIAS2(F, F##_eq, w_##F##_sub, r, a, b, ln, "sub");                               \
        w_##F##_neg(&r, &a);                                                                       \
        F##_oracle_expect(&r, 1, ln, &pos, "neg");                                                 \
        FF_CHECK_ALIAS1(F, F##_eq, w_##F##_neg, r, a, ln, "neg");                                  \
        w_##F##_dbl(&r, &a);                                                                       \
        F##_oracle_expect(&r, 1, ln, &pos, "dbl");                                                 \
        FF_CHECK_ALIAS1(F, F##_eq, w_##F##_dbl, r, a, ln, "dbl");                                  \
        w_##F##_mul(&r, &a, &b);                                                                   \
        F##_oracle_expect(&r, 1, ln, &pos, "mul");                                                 \
        FF_CHECK_ALIAS2(F, F##_eq, w_##F##_mul, r, a, b, ln, "mul");                               \
        w_##F##_sqr(&r, &a);                                                                       \
        F##_oracle_expect(&r, 1, ln, &pos, "sqr");                                                 \
        FF_CHECK_ALIAS1(F, F##_eq, w_##F##_sqr, r, a, ln, "sqr");                                  \
        w_##F##_inv(&r, &a);                                                                       \
        F##_oracle_expect(&r, 1, ln, &pos, "inv");                                                 \
        FF_CHECK_ALIAS1(F, F##_eq, w_##F##_inv, r, a, ln, "inv");                                  \
        int ebits = oracle_hex(e, F##_LIMBS_N, ln->tok[pos++]);                                    \
        if (ebits < 0) {                                                                           \
            oracle_fail(ln, "pow", "exponent token is not below 2^%d", 64 * F##_LIMBS_N);          \
            return;                                                                                \
        }                                                                                          \
        w_##F##_pow(&r, &a, e, ebits);                                                             \
        F##_oracle_expect(&r, 1, ln, &pos, "pow");                                                 \
        F t;                                                                                       \
        w_##F##_pow(&t, &a, e, 64 * F##_LIMBS_N); /* leading zero bits change nothing */           \
        FF_EXPECT(F##_eq(&t, &r), ln, "pow with %d leading zero bits", 64 * F##_LIMBS_N - ebits);  \
        F am;                                                                                      \
        FF_EXPECT(oracle_hex(am.l, F##_LIMBS_N, ln->tok[pos]) >= 0, ln, "a*R token");              \
        FF_EXPECT(F##_eq(&a, &am), ln, "to_mont(a) != a*R mod m");                                 \
        pos = 2;                                                                                   \
        F##_oracle_expect(&a, 1, ln, &pos, "from_mont(to_mont(a))");                               \
        w_##F##_from_mont(&t, &a);                                                                 \
        w_##F##_to_mont(&t, &t);                                                                   \
        FF_EXPECT(F##_eq(&t, &a), ln, "to_mont(from_mont(x)) != x");                               \
        F one;                                                                                     \
        F##_set_one(&one);                                                                         \
        FF_EXPECT(F##_is_zero(&a) == mont_is_zero(an.l, F##_LIMBS_N), ln, "is_zero");              \
        FF_EXPECT(F##_eq(&a, &b) == F##_eq(&an, &bn), ln, "eq");                                   \
        FF_EXPECT(F##_is_one(&a) == F##_eq(&a, &one), ln, "is_one");                               \
        FF_EXPECT(F##_is_canonical(&an) && F##_is_canonical(&a), ln, "is_canonical(a)");           \
    }                                                                                              \
                                                                                                   \
    static void test_##F##_oracle(void **state)                                                    \
    {                                                                                              \
        (void)state;                                                                               \
        ff_replay("F", #F, 14, F##_check_line);                                                    \
    }                                                                                              \
                                                                                                   \
    /* MOD field m: the modulus, is_canonical at its boundary, one, from_u64 */                    \
    static void F##_check_mod(const oracle_line *ln)                                               \
    {                                                                                              \
        F m, t;                                                                                    \
        FF_EXPECT(oracle_hex(m.l, F##_LIMBS_N, ln->tok[2]) > 0, ln, "modulus token");              \
        FF_EXPECT(memcmp(m.l, F##_MODULUS, sizeof(m.l)) == 0, ln, "F_MODULUS differs");            \
        FF_EXPECT(!F##_is_canonical(&m), ln, "m is not canonical");                                \
        t = m;                                                                                     \
        t.l[0] -= 1; /* no moduli end in a zero word */                                            \
        FF_EXPECT(F##_is_canonical(&t), ln, "m - 1 is canonical");                                 \
        t.l[0] += 2;                                                                               \
        FF_EXPECT(!F##_is_canonical(&t), ln, "m + 1 is not canonical");                            \
        memset(t.l, 0xff, sizeof(t.l));                                                            \
        FF_EXPECT(!F##_is_canonical(&t), ln, "2^(64n) - 1 is not canonical");                      \
        F##_set_zero(&t);                                                                          \
        FF_EXPECT(F##_is_canonical(&t) && F##_is_zero(&t), ln, "zero");                            \
        F##_set_one(&t);                                                                           \
        w_##F##_from_mont(&t, &t);                                                                 \
        FF_EXPECT(t.l[0] == 1 && mont_is_zero(t.l + 1, F##_LIMBS_N - 1), ln, "one is 1");          \
        static const uint64_t fixed[] = {0, 1, 2, ~0ULL};                                          \
        for (int i = 0; i < 64; i++) {                                                             \
            uint64_t v = i < 4 ? fixed[i] : oracle_rand64() >> (oracle_rand64() & 63);             \
            F##_from_u64(&t, v);                                                                   \
            w_##F##_from_mont(&t, &t);                                                             \
            FF_EXPECT(t.l[0] == v && mont_is_zero(t.l + 1, F##_LIMBS_N - 1), ln,                   \
                      "from_u64(0x%llx)", (unsigned long long)v);                                  \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void test_##F##_modulus(void **state)                                                   \
    {                                                                                              \
        (void)state;                                                                               \
        ff_replay("MOD", #F, 3, F##_check_mod);                                                    \
    }                                                                                              \
                                                                                                   \
    static void test_##F##_properties(void **state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        unsigned long before = oracle_failures();                                                  \
        F one, zero;                                                                               \
        F##_set_one(&one);                                                                         \
        F##_set_zero(&zero);                                                                       \
        for (int it = 0; it < FF_PROP_ITERS; it++) {                                               \
            F a, b, c, l, r, t;                                                                    \
            F##_rand(&a);                                                                          \
            F##_rand(&b);                                                                          \
            F##_rand(&c);                                                                          \
            w_##F##_mul(&l, &a, &b); /* (a b) c = a (b c) */                                       \
            w_##F##_mul(&l, &l, &c);                                                               \
            w_##F##_mul(&r, &b, &c);                                                               \
            w_##F##_mul(&r, &a, &r);                                                               \
            FF_EXPECT(F##_eq(&l, &r), NULL, #F " iteration %d", it);                               \
            w_##F##_add(&t, &b, &c); /* a (b + c) = a b + a c */                                   \
            w_##F##_mul(&l, &a, &t);                                                               \
            w_##F##_mul(&r, &a, &b);                                                               \
            w_##F##_mul(&t, &a, &c);                                                               \
            w_##F##_add(&r, &r, &t);                                                               \
            FF_EXPECT(F##_eq(&l, &r), NULL, #F " iteration %d", it);                               \
            w_##F##_mul(&l, &a, &b); /* a b = b a */                                               \
            w_##F##_mul(&r, &b, &a);                                                               \
            FF_EXPECT(F##_eq(&l, &r), NULL, #F " iteration %d", it);                               \
            w_##F##_sub(&t, &a, &b); /* (a - b) + b = a, a + (-a) = 0 */                           \
            w_##F##_add(&t, &t, &b);                                                               \
            FF_EXPECT(F##_eq(&t, &a), NULL, #F " iteration %d", it);                               \
            w_##F##_neg(&t, &a);                                                                   \
            w_##F##_add(&t, &t, &a);                                                               \
            FF_EXPECT(F##_is_zero(&t), NULL, #F " iteration %d", it);                              \
            w_##F##_sqr(&l, &a);                                                                   \
            w_##F##_mul(&r, &a, &a);                                                               \
            FF_EXPECT(F##_eq(&l, &r), NULL, #F " iteration %d", it);                               \
            w_##F##_inv(&t, &a); /* a a^-1 = 1 */                                                  \
            w_##F##_mul(&l, &a, &t);                                                               \
            FF_EXPECT(F##_is_zero(&a) ? F##_is_zero(&t) : F##_is_one(&l), NULL,                    \
                      #F " iteration %d", it);                                                     \
            w_##F##_from_mont(&t, &a); /* both conversions are bijections, mutually inverse */     \
            FF_EXPECT(F##_is_canonical(&t), NULL, #F " iteration %d", it);                         \
            w_##F##_to_mont(&t, &t);                                                               \
            FF_EXPECT(F##_eq(&t, &a), NULL, #F " iteration %d", it);                               \
            w_##F##_to_mont(&t, &a);                                                               \
            w_##F##_from_mont(&t, &t);                                                             \
            FF_EXPECT(F##_eq(&t, &a), NULL, #F " iteration %d", it);                               \
            const F *outs[] = {&l, &r, &t};                                                        \
            for (int k = 0; k < 3; k++)                                                            \
                FF_EXPECT(F##_is_canonical(outs[k]), NULL, #F " iteration %d", it);                \
        }                                                                                          \
        F t;                                                                                       \
        w_##F##_inv(&t, &zero);                                                                    \
        FF_EXPECT(F##_is_zero(&t), NULL, #F " inverse of zero is zero");                           \
        w_##F##_inv(&t, &one);                                                                     \
        FF_EXPECT(F##_is_one(&t), NULL, #F " inverse of one is one");                              \
        assert_int_equal(oracle_failures() - before, 0);                                           \
    }

FF_FIELD_TESTS(bn254_fp)
FF_FIELD_TESTS(bn254_fr)
FF_FIELD_TESTS(bls12_381_fp)
FF_FIELD_TESTS(bls12_381_fr)

/* ROOT field s w: the NTT root of unity constant is w = 5^((r-1)/2^s), and
 * w^(2^(s-1)) = -1, so its order is exactly 2^s. */
#define FF_ROOT_TEST(F, UP)                                                                        \
    static void F##_check_root(const oracle_line *ln)                                              \
    {                                                                                              \
        F w, t, one, mone;                                                                         \
        int pos = 3;                                                                               \
        memcpy(w.l, F##_root_of_unity, sizeof(w.l));                                               \
        FF_EXPECT(atoi(ln->tok[2]) == UP##_TWO_ADICITY, ln, "two-adicity %d", UP##_TWO_ADICITY);   \
        F##_oracle_expect(&w, 1, ln, &pos, #F "_root_of_unity");                                   \
        F##_set_one(&one);                                                                         \
        w_##F##_neg(&mone, &one);                                                                  \
        for (int i = 0; i < UP##_TWO_ADICITY - 1; i++)                                             \
            w_##F##_sqr(&w, &w);                                                                   \
        FF_EXPECT(F##_eq(&w, &mone), ln, "w^(2^(s-1)) != -1");                                     \
        w_##F##_sqr(&t, &w);                                                                       \
        FF_EXPECT(F##_is_one(&t), ln, "w^(2^s) != 1");                                             \
    }                                                                                              \
    static void test_##F##_root_of_unity(void **state)                                             \
    {                                                                                              \
        (void)state;                                                                               \
        ff_replay("ROOT", #F, 4, F##_check_root);                                                  \
    }

FF_ROOT_TEST(bn254_fr, BN254_FR)
FF_ROOT_TEST(bls12_381_fr, BLS12_381_FR)

/* ---- towers --------------------------------------------------------------- */

/* C: curve prefix. Elements travel as arrays of Fp (the struct layout:
 * fp2 {c0, c1}, fp6 {c0, c1, c2}, fp12 {c0, c1}); CYC exponents are p^6 - 1. */
#define FF_TOWER_TESTS(C)                                                                          \
    _Static_assert(sizeof(C##_fp12) == 12 * sizeof(C##_fp), "fp12 is 12 Fp, unpadded");            \
    enum { C##_EXP_WORDS = 6 * C##_fp_LIMBS_N + 1 };                                               \
    FF_WRAP3(C##_fp2, C##_fp2_add) FF_WRAP3(C##_fp2, C##_fp2_sub) FF_WRAP3(C##_fp2, C##_fp2_mul)   \
    FF_WRAP2(C##_fp2, C##_fp2_neg) FF_WRAP2(C##_fp2, C##_fp2_conj) FF_WRAP2(C##_fp2, C##_fp2_sqr)  \
    FF_WRAP2(C##_fp2, C##_fp2_inv) FF_WRAP2(C##_fp2, C##_fp2_mul_xi)                               \
    FF_WRAP_POW(C##_fp2, C##_fp2_pow)                                                              \
    FF_WRAP3(C##_fp6, C##_fp6_add) FF_WRAP3(C##_fp6, C##_fp6_sub) FF_WRAP3(C##_fp6, C##_fp6_mul)   \
    FF_WRAP2(C##_fp6, C##_fp6_neg) FF_WRAP2(C##_fp6, C##_fp6_mul_v) FF_WRAP2(C##_fp6, C##_fp6_inv) \
    FF_WRAP3(C##_fp12, C##_fp12_mul) FF_WRAP2(C##_fp12, C##_fp12_sqr)                              \
    FF_WRAP2(C##_fp12, C##_fp12_inv) FF_WRAP2(C##_fp12, C##_fp12_conj)                             \
    FF_WRAP_POW(C##_fp12, C##_fp12_pow)                                                            \
                                                                                                   \
    static int C##_load(void *dst, int k, const oracle_line *ln, int *pos)                         \
    {                                                                                              \
        C##_fp v[12];                                                                              \
        if (C##_fp_oracle_load(v, k, ln, pos) < 0)                                                 \
            return -1;                                                                             \
        memcpy(dst, v, (size_t)k * sizeof(C##_fp));                                                \
        return 0;                                                                                  \
    }                                                                                              \
    static void C##_expect(const void *got, int k, const oracle_line *ln, int *pos,                \
                           const char *what)                                                       \
    {                                                                                              \
        C##_fp v[12];                                                                              \
        memcpy(v, got, (size_t)k * sizeof(C##_fp));                                                \
        C##_fp_oracle_expect(v, k, ln, pos, what);                                                 \
    }                                                                                              \
    static int C##_exponent(uint64_t *e, int words, const oracle_line *ln, int *pos)               \
    {                                                                                              \
        int bits = oracle_hex(e, words, ln->tok[(*pos)++]);                                        \
        if (bits < 0)                                                                              \
            oracle_fail(ln, "exponent", "token %d does not fit %d words", *pos - 1, words);        \
        return bits;                                                                               \
    }                                                                                              \
    static int C##_fp6_is_zero(const C##_fp6 *a)                                                   \
    {                                                                                              \
        return C##_fp2_is_zero(&a->c0) && C##_fp2_is_zero(&a->c1) && C##_fp2_is_zero(&a->c2);      \
    }                                                                                              \
    static int C##_fp12_is_zero(const C##_fp12 *a)                                                 \
    {                                                                                              \
        return C##_fp6_is_zero(&a->c0) && C##_fp6_is_zero(&a->c1);                                 \
    }                                                                                              \
                                                                                                   \
    /* F2 curve a b a+b a-b -a conj(a) a*b a^2 a^-1 a*xi e a^e */                                  \
    static void C##_check_fp2(const oracle_line *ln)                                               \
    {                                                                                              \
        C##_fp2 x[2], r;                                                                           \
        uint64_t e[C##_fp_LIMBS_N];                                                                \
        int pos = 2;                                                                               \
        if (C##_load(x, 4, ln, &pos) < 0)                                                          \
            return;                                                                                \
        const C##_fp2 a = x[0], b = x[1];                                                          \
        w_##C##_fp2_add(&r, &a, &b);                                                               \
        C##_expect(&r, 2, ln, &pos, "fp2_add");                                                    \
        FF_CHECK_ALIAS2(C##_fp2, C##_fp2_eq, w_##C##_fp2_add, r, a, b, ln, "fp2_add");             \
        w_##C##_fp2_sub(&r, &a, &b);                                                               \
        C##_expect(&r, 2, ln, &pos, "fp2_sub");                                                    \
        FF_CHECK_ALIAS2(C##_fp2, C##_fp2_eq, w_##C##_fp2_sub, r, a, b, ln, "fp2_sub");             \
        w_##C##_fp2_neg(&r, &a);                                                                   \
        C##_expect(&r, 2, ln, &pos, "fp2_neg");                                                    \
        FF_CHECK_ALIAS1(C##_fp2, C##_fp2_eq, w_##C##_fp2_neg, r, a, ln, "fp2_neg");                \
        w_##C##_fp2_conj(&r, &a);                                                                  \
        C##_expect(&r, 2, ln, &pos, "fp2_conj");                                                   \
        FF_CHECK_ALIAS1(C##_fp2, C##_fp2_eq, w_##C##_fp2_conj, r, a, ln, "fp2_conj");              \
        w_##C##_fp2_mul(&r, &a, &b);                                                               \
        C##_expect(&r, 2, ln, &pos, "fp2_mul");                                                    \
        FF_CHECK_ALIAS2(C##_fp2, C##_fp2_eq, w_##C##_fp2_mul, r, a, b, ln, "fp2_mul");             \
        w_##C##_fp2_sqr(&r, &a);                                                                   \
        C##_expect(&r, 2, ln, &pos, "fp2_sqr");                                                    \
        FF_CHECK_ALIAS1(C##_fp2, C##_fp2_eq, w_##C##_fp2_sqr, r, a, ln, "fp2_sqr");                \
        C##_fp2 t;                                                                                 \
        w_##C##_fp2_mul(&t, &a, &a);                                                               \
        FF_EXPECT(C##_fp2_eq(&t, &r), ln, "fp2_mul(a, a) != fp2_sqr(a)");                          \
        w_##C##_fp2_inv(&r, &a);                                                                   \
        C##_expect(&r, 2, ln, &pos, "fp2_inv");                                                    \
        FF_CHECK_ALIAS1(C##_fp2, C##_fp2_eq, w_##C##_fp2_inv, r, a, ln, "fp2_inv");                \
        w_##C##_fp2_mul_xi(&r, &a);                                                                \
        C##_expect(&r, 2, ln, &pos, "fp2_mul_xi");                                                 \
        FF_CHECK_ALIAS1(C##_fp2, C##_fp2_eq, w_##C##_fp2_mul_xi, r, a, ln, "fp2_mul_xi");          \
        int ebits = C##_exponent(e, C##_fp_LIMBS_N, ln, &pos);                                     \
        if (ebits < 0)                                                                             \
            return;                                                                                \
        w_##C##_fp2_pow(&r, &a, e, ebits);                                                         \
        C##_expect(&r, 2, ln, &pos, "fp2_pow");                                                    \
        C##_fp2_set_zero(&t);                                                                      \
        FF_EXPECT(C##_fp2_is_zero(&a) == C##_fp2_eq(&a, &t), ln, "fp2_is_zero");                   \
    }                                                                                              \
                                                                                                   \
    /* F6 curve a b a+b a-b -a a*b a*v a^-1 */                                                     \
    static void C##_check_fp6(const oracle_line *ln)                                               \
    {                                                                                              \
        C##_fp6 x[2], r;                                                                           \
        int pos = 2;                                                                               \
        if (C##_load(x, 12, ln, &pos) < 0)                                                         \
            return;                                                                                \
        const C##_fp6 a = x[0], b = x[1];                                                          \
        w_##C##_fp6_add(&r, &a, &b);                                                               \
        C##_expect(&r, 6, ln, &pos, "fp6_add");                                                    \
        FF_CHECK_ALIAS2(C##_fp6, C##_fp6_eq, w_##C##_fp6_add, r, a, b, ln, "fp6_add");             \
        w_##C##_fp6_sub(&r, &a, &b);                                                               \
        C##_expect(&r, 6, ln, &pos, "fp6_sub");                                                    \
        FF_CHECK_ALIAS2(C##_fp6, C##_fp6_eq, w_##C##_fp6_sub, r, a, b, ln, "fp6_sub");             \
        w_##C##_fp6_neg(&r, &a);                                                                   \
        C##_expect(&r, 6, ln, &pos, "fp6_neg");                                                    \
        FF_CHECK_ALIAS1(C##_fp6, C##_fp6_eq, w_##C##_fp6_neg, r, a, ln, "fp6_neg");                \
        w_##C##_fp6_mul(&r, &a, &b);                                                               \
        C##_expect(&r, 6, ln, &pos, "fp6_mul");                                                    \
        FF_CHECK_ALIAS2(C##_fp6, C##_fp6_eq, w_##C##_fp6_mul, r, a, b, ln, "fp6_mul");             \
        w_##C##_fp6_mul_v(&r, &a);                                                                 \
        C##_expect(&r, 6, ln, &pos, "fp6_mul_v");                                                  \
        FF_CHECK_ALIAS1(C##_fp6, C##_fp6_eq, w_##C##_fp6_mul_v, r, a, ln, "fp6_mul_v");            \
        w_##C##_fp6_inv(&r, &a);                                                                   \
        C##_expect(&r, 6, ln, &pos, "fp6_inv");                                                    \
        FF_CHECK_ALIAS1(C##_fp6, C##_fp6_eq, w_##C##_fp6_inv, r, a, ln, "fp6_inv");                \
    }                                                                                              \
                                                                                                   \
    /* F12 curve a b a*b a^2 a^-1 conj(a) e a^e */                                                 \
    static void C##_check_fp12(const oracle_line *ln)                                              \
    {                                                                                              \
        C##_fp12 x[2], r, t;                                                                       \
        uint64_t e[C##_EXP_WORDS];                                                                 \
        int pos = 2;                                                                               \
        if (C##_load(&x[0], 12, ln, &pos) < 0 || C##_load(&x[1], 12, ln, &pos) < 0)                \
            return;                                                                                \
        const C##_fp12 a = x[0], b = x[1];                                                         \
        w_##C##_fp12_mul(&r, &a, &b);                                                              \
        C##_expect(&r, 12, ln, &pos, "fp12_mul");                                                  \
        FF_CHECK_ALIAS2(C##_fp12, C##_fp12_eq, w_##C##_fp12_mul, r, a, b, ln, "fp12_mul");         \
        w_##C##_fp12_sqr(&r, &a);                                                                  \
        C##_expect(&r, 12, ln, &pos, "fp12_sqr");                                                  \
        FF_CHECK_ALIAS1(C##_fp12, C##_fp12_eq, w_##C##_fp12_sqr, r, a, ln, "fp12_sqr");            \
        w_##C##_fp12_inv(&r, &a);                                                                  \
        C##_expect(&r, 12, ln, &pos, "fp12_inv");                                                  \
        FF_CHECK_ALIAS1(C##_fp12, C##_fp12_eq, w_##C##_fp12_inv, r, a, ln, "fp12_inv");            \
        w_##C##_fp12_conj(&r, &a);                                                                 \
        C##_expect(&r, 12, ln, &pos, "fp12_conj");                                                 \
        FF_CHECK_ALIAS1(C##_fp12, C##_fp12_eq, w_##C##_fp12_conj, r, a, ln, "fp12_conj");          \
        int ebits = C##_exponent(e, C##_EXP_WORDS, ln, &pos);                                      \
        if (ebits < 0)                                                                             \
            return;                                                                                \
        w_##C##_fp12_pow(&r, &a, e, ebits);                                                        \
        C##_expect(&r, 12, ln, &pos, "fp12_pow");                                                  \
        C##_fp12_set_one(&t);                                                                      \
        FF_EXPECT(C##_fp12_is_one(&a) == C##_fp12_eq(&a, &t), ln, "fp12_is_one");                  \
    }                                                                                              \
                                                                                                   \
    /* CYC curve f e g: g = f^(p^6 - 1) lies in the cyclotomic subgroup, where the                 \
     * conjugate (the p^6-power Frobenius) is the inverse. */                                      \
    static void C##_check_cyclotomic(const oracle_line *ln)                                        \
    {                                                                                              \
        C##_fp12 f, g, t, u;                                                                       \
        uint64_t e[C##_EXP_WORDS];                                                                 \
        int pos = 2;                                                                               \
        if (C##_load(&f, 12, ln, &pos) < 0)                                                        \
            return;                                                                                \
        int ebits = C##_exponent(e, C##_EXP_WORDS, ln, &pos);                                      \
        if (ebits < 0)                                                                             \
            return;                                                                                \
        int gpos = pos;                                                                            \
        w_##C##_fp12_pow(&g, &f, e, ebits);                                                        \
        C##_expect(&g, 12, ln, &pos, "fp12_pow(f, p^6 - 1)");                                      \
        w_##C##_fp12_conj(&t, &f); /* f^(p^6) / f */                                               \
        w_##C##_fp12_inv(&u, &f);                                                                  \
        w_##C##_fp12_mul(&t, &t, &u);                                                              \
        pos = gpos;                                                                                \
        C##_expect(&t, 12, ln, &pos, "conj(f) * inv(f)");                                          \
        w_##C##_fp12_conj(&t, &g);                                                                 \
        w_##C##_fp12_inv(&u, &g);                                                                  \
        FF_EXPECT(C##_fp12_eq(&t, &u), ln, "conj(g) != inv(g) for g = f^(p^6-1)");                 \
        w_##C##_fp12_mul(&t, &t, &g);                                                              \
        FF_EXPECT(C##_fp12_is_one(&t), ln, "conj(g) * g != 1");                                    \
    }                                                                                              \
                                                                                                   \
    static void test_##C##_fp2_oracle(void **state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        ff_replay("F2", #C, 25, C##_check_fp2);                                                    \
    }                                                                                              \
    static void test_##C##_fp6_oracle(void **state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        ff_replay("F6", #C, 50, C##_check_fp6);                                                    \
    }                                                                                              \
    static void test_##C##_fp12_oracle(void **state)                                               \
    {                                                                                              \
        (void)state;                                                                               \
        ff_replay("F12", #C, 87, C##_check_fp12);                                                  \
    }                                                                                              \
    static void test_##C##_fp12_cyclotomic(void **state)                                           \
    {                                                                                              \
        (void)state;                                                                               \
        ff_replay("CYC", #C, 27, C##_check_cyclotomic);                                            \
    }                                                                                              \
                                                                                                   \
    static void C##_rand_ext(void *dst, int k)                                                     \
    {                                                                                              \
        C##_fp v[12];                                                                              \
        for (int i = 0; i < k; i++)                                                                \
            C##_fp_rand(&v[i]);                                                                    \
        memcpy(dst, v, (size_t)k * sizeof(C##_fp));                                                \
    }                                                                                              \
                                                                                                   \
    /* Ring laws in Fp2 and Fp6; inverse, conjugation and Frobenius-6 laws in Fp12. */             \
    static void test_##C##_tower_properties(void **state)                                          \
    {                                                                                              \
        (void)state;                                                                               \
        unsigned long before = oracle_failures();                                                  \
        for (int it = 0; it < FF_PROP_ITERS / 4; it++) {                                           \
            C##_fp2 a2, b2, c2, l2, r2, t2;                                                        \
            C##_rand_ext(&a2, 2);                                                                  \
            C##_rand_ext(&b2, 2);                                                                  \
            C##_rand_ext(&c2, 2);                                                                  \
            w_##C##_fp2_mul(&l2, &a2, &b2);                                                        \
            w_##C##_fp2_mul(&l2, &l2, &c2);                                                        \
            w_##C##_fp2_mul(&r2, &b2, &c2);                                                        \
            w_##C##_fp2_mul(&r2, &a2, &r2);                                                        \
            FF_EXPECT(C##_fp2_eq(&l2, &r2), NULL, #C " fp2 iteration %d", it);                     \
            w_##C##_fp2_add(&t2, &b2, &c2);                                                        \
            w_##C##_fp2_mul(&l2, &a2, &t2);                                                        \
            w_##C##_fp2_mul(&r2, &a2, &b2);                                                        \
            w_##C##_fp2_mul(&t2, &a2, &c2);                                                        \
            w_##C##_fp2_add(&r2, &r2, &t2);                                                        \
            FF_EXPECT(C##_fp2_eq(&l2, &r2), NULL, #C " fp2 iteration %d", it);                     \
            w_##C##_fp2_conj(&t2, &a2); /* a conj(a) is the norm, in Fp */                         \
            w_##C##_fp2_mul(&t2, &t2, &a2);                                                        \
            FF_EXPECT(C##_fp_is_zero(&t2.c1), NULL, #C " fp2 norm iteration %d", it);              \
            w_##C##_fp2_inv(&t2, &a2);                                                             \
            w_##C##_fp2_mul(&t2, &t2, &a2);                                                        \
            FF_EXPECT(C##_fp_is_one(&t2.c0) && C##_fp_is_zero(&t2.c1), NULL,                       \
                      #C " fp2 inverse iteration %d", it);                                         \
                                                                                                   \
            C##_fp6 a6, b6, c6, l6, r6, t6;                                                        \
            C##_rand_ext(&a6, 6);                                                                  \
            C##_rand_ext(&b6, 6);                                                                  \
            C##_rand_ext(&c6, 6);                                                                  \
            w_##C##_fp6_mul(&l6, &a6, &b6);                                                        \
            w_##C##_fp6_mul(&l6, &l6, &c6);                                                        \
            w_##C##_fp6_mul(&r6, &b6, &c6);                                                        \
            w_##C##_fp6_mul(&r6, &a6, &r6);                                                        \
            FF_EXPECT(C##_fp6_eq(&l6, &r6), NULL, #C " fp6 iteration %d", it);                     \
            w_##C##_fp6_add(&t6, &b6, &c6);                                                        \
            w_##C##_fp6_mul(&l6, &a6, &t6);                                                        \
            w_##C##_fp6_mul(&r6, &a6, &b6);                                                        \
            w_##C##_fp6_mul(&t6, &a6, &c6);                                                        \
            w_##C##_fp6_add(&r6, &r6, &t6);                                                        \
            FF_EXPECT(C##_fp6_eq(&l6, &r6), NULL, #C " fp6 iteration %d", it);                     \
            w_##C##_fp6_inv(&t6, &a6);                                                             \
            w_##C##_fp6_mul(&t6, &t6, &a6);                                                        \
            FF_EXPECT(C##_fp_is_one(&t6.c0.c0) && C##_fp_is_zero(&t6.c0.c1) &&                     \
                          C##_fp2_is_zero(&t6.c1) && C##_fp2_is_zero(&t6.c2),                      \
                      NULL, #C " fp6 inverse iteration %d", it);                                   \
                                                                                                   \
            if (it % 4)                                                                            \
                continue;                                                                          \
            C##_fp12 a, b, c, l, r, t;                                                             \
            C##_rand_ext(&a, 12);                                                                  \
            C##_rand_ext(&b, 12);                                                                  \
            C##_rand_ext(&c, 12);                                                                  \
            w_##C##_fp12_mul(&l, &a, &b);                                                          \
            w_##C##_fp12_mul(&l, &l, &c);                                                          \
            w_##C##_fp12_mul(&r, &b, &c);                                                          \
            w_##C##_fp12_mul(&r, &a, &r);                                                          \
            FF_EXPECT(C##_fp12_eq(&l, &r), NULL, #C " fp12 associativity iteration %d", it);       \
            w_##C##_fp12_mul(&l, &a, &b);                                                          \
            w_##C##_fp12_mul(&r, &b, &a);                                                          \
            FF_EXPECT(C##_fp12_eq(&l, &r), NULL, #C " fp12 commutativity iteration %d", it);       \
            w_##C##_fp12_inv(&t, &a);                                                              \
            w_##C##_fp12_mul(&l, &t, &a);                                                          \
            FF_EXPECT(C##_fp12_is_one(&l), NULL, #C " fp12 a * a^-1 iteration %d", it);            \
            w_##C##_fp12_inv(&t, &t);                                                              \
            FF_EXPECT(C##_fp12_eq(&t, &a), NULL, #C " fp12 (a^-1)^-1 iteration %d", it);           \
            w_##C##_fp12_conj(&l, &a); /* conj is a ring automorphism of order 2 */                \
            w_##C##_fp12_conj(&r, &b);                                                             \
            w_##C##_fp12_mul(&l, &l, &r);                                                          \
            w_##C##_fp12_mul(&r, &a, &b);                                                          \
            w_##C##_fp12_conj(&r, &r);                                                             \
            FF_EXPECT(C##_fp12_eq(&l, &r), NULL, #C " fp12 conj(ab) iteration %d", it);            \
            w_##C##_fp12_conj(&t, &a);                                                             \
            w_##C##_fp12_conj(&t, &t);                                                             \
            FF_EXPECT(C##_fp12_eq(&t, &a), NULL, #C " fp12 conj(conj(a)) iteration %d", it);       \
            w_##C##_fp12_conj(&t, &a); /* g = conj(a)/a has norm 1: conj(g) = g^-1 */              \
            w_##C##_fp12_inv(&l, &a);                                                              \
            w_##C##_fp12_mul(&t, &t, &l);                                                          \
            w_##C##_fp12_conj(&l, &t);                                                             \
            w_##C##_fp12_mul(&l, &l, &t);                                                          \
            FF_EXPECT(C##_fp12_is_one(&l), NULL, #C " fp12 cyclotomic conj iteration %d", it);     \
        }                                                                                          \
        C##_fp12 z, t;                                                                             \
        memset(&z, 0, sizeof(z));                                                                  \
        w_##C##_fp12_inv(&t, &z);                                                                  \
        FF_EXPECT(C##_fp12_is_zero(&t), NULL, #C " fp12 inverse of zero is zero");                 \
        assert_int_equal(oracle_failures() - before, 0);                                           \
    }

FF_TOWER_TESTS(bn254)
FF_TOWER_TESTS(bls12_381)

/* Input j of iteration it of the path tests below, which take `inputs`
 * values an iteration: while it < 3^inputs the iterations walk through every
 * combination of the edges 0, 1 and m - 1, then the values are random < m. */
static void ff_path_input(uint64_t *x, const uint64_t *m, int n, int it, int j, int inputs)
{
    int combos = 1, digit = it;
    for (int k = 0; k < inputs; k++)
        combos *= 3;
    for (int k = 0; k < j; k++)
        digit /= 3;
    memset(x, 0, 8 * (size_t)n);
    if (it >= combos) {
        oracle_rand_below(x, m, n);
    } else if (digit % 3 == 1) {
        x[0] = 1;
    } else if (digit % 3 == 2) {
        memcpy(x, m, 8 * (size_t)n);
        x[0] -= 1;
    }
}

/* The multiply mont_mul dispatches to (assembly on x86-64 with BMI2/ADX,
 * which the oracle tests above then check) equals the portable C one on
 * random reduced inputs and the edges 0, 1, m - 1; so do the addition and
 * subtraction (inline assembly on x86-64). */
#define FF_MUL_PATHS_TEST(F, UP)                                                                   \
    static void test_##F##_mul_paths(void **state)                                                 \
    {                                                                                              \
        (void)state;                                                                               \
        for (int it = 0; it < 20000; it++) {                                                       \
            F a, b, fast, slow;                                                                    \
            ff_path_input(a.l, F##_MODULUS, F##_LIMBS_N, it, 0, 2);                                \
            ff_path_input(b.l, F##_MODULUS, F##_LIMBS_N, it, 1, 2);                                \
            mont_mul(fast.l, a.l, b.l, F##_MODULUS, UP##_INV, F##_LIMBS_N);                        \
            mont_mul_portable(slow.l, a.l, b.l, F##_MODULUS, UP##_INV, F##_LIMBS_N);               \
            if (memcmp(&fast, &slow, sizeof fast))                                                 \
                fail_msg(#F ": the dispatched multiply differs from the portable one, iteration %d", it); \
            mont_add(fast.l, a.l, b.l, F##_MODULUS, F##_LIMBS_N);                                  \
            mont_add_portable(slow.l, a.l, b.l, F##_MODULUS, F##_LIMBS_N);                         \
            if (memcmp(&fast, &slow, sizeof fast))                                                 \
                fail_msg(#F ": the dispatched addition differs from the portable one, iteration %d", it); \
            mont_sub(fast.l, a.l, b.l, F##_MODULUS, F##_LIMBS_N);                                  \
            mont_sub_portable(slow.l, a.l, b.l, F##_MODULUS, F##_LIMBS_N);                         \
            if (memcmp(&fast, &slow, sizeof fast))                                                 \
                fail_msg(#F ": the dispatched subtraction differs from the portable one, iteration %d", it); \
        }                                                                                          \
    }

FF_MUL_PATHS_TEST(bn254_fp, BN254_FP)
FF_MUL_PATHS_TEST(bn254_fr, BN254_FR)
FF_MUL_PATHS_TEST(bls12_381_fp, BLS12_381_FP)
FF_MUL_PATHS_TEST(bls12_381_fr, BLS12_381_FR)

/* The variable-time inverse (divsteps) equals the Fermat one on 0, 1,
 * m - 1, small values and random ones. */
#define FF_INV_VAR_TEST(F)                                                                         \
    static void test_##F##_inv_var(void **state)                                                   \
    {                                                                                              \
        (void)state;                                                                               \
        for (int it = 0; it < 3000; it++) {                                                        \
            F a, fast, slow;                                                                       \
            ff_path_input(a.l, F##_MODULUS, F##_LIMBS_N, it, 0, 1);                                \
            if (it >= 3 && it < 40)                                                                \
                F##_from_u64(&a, (uint64_t)it);                                                    \
            F##_inv_var(&fast, &a);                                                                \
            F##_inv(&slow, &a);                                                                    \
            if (memcmp(&fast, &slow, sizeof fast))                                                 \
                fail_msg(#F ": inv_var differs from the Fermat inverse, iteration %d", it);        \
        }                                                                                          \
    }

FF_INV_VAR_TEST(bn254_fp)
FF_INV_VAR_TEST(bn254_fr)
FF_INV_VAR_TEST(bls12_381_fp)
FF_INV_VAR_TEST(bls12_381_fr)

/* The same for the Fp2 product and square (mont2_mul, mont2_sqr: assembly
 * with lazy reduction on x86-64) against their C forms, each coefficient
 * random or one of the edges. */
#define FF_MUL2_PATHS_TEST(F, UP)                                                                  \
    static void test_##F##_mul2_paths(void **state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        for (int it = 0; it < 20000; it++) {                                                       \
            F a[2], b[2], fast[2], slow[2];                                                        \
            for (int k = 0; k < 2; k++) {                                                          \
                ff_path_input(a[k].l, F##_MODULUS, F##_LIMBS_N, it, k, 4);                         \
                ff_path_input(b[k].l, F##_MODULUS, F##_LIMBS_N, it, 2 + k, 4);                     \
            }                                                                                      \
            mont2_mul(fast[0].l, a[0].l, b[0].l, F##_MODULUS, UP##_INV, F##_LIMBS_N);              \
            mont2_mul_portable(slow[0].l, a[0].l, b[0].l, F##_MODULUS, UP##_INV, F##_LIMBS_N);     \
            if (memcmp(fast, slow, sizeof fast))                                                   \
                fail_msg(#F ": the dispatched Fp2 multiply differs from the C one, iteration %d", it); \
            mont2_sqr(fast[0].l, a[0].l, F##_MODULUS, UP##_INV, F##_LIMBS_N);                      \
            mont2_sqr_portable(slow[0].l, a[0].l, F##_MODULUS, UP##_INV, F##_LIMBS_N);             \
            if (memcmp(fast, slow, sizeof fast))                                                   \
                fail_msg(#F ": the dispatched Fp2 square differs from the C one, iteration %d", it); \
        }                                                                                          \
    }

FF_MUL2_PATHS_TEST(bn254_fp, BN254_FP)
FF_MUL2_PATHS_TEST(bls12_381_fp, BLS12_381_FP)

#if MONT52_HAVE || MONT29_HAVE
/* Lanes k < lanes of iteration it of the vector tests: a[k], b[k] (n
 * words each) are ff_path_input's two values lanes it + k, pa[k], pb[k]
 * point at them. */
static void ff_lane_inputs(uint64_t *a, uint64_t *b, const uint64_t *pa[], const uint64_t *pb[], const uint64_t *m,
                           int n, int it, int lanes)
{
    for (int k = 0; k < lanes; k++) {
        ff_path_input(a + k * n, m, n, lanes * it + k, 0, 2);
        ff_path_input(b + k * n, m, n, lanes * it + k, 1, 2);
        pa[k] = a + k * n;
        pb[k] = b + k * n;
    }
}

/* A vector engine's base field F_X (field_lanes.h: mont52.h's 8 IFMA
 * lanes, mont29.h's 4 AVX2 lanes) against mont.h's portable C, lane by
 * lane, on inputs that walk through the edges 0, 1, m - 1 and then random
 * values, and on the non-canonical values (< 2m) a product leaves:
 *   p = a b,  q = p b,  s = p + q,  d = p - q,  e = q^2. */
#define FF_LANES_TEST(F, X, LANES, TARGET, ENABLED, UP)                                            \
    TARGET static void test_##F##_##X(void **state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        if (!ENABLED)                                                                              \
            skip();                                                                                \
        for (int it = 0; it < 2000; it++) {                                                        \
            F a[LANES], b[LANES], got[5][LANES];                                                   \
            const F *pa[LANES], *pb[LANES];                                                        \
            F *out[5][LANES];                                                                      \
            ff_lane_inputs(a[0].l, b[0].l, (const uint64_t **)pa, (const uint64_t **)pb, F##_MODULUS, \
                           F##_LIMBS_N, it, LANES);                                                \
            for (int k = 0; k < LANES; k++)                                                        \
                for (int o = 0; o < 5; o++)                                                        \
                    out[o][k] = &got[o][k];                                                        \
            F##_##X va, vb, p, q, t;                                                               \
            F##_##X##_load(&va, pa);                                                               \
            F##_##X##_load(&vb, pb);                                                               \
            F##_##X##_mul(&p, &va, &vb);                                                           \
            F##_##X##_mul(&q, &p, &vb);                                                            \
            F##_##X##_store(out[0], &p);                                                           \
            F##_##X##_store(out[1], &q);                                                           \
            F##_##X##_add(&t, &p, &q);                                                             \
            F##_##X##_store(out[2], &t);                                                           \
            F##_##X##_sub(&t, &p, &q);                                                             \
            F##_##X##_store(out[3], &t);                                                           \
            F##_##X##_sqr(&t, &q);                                                                 \
            F##_##X##_store(out[4], &t);                                                           \
            for (int k = 0; k < LANES; k++) {                                                      \
                F want[5];                                                                         \
                mont_mul_portable(want[0].l, a[k].l, b[k].l, F##_MODULUS, UP##_INV, F##_LIMBS_N);  \
                mont_mul_portable(want[1].l, want[0].l, b[k].l, F##_MODULUS, UP##_INV, F##_LIMBS_N); \
                mont_add_portable(want[2].l, want[0].l, want[1].l, F##_MODULUS, F##_LIMBS_N);      \
                mont_sub_portable(want[3].l, want[0].l, want[1].l, F##_MODULUS, F##_LIMBS_N);      \
                mont_mul_portable(want[4].l, want[1].l, want[1].l, F##_MODULUS, UP##_INV, F##_LIMBS_N); \
                for (int o = 0; o < 5; o++)                                                        \
                    if (memcmp(&want[o], &got[o][k], sizeof want[o]))                              \
                        fail_msg(#F "_" #X ": result %d (p, q, p + q, p - q, q^2) differs, iteration %d lane %d", \
                                 o, it, k);                                                        \
            }                                                                                      \
        }                                                                                          \
    }
#endif

#if MONT52_HAVE || MONT29_HAVE
/* A vector engine's Fp2 (F2_X) against tower.inc's, lane by lane:
 * p = a b,  q = p b,  s = q^2,  on Fp2 elements whose coefficients walk
 * through the same edges and random values. */
#define FF_LANES_FP2_TEST(C, X, LANES, TARGET, ENABLED)                                              \
    TARGET static void test_##C##_fp2_##X(void **state)                                            \
    {                                                                                              \
        (void)state;                                                                               \
        if (!ENABLED)                                                                              \
            skip();                                                                                \
        for (int it = 0; it < 1000; it++) {                                                        \
            C##_fp a[2][LANES], b[2][LANES];                                                       \
            const C##_fp *pa[LANES], *pb[LANES];                                                   \
            C##_fp2 x[LANES], y[LANES], got[5][LANES];                                             \
            const C##_fp2 *px[LANES], *py[LANES];                                                  \
            C##_fp2 *out[5][LANES];                                                                \
            for (int c = 0; c < 2; c++)                                                            \
                ff_lane_inputs(a[c][0].l, b[c][0].l, (const uint64_t **)pa, (const uint64_t **)pb, \
                               C##_fp_MODULUS, C##_fp_LIMBS_N, 2 * it + c, LANES);                 \
            for (int k = 0; k < LANES; k++) {                                                      \
                x[k].c0 = a[0][k];                                                                 \
                x[k].c1 = b[1][k];                                                                 \
                y[k].c0 = b[0][k];                                                                 \
                y[k].c1 = a[1][k];                                                                 \
                px[k] = &x[k];                                                                     \
                py[k] = &y[k];                                                                     \
                for (int o = 0; o < 5; o++)                                                        \
                    out[o][k] = &got[o][k];                                                        \
            }                                                                                      \
            C##_fp2_##X vx, vy, p, q;                                                              \
            C##_fp2_##X##_load(&vx, px);                                                           \
            C##_fp2_##X##_load(&vy, py);                                                           \
            C##_fp2_##X##_mul(&p, &vx, &vy);                                                       \
            C##_fp2_##X##_mul(&q, &p, &vy);                                                        \
            C##_fp2_##X##_store(out[0], &p);                                                       \
            C##_fp2_##X##_store(out[1], &q);                                                       \
            C##_fp2_##X##_sqr(&p, &q);                                                             \
            C##_fp2_##X##_store(out[2], &p);                                                       \
            C##_fp2_##X##_mul_conj(&p, &vx, &vy);                                                  \
            C##_fp2_##X##_store(out[3], &p);                                                       \
            C##_fp_##X nrm;                                                                        \
            C##_fp2_##X##_norm(&nrm, &vx);                                                         \
            C##_fp2_##X##_mul_base(&p, &vy, &nrm);                                                 \
            C##_fp2_##X##_store(out[4], &p);                                                       \
            for (int k = 0; k < LANES; k++) {                                                      \
                C##_fp2 want[5], t;                                                                \
                C##_fp n0, n1;                                                                     \
                C##_fp2_mul(&want[0], &x[k], &y[k]);                                               \
                C##_fp2_mul(&want[1], &want[0], &y[k]);                                            \
                C##_fp2_sqr(&want[2], &want[1]);                                                   \
                C##_fp2_conj(&t, &y[k]);                                                           \
                C##_fp2_mul(&want[3], &x[k], &t);                                                  \
                C##_fp_sqr(&n0, &x[k].c0);                                                         \
                C##_fp_sqr(&n1, &x[k].c1);                                                         \
                C##_fp_add(&n0, &n0, &n1);                                                         \
                C##_fp2_mul_fp(&want[4], &y[k], &n0);                                              \
                for (int o = 0; o < 5; o++)                                                        \
                    if (memcmp(&want[o], &got[o][k], sizeof want[o]))                              \
                        fail_msg(#C "_fp2_" #X ": result %d (p, q, q^2, x conj(y), y N(x)) differs, iteration %d lane %d", o, it, k); \
            }                                                                                      \
        }                                                                                          \
    }
#endif

#if MONT52_HAVE
FF_LANES_TEST(bn254_fp, x8, 8, MONT52_TARGET, mont52_enabled, BN254_FP)
FF_LANES_TEST(bls12_381_fp, x8, 8, MONT52_TARGET, mont52_enabled, BLS12_381_FP)
FF_LANES_FP2_TEST(bn254, x8, 8, MONT52_TARGET, mont52_enabled)
FF_LANES_FP2_TEST(bls12_381, x8, 8, MONT52_TARGET, mont52_enabled)

/* mont52_mul_wide (a b / 2^260) on the scalar fields: with b' = 16 b
 * (b in mont.h's form, R = 2^256), a b' / 2^260 = a b / R; then p + p and
 * p - a on the product (< 2m). */
#define FF_MONT52_WIDE_TEST(F, UP)                                                                 \
    MONT52_TARGET static void test_##F##_mont52_wide(void **state)                                 \
    {                                                                                              \
        static const mont52_field fld = UP##_MONT52;                                               \
        (void)state;                                                                               \
        if (!mont52_enabled)                                                                       \
            skip();                                                                                \
        for (int it = 0; it < 2000; it++) {                                                        \
            F a[8], b16[8], b[8], got[3][8];                                                       \
            const uint64_t *pa[8], *pb[8];                                                         \
            uint64_t *out[3][8];                                                                   \
            ff_lane_inputs(a[0].l, b[0].l, pa, pb, F##_MODULUS, F##_LIMBS_N, it, 8);               \
            for (int k = 0; k < 8; k++) {                                                          \
                b16[k] = b[k];                                                                     \
                for (int d = 0; d < 4; d++)                                                        \
                    F##_dbl(&b16[k], &b16[k]);                                                     \
                pb[k] = b16[k].l;                                                                  \
                for (int o = 0; o < 3; o++)                                                        \
                    out[o][k] = got[o][k].l;                                                       \
            }                                                                                      \
            __m512i va[5], vb[5], p[5], t[5];                                                      \
            mont52_load(va, pa, &fld, 5);                                                          \
            mont52_load(vb, pb, &fld, 5);                                                          \
            mont52_mul_wide(p, va, vb, &fld, 5);                                                   \
            mont52_store(out[0], p, &fld, 5);                                                      \
            mont52_add(t, p, p, &fld, 5);                                                          \
            mont52_store(out[1], t, &fld, 5);                                                      \
            mont52_sub(t, p, va, &fld, 5);                                                         \
            mont52_store(out[2], t, &fld, 5);                                                      \
            for (int k = 0; k < 8; k++) {                                                          \
                F want[3];                                                                         \
                mont_mul_portable(want[0].l, a[k].l, b[k].l, F##_MODULUS, UP##_INV, F##_LIMBS_N);  \
                mont_add_portable(want[1].l, want[0].l, want[0].l, F##_MODULUS, F##_LIMBS_N);      \
                mont_sub_portable(want[2].l, want[0].l, a[k].l, F##_MODULUS, F##_LIMBS_N);         \
                for (int o = 0; o < 3; o++)                                                        \
                    if (memcmp(&want[o], &got[o][k], sizeof want[o]))                              \
                        fail_msg(#F ": mont52 wide result %d (p, p + p, p - a) differs, iteration %d lane %d", \
                                 o, it, k);                                                        \
            }                                                                                      \
        }                                                                                          \
    }

FF_MONT52_WIDE_TEST(bn254_fr, BN254_FR)
FF_MONT52_WIDE_TEST(bls12_381_fr, BLS12_381_FR)
#define FF_MONT52_ENTRIES                                                                          \
    cmocka_unit_test(test_bn254_fp_x8), cmocka_unit_test(test_bls12_381_fp_x8),                    \
        cmocka_unit_test(test_bn254_fp2_x8), cmocka_unit_test(test_bls12_381_fp2_x8),              \
        cmocka_unit_test(test_bn254_fr_mont52_wide), cmocka_unit_test(test_bls12_381_fr_mont52_wide),
#else
#define FF_MONT52_ENTRIES
#endif
#if MONT29_HAVE
FF_LANES_TEST(bn254_fp, x4, 4, MONT29_TARGET, mont29_enabled, BN254_FP)
FF_LANES_TEST(bls12_381_fp, x4, 4, MONT29_TARGET, mont29_enabled, BLS12_381_FP)
FF_LANES_FP2_TEST(bn254, x4, 4, MONT29_TARGET, mont29_enabled)
FF_LANES_FP2_TEST(bls12_381, x4, 4, MONT29_TARGET, mont29_enabled)
#define FF_MONT29_ENTRIES                                                                          \
    cmocka_unit_test(test_bn254_fp_x4), cmocka_unit_test(test_bls12_381_fp_x4),                    \
        cmocka_unit_test(test_bn254_fp2_x4), cmocka_unit_test(test_bls12_381_fp2_x4),
#else
#define FF_MONT29_ENTRIES
#endif

#define FF_FIELD_ENTRIES(F)                                                                        \
    cmocka_unit_test(test_##F##_modulus), cmocka_unit_test(test_##F##_oracle),                     \
        cmocka_unit_test(test_##F##_properties), cmocka_unit_test(test_##F##_mul_paths),           \
        cmocka_unit_test(test_##F##_inv_var)
#define FF_TOWER_ENTRIES(C)                                                                        \
    cmocka_unit_test(test_##C##_fp2_oracle), cmocka_unit_test(test_##C##_fp6_oracle),              \
        cmocka_unit_test(test_##C##_fp12_oracle), cmocka_unit_test(test_##C##_fp12_cyclotomic),    \
        cmocka_unit_test(test_##C##_tower_properties)

/* The checked build asserts the field contract (util/verify.h): a
 * non-canonical input, the modulus itself, stops the program with SIGABRT.
 * Release builds check nothing: skipped there. */
static void test_contract_checked(void **state)
{
    (void)state;
#ifdef CUZK_VERIFY
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        bn254_fp a, r;
        memcpy(a.l, bn254_fp_MODULUS, sizeof a.l);
        if (!freopen("/dev/null", "w", stderr))
            _exit(2);
        bn254_fp_add(&r, &a, &a);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
#else
    skip();
#endif
}

int main(void)
{
    char err[512];
    unsigned long seed = oracle_env_seed(FF_DEFAULT_SEED);
    oracle_rng_seed(seed);
    fprintf(stderr, "test_ff: seed %lu (set CUZK_ORACLE_SEED to change)\n", seed);
    if (oracle_load(&ff_vec, seed, FF_ORACLE_COUNT, "ff", err, sizeof(err)) < 0) {
        fprintf(stderr, "test_ff: FAILED: %s\n", err);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        FF_FIELD_ENTRIES(bn254_fp),     FF_FIELD_ENTRIES(bn254_fr),
        FF_FIELD_ENTRIES(bls12_381_fp), FF_FIELD_ENTRIES(bls12_381_fr),
        cmocka_unit_test(test_bn254_fr_root_of_unity),
        cmocka_unit_test(test_bls12_381_fr_root_of_unity),
        FF_TOWER_ENTRIES(bn254),        FF_TOWER_ENTRIES(bls12_381),
        cmocka_unit_test(test_bn254_fp_mul2_paths),
        cmocka_unit_test(test_bls12_381_fp_mul2_paths),
        cmocka_unit_test(test_contract_checked),
        FF_MONT52_ENTRIES FF_MONT29_ENTRIES
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    oracle_free(&ff_vec);
    return failed ? 1 : 0;
}
