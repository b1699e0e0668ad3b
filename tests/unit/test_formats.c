/* File formats: .zkey, .wtns, .r1cs, proof/public/verification-key JSON and
 * the decimal codec.
 *
 * Real files made by circom2 and snarkjs 0.7.6 live in tests/fixtures (see
 * its README): they are read and checked against each other (the zkey's
 * Montgomery points against verification_key.json, the witness against the
 * r1cs), written back and compared byte for byte with what snarkjs wrote.
 * Every prefix of every fixture must be refused cleanly, and targeted
 * corruptions must be refused with a message naming the file and section.
 * Set CUZK_FIXTURES to run from outside the repository root, and
 * CUZK_SHOW_MESSAGES=1 to print every refusal message for review. */
#define _GNU_SOURCE /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ff/field.h"
#include "codec/binfile.h"
#include "codec/curve_id.h"
#include "codec/decimal.h"
#include "codec/json_io.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"
#include "util/random.h"
#include "support.h"

static char tmp_dir[256];
static const char *const curve_dirs[2] = {"bn128", "bls12381"};

/* ---------------- helpers ---------------- */

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int slot;
    char *p = buf[slot++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", tmp_dir, name);
    return p;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    uint8_t *b = (uint8_t *)read_whole_file(path, len);
    if (!b) fail_msg("cannot read %s (run from the repository root or set CUZK_FIXTURES)", path);
    return b;
}

static void spit(const char *path, const void *b, size_t n)
{
    /* A fresh file: ext4 flushes a truncated-and-rewritten one on close,
     * which made the prefix test take a minute. */
    remove(path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void assert_files_equal(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
    if (na != nb || memcmp(x, y, na) != 0) fail_msg("%s (%zu bytes) differs from %s (%zu bytes)", a, na, b, nb);
    free(x);
    free(y);
}

static void show(const cuzk_error *e)
{
    if (getenv("CUZK_SHOW_MESSAGES")) fprintf(stderr, "  [%d] %s\n", e->code, e->msg);
}

/* The message must mention every given fragment. */
static void assert_msg_has(const cuzk_error *e, const char *frag)
{
    if (!strstr(e->msg, frag)) fail_msg("message \"%s\" lacks \"%s\"", e->msg, frag);
}

/* Offset of the table entry (the id field) of the first section id in a
 * container image, or 0. */
static size_t sec_entry(const uint8_t *b, size_t n, uint32_t id)
{
    size_t pos = 12;
    for (uint32_t i = 0; i < cuzk_le32(b + 8) && pos + 12 <= n; i++) {
        if (cuzk_le32(b + pos) == id) return pos;
        pos += 12 + (size_t)cuzk_le64(b + pos + 4);
    }
    return 0;
}

static size_t sec_payload(const uint8_t *b, size_t n, uint32_t id)
{
    size_t e = sec_entry(b, n, id);
    assert_true(e != 0);
    return e + 12;
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;
static uint64_t rnd64(void) { return cuzk_splitmix64(&rng_state); }

/* A random value below m (n words): random words with the top one clipped
 * under m's top word. */
static void rnd_below(uint64_t *v, const uint64_t *m, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) v[i] = rnd64();
    v[n - 1] %= m[n - 1];
}

/* ---------------- decimal ---------------- */

static void check_dec(const char *s, int nwords, const uint64_t *want)
{
    uint64_t got[8];
    char back[CUZK_DEC_CAP(8)];
    assert_int_equal(cuzk_dec_parse(s, got, nwords), 0);
    assert_memory_equal(got, want, sizeof *got * (size_t)nwords);
    cuzk_dec_format(got, nwords, back, sizeof back);
    const char *t = s;
    while (t[0] == '0' && t[1]) t++; /* the formatter drops leading zeros */
    assert_string_equal(back, t);
}

static void test_decimal(void **state)
{
    (void)state;
    uint64_t w[8];
    check_dec("0", 4, (uint64_t[4]){0});
    check_dec("1", 4, (uint64_t[4]){1});
    check_dec("000123", 4, (uint64_t[4]){123});
    check_dec("18446744073709551615", 1, (uint64_t[1]){UINT64_MAX});
    check_dec("18446744073709551616", 4, (uint64_t[4]){0, 1});
    check_dec("21888242871839275222246405745257275088548364400416034343698204186575808495616", 4,
              (uint64_t[4]){bn254_fr_MODULUS[0] - 1, bn254_fr_MODULUS[1], bn254_fr_MODULUS[2], bn254_fr_MODULUS[3]});
    uint64_t q_minus_1[6];
    memcpy(q_minus_1, bls12_381_fp_MODULUS, sizeof q_minus_1);
    q_minus_1[0] -= 1;
    check_dec("4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894"
              "272559786",
              6, q_minus_1);
    check_dec("115792089237316195423570985008687907853269984665640564039457584007913129639935", 4,
              (uint64_t[4]){UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX});

    /* overflow, junk, empty */
    assert_int_equal(cuzk_dec_parse("18446744073709551616", w, 1), -1);
    assert_int_equal(cuzk_dec_parse("115792089237316195423570985008687907853269984665640564039457584007913129639936", w, 4), -1);
    assert_int_equal(cuzk_dec_parse("", w, 4), -1);
    assert_int_equal(cuzk_dec_parse("12a", w, 4), -1);
    assert_int_equal(cuzk_dec_parse("-1", w, 4), -1);
    assert_int_equal(cuzk_dec_parse("+1", w, 4), -1);
    assert_int_equal(cuzk_dec_parse(" 1", w, 4), -1);
    assert_int_equal(cuzk_dec_parse("1 ", w, 4), -1);
    assert_int_equal(cuzk_dec_parse("0x10", w, 4), -1);

    /* formatting into a buffer too small gives "" */
    char small[3] = "zz";
    cuzk_dec_format((uint64_t[1]){1000}, 1, small, sizeof small);
    assert_string_equal(small, "");
    cuzk_dec_format((uint64_t[1]){10}, 1, small, sizeof small);
    assert_string_equal(small, "10");

    /* random round trips, including values with zero words in the middle */
    for (int i = 0; i < 2000; i++) {
        int n = 1 + i % 6;
        uint64_t v[6], back[6];
        char s[CUZK_DEC_CAP(6)];
        for (int k = 0; k < n; k++) v[k] = (i & 8) && k == 1 ? 0 : rnd64() >> (rnd64() % 64);
        cuzk_dec_format(v, n, s, sizeof s);
        assert_int_equal(cuzk_dec_parse(s, back, n), 0);
        assert_memory_equal(back, v, sizeof *v * (size_t)n);
    }
}

/* ---------------- curve identification ---------------- */

static void le_bytes(uint8_t *out, const uint64_t *m, uint32_t words)
{
    for (uint32_t i = 0; i < 8 * words; i++) out[i] = (uint8_t)(m[i / 8] >> (8 * (i % 8)));
}

static void test_curve_id(void **state)
{
    (void)state;
    uint8_t b[48];
    cuzk_curve_id c = (cuzk_curve_id)-1;
    le_bytes(b, bn254_fr_MODULUS, 4);
    assert_int_equal(cuzk_curve_from_prime(b, 32, 0, &c), CUZK_OK);
    assert_int_equal(c, CUZK_CURVE_BN254);
    assert_int_not_equal(cuzk_curve_from_prime(b, 32, 1, &c), CUZK_OK); /* r is not a q */
    le_bytes(b, bn254_fp_MODULUS, 4);
    assert_int_equal(cuzk_curve_from_prime(b, 32, 1, &c), CUZK_OK);
    assert_int_equal(c, CUZK_CURVE_BN254);
    le_bytes(b, bls12_381_fr_MODULUS, 4);
    assert_int_equal(cuzk_curve_from_prime(b, 32, 0, &c), CUZK_OK);
    assert_int_equal(c, CUZK_CURVE_BLS12_381);
    le_bytes(b, bls12_381_fp_MODULUS, 6);
    assert_int_equal(cuzk_curve_from_prime(b, 48, 1, &c), CUZK_OK);
    assert_int_equal(c, CUZK_CURVE_BLS12_381);
    assert_int_not_equal(cuzk_curve_from_prime(b, 32, 1, &c), CUZK_OK); /* wrong width */
    b[0] ^= 1;
    assert_int_not_equal(cuzk_curve_from_prime(b, 48, 1, &c), CUZK_OK);

    static const char *const bn[] = {"bn128", "BN128", "bn254", "Bn254", "altbn128", "alt_bn128", "ALT-BN128"};
    static const char *const bls[] = {"bls12381", "BLS12381", "bls12-381", "Bls12_381"};
    static const char *const bad[] = {"", "-", "bls12377", "secp256k1", "bn", "bn1288", "bls12-381x"};
    for (size_t i = 0; i < sizeof bn / sizeof *bn; i++) {
        c = CUZK_CURVE_BLS12_381;
        assert_int_equal(cuzk_curve_from_name(bn[i], &c), CUZK_OK);
        assert_int_equal(c, CUZK_CURVE_BN254);
    }
    for (size_t i = 0; i < sizeof bls / sizeof *bls; i++) {
        c = CUZK_CURVE_BN254;
        assert_int_equal(cuzk_curve_from_name(bls[i], &c), CUZK_OK);
        assert_int_equal(c, CUZK_CURVE_BLS12_381);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_int_not_equal(cuzk_curve_from_name(bad[i], &c), CUZK_OK);
    assert_string_equal(cuzk_curve_snarkjs_name(CUZK_CURVE_BN254), "bn128");
    assert_string_equal(cuzk_curve_snarkjs_name(CUZK_CURVE_BLS12_381), "bls12381");
    assert_string_equal(CUZK_CURVE_CHOICES, "bn128|bls12381"); /* the usage lines' list, from the same rows */
}

/* ---------------- fixtures: the witness ---------------- */

/* mul.circom with a = 3, b = 11: wires 1, c = t*a + b = 110, a, b, t = 33 */
static const uint64_t fixture_witness[5] = {1, 110, 3, 11, 33};

static void test_wtns_fixture(void **state)
{
    (void)state;
    for (int cv = 0; cv < 2; cv++) {
        cuzk_wtns w;
        cuzk_error e = {0};
        const char *path = fixture_path(curve_dirs[cv], "mul.wtns");
        assert_int_equal(cuzk_wtns_read(&w, path, &e), CUZK_OK);
        assert_int_equal(w.curve, cv ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254);
        assert_int_equal(w.n_witness, 5);
        assert_true(((uintptr_t)w.values & 63) == 0);
        for (int i = 0; i < 5; i++) {
            uint64_t want[4] = {fixture_witness[i]};
            assert_memory_equal(w.values + 4 * i, want, sizeof want);
        }
        /* the container layer alone */
        cuzk_binfile bf;
        uint8_t raw[160];
        assert_int_equal(cuzk_bin_open(&bf, path, "wtns", 2, &e), CUZK_OK);
        assert_int_equal(bf.n_sections, 2);
        assert_non_null(cuzk_bin_find(&bf, 2));
        assert_null(cuzk_bin_find(&bf, 3));
        assert_int_equal(cuzk_bin_read_section(&bf, 2, "values", raw, sizeof raw, &e), CUZK_OK);
        assert_memory_equal(raw, w.values, sizeof raw);
        assert_int_equal(cuzk_bin_read_section(&bf, 2, "values", raw, 96, &e), CUZK_ERR_FORMAT);
        assert_msg_has(&e, "section 2 (values) holds 160 bytes, expected 96");
        cuzk_bin_close(&bf);
        assert_int_equal(cuzk_bin_open(&bf, path, "zkey", 1, &e), CUZK_ERR_FORMAT);

        /* the header alone: curve and length, no values */
        cuzk_wtns h;
        assert_int_equal(cuzk_wtns_read_header(&h, path, &e), CUZK_OK);
        assert_int_equal(h.curve, w.curve);
        assert_int_equal(h.n_witness, 5);
        assert_null(h.values);

        /* from memory it reads the same */
        size_t n;
        uint8_t *bytes = slurp(path, &n);
        cuzk_wtns m;
        assert_int_equal(cuzk_wtns_read_memory(&m, bytes, n, "upload", &e), CUZK_OK);
        assert_int_equal(m.n_witness, w.n_witness);
        assert_memory_equal(m.values, w.values, (size_t)w.n_witness * 32);
        cuzk_wtns_free(&m);
        assert_int_equal(cuzk_wtns_read_memory(&m, bytes, n - 1, "upload", &e), CUZK_ERR_FORMAT);
        assert_msg_has(&e, "upload");
        free(bytes);

        /* written back it is byte for byte what snarkjs wrote */
        assert_int_equal(cuzk_wtns_write(&w, tmp_path("w.wtns"), &e), CUZK_OK);
        assert_files_equal(tmp_path("w.wtns"), path);
        cuzk_wtns_free(&w);
        assert_null(w.values);
    }
}

/* ---------------- fixtures: the constraint system ---------------- */

/* <lc, w> in Montgomery form, for the curve's r. */
#define LC_EVAL(F)                                                                                     \
    static void lc_##F(F *out, const cuzk_r1cs *c, int m, uint32_t row, const uint64_t *w)            \
    {                                                                                                  \
        F##_set_zero(out);                                                                             \
        for (uint32_t k = c->row_start[m][row]; k < c->row_start[m][row + 1]; k++) {                   \
            F a, b, t;                                                                                 \
            memcpy(a.l, c->terms[m][k].coef, 32);                                                      \
            memcpy(b.l, w + 4 * (size_t)c->terms[m][k].wire, 32);                                      \
            F##_to_mont(&a, &a);                                                                       \
            F##_to_mont(&b, &b);                                                                       \
            F##_mul(&t, &a, &b);                                                                       \
            F##_add(out, out, &t);                                                                     \
        }                                                                                              \
    }                                                                                                  \
    static int satisfied_##F(const cuzk_r1cs *c, const uint64_t *w)                                    \
    {                                                                                                  \
        for (uint32_t i = 0; i < c->n_constraints; i++) {                                              \
            F a, b, cc, ab;                                                                            \
            lc_##F(&a, c, 0, i, w);                                                                    \
            lc_##F(&b, c, 1, i, w);                                                                    \
            lc_##F(&cc, c, 2, i, w);                                                                   \
            F##_mul(&ab, &a, &b);                                                                      \
            if (!F##_eq(&ab, &cc)) return 0;                                                           \
        }                                                                                              \
        return 1;                                                                                      \
    }
LC_EVAL(bn254_fr)
LC_EVAL(bls12_381_fr)

static void assert_r1cs_equal(const cuzk_r1cs *a, const cuzk_r1cs *b)
{
    assert_int_equal(a->curve, b->curve);
    assert_int_equal(a->n_wires, b->n_wires);
    assert_int_equal(a->n_pub_out, b->n_pub_out);
    assert_int_equal(a->n_pub_in, b->n_pub_in);
    assert_int_equal(a->n_prv_in, b->n_prv_in);
    assert_int_equal(a->n_labels, b->n_labels);
    assert_int_equal(a->n_constraints, b->n_constraints);
    for (int m = 0; m < 3; m++) {
        assert_memory_equal(a->row_start[m], b->row_start[m], 4 * ((size_t)a->n_constraints + 1));
        uint32_t nt = a->row_start[m][a->n_constraints];
        if (nt) assert_memory_equal(a->terms[m], b->terms[m], nt * sizeof(cuzk_r1cs_term));
    }
    assert_true((a->wire_to_label == NULL) == (b->wire_to_label == NULL));
    if (a->wire_to_label) assert_memory_equal(a->wire_to_label, b->wire_to_label, 8 * (size_t)a->n_wires);
}

static void test_r1cs_fixture(void **state)
{
    (void)state;
    for (int cv = 0; cv < 2; cv++) {
        cuzk_r1cs c, c2;
        cuzk_error e = {0};
        assert_int_equal(cuzk_r1cs_read(&c, fixture_path(curve_dirs[cv], "mul.r1cs"), &e), CUZK_OK);
        assert_int_equal(c.curve, cv ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254);
        assert_int_equal(c.n_wires, 5);
        assert_int_equal(c.n_pub_out, 1);
        assert_int_equal(c.n_pub_in, 1);
        assert_int_equal(c.n_prv_in, 1);
        assert_int_equal(c.n_labels, 5);
        assert_int_equal(c.n_constraints, 2);
        assert_non_null(c.wire_to_label);
        /* constraint 1, matrix C: -1 * c + 1 * b, in circom's order */
        assert_int_equal(c.row_start[2][2] - c.row_start[2][1], 2);
        const cuzk_r1cs_term *t = &c.terms[2][c.row_start[2][1]];
        const uint64_t *r = cuzk_curve_r(c.curve);
        assert_int_equal(t[0].wire, 1);
        assert_int_equal(t[0].coef[0], r[0] - 1);
        assert_int_equal(t[1].wire, 3);
        assert_int_equal(t[1].coef[0], 1);

        /* the fixture witness satisfies it */
        cuzk_wtns w;
        assert_int_equal(cuzk_wtns_read(&w, fixture_path(curve_dirs[cv], "mul.wtns"), &e), CUZK_OK);
        assert_true(cv ? satisfied_bls12_381_fr(&c, w.values) : satisfied_bn254_fr(&c, w.values));
        w.values[4 * 4] += 1; /* t = 34 */
        assert_false(cv ? satisfied_bls12_381_fr(&c, w.values) : satisfied_bn254_fr(&c, w.values));
        cuzk_wtns_free(&w);

        /* round trip (sections 1, 2, 3 where circom wrote 2, 1, 3) */
        assert_int_equal(cuzk_r1cs_write(&c, tmp_path("c.r1cs"), &e), CUZK_OK);
        assert_int_equal(cuzk_r1cs_read(&c2, tmp_path("c.r1cs"), &e), CUZK_OK);
        assert_r1cs_equal(&c, &c2);
        cuzk_r1cs_free(&c2);
        /* without a label map the writer emits the identity */
        free(c.wire_to_label);
        c.wire_to_label = NULL;
        assert_int_equal(cuzk_r1cs_write(&c, tmp_path("c.r1cs"), &e), CUZK_OK);
        assert_int_equal(cuzk_r1cs_read(&c2, tmp_path("c.r1cs"), &e), CUZK_OK);
        for (uint32_t i = 0; i < c2.n_wires; i++) assert_int_equal(c2.wire_to_label[i], i);
        cuzk_r1cs_free(&c2);
        cuzk_r1cs_free(&c);
    }
}

/* ---------------- fixtures: the proving key ---------------- */

/* Montgomery coordinate (as in the zkey) -> canonical, qw words. */
static void from_mont_q(uint64_t *out, const uint64_t *in, cuzk_curve_id curve)
{
    switch (curve) {
#define FROM_MONT_Q_(prefix, PREFIX, snarkjs)                                                                \
    case CUZK_CURVE_##PREFIX: {                                                                             \
        prefix##_fp t;                                                                                      \
        memcpy(t.l, in, sizeof t.l);                                                                        \
        prefix##_fp_from_mont(&t, &t);                                                                      \
        memcpy(out, t.l, sizeof t.l);                                                                       \
        return;                                                                                             \
    }
        CUZK_CURVES(FROM_MONT_Q_)
#undef FROM_MONT_Q_
    }
    fail_msg("unknown curve %d", (int)curve);
}

static int all_zero(const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i]) return 0;
    return 1;
}

static void assert_g1_matches(const uint64_t *mont, const cuzk_g1_plain *p, cuzk_curve_id curve)
{
    uint32_t qw = cuzk_curve_q_words(curve);
    if (all_zero(mont, 2 * qw)) {
        assert_true(p->infinity);
        return;
    }
    uint64_t x[6] = {0}, y[6] = {0};
    from_mont_q(x, mont, curve);
    from_mont_q(y, mont + qw, curve);
    assert_false(p->infinity);
    assert_memory_equal(x, p->x, sizeof x);
    assert_memory_equal(y, p->y, sizeof y);
}

static void assert_g2_matches(const uint64_t *mont, const cuzk_g2_plain *p, cuzk_curve_id curve)
{
    uint32_t qw = cuzk_curve_q_words(curve);
    assert_false(p->infinity);
    for (int i = 0; i < 2; i++) {
        uint64_t x[6] = {0}, y[6] = {0};
        from_mont_q(x, mont + i * qw, curve);
        from_mont_q(y, mont + (2 + i) * qw, curve);
        assert_memory_equal(x, p->x[i], sizeof x);
        assert_memory_equal(y, p->y[i], sizeof y);
    }
}

static void assert_zkey_equal(const cuzk_zkey *a, const cuzk_zkey *b)
{
    assert_int_equal(a->curve, b->curve);
    assert_int_equal(a->n8q, b->n8q);
    assert_int_equal(a->n8r, b->n8r);
    assert_int_equal(a->n_vars, b->n_vars);
    assert_int_equal(a->n_public, b->n_public);
    assert_int_equal(a->domain_size, b->domain_size);
    assert_int_equal(a->n_coefs, b->n_coefs);
    assert_memory_equal(a->alpha1, b->alpha1, sizeof a->alpha1);
    assert_memory_equal(a->beta1, b->beta1, sizeof a->beta1);
    assert_memory_equal(a->delta1, b->delta1, sizeof a->delta1);
    assert_memory_equal(a->beta2, b->beta2, sizeof a->beta2);
    assert_memory_equal(a->gamma2, b->gamma2, sizeof a->gamma2);
    assert_memory_equal(a->delta2, b->delta2, sizeof a->delta2);
    size_t g1 = 2 * (size_t)a->n8q, g2 = 4 * (size_t)a->n8q;
    assert_memory_equal(a->ic, b->ic, ((size_t)a->n_public + 1) * g1);
    for (uint32_t i = 0; i < a->n_coefs; i++) {
        cuzk_zkey_coef ka, kb;
        cuzk_zkey_coef_get(a, i, &ka);
        cuzk_zkey_coef_get(b, i, &kb);
        assert_int_equal(ka.matrix, kb.matrix);
        assert_int_equal(ka.row, kb.row);
        assert_int_equal(ka.wire, kb.wire);
        assert_memory_equal(ka.value, kb.value, 32);
    }
    assert_memory_equal(a->a, b->a, a->n_vars * g1);
    assert_memory_equal(a->b1, b->b1, a->n_vars * g1);
    assert_memory_equal(a->b2, b->b2, a->n_vars * g2);
    if (a->n_vars - a->n_public - 1) assert_memory_equal(a->c, b->c, (a->n_vars - a->n_public - 1) * g1);
    assert_memory_equal(a->h, b->h, a->domain_size * g1);
}

static void test_zkey_fixture(void **state)
{
    (void)state;
    for (int cv = 0; cv < 2; cv++) {
        cuzk_zkey z, z2, zh;
        cuzk_vk vk;
        cuzk_error e = {0};
        const char *path = fixture_path(curve_dirs[cv], "mul.zkey");
        assert_int_equal(cuzk_zkey_read(&z, path, &e), CUZK_OK);
        cuzk_curve_id curve = cv ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
        assert_int_equal(z.curve, curve);
        assert_int_equal(z.n8q, cv ? 48 : 32);
        assert_int_equal(z.n8r, 32);
        assert_int_equal(z.n_vars, 5);
        assert_int_equal(z.n_public, 2);
        assert_int_equal(z.domain_size, 8); /* m + nPublic = 4 -> 8 */
        uint64_t *arrays[] = {z.ic, z.a, z.b1, z.b2, z.c, z.h};
        for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) assert_true(((uintptr_t)arrays[i] & 63) == 0);
        /* the nPublic + 1 extra rows come last: A, row m + s, wire s, 1 * R^2 */
        const uint64_t *r2 = cv ? bls12_381_fr_R2 : bn254_fr_R2;
        assert_true(z.n_coefs >= 3);
        for (uint32_t s = 0; s < 3; s++) {
            const cuzk_zkey_coef *k = &z.coefs[z.n_coefs - 3 + s];
            assert_int_equal(k->matrix, 0);
            assert_int_equal(k->row, 2 + s);
            assert_int_equal(k->wire, s);
            assert_memory_equal(k->value, r2, 32);
        }
        /* the header points agree with snarkjs' verification key (which
         * also pins down the beta2-before-delta1 order) */
        assert_int_equal(cuzk_vk_read_json(&vk, fixture_path(curve_dirs[cv], "verification_key.json"), &e), CUZK_OK);
        assert_int_equal(vk.curve, curve);
        assert_int_equal(vk.n_public, 2);
        assert_true(vk.has_alphabeta);
        assert_g1_matches(z.alpha1, &vk.alpha1, curve);
        assert_g2_matches(z.beta2, &vk.beta2, curve);
        assert_g2_matches(z.gamma2, &vk.gamma2, curve);
        assert_g2_matches(z.delta2, &vk.delta2, curve);
        for (uint32_t i = 0; i <= z.n_public; i++) assert_g1_matches(z.ic + i * z.n8q / 4, &vk.ic[i], curve);
        cuzk_vk_free(&vk);

        /* header only */
        assert_int_equal(cuzk_zkey_read_header(&zh, path, &e), CUZK_OK);
        assert_null(zh.coefs);
        assert_null(zh.a);
        assert_null(zh.h);
        assert_int_equal(zh.n_coefs, 0);
        assert_memory_equal(zh.delta2, z.delta2, sizeof z.delta2);
        assert_memory_equal(zh.ic, z.ic, 3 * 2 * (size_t)z.n8q);
        cuzk_zkey_free(&zh);

        /* written back it is snarkjs' file but for the 64-byte csHash */
        const char *out = tmp_path("k.zkey");
        assert_int_equal(cuzk_zkey_write(&z, out, &e), CUZK_OK);
        size_t n1, n2;
        uint8_t *mine = slurp(out, &n1), *theirs = slurp(path, &n2);
        assert_int_equal(n1, n2);
        size_t hash_at = sec_payload(theirs, n2, 10);
        assert_int_equal(hash_at + 68, n2);
        assert_memory_equal(mine, theirs, hash_at);
        for (size_t i = hash_at; i < hash_at + 64; i++) assert_int_equal(mine[i], 0);
        assert_memory_equal(mine + n1 - 4, theirs + n2 - 4, 4);
        free(mine);
        free(theirs);
        assert_int_equal(cuzk_zkey_read(&z2, out, &e), CUZK_OK);
        assert_zkey_equal(&z, &z2);
        cuzk_zkey_free(&z2);
        cuzk_zkey_free(&z);
        assert_null(z.ic);
    }
}

/* Field by field: the structs have padding. */
static void assert_g1_equal(const cuzk_g1_plain *a, const cuzk_g1_plain *b)
{
    assert_int_equal(a->infinity, b->infinity);
    assert_memory_equal(a->x, b->x, sizeof a->x);
    assert_memory_equal(a->y, b->y, sizeof a->y);
}

static void assert_g2_equal(const cuzk_g2_plain *a, const cuzk_g2_plain *b)
{
    assert_int_equal(a->infinity, b->infinity);
    assert_memory_equal(a->x, b->x, sizeof a->x);
    assert_memory_equal(a->y, b->y, sizeof a->y);
}

static void assert_proof_equal(const cuzk_proof *a, const cuzk_proof *b)
{
    assert_int_equal(a->curve, b->curve);
    assert_g1_equal(&a->a, &b->a);
    assert_g2_equal(&a->b, &b->b);
    assert_g1_equal(&a->c, &b->c);
}

static void assert_vk_equal(const cuzk_vk *a, const cuzk_vk *b)
{
    assert_int_equal(a->curve, b->curve);
    assert_int_equal(a->n_public, b->n_public);
    assert_g1_equal(&a->alpha1, &b->alpha1);
    assert_g2_equal(&a->beta2, &b->beta2);
    assert_g2_equal(&a->gamma2, &b->gamma2);
    assert_g2_equal(&a->delta2, &b->delta2);
    assert_memory_equal(a->alphabeta, b->alphabeta, sizeof a->alphabeta);
    for (uint32_t i = 0; i <= a->n_public; i++) assert_g1_equal(&a->ic[i], &b->ic[i]);
}

/* ---------------- fixtures: JSON ---------------- */

static void test_json_fixture(void **state)
{
    (void)state;
    for (int cv = 0; cv < 2; cv++) {
        cuzk_error e = {0};
        cuzk_curve_id curve = cv ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
        const char *proof_in = fixture_path(curve_dirs[cv], "proof.json");
        const char *pub_in = fixture_path(curve_dirs[cv], "public.json");
        const char *vk_in = fixture_path(curve_dirs[cv], "verification_key.json");

        cuzk_proof p, p2;
        assert_int_equal(cuzk_proof_read_json(&p, proof_in, &e), CUZK_OK);
        assert_int_equal(p.curve, curve);
        assert_int_equal(cuzk_proof_write_json(&p, tmp_path("proof.json"), &e), CUZK_OK);
        assert_files_equal(tmp_path("proof.json"), proof_in);
        assert_int_equal(cuzk_proof_read_json(&p2, tmp_path("proof.json"), &e), CUZK_OK);
        assert_proof_equal(&p, &p2);
        size_t n;
        uint8_t *want = slurp(proof_in, &n);
        char *s = cuzk_proof_to_json(&p, &e);
        assert_non_null(s);
        assert_string_equal(s, (char *)want);
        free(s);
        FILE *f = fopen(tmp_path("proof2.json"), "w");
        assert_non_null(f);
        assert_int_equal(cuzk_proof_dump_json(&p, f, &e), CUZK_OK);
        fclose(f);
        assert_files_equal(tmp_path("proof2.json"), proof_in);
        free(want);

        uint64_t (*sig)[4];
        uint32_t ns;
        assert_int_equal(cuzk_public_read_json(&sig, &ns, curve, pub_in, &e), CUZK_OK);
        assert_int_equal(ns, 2);
        assert_int_equal(sig[0][0], 110); /* output first, then the public input */
        assert_int_equal(sig[1][0], 3);
        assert_int_equal(cuzk_public_write_json((const uint64_t(*)[4])sig, ns, tmp_path("public.json"), &e), CUZK_OK);
        assert_files_equal(tmp_path("public.json"), pub_in);
        s = cuzk_public_to_json((const uint64_t(*)[4])sig, 0, &e);
        assert_string_equal(s, "[]");
        free(s);
        free(sig);

        cuzk_vk vk, vk2;
        assert_int_equal(cuzk_vk_read_json(&vk, vk_in, &e), CUZK_OK);
        assert_int_equal(cuzk_vk_write_json(&vk, tmp_path("vk.json"), &e), CUZK_OK);
        assert_files_equal(tmp_path("vk.json"), vk_in);
        assert_int_equal(cuzk_vk_read_json(&vk2, tmp_path("vk.json"), &e), CUZK_OK);
        assert_vk_equal(&vk, &vk2);
        cuzk_vk_free(&vk2);
        cuzk_vk_free(&vk);
        assert_null(vk.ic);
    }
}

/* ---------------- every prefix of every file is refused ---------------- */

typedef int (*reader_fn)(const char *path, cuzk_error *err);

static int rd_zkey(const char *path, cuzk_error *e)
{
    cuzk_zkey z;
    int rc = cuzk_zkey_read(&z, path, e);
    cuzk_zkey_free(&z);
    return rc;
}
static int rd_zkey_mapped(const char *path, cuzk_error *e)
{
    cuzk_zkey z;
    int rc = cuzk_zkey_map(&z, path, e);
    cuzk_zkey_free(&z);
    return rc;
}
static int rd_zkey_header(const char *path, cuzk_error *e)
{
    cuzk_zkey z;
    int rc = cuzk_zkey_read_header(&z, path, e);
    cuzk_zkey_free(&z);
    return rc;
}
static int rd_wtns(const char *path, cuzk_error *e)
{
    cuzk_wtns w;
    int rc = cuzk_wtns_read(&w, path, e);
    cuzk_wtns_free(&w);
    return rc;
}
/* The same witness reader over the file's bytes in memory. */
static int rd_wtns_memory(const char *path, cuzk_error *e)
{
    size_t n;
    uint8_t *b = slurp(path, &n);
    cuzk_wtns w;
    int rc = cuzk_wtns_read_memory(&w, b, n, path, e);
    cuzk_wtns_free(&w);
    free(b);
    return rc;
}
static int rd_wtns_header(const char *path, cuzk_error *e)
{
    cuzk_wtns w;
    return cuzk_wtns_read_header(&w, path, e);
}
static int rd_r1cs(const char *path, cuzk_error *e)
{
    cuzk_r1cs c;
    int rc = cuzk_r1cs_read(&c, path, e);
    cuzk_r1cs_free(&c);
    return rc;
}
static int rd_proof(const char *path, cuzk_error *e)
{
    cuzk_proof p;
    return cuzk_proof_read_json(&p, path, e);
}
static int rd_vk(const char *path, cuzk_error *e)
{
    cuzk_vk vk;
    int rc = cuzk_vk_read_json(&vk, path, e);
    cuzk_vk_free(&vk);
    return rc;
}
static int rd_public_bn(const char *path, cuzk_error *e)
{
    uint64_t (*s)[4];
    uint32_t n;
    int rc = cuzk_public_read_json(&s, &n, CUZK_CURVE_BN254, path, e);
    free(s);
    return rc;
}

static void check_prefixes(const char *src, reader_fn rd)
{
    size_t n;
    uint8_t *b = slurp(src, &n);
    const char *path = tmp_path("prefix");
    cuzk_error e = {0};
    assert_int_equal(rd(src, &e), CUZK_OK);
    for (size_t len = 0; len < n; len++) {
        spit(path, b, len);
        e.msg[0] = 0;
        int rc = rd(path, &e);
        if (rc != CUZK_ERR_FORMAT && rc != CUZK_ERR_IO)
            fail_msg("%s cut to %zu of %zu bytes: status %d (%s)", src, len, n, rc, e.msg);
        assert_int_equal(e.code, rc);
        assert_msg_has(&e, path);
    }
    free(b);
}

static void test_truncated(void **state)
{
    (void)state;
    for (int cv = 0; cv < 2; cv++) {
        check_prefixes(fixture_path(curve_dirs[cv], "mul.zkey"), rd_zkey);
        check_prefixes(fixture_path(curve_dirs[cv], "mul.zkey"), rd_zkey_mapped);
        check_prefixes(fixture_path(curve_dirs[cv], "mul.wtns"), rd_wtns);
        check_prefixes(fixture_path(curve_dirs[cv], "mul.wtns"), rd_wtns_memory);
        check_prefixes(fixture_path(curve_dirs[cv], "mul.wtns"), rd_wtns_header);
        check_prefixes(fixture_path(curve_dirs[cv], "mul.r1cs"), rd_r1cs);
        check_prefixes(fixture_path(curve_dirs[cv], "proof.json"), rd_proof);
        check_prefixes(fixture_path(curve_dirs[cv], "verification_key.json"), rd_vk);
    }
    check_prefixes(fixture_path("bn128", "mul.zkey"), rd_zkey_header);
    check_prefixes(fixture_path("bn128", "public.json"), rd_public_bn);
}

/* ---------------- targeted corruption of the binary files ---------------- */

typedef void (*mutator)(uint8_t *b, size_t n);

/* Copies src to a temporary file, applies mut, reads it with rd and
 * expects status want with a message naming the file and each fragment. */
static void expect_bad(const char *src, mutator mut, reader_fn rd, int want, const char *frag1, const char *frag2)
{
    size_t n;
    uint8_t *b = slurp(src, &n);
    const char *path = tmp_path("bad.bin");
    mut(b, n);
    spit(path, b, n);
    free(b);
    cuzk_error e = {0};
    int rc = rd(path, &e);
    show(&e);
    if (rc != want) fail_msg("%s: expected status %d, got %d (%s)", src, want, rc, e.msg);
    assert_msg_has(&e, path);
    if (frag1) assert_msg_has(&e, frag1);
    if (frag2) assert_msg_has(&e, frag2);
}

static void mut_magic(uint8_t *b, size_t n) { (void)n, b[0] ^= 0x20; }
static void mut_version(uint8_t *b, size_t n) { (void)n, cuzk_put_le32(b + 4, 2); }
static void mut_nsections(uint8_t *b, size_t n) { (void)n, cuzk_put_le32(b + 8, UINT32_MAX); }
static void mut_plonk(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 1), 2); }
static void mut_fflonk(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 1), 10); }
static void mut_huge_sec5(uint8_t *b, size_t n) { cuzk_put_le64(b + sec_entry(b, n, 5) + 4, 1ull << 40); }
static void mut_dup_sec(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_entry(b, n, 6), 5); }
/* zkey header fields after n8q, q, n8r, r */
static size_t zk_counts(uint8_t *b, size_t n)
{
    size_t h = sec_payload(b, n, 2);
    return h + 4 + cuzk_le32(b + h) + 4 + 32;
}
static void mut_nvars(uint8_t *b, size_t n) { cuzk_put_le32(b + zk_counts(b, n), 6); }
static void mut_domain3(uint8_t *b, size_t n) { cuzk_put_le32(b + zk_counts(b, n) + 8, 6); }
static void mut_domain1(uint8_t *b, size_t n) { cuzk_put_le32(b + zk_counts(b, n) + 8, 2); }
static void mut_q(uint8_t *b, size_t n) { b[sec_payload(b, n, 2) + 4] ^= 2; }
static void mut_r_other(uint8_t *b, size_t n) /* bn128 q with bls12-381 r */
{
    size_t h = sec_payload(b, n, 2);
    le_bytes(b + h + 4 + 32 + 4, bls12_381_fr_MODULUS, 4);
}
static void mut_coef_matrix(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 4) + 4, 2); }
static void mut_coef_row(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 4) + 8, 8); }
static void mut_coef_wire(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 4) + 12, 5); }
static void mut_coef_count(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 4), UINT32_MAX); }
static void mut_ic_big(uint8_t *b, size_t n) { memset(b + sec_payload(b, n, 3), 0xff, 32); }
static void mut_h_big(uint8_t *b, size_t n) { memset(b + sec_payload(b, n, 9) + 64 * 7 + 32, 0xff, 32); }
static void mut_no_sec9(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_entry(b, n, 9), 99); }

/* each refusal of a whole-key reader rd */
static void bad_zkey_checks(reader_fn rd)
{
    const char *z = fixture_path("bn128", "mul.zkey");
    expect_bad(z, mut_magic, rd, CUZK_ERR_FORMAT, "magic", "zkey");
    expect_bad(z, mut_version, rd, CUZK_ERR_FORMAT, "version 2", NULL);
    expect_bad(z, mut_nsections, rd, CUZK_ERR_FORMAT, "sections", NULL);
    expect_bad(z, mut_plonk, rd, CUZK_ERR_FORMAT, "section 1", "not a Groth16 key (protocol 2 = plonk)");
    expect_bad(z, mut_plonk, rd_zkey_header, CUZK_ERR_FORMAT, "section 1", "plonk");
    expect_bad(z, mut_fflonk, rd, CUZK_ERR_FORMAT, "section 1", "fflonk");
    expect_bad(z, mut_huge_sec5, rd, CUZK_ERR_FORMAT, "section 5", "1099511627776");
    expect_bad(z, mut_huge_sec5, rd_zkey_header, CUZK_ERR_FORMAT, "section 5", NULL);
    expect_bad(z, mut_dup_sec, rd, CUZK_ERR_FORMAT, "section 5", "2 times");
    expect_bad(z, mut_nvars, rd, CUZK_ERR_FORMAT, "section 5 (A points) holds 320 bytes, expected 384 (nVars 6 x 64)",
               NULL);
    expect_bad(z, mut_domain3, rd, CUZK_ERR_FORMAT, "section 2", "power of two");
    expect_bad(z, mut_domain1, rd, CUZK_ERR_FORMAT, "section 2", "domainSize 2");
    expect_bad(z, mut_q, rd, CUZK_ERR_FORMAT, "section 2", "q");
    expect_bad(z, mut_r_other, rd, CUZK_ERR_FORMAT, "section 2", "bls12381");
    expect_bad(z, mut_coef_matrix, rd, CUZK_ERR_FORMAT, "section 4", "matrix 2");
    expect_bad(z, mut_coef_row, rd, CUZK_ERR_FORMAT, "section 4", "row 8");
    expect_bad(z, mut_coef_wire, rd, CUZK_ERR_FORMAT, "section 4", "wire 5");
    expect_bad(z, mut_coef_count, rd, CUZK_ERR_FORMAT, "section 4", "expected");
    expect_bad(z, mut_ic_big, rd, CUZK_ERR_FORMAT, "section 3", "below q");
    expect_bad(z, mut_h_big, rd, CUZK_ERR_FORMAT, "section 9", "point 7");
    expect_bad(z, mut_no_sec9, rd, CUZK_ERR_FORMAT, "section 9", "missing");
}

static void test_bad_zkey(void **state)
{
    (void)state;
    const char *z = fixture_path("bn128", "mul.zkey");
    bad_zkey_checks(rd_zkey);
    bad_zkey_checks(rd_zkey_mapped);
    /* header-only reads do not need sections 4-9 */
    size_t n;
    uint8_t *b = slurp(z, &n);
    mut_no_sec9(b, n);
    spit(tmp_path("h.zkey"), b, n);
    free(b);
    cuzk_error e = {0};
    assert_int_equal(rd_zkey_header(tmp_path("h.zkey"), &e), CUZK_OK);

    assert_int_equal(rd_zkey(tmp_path("no-such-file.zkey"), &e), CUZK_ERR_IO);
    assert_msg_has(&e, "no-such-file.zkey");
    assert_int_equal(rd_zkey(tmp_dir, &e), CUZK_ERR_IO); /* a directory */
    expect_bad(fixture_path("bn128", "mul.wtns"), mut_version, rd_zkey, CUZK_ERR_FORMAT, "not a .zkey file", NULL);
}

/* A file that is not what was asked for is refused saying so, without
 * quoting what it holds (the daemon reads paths its clients name: its
 * messages must not print the start of /etc/shadow). */
static void test_refusals_quote_nothing(void **state)
{
    (void)state;
    static const char secret[] = "root:$6$s3cr3t:19000:0:99999:7:::\n{\"s3cr3t\": [1, 2 x]}\n";
    const char *path = tmp_path("secret");
    spit(path, (const uint8_t *)secret, sizeof secret - 1);
    cuzk_error e[4] = {{0}};
    cuzk_zkey z;
    cuzk_wtns w;
    cuzk_r1cs r;
    cuzk_proof p;
    assert_int_equal(cuzk_zkey_read(&z, path, &e[0]), CUZK_ERR_FORMAT);
    assert_int_equal(cuzk_wtns_read(&w, path, &e[1]), CUZK_ERR_FORMAT);
    assert_int_equal(cuzk_r1cs_read(&r, path, &e[2]), CUZK_ERR_FORMAT);
    assert_int_equal(cuzk_proof_read_json(&p, path, &e[3]), CUZK_ERR_FORMAT);
    for (int i = 0; i < 4; i++) {
        show(&e[i]);
        assert_msg_has(&e[i], path);
        assert_null(strstr(e[i].msg, "root"));
        assert_null(strstr(e[i].msg, "s3cr3t"));
    }
    assert_msg_has(&e[0], "not a .zkey file");
    assert_msg_has(&e[3], "not valid JSON");
}

static void mut_wtns_prime(uint8_t *b, size_t n) { b[sec_payload(b, n, 1) + 4 + 5] ^= 1; }
static void mut_wtns_q(uint8_t *b, size_t n) { le_bytes(b + sec_payload(b, n, 1) + 4, bn254_fp_MODULUS, 4); }
static void mut_wtns_n8(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 1), 48); }
static void mut_wtns_value_r(uint8_t *b, size_t n)
{
    size_t p = sec_payload(b, n, 2);
    memcpy(b + p + 32 * 3, b + sec_payload(b, n, 1) + 4, 32); /* w[3] = r */
}
static void mut_wtns_count(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 1) + 36, 6); }
static void mut_wtns_v1(uint8_t *b, size_t n) { (void)n, cuzk_put_le32(b + 4, 1); }

static void test_bad_wtns(void **state)
{
    (void)state;
    const char *w = fixture_path("bn128", "mul.wtns");
    expect_bad(w, mut_magic, rd_wtns, CUZK_ERR_FORMAT, "magic", NULL);
    expect_bad(w, mut_wtns_v1, rd_wtns, CUZK_ERR_FORMAT, "version 1", "expected 2");
    expect_bad(w, mut_wtns_prime, rd_wtns, CUZK_ERR_FORMAT, "section 1", "not the scalar field prime r");
    expect_bad(w, mut_wtns_q, rd_wtns, CUZK_ERR_FORMAT, "section 1", "2188824287183927522224640574525727508869631115729"
                                                                        "7823662689037894645226208583");
    expect_bad(w, mut_wtns_n8, rd_wtns, CUZK_ERR_FORMAT, "section 1", NULL);
    expect_bad(w, mut_wtns_value_r, rd_wtns, CUZK_ERR_FORMAT, "section 2", "witness value 3");
    expect_bad(w, mut_wtns_count, rd_wtns, CUZK_ERR_FORMAT, "section 2 (witness values) holds 160 bytes, expected 192",
               NULL);
    expect_bad(fixture_path("bls12381", "mul.wtns"), mut_wtns_value_r, rd_wtns, CUZK_ERR_FORMAT, "section 2", NULL);
}

/* constraint 0 of mul.r1cs: A = {wire 2: -1}; the first term sits after
 * the A term count */
static size_t r1_first_term(uint8_t *b, size_t n) { return sec_payload(b, n, 2) + 4; }
static void mut_r1cs_wire(uint8_t *b, size_t n) { cuzk_put_le32(b + r1_first_term(b, n), 5); }
static void mut_r1cs_coef(uint8_t *b, size_t n) { memset(b + r1_first_term(b, n) + 4, 0xff, 32); }
static void mut_r1cs_nterms(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 2), 1000000); }
static void mut_r1cs_ncons(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 1) + 60, UINT32_MAX); }
static void mut_r1cs_nwires(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_payload(b, n, 1) + 36, 3); }
static void mut_r1cs_gates(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_entry(b, n, 3), 4); }
static void mut_r1cs_nolabels(uint8_t *b, size_t n) { cuzk_put_le32(b + sec_entry(b, n, 3), 77); }

static void test_bad_r1cs(void **state)
{
    (void)state;
    const char *r = fixture_path("bn128", "mul.r1cs");
    expect_bad(r, mut_magic, rd_r1cs, CUZK_ERR_FORMAT, "magic", NULL);
    expect_bad(r, mut_r1cs_wire, rd_r1cs, CUZK_ERR_FORMAT, "section 2", "wire 5 >= nWires 5");
    expect_bad(r, mut_r1cs_coef, rd_r1cs, CUZK_ERR_FORMAT, "section 2", "coefficient");
    expect_bad(r, mut_r1cs_nterms, rd_r1cs, CUZK_ERR_FORMAT, "section 2", "1000000 terms");
    expect_bad(r, mut_r1cs_ncons, rd_r1cs, CUZK_ERR_FORMAT, "section 2", "nConstraints 4294967295");
    expect_bad(r, mut_r1cs_nwires, rd_r1cs, CUZK_ERR_FORMAT, "section 1", "nWires 3");
    expect_bad(r, mut_r1cs_gates, rd_r1cs, CUZK_ERR_FORMAT, "custom gates", NULL);
    expect_bad(r, mut_wtns_prime, rd_r1cs, CUZK_ERR_FORMAT, "section 1", "prime");
    /* section 3 is optional */
    size_t n;
    uint8_t *b = slurp(r, &n);
    mut_r1cs_nolabels(b, n);
    spit(tmp_path("nl.r1cs"), b, n);
    free(b);
    cuzk_r1cs c;
    cuzk_error e = {0};
    assert_int_equal(cuzk_r1cs_read(&c, tmp_path("nl.r1cs"), &e), CUZK_OK);
    assert_null(c.wire_to_label);
    assert_int_equal(c.n_constraints, 2);
    cuzk_r1cs_free(&c);
}

/* ---------------- bad JSON ---------------- */

typedef void (*json_mutator)(json_t *root);

static void expect_bad_json(const char *src, json_mutator mut, reader_fn rd, int want, const char *frag)
{
    json_error_t je;
    json_t *root = json_load_file(src, 0, &je);
    assert_non_null(root);
    mut(root);
    const char *path = tmp_path("bad.json");
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER), 0);
    json_decref(root);
    cuzk_error e = {0};
    int rc = rd(path, &e);
    if (rc != CUZK_OK) show(&e);
    if (rc != want) fail_msg("%s: expected status %d, got %d (%s)", src, want, rc, e.msg);
    if (rc != CUZK_OK) {
        assert_msg_has(&e, path);
        if (frag) assert_msg_has(&e, frag);
    }
}

static void set_g1_coord(json_t *root, const char *key, size_t i, const char *v)
{
    assert_int_equal(json_array_set_new(json_object_get(root, key), i, json_string(v)), 0);
}
static void jm_bad_digit(json_t *r) { set_g1_coord(r, "pi_a", 0, "12a"); }
static void jm_negative(json_t *r) { set_g1_coord(r, "pi_a", 1, "-5"); }
static void jm_empty(json_t *r) { set_g1_coord(r, "pi_c", 0, ""); }
static void jm_number(json_t *r) { json_array_set_new(json_object_get(r, "pi_a"), 0, json_integer(5)); }
static void jm_q(json_t *r)
{
    set_g1_coord(r, "pi_c", 1, "21888242871839275222246405745257275088696311157297823662689037894645226208583");
}
static void jm_q_minus_1(json_t *r)
{
    set_g1_coord(r, "pi_c", 1, "21888242871839275222246405745257275088696311157297823662689037894645226208582");
}
static void jm_z2(json_t *r) { set_g1_coord(r, "pi_a", 2, "2"); }
static void jm_inf(json_t *r)
{
    set_g1_coord(r, "pi_a", 0, "0");
    set_g1_coord(r, "pi_a", 2, "0");
}
static void jm_affine(json_t *r) { json_array_remove(json_object_get(r, "pi_a"), 2); }
static void jm_hex(json_t *r) { set_g1_coord(r, "pi_a", 2, "0x1"); }
static void jm_g2_z(json_t *r)
{
    json_t *z = json_array_get(json_object_get(r, "pi_b"), 2);
    json_array_set_new(z, 1, json_string("1"));
}
static void jm_no_pi_c(json_t *r) { json_object_del(r, "pi_c"); }
static void jm_no_protocol(json_t *r) { json_object_del(r, "protocol"); }
static void jm_plonk(json_t *r) { json_object_set_new(r, "protocol", json_string("plonk")); }
static void jm_curve_unknown(json_t *r) { json_object_set_new(r, "curve", json_string("bls12377")); }
static void jm_curve_alias(json_t *r) { json_object_set_new(r, "curve", json_string("ALT_BN128")); }
static void jm_no_curve(json_t *r) { json_object_del(r, "curve"); }
static void jm_short_g2(json_t *r) { json_array_remove(json_array_get(json_object_get(r, "pi_b"), 0), 1); }

static void jm_pub_r(json_t *r)
{
    json_array_set_new(r, 0, json_string("21888242871839275222246405745257275088548364400416034343698204186575808495617"));
}
static void jm_pub_r_minus_1(json_t *r)
{
    json_array_set_new(r, 0, json_string("21888242871839275222246405745257275088548364400416034343698204186575808495616"));
}
static void jm_pub_junk(json_t *r) { json_array_set_new(r, 1, json_string("three")); }
static void jm_pub_nested(json_t *r) { json_array_set_new(r, 1, json_array()); }

static void jm_vk_ic_short(json_t *r) { json_array_remove(json_object_get(r, "IC"), 2); }
static void jm_vk_npublic(json_t *r) { json_object_del(r, "nPublic"); }
static void jm_vk_npublic_neg(json_t *r) { json_object_set_new(r, "nPublic", json_integer(-1)); }
static void jm_vk_no_ab(json_t *r) { json_object_del(r, "vk_alphabeta_12"); }
static void jm_vk_bad_ab(json_t *r)
{
    json_t *ab = json_array_get(json_array_get(json_object_get(r, "vk_alphabeta_12"), 1), 2);
    json_array_set_new(ab, 0, json_string("1.5"));
}
static void jm_vk_curve(json_t *r) { json_object_set_new(r, "curve", json_string("mnt4")); }
static void jm_vk_protocol(json_t *r) { json_object_set_new(r, "protocol", json_string("fflonk")); }
static void jm_vk_no_delta(json_t *r) { json_object_del(r, "vk_delta_2"); }
static void jm_vk_to_array(json_t *r) { json_object_clear(r); }

static void test_bad_json(void **state)
{
    (void)state;
    const char *p = fixture_path("bn128", "proof.json");
    expect_bad_json(p, jm_bad_digit, rd_proof, CUZK_ERR_FORMAT, "pi_a[0]");
    expect_bad_json(p, jm_negative, rd_proof, CUZK_ERR_FORMAT, "pi_a[1]");
    expect_bad_json(p, jm_empty, rd_proof, CUZK_ERR_FORMAT, "pi_c[0]");
    expect_bad_json(p, jm_number, rd_proof, CUZK_ERR_FORMAT, "pi_a[0]");
    expect_bad_json(p, jm_q, rd_proof, CUZK_ERR_FORMAT, "not below q of bn128");
    expect_bad_json(p, jm_q_minus_1, rd_proof, CUZK_OK, NULL);
    expect_bad_json(p, jm_z2, rd_proof, CUZK_ERR_FORMAT, "pi_a[2]");
    expect_bad_json(p, jm_g2_z, rd_proof, CUZK_ERR_FORMAT, "pi_b[2]");
    expect_bad_json(p, jm_inf, rd_proof, CUZK_OK, NULL);
    expect_bad_json(p, jm_affine, rd_proof, CUZK_OK, NULL);
    expect_bad_json(p, jm_hex, rd_proof, CUZK_OK, NULL);
    expect_bad_json(p, jm_no_pi_c, rd_proof, CUZK_ERR_FORMAT, "pi_c");
    expect_bad_json(p, jm_no_protocol, rd_proof, CUZK_ERR_FORMAT, "protocol");
    expect_bad_json(p, jm_plonk, rd_proof, CUZK_ERR_FORMAT, "groth16");
    expect_bad_json(p, jm_curve_unknown, rd_proof, CUZK_ERR_FORMAT, "bls12377");
    expect_bad_json(p, jm_curve_alias, rd_proof, CUZK_OK, NULL);
    expect_bad_json(p, jm_no_curve, rd_proof, CUZK_OK, NULL);
    expect_bad_json(p, jm_short_g2, rd_proof, CUZK_ERR_FORMAT, "pi_b[0]");
    /* a bls12-381 proof read as bn128 (no curve key) has coordinates >= q */
    expect_bad_json(fixture_path("bls12381", "proof.json"), jm_no_curve, rd_proof, CUZK_ERR_FORMAT, "q of bn128");

    /* the infinity point decodes as such */
    cuzk_proof pr;
    cuzk_error e = {0};
    assert_int_equal(cuzk_proof_read_json(&pr, tmp_path("bad.json"), &e), CUZK_ERR_FORMAT);
    expect_bad_json(p, jm_inf, rd_proof, CUZK_OK, NULL);
    assert_int_equal(cuzk_proof_read_json(&pr, tmp_path("bad.json"), &e), CUZK_OK);
    assert_true(pr.a.infinity);
    assert_true(all_zero(pr.a.x, 6) && all_zero(pr.a.y, 6));
    assert_false(pr.c.infinity);

    const char *pub = fixture_path("bn128", "public.json");
    expect_bad_json(pub, jm_pub_r, rd_public_bn, CUZK_ERR_FORMAT, "signal 0");
    expect_bad_json(pub, jm_pub_r_minus_1, rd_public_bn, CUZK_OK, NULL);
    expect_bad_json(pub, jm_pub_junk, rd_public_bn, CUZK_ERR_FORMAT, "signal 1");
    expect_bad_json(pub, jm_pub_nested, rd_public_bn, CUZK_ERR_FORMAT, "signal 1");
    expect_bad_json(fixture_path("bn128", "proof.json"), jm_hex, rd_public_bn, CUZK_ERR_FORMAT, "array");

    const char *vk = fixture_path("bn128", "verification_key.json");
    expect_bad_json(vk, jm_vk_ic_short, rd_vk, CUZK_ERR_FORMAT, "IC");
    expect_bad_json(vk, jm_vk_npublic, rd_vk, CUZK_ERR_FORMAT, "nPublic");
    expect_bad_json(vk, jm_vk_npublic_neg, rd_vk, CUZK_ERR_FORMAT, "nPublic");
    expect_bad_json(vk, jm_vk_no_ab, rd_vk, CUZK_OK, NULL);
    expect_bad_json(vk, jm_vk_bad_ab, rd_vk, CUZK_ERR_FORMAT, "vk_alphabeta_12[1][2][0]");
    expect_bad_json(vk, jm_vk_curve, rd_vk, CUZK_ERR_FORMAT, "mnt4");
    expect_bad_json(vk, jm_vk_protocol, rd_vk, CUZK_ERR_FORMAT, "protocol");
    expect_bad_json(vk, jm_vk_no_delta, rd_vk, CUZK_ERR_FORMAT, "vk_delta_2");
    expect_bad_json(vk, jm_vk_to_array, rd_vk, CUZK_ERR_FORMAT, "protocol");

    cuzk_vk v;
    expect_bad_json(vk, jm_vk_no_ab, rd_vk, CUZK_OK, NULL);
    assert_int_equal(cuzk_vk_read_json(&v, tmp_path("bad.json"), &e), CUZK_OK);
    assert_false(v.has_alphabeta);
    cuzk_vk_free(&v);

    /* not JSON at all, and not there at all */
    spit(tmp_path("junk.json"), "{\"pi_a\": [", 10);
    assert_int_equal(rd_proof(tmp_path("junk.json"), &e), CUZK_ERR_FORMAT);
    assert_msg_has(&e, "junk.json");
    assert_int_equal(rd_vk(tmp_path("none.json"), &e), CUZK_ERR_IO);
    assert_msg_has(&e, "none.json");
}

/* ---------------- synthetic round trips and writer refusals ---------------- */

static uint64_t *rnd_points(cuzk_curve_id curve, uint64_t count, uint32_t coords, int every_inf)
{
    uint32_t qw = cuzk_curve_q_words(curve);
    uint64_t *p = cuzk_alloc_aligned(count * coords * qw * 8, 1);
    assert_non_null(p);
    for (uint64_t i = 0; i < count; i++) {
        if (every_inf && i % every_inf == 0) continue; /* infinity: all zero */
        for (uint32_t c = 0; c < coords; c++) rnd_below(p + (i * coords + c) * qw, cuzk_curve_q(curve), qw);
    }
    return p;
}

/* A key of random coordinates (< q, not on the curve: the reader does not
 * look) and coefficients, of n_vars wires (3 public), a domain of
 * domain_size and n_coefs coefficients */
static void make_zkey_sized(cuzk_zkey *z, cuzk_curve_id curve, uint32_t n_vars, uint32_t domain_size,
                            uint32_t n_coefs)
{
    uint32_t qw = cuzk_curve_q_words(curve);
    memset(z, 0, sizeof *z);
    z->curve = curve;
    z->n8q = 8 * qw;
    z->n8r = 32;
    z->n_vars = n_vars;
    z->n_public = 3;
    z->domain_size = domain_size;
    uint64_t *hdr[] = {z->alpha1, z->beta1, z->delta1, z->beta2, z->gamma2, z->delta2};
    for (int i = 0; i < 6; i++) {
        uint64_t *t = rnd_points(curve, 1, i < 3 ? 2 : 4, 0);
        memcpy(hdr[i], t, (i < 3 ? 2 : 4) * qw * 8);
        free(t);
    }
    z->ic = rnd_points(curve, 4, 2, 0);
    z->a = rnd_points(curve, n_vars, 2, 3);
    z->b1 = rnd_points(curve, n_vars, 2, 2);
    z->b2 = rnd_points(curve, n_vars, 4, 2);
    z->c = rnd_points(curve, n_vars - 4, 2, 0);
    z->h = rnd_points(curve, domain_size, 2, 0);
    z->n_coefs = n_coefs;
    z->coefs = calloc(z->n_coefs, sizeof *z->coefs);
    assert_non_null(z->coefs);
    for (uint32_t i = 0; i < z->n_coefs; i++) {
        z->coefs[i] = (cuzk_zkey_coef){i & 1, (uint32_t)(rnd64() % domain_size), (uint32_t)(rnd64() % n_vars), {0}};
        rnd_below(z->coefs[i].value, cuzk_curve_r(curve), 4);
    }
}

static void make_zkey(cuzk_zkey *z, cuzk_curve_id curve) { make_zkey_sized(z, curve, 9, 16, 20); }

static void test_zkey_roundtrip(void **state)
{
    (void)state;
    for (int cv = 0; cv < 2; cv++) {
        cuzk_zkey z, z2;
        cuzk_error e = {0};
        const char *path = tmp_path("syn.zkey");
        make_zkey(&z, cv ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254);
        assert_int_equal(cuzk_zkey_write(&z, path, &e), CUZK_OK);
        assert_int_equal(cuzk_zkey_read(&z2, path, &e), CUZK_OK);
        assert_zkey_equal(&z, &z2);
        cuzk_zkey_free(&z2);

        /* the section order of a fresh snarkjs key */
        size_t n;
        uint8_t *b = slurp(path, &n);
        static const uint32_t order[] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};
        size_t pos = 12;
        assert_int_equal(cuzk_le32(b + 8), 10);
        for (int i = 0; i < 10; i++) {
            assert_int_equal(cuzk_le32(b + pos), order[i]);
            pos += 12 + cuzk_le64(b + pos + 4);
        }
        assert_int_equal(pos, n);

        /* the same bytes a section at a time; abort keeps what stood at the path */
        const char *again = tmp_path("syn2.zkey");
        static const uint8_t no_contributions[68];
        for (int aborted = 0; aborted < 2; aborted++) {
            cuzk_zkey_writer zw;
            assert_int_equal(cuzk_zkey_writer_open(&zw, &z, again, &e), CUZK_OK);
            for (int i = 0; i < (aborted ? 4 : 9); i++) {
                assert_int_equal(cuzk_zkey_writer_next(&zw), order[i]);
                assert_int_equal(cuzk_zkey_writer_section(&zw, &e), CUZK_OK);
            }
            if (aborted) {
                cuzk_zkey_writer_abort(&zw);
            } else {
                assert_int_equal(cuzk_zkey_writer_next(&zw), 10);
                assert_int_equal(cuzk_zkey_writer_section(&zw, &e), CUZK_ERR_ARG); /* section 10 is finish's */
                assert_int_equal(cuzk_zkey_writer_finish(&zw, no_contributions, sizeof no_contributions, &e),
                                 CUZK_OK);
            }
            size_t n2;
            uint8_t *b2 = slurp(again, &n2);
            assert_int_equal(n2, n);
            assert_memory_equal(b2, b, n);
            free(b2);
        }
        remove(again);
        free(b);

        /* the writer refuses what the reader would refuse, and leaves no file */
        z.coefs[3].wire = 9;
        remove(path);
        assert_int_equal(cuzk_zkey_write(&z, path, &e), CUZK_ERR_ARG);
        assert_int_equal(access(path, F_OK), -1);
        z.coefs[3].wire = 0;
        z.domain_size = 12;
        assert_int_equal(cuzk_zkey_write(&z, path, &e), CUZK_ERR_ARG);
        z.domain_size = 16;
        z.h[2 * z.n8q / 8 * 3 + z.n8q / 8 - 1] = UINT64_MAX;
        assert_int_equal(cuzk_zkey_write(&z, path, &e), CUZK_ERR_ARG);
        assert_msg_has(&e, "H point 3");
        assert_int_equal(access(path, F_OK), -1); /* refused mid-file: the partial file dropped */
        cuzk_zkey_free(&z);
    }
    cuzk_zkey z;
    cuzk_error e = {0};
    make_zkey(&z, CUZK_CURVE_BN254);
    assert_int_equal(cuzk_zkey_write(&z, "/nonexistent-dir/k.zkey", &e), CUZK_ERR_IO);
    assert_msg_has(&e, "/nonexistent-dir/k.zkey");
    cuzk_zkey_free(&z);
}

/* A key file with the coordinate of point `point` of section `sec` (G1, 64
 * bytes a point on bn128) and the row of coefficient `coef` made out of
 * range, where each is >= 0 */
static void corrupt_zkey(const char *src, const char *dst, uint32_t sec, long point, long coef, uint32_t bad_row)
{
    size_t n;
    uint8_t *b = slurp(src, &n);
    if (point >= 0) memset(b + sec_payload(b, n, sec) + 64 * (size_t)point + 32, 0xff, 32);
    if (coef >= 0) cuzk_put_le32(b + sec_payload(b, n, 4) + 4 + 44 * (size_t)coef + 4, bad_row);
    spit(dst, b, n);
    free(b);
}

static void expect_zkey_refused(const char *path, const char *frag)
{
    for (int mapped = 0; mapped < 2; mapped++) {
        cuzk_zkey z;
        cuzk_error e = {0};
        int rc = mapped ? cuzk_zkey_map(&z, path, &e) : cuzk_zkey_read(&z, path, &e);
        if (rc != CUZK_ERR_FORMAT) fail_msg("%s (%s): status %d (%s)", path, mapped ? "mapped" : "read", rc, e.msg);
        assert_msg_has(&e, frag);
    }
}

/* cuzk_zkey_map gives the key cuzk_zkey_read gives, its arrays left in
 * the mapping when the layout puts them on 8-byte boundaries and copied
 * out when not (each section header is 12 bytes and each coefficient 44:
 * the count's parity and the section's rank decide). The sections are large enough to be read and checked on every
 * CPU, and of two bad entries in different threads' shares the first is
 * named. */
static void test_zkey_mapped(void **state)
{
    (void)state;
    const uint32_t n_vars = 1u << 16, domain = 1u << 16;
    int seen[2] = {0, 0};
    for (uint32_t odd = 0; odd < 2; odd++) {
        cuzk_zkey z, read, mapped;
        cuzk_error e = {0};
        const char *path = tmp_path("large.zkey"), *bad = tmp_path("large-bad.zkey");
        make_zkey_sized(&z, CUZK_CURVE_BN254, n_vars, domain, (1u << 17) + odd);
        assert_int_equal(cuzk_zkey_write(&z, path, &e), CUZK_OK);
        assert_int_equal(cuzk_zkey_read(&read, path, &e), CUZK_OK);
        assert_int_equal(cuzk_zkey_map(&mapped, path, &e), CUZK_OK);
        assert_zkey_equal(&z, &read);
        assert_zkey_equal(&z, &mapped);
        assert_null(read.map);
        /* pages handed back are read again from the file, unchanged; on a
         * read key the calls do nothing */
        cuzk_zkey_release_all_points(&mapped);
        cuzk_zkey_release_coefs(&mapped);
        assert_zkey_equal(&z, &mapped);
        cuzk_zkey_release_all_points(&read);
        cuzk_zkey_release_coefs(&read);
        assert_zkey_equal(&z, &read);
        /* the mapped key written again (its coefficient records copied as
         * they are) is the same file */
        const char *again = tmp_path("large-again.zkey");
        assert_int_equal(cuzk_zkey_write(&mapped, again, &e), CUZK_OK);
        assert_files_equal(path, again);

        size_t n;
        uint8_t *b = slurp(path, &n);
        static const uint32_t secs[] = {5, 6, 7, 8, 9};
        const uint64_t *arrays[] = {mapped.a, mapped.b1, mapped.b2, mapped.c, mapped.h};
        const uint8_t *m = mapped.map;
        assert_non_null(m); /* snarkjs's layout: every other section is on an 8-byte boundary */
        /* the coefficients stay where section 4 lies, past its count */
        assert_null(mapped.coefs);
        assert_ptr_equal(mapped.coef_bytes, m + sec_payload(b, n, 4) + 4);
        for (int k = 0; k < 5; k++) {
            const int aligned = sec_payload(b, n, secs[k]) % 8 == 0;
            const uint8_t *p = (const uint8_t *)arrays[k];
            seen[aligned] = 1;
            assert_int_equal(p >= m && p < m + mapped.map_len, aligned);
            if (aligned) assert_ptr_equal(p, m + sec_payload(b, n, secs[k]));
        }
        free(b);
        cuzk_zkey_free(&read);
        cuzk_zkey_free(&mapped);

        corrupt_zkey(path, bad, 9, 5, -1, 0);
        corrupt_zkey(bad, bad, 9, (long)domain - 3, -1, 0);
        expect_zkey_refused(bad, "section 9 (H points): point 5: coordinate 2 of 2 is not below q");
        corrupt_zkey(path, bad, 5, (long)n_vars - 2, 7, domain);
        corrupt_zkey(bad, bad, 5, -1, (long)z.n_coefs - 2, domain + 1);
        expect_zkey_refused(bad, "section 4 (coefficients): entry 7: row 65536 >= domainSize 65536");
        cuzk_zkey_free(&z);
    }
    assert_true(seen[0] && seen[1]); /* both placements met */
}

static void test_wtns_r1cs_roundtrip(void **state)
{
    (void)state;
    cuzk_error e = {0};
    for (int cv = 0; cv < 2; cv++) {
        cuzk_curve_id curve = cv ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
        cuzk_wtns w = {curve, 1000, cuzk_alloc_aligned(1000 * 32, 0)}, w2;
        for (uint32_t i = 0; i < w.n_witness; i++) rnd_below(w.values + 4 * i, cuzk_curve_r(curve), 4);
        assert_int_equal(cuzk_wtns_write(&w, tmp_path("syn.wtns"), &e), CUZK_OK);
        assert_int_equal(cuzk_wtns_read(&w2, tmp_path("syn.wtns"), &e), CUZK_OK);
        assert_int_equal(w2.curve, curve);
        assert_int_equal(w2.n_witness, 1000);
        assert_memory_equal(w2.values, w.values, 1000 * 32);
        cuzk_wtns_free(&w2);
        memcpy(w.values + 4 * 7, cuzk_curve_r(curve), 32);
        assert_int_equal(cuzk_wtns_write(&w, tmp_path("syn.wtns"), &e), CUZK_ERR_ARG);
        cuzk_wtns_free(&w);

        /* an r1cs with empty rows, long rows and all three matrices */
        cuzk_r1cs c = {.curve = curve, .n_wires = 50, .n_pub_out = 2, .n_pub_in = 3, .n_prv_in = 4, .n_labels = 77,
                       .n_constraints = 40}, c2;
        for (int m = 0; m < 3; m++) {
            c.row_start[m] = malloc(41 * sizeof(uint32_t));
            c.terms[m] = calloc(40 * 30, sizeof(cuzk_r1cs_term));
            assert_non_null(c.row_start[m]);
            assert_non_null(c.terms[m]);
            c.row_start[m][0] = 0;
            for (uint32_t i = 0; i < 40; i++) {
                uint32_t nt = (uint32_t)(rnd64() % (i % 5 == 0 ? 30 : 4));
                for (uint32_t k = 0; k < nt; k++) {
                    cuzk_r1cs_term *t = &c.terms[m][c.row_start[m][i] + k];
                    t->wire = (uint32_t)(rnd64() % 50);
                    rnd_below(t->coef, cuzk_curve_r(curve), 4);
                }
                c.row_start[m][i + 1] = c.row_start[m][i] + nt;
            }
        }
        c.wire_to_label = malloc(50 * 8);
        for (int i = 0; i < 50; i++) c.wire_to_label[i] = (uint64_t)i * 3 / 2;
        assert_int_equal(cuzk_r1cs_write(&c, tmp_path("syn.r1cs"), &e), CUZK_OK);
        assert_int_equal(cuzk_r1cs_read(&c2, tmp_path("syn.r1cs"), &e), CUZK_OK);
        assert_r1cs_equal(&c, &c2);
        cuzk_r1cs_free(&c2);
        c.terms[1][0].wire = 50;
        c.row_start[1][1] = c.row_start[1][1] ? c.row_start[1][1] : 1;
        assert_int_equal(cuzk_r1cs_write(&c, tmp_path("syn.r1cs"), &e), CUZK_ERR_ARG);
        cuzk_r1cs_free(&c);
    }
}

static void test_json_roundtrip(void **state)
{
    (void)state;
    cuzk_error e = {0};
    for (int cv = 0; cv < 2; cv++) {
        cuzk_curve_id curve = cv ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
        const uint64_t *q = cuzk_curve_q(curve);
        uint32_t qw = cuzk_curve_q_words(curve);
        cuzk_proof p = {.curve = curve}, p2;
        rnd_below(p.a.x, q, qw);
        rnd_below(p.a.y, q, qw);
        p.b.infinity = 1;
        memcpy(p.c.x, q, 8 * qw);
        p.c.x[0] -= 1; /* q - 1 */
        rnd_below(p.c.y, q, qw);
        assert_int_equal(cuzk_proof_write_json(&p, tmp_path("p.json"), &e), CUZK_OK);
        assert_int_equal(cuzk_proof_read_json(&p2, tmp_path("p.json"), &e), CUZK_OK);
        assert_proof_equal(&p, &p2);
        char *s = cuzk_proof_to_json(&p, &e);
        assert_non_null(strstr(s, "\"pi_b\": [\n  [\n   \"0\",\n   \"0\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ],\n  [\n   \"0\",\n   \"0\"\n  ]\n ]"));
        free(s);
        p.a.y[qw - 1] = UINT64_MAX;
        assert_int_equal(cuzk_proof_write_json(&p, tmp_path("p.json"), &e), CUZK_ERR_ARG);

        cuzk_vk vk = {.curve = curve, .n_public = 4}, vk2;
        vk.ic = calloc(5, sizeof *vk.ic);
        assert_non_null(vk.ic);
        rnd_below(vk.alpha1.x, q, qw);
        rnd_below(vk.alpha1.y, q, qw);
        cuzk_g2_plain *g2[] = {&vk.beta2, &vk.gamma2, &vk.delta2};
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 2; k++) rnd_below(g2[i]->x[k], q, qw), rnd_below(g2[i]->y[k], q, qw);
        for (int i = 0; i < 12; i++) rnd_below((&vk.alphabeta[0][0][0][0]) + 6 * i, q, qw);
        for (int i = 0; i < 5; i++) {
            vk.ic[i].infinity = i == 2;
            if (i != 2) rnd_below(vk.ic[i].x, q, qw), rnd_below(vk.ic[i].y, q, qw);
        }
        assert_int_equal(cuzk_vk_write_json(&vk, tmp_path("vk.json"), &e), CUZK_OK);
        assert_int_equal(cuzk_vk_read_json(&vk2, tmp_path("vk.json"), &e), CUZK_OK);
        assert_int_equal(vk2.n_public, 4);
        assert_true(vk2.has_alphabeta);
        assert_vk_equal(&vk, &vk2);
        s = cuzk_vk_to_json(&vk, &e);
        assert_non_null(s);
        assert_non_null(strstr(s, "{\n \"protocol\": \"groth16\",\n \"curve\": \""));
        assert_non_null(strstr(s, "\",\n \"nPublic\": 4,\n \"vk_alpha_1\": [\n  \""));
        assert_non_null(strstr(s, "[\n   \"0\",\n   \"1\",\n   \"0\"\n  ]"));
        free(s);
        cuzk_vk_free(&vk2);
        cuzk_vk_free(&vk);

        uint64_t sig[3][4] = {{0}, {1}, {0}};
        memcpy(sig[2], cuzk_curve_r(curve), 32);
        sig[2][0] -= 1;
        uint64_t (*back)[4];
        uint32_t nb;
        assert_int_equal(cuzk_public_write_json((const uint64_t(*)[4])sig, 3, tmp_path("pub.json"), &e), CUZK_OK);
        assert_int_equal(cuzk_public_read_json(&back, &nb, curve, tmp_path("pub.json"), &e), CUZK_OK);
        assert_int_equal(nb, 3);
        assert_memory_equal(back, sig, sizeof sig);
        free(back);
    }
}

/* ---------------- main ---------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int group_setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/cuzk-formats-XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    return nftw(tmp_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Watchdog for the FIFO test: a reader that blocks in open never returns,
 * so the test process says so and fails instead of hanging the suite. */
static void fifo_hung(int sig)
{
    (void)sig;
    static const char msg[] = "test_formats: a reader blocked on a FIFO\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

/* A FIFO (no writer) given as any input is refused at once, as not a
 * regular file, by every reader: none blocks in open or in read. */
static void test_fifo_refused(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/input.fifo", tmp_dir);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    signal(SIGALRM, fifo_hung);
    alarm(60);
    cuzk_error err = {0};
    cuzk_zkey z;
    cuzk_wtns w;
    cuzk_r1cs r;
    cuzk_proof p;
    cuzk_vk vk;
    uint64_t(*pub)[4] = NULL;
    uint32_t n = 0;
    int rcs[6] = {cuzk_zkey_read(&z, path, &err), cuzk_wtns_read_header(&w, path, &err),
                  cuzk_r1cs_read(&r, path, &err), cuzk_proof_read_json(&p, path, &err),
                  cuzk_vk_read_json(&vk, path, &err),
                  cuzk_public_read_json(&pub, &n, CUZK_CURVE_BN254, path, &err)};
    alarm(0);
    for (int i = 0; i < 6; i++)
        assert_int_equal(rcs[i], CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, "input.fifo: not a regular file (a FIFO)"));
    assert_int_equal(unlink(path), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decimal),        cmocka_unit_test(test_curve_id),
        cmocka_unit_test(test_wtns_fixture),   cmocka_unit_test(test_r1cs_fixture),
        cmocka_unit_test(test_zkey_fixture),   cmocka_unit_test(test_json_fixture),
        cmocka_unit_test(test_truncated),      cmocka_unit_test(test_bad_zkey),
        cmocka_unit_test(test_bad_wtns),       cmocka_unit_test(test_bad_r1cs),
        cmocka_unit_test(test_bad_json),       cmocka_unit_test(test_zkey_roundtrip),
        cmocka_unit_test(test_zkey_mapped),
        cmocka_unit_test(test_wtns_r1cs_roundtrip), cmocka_unit_test(test_json_roundtrip),
        cmocka_unit_test(test_fifo_refused),
        cmocka_unit_test(test_refusals_quote_nothing),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
