/* Constant time of the code that handles secrets, in the manner of
 * libsecp256k1's valgrind_ctime_test: the secret bytes are marked undefined
 * for memcheck, which then reports every branch and every memory address
 * that depends on them. The paths: jac_mul_secret of every group (the
 * prover's blinding r and s), jac_sum_table_secret of every group (the
 * setup's fixed-base multiplications of its toxic waste), and the field
 * operations promised constant time (field.h: add, sub, neg, mul, eq,
 * is_zero, the Fermat inverse).
 *
 * The program starts itself under valgrind (error exit 1 on any report);
 * it exits 77 (skipped) where valgrind or its header is missing, and in the
 * sanitizer build, whose shadow memory valgrind cannot run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ec/ec.h"
#include "util/random.h"

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define CTIME_HAVE_VALGRIND 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define CTIME_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CTIME_SANITIZED 1
#endif
#endif

#ifdef CTIME_HAVE_VALGRIND
#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

/* k secret: [k]G through jac_mul_secret, on each group. */
#define CTIME_GROUP(G)                                                  \
    static void ctime_##G(void)                                         \
    {                                                                   \
        G##_affine g;                                                   \
        G##_jac j, r;                                                   \
        uint64_t k[4];                                                  \
        G##_generator(&g);                                              \
        G##_jac_from_affine(&j, &g);                                    \
        if (cuzk_random_bytes(k, sizeof k))                             \
            exit(2);                                                    \
        SECRET(k, sizeof k);                                            \
        G##_jac_mul_secret(&r, &j, k, 256);                             \
        PUBLIC(&r, sizeof r);                                           \
        PUBLIC(k, sizeof k);                                            \
        cuzk_wipe(k, sizeof k);                                         \
        if (!G##_jac_on_curve(&r))                                      \
            exit(3);                                                    \
    }
CTIME_GROUP(bn254_g1)
CTIME_GROUP(bn254_g2)
CTIME_GROUP(bls12_381_g1)
CTIME_GROUP(bls12_381_g2)

/* Secret digits: the sum of table entries through jac_sum_table_secret, on
 * each group, over windows of 255 entries as the setup's (table[i] =
 * (i + 1) G here), compared with the variable-time sum of the same
 * entries once the digits are public again. Digit 0 and 255 are forced
 * into two windows. */
enum { CTIME_WINDOWS = 4, CTIME_PER_WINDOW = 255 };
#define CTIME_TABLE(G)                                                                  \
    static void ctime_table_##G(void)                                                   \
    {                                                                                   \
        enum { N = CTIME_WINDOWS * CTIME_PER_WINDOW };                                  \
        static G##_affine table[N];                                                     \
        static G##_jac multiples[N];                                                    \
        static __typeof__(multiples[0].z) scratch[N];                                   \
        G##_affine g;                                                                   \
        G##_generator(&g);                                                              \
        G##_jac_from_affine(&multiples[0], &g);                                         \
        for (size_t i = 1; i < N; i++)                                                  \
            G##_jac_add_affine_var(&multiples[i], &multiples[i - 1], &g);                   \
        G##_jac_batch_to_affine(table, multiples, N, scratch);                          \
        uint8_t digits[CTIME_WINDOWS];                                                  \
        if (cuzk_random_bytes(digits, sizeof digits))                                   \
            exit(2);                                                                    \
        digits[0] = 0;                                                                  \
        digits[1] = CTIME_PER_WINDOW;                                                   \
        G##_jac r, want;                                                                \
        SECRET(digits, sizeof digits);                                                  \
        G##_jac_sum_table_secret(&r, table, CTIME_WINDOWS, CTIME_PER_WINDOW, digits);   \
        PUBLIC(&r, sizeof r);                                                           \
        PUBLIC(digits, sizeof digits);                                                  \
        G##_jac_set_inf(&want);                                                         \
        for (size_t j = 0; j < CTIME_WINDOWS; j++)                                      \
            if (digits[j])                                                              \
                G##_jac_add_affine_var(&want, &want, &table[j * CTIME_PER_WINDOW + digits[j] - 1]); \
        if (!G##_jac_eq(&r, &want))                                                     \
            exit(3);                                                                    \
    }
CTIME_TABLE(bn254_g1)
CTIME_TABLE(bn254_g2)
CTIME_TABLE(bls12_381_g1)
CTIME_TABLE(bls12_381_g2)

/* a, b secret (canonical: below the modulus); every result is made public
 * only after the operations. */
#define CTIME_FIELD(F)                                                  \
    static void ctime_##F(void)                                         \
    {                                                                   \
        F a, b, r[8];                                                   \
        int flags[4];                                                   \
        if (cuzk_random_bytes(a.l, sizeof a.l) ||                       \
            cuzk_random_bytes(b.l, sizeof b.l))                         \
            exit(2);                                                    \
        a.l[F##_LIMBS_N - 1] >>= 8; /* below the modulus */             \
        b.l[F##_LIMBS_N - 1] >>= 8;                                     \
        SECRET(&a, sizeof a);                                           \
        SECRET(&b, sizeof b);                                           \
        F##_add(&r[0], &a, &b);                                         \
        F##_sub(&r[1], &a, &b);                                         \
        F##_neg(&r[2], &a);                                             \
        F##_neg(&r[3], &b);                                             \
        F##_mul(&r[4], &a, &b);                                         \
        F##_inv(&r[5], &b);                                             \
        F##_to_mont(&r[6], &b);                                         \
        F##_from_mont(&r[7], &b);                                       \
        flags[0] = F##_eq(&a, &b);                                      \
        flags[1] = F##_is_zero(&a);                                     \
        flags[2] = F##_is_one(&b);                                      \
        flags[3] = F##_eq(&r[4], &r[5]);                                \
        PUBLIC(r, sizeof r);                                            \
        PUBLIC(flags, sizeof flags);                                    \
        PUBLIC(&a, sizeof a);                                           \
        PUBLIC(&b, sizeof b);                                           \
        if (flags[0] + flags[1] + flags[2] + flags[3] > 4)              \
            exit(3);                                                    \
    }
CTIME_FIELD(bn254_fp)
CTIME_FIELD(bn254_fr)
CTIME_FIELD(bls12_381_fp)
CTIME_FIELD(bls12_381_fr)

static int run_checks(void)
{
    ctime_bn254_fp();
    ctime_bn254_fr();
    ctime_bls12_381_fp();
    ctime_bls12_381_fr();
    ctime_bn254_g1();
    ctime_bn254_g2();
    ctime_bls12_381_g1();
    ctime_bls12_381_g2();
    ctime_table_bn254_g1();
    ctime_table_bn254_g2();
    ctime_table_bls12_381_g1();
    ctime_table_bls12_381_g2();
    unsigned errors = VALGRIND_COUNT_ERRORS;
    printf("test_ctime: %u report(s) of secret-dependent branches or addresses\n", errors);
    return errors ? 1 : 0;
}
#endif

int main(int argc, char **argv)
{
    (void)argc;
#if !defined(CTIME_HAVE_VALGRIND)
    (void)argv;
    puts("SKIP: valgrind/memcheck.h not found (scripts/install-deps installs valgrind)");
    return 77;
#elif defined(CTIME_SANITIZED)
    (void)argv;
    puts("SKIP: the sanitizer build cannot run under valgrind (the release build's test_ctime runs)");
    return 77;
#else
    if (RUNNING_ON_VALGRIND)
        return run_checks();
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return perror("test_ctime: /proc/self/exe"), 1;
    self[len] = 0;
    char *args[] = {"valgrind", "--quiet", "--error-exitcode=1", "--track-origins=yes", self, NULL};
    (void)argv;
    execvp(args[0], args);
    puts("SKIP: valgrind is not installed (scripts/install-deps installs it)");
    return 77;
#endif
}
