/* Test support: the big-integer oracle tools/ff_oracle.py, seen from C.
 *
 * oracle_load runs the script (from the repository root, where the tests
 * run) and keeps its output as tokenised lines; ORACLE_FIELD_IO(F) stamps out,
 * in the including test file, the conversions between the oracle's
 * normal-form hex and a prime field's Montgomery elements. Mismatches are
 * reported through oracle_fail, which prints the oracle line number (the
 * output is deterministic for a seed, so that pins the failing input) and
 * counts them. Linked into every test binary: libc only. */
#ifndef CUZK_TESTS_ORACLE_IO_H
#define CUZK_TESTS_ORACLE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int lineno; /* 1-based line of the oracle's output */
    int ntok;
    char **tok; /* tok[0] is the tag: "F", "G", ... */
} oracle_line;

typedef struct {
    oracle_line *line; /* comment lines and the END line are not kept */
    size_t n;
    unsigned long seed;
} oracle_set;

/* Runs "python3 tools/ff_oracle.py --seed S --count N --only ONLY" and keeps
 * its lines. Returns 0; or -1 with a message in err when python3 or the
 * script is missing, the script fails, or its output is cut short. */
int oracle_load(oracle_set *s, unsigned long seed, int count, const char *only, char *err,
                size_t errlen);
void oracle_free(oracle_set *s);

/* The seed: $CUZK_ORACLE_SEED when set, else dflt. */
unsigned long oracle_env_seed(unsigned long dflt);

/* Parses lowercase/uppercase hex without "0x" into n little-endian words.
 * Returns the value's bit length (0 for zero), or -1 when the text is not
 * hex or the value needs more than n words. */
int oracle_hex(uint64_t *out, int n, const char *hex);

/* Writes the n-word value v as hex (at most 16n+1 bytes with the NUL). */
void oracle_hex_print(char *buf, const uint64_t *v, int n);

/* Reports one failed check on line ln (may be NULL): prints the first few
 * in full, counts all. */
void oracle_fail(const oracle_line *ln, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
unsigned long oracle_failures(void);

/* Calls check on every line of s with tag and name (name NULL: any) that has
 * ntok tokens, reporting the others as malformed; returns how many matched. */
size_t oracle_replay(const oracle_set *s, const char *tag, const char *name, int ntok,
                     void (*check)(const oracle_line *ln));

/* Test randomness (splitmix64): not for secrets, reproducible from a seed. */
void oracle_rng_seed(uint64_t seed);
uint64_t oracle_rand64(void);

/* A random value below m (n words): limbs uniform or, one time in four, each
 * limb 0 / all ones / uniform, which exercises carry chains. */
void oracle_rand_below(uint64_t *r, const uint64_t *m, int n);

/* 1 when ln has tag and, if name is not NULL, tok[1] == name. */
int oracle_is(const oracle_line *ln, const char *tag, const char *name);

/* F##_oracle_load: k tokens from ln->tok[*pos] -> k Montgomery elements;
 *   each value must be < m. Returns 0, or -1 after reporting.
 * F##_oracle_expect: compares k Montgomery results with the next k tokens
 *   (normal form); every result must also be canonical. Returns 1 when all
 *   match, else 0 after reporting what differs. */
#define ORACLE_FIELD_IO(F)                                                                     \
    static int F##_oracle_load(F *dst, int k, const oracle_line *ln, int *pos)                \
    {                                                                                          \
        for (int i = 0; i < k; i++, (*pos)++) {                                                \
            F v;                                                                               \
            if (*pos >= ln->ntok || oracle_hex(v.l, F##_LIMBS_N, ln->tok[*pos]) < 0 ||         \
                !F##_is_canonical(&v)) {                                                       \
                oracle_fail(ln, #F " input", "token %d is not a value below the modulus", *pos); \
                return -1;                                                                     \
            }                                                                                  \
            F##_to_mont(&dst[i], &v);                                                          \
        }                                                                                      \
        return 0;                                                                              \
    }                                                                                          \
    static int F##_oracle_expect(const F *got, int k, const oracle_line *ln, int *pos,         \
                                 const char *what)                                             \
    {                                                                                          \
        int ok = 1;                                                                            \
        for (int i = 0; i < k; i++, (*pos)++) {                                                \
            F want, g;                                                                         \
            char gh[16 * F##_LIMBS_N + 1], wh[16 * F##_LIMBS_N + 1];                           \
            if (*pos >= ln->ntok || oracle_hex(want.l, F##_LIMBS_N, ln->tok[*pos]) < 0) {      \
                oracle_fail(ln, what, "token %d is not a field element", *pos);                \
                return 0;                                                                      \
            }                                                                                  \
            if (!F##_is_canonical(&got[i])) {                                                  \
                oracle_hex_print(gh, got[i].l, F##_LIMBS_N);                                   \
                oracle_fail(ln, what, "coefficient %d not reduced (Montgomery 0x%s)", i, gh);  \
                ok = 0;                                                                        \
                continue;                                                                      \
            }                                                                                  \
            F##_from_mont(&g, &got[i]);                                                        \
            if (!F##_eq(&g, &want)) {                                                          \
                oracle_hex_print(gh, g.l, F##_LIMBS_N);                                        \
                oracle_hex_print(wh, want.l, F##_LIMBS_N);                                     \
                oracle_fail(ln, what, "coefficient %d: got 0x%s want 0x%s", i, gh, wh);        \
                ok = 0;                                                                        \
            }                                                                                  \
        }                                                                                      \
        return ok;                                                                             \
    }

#endif
