/* Filecoin's parameter files (src/filecoin/params.c) and the zcash point
 * encoding (zcash.c): the generators' known encodings, round trips of
 * points and whole files, counts read alone, and every bad input a clear
 * error (truncated, counts that disagree, a point off the curve or outside
 * the subgroup, the identity, wrong flags, a coordinate >= p, trailing
 * bytes), also when writing; a read that checks the curve alone lets a
 * point outside the subgroup through, and still refuses one off the curve. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin/params.h"
#include "filecoin/setup.h"
#include "filecoin/zcash.h"
#include "filecoin_circuit.h"
#include "support.h"

/* ---- the point codec ---- */

static void from_hex(uint8_t *out, const char *hex, size_t len)
{
    for (size_t i = 0; i < len; i++)
        sscanf(hex + 2 * i, "%2hhx", &out[i]);
}

static void g1_mul(bls12_381_g1_affine *out, uint64_t k)
{
    bls12_381_g1_affine g;
    bls12_381_g1_jac j;
    bls12_381_g1_generator(&g);
    bls12_381_g1_jac_from_affine(&j, &g);
    bls12_381_g1_jac_mul_var(&j, &j, &k, 64);
    bls12_381_g1_jac_to_affine(out, &j);
}

static void g2_mul(bls12_381_g2_affine *out, uint64_t k)
{
    bls12_381_g2_affine g;
    bls12_381_g2_jac j;
    bls12_381_g2_generator(&g);
    bls12_381_g2_jac_from_affine(&j, &g);
    bls12_381_g2_jac_mul_var(&j, &j, &k, 64);
    bls12_381_g2_jac_to_affine(out, &j);
}

/* The generators' compressed encodings as the zcash spec (and blst, and
 * every BLS12-381 library) gives them: x big-endian, G2's c1 first, flag
 * 0x80, sign clear (both generators' y are the smaller root). */
static void test_generator_encodings(void **state)
{
    (void)state;
    uint8_t want1[48], want2[96], got1[48], got2[96];
    from_hex(want1, "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb",
             48);
    from_hex(want2,
             "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
             "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
             96);
    bls12_381_g1_affine g1, back1;
    bls12_381_g2_affine g2, back2;
    bls12_381_g1_generator(&g1);
    bls12_381_g2_generator(&g2);
    fil_g1_compress(got1, &g1);
    fil_g2_compress(got2, &g2);
    assert_memory_equal(got1, want1, 48);
    assert_memory_equal(got2, want2, 96);
    assert_int_equal(fil_g1_decompress(&back1, want1, 0), FIL_POINT_OK);
    assert_int_equal(fil_g2_decompress(&back2, want2, 0), FIL_POINT_OK);
    assert_memory_equal(&back1, &g1, sizeof g1);
    assert_memory_equal(&back2, &g2, sizeof g2);
    /* uncompressed: the same x with no flag, then y */
    uint8_t u1[96], u2[192];
    fil_g1_encode(u1, &g1);
    fil_g2_encode(u2, &g2);
    assert_int_equal(u1[0], want1[0] & 0x1f);
    assert_memory_equal(u1 + 1, want1 + 1, 47);
    assert_int_equal(u2[0], want2[0] & 0x1f);
    assert_memory_equal(u2 + 1, want2 + 1, 95);
}

/* k G and -k G through both encodings, both signs of y */
static void test_point_round_trips(void **state)
{
    (void)state;
    for (uint64_t k = 1; k < 40; k += 7) {
        bls12_381_g1_affine p, back;
        bls12_381_g2_affine q, backq;
        g1_mul(&p, k);
        g2_mul(&q, k);
        for (int neg = 0; neg < 2; neg++) {
            if (neg) {
                bls12_381_g1_affine_neg(&p, &p);
                bls12_381_g2_affine_neg(&q, &q);
            }
            uint8_t b1[96], b2[192], c1[48], c2[96];
            fil_g1_encode(b1, &p);
            fil_g2_encode(b2, &q);
            fil_g1_compress(c1, &p);
            fil_g2_compress(c2, &q);
            assert_int_equal(fil_g1_decode(&back, b1, FIL_CHECK_ALL), FIL_POINT_OK);
            assert_memory_equal(&back, &p, sizeof p);
            assert_int_equal(fil_g1_decompress(&back, c1, 0), FIL_POINT_OK);
            assert_memory_equal(&back, &p, sizeof p);
            assert_int_equal(fil_g2_decode(&backq, b2, FIL_CHECK_ALL), FIL_POINT_OK);
            assert_memory_equal(&backq, &q, sizeof q);
            assert_int_equal(fil_g2_decompress(&backq, c2, 0), FIL_POINT_OK);
            assert_memory_equal(&backq, &q, sizeof q);
        }
    }
}

/* every refusal, each named by its status */
static void test_bad_points(void **state)
{
    (void)state;
    bls12_381_g1_affine p, out;
    bls12_381_g2_affine q, outq;
    g1_mul(&p, 5);
    g2_mul(&q, 5);
    uint8_t b1[96], b2[192], c1[48], t[192];
    fil_g1_encode(b1, &p);
    fil_g2_encode(b2, &q);
    fil_g1_compress(c1, &p);
    /* flags */
    memcpy(t, b1, 96);
    t[0] |= 0x80;
    assert_int_equal(fil_g1_decode(&out, t, FIL_CHECK_ALL), FIL_POINT_BAD_FLAGS);
    memcpy(t, b1, 96);
    t[0] |= 0x20;
    assert_int_equal(fil_g1_decode(&out, t, FIL_CHECK_ALL), FIL_POINT_BAD_FLAGS);
    memcpy(t, b2, 192);
    t[0] |= 0x20;
    assert_int_equal(fil_g2_decode(&outq, t, FIL_CHECK_ALL), FIL_POINT_BAD_FLAGS);
    assert_int_equal(fil_g1_decompress(&out, b1, 1), FIL_POINT_BAD_FLAGS); /* uncompressed bytes */
    /* identity */
    bls12_381_g1_affine inf;
    bls12_381_g1_affine_set_inf(&inf);
    fil_g1_encode(t, &inf);
    assert_int_equal(t[0], 0x40);
    assert_int_equal(fil_g1_decode(&out, t, FIL_CHECK_ALL), FIL_POINT_INFINITY);
    fil_g1_compress(t, &inf);
    assert_int_equal(t[0], 0xc0);
    assert_int_equal(fil_g1_decompress(&out, t, 0), FIL_POINT_INFINITY);
    assert_int_equal(fil_g1_decompress(&out, t, 1), FIL_POINT_OK);
    t[47] = 1;
    assert_int_equal(fil_g1_decompress(&out, t, 1), FIL_POINT_BAD_FLAGS);
    memset(t, 0, 96); /* all zeros: (0, 0), on no curve */
    assert_int_equal(fil_g1_decode(&out, t, FIL_CHECK_ALL), FIL_POINT_OFF_CURVE);
    /* coordinates */
    memcpy(t, b1, 96);
    memset(t, 0x1f, 48); /* x above p (0x1a01...) */
    assert_int_equal(fil_g1_decode(&out, t, FIL_CHECK_ALL), FIL_POINT_NOT_CANONICAL);
    memcpy(t, b2, 192);
    memset(t + 96, 0x1f, 48); /* y.c1 above p */
    assert_int_equal(fil_g2_decode(&outq, t, FIL_CHECK_ALL), FIL_POINT_NOT_CANONICAL);
    memcpy(t, b1, 96);
    t[95] ^= 1;
    assert_int_equal(fil_g1_decode(&out, t, FIL_CHECK_ALL), FIL_POINT_OFF_CURVE);
    memcpy(t, b2, 192);
    t[191] ^= 1;
    assert_int_equal(fil_g2_decode(&outq, t, FIL_CHECK_ALL), FIL_POINT_OFF_CURVE);
    /* on the curve, outside the subgroup: small x with a y (the cofactors
     * are huge, so such points are almost never in the subgroup) */
    int seen1 = 0, seen2 = 0, off1 = 0;
    for (int x = 1; x < 40; x++) {
        uint8_t c[96] = {0};
        c[0] = 0x80;
        c[47] = (uint8_t)x;
        fil_point_status s = fil_g1_decompress(&out, c, 0);
        seen1 |= s == FIL_POINT_NOT_IN_SUBGROUP;
        off1 |= s == FIL_POINT_OFF_CURVE;
        c[95] = (uint8_t)x; /* x = x (c0) + 0 u, c1 = 0 */
        c[47] = 0;
        seen2 |= fil_g2_decompress(&outq, c, 0) == FIL_POINT_NOT_IN_SUBGROUP;
    }
    assert_true(seen1 && seen2 && off1);
    assert_string_equal(fil_point_status_name(FIL_POINT_OFF_CURVE), "not on the curve");
}

/* ---- files ---- */

static char tmpdir[64];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cuzk-fil-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    return remove_tree(tmpdir);
}

static void make_key(fil_params *p, fc_shape shape, uint32_t n_pub, uint32_t m)
{
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_error err = {0};
    assert_int_equal(fc_build(shape, n_pub, m, 11, &r, &w), 0);
    fil_setup_options o = {.nthreads = 2, .toxic = test_toxic};
    int rc = fil_setup(&r, &o, p, &err);
    if (rc)
        fail_msg("%s", err.msg);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

static void assert_same_params(const fil_params *a, const fil_params *b)
{
    assert_memory_equal(&a->vk.alpha_g1, &b->vk.alpha_g1, sizeof a->vk.alpha_g1);
    assert_memory_equal(&a->vk.beta_g1, &b->vk.beta_g1, sizeof a->vk.beta_g1);
    assert_memory_equal(&a->vk.delta_g1, &b->vk.delta_g1, sizeof a->vk.delta_g1);
    assert_memory_equal(&a->vk.beta_g2, &b->vk.beta_g2, sizeof a->vk.beta_g2);
    assert_memory_equal(&a->vk.gamma_g2, &b->vk.gamma_g2, sizeof a->vk.gamma_g2);
    assert_memory_equal(&a->vk.delta_g2, &b->vk.delta_g2, sizeof a->vk.delta_g2);
    assert_int_equal(a->vk.n_ic, b->vk.n_ic);
    assert_memory_equal(a->vk.ic, b->vk.ic, a->vk.n_ic * sizeof *a->vk.ic);
    assert_int_equal(a->n_h, b->n_h);
    assert_int_equal(a->n_l, b->n_l);
    assert_int_equal(a->n_a, b->n_a);
    assert_int_equal(a->n_b_g1, b->n_b_g1);
    assert_int_equal(a->n_b_g2, b->n_b_g2);
    assert_memory_equal(a->h, b->h, a->n_h * sizeof *a->h);
    assert_memory_equal(a->l, b->l, a->n_l * sizeof *a->l);
    assert_memory_equal(a->a, b->a, a->n_a * sizeof *a->a);
    assert_memory_equal(a->b_g1, b->b_g1, a->n_b_g1 * sizeof *a->b_g1);
    assert_memory_equal(a->b_g2, b->b_g2, a->n_b_g2 * sizeof *a->b_g2);
}

static void progress_count(void *ctx, uint64_t done, uint64_t total)
{
    assert_true(done <= total);
    (*(int *)ctx)++;
}

/* written, read back (1 and 3 threads), equal; written again, the same
 * bytes; the .vk alone and as the .params' prefix; the counts alone */
static void test_file_round_trip(void **state)
{
    (void)state;
    fil_params p, back, counts;
    make_key(&p, FC_RANDOM, 3, 40);
    assert_int_equal(p.vk.n_ic, 4);
    assert_int_equal(p.n_h + 1, 64); /* 40 + 4 rows */
    assert_int_equal(p.n_l, 40);
    char path[128], path2[128], vk_path[128];
    snprintf(path, sizeof path, "%s/k.params", tmpdir);
    snprintf(path2, sizeof path2, "%s/k2.params", tmpdir);
    snprintf(vk_path, sizeof vk_path, "%s/k.vk", tmpdir);
    cuzk_error err = {0};
    assert_int_equal(fil_params_write(&p, path, &err), CUZK_OK);
    assert_int_equal(fil_vk_write(&p.vk, vk_path, &err), CUZK_OK);
    for (int nt = 1; nt <= 3; nt += 2) {
        int calls = 0;
        fil_read_options o = {nt, progress_count, &calls, FIL_CHECK_ALL};
        if (fil_params_read(&back, path, &o, &err))
            fail_msg("%s", err.msg);
        assert_true(calls >= 1);
        assert_same_params(&p, &back);
        fil_params_free(&back);
    }
    assert_int_equal(fil_params_read(&back, path, NULL, &err), CUZK_OK);
    assert_int_equal(fil_params_write(&back, path2, &err), CUZK_OK);
    size_t len1, len2;
    char *b1 = read_whole_file(path, &len1), *b2 = read_whole_file(path2, &len2);
    assert_non_null(b1);
    assert_non_null(b2);
    assert_int_equal(len1, len2);
    assert_int_equal(len1, fil_params_file_bytes(&p));
    assert_memory_equal(b1, b2, len1);
    fil_vk vk, prefix;
    assert_int_equal(fil_vk_read(&vk, vk_path, 0, &err), CUZK_OK);
    assert_int_equal(fil_vk_read(&prefix, path, 1, &err), CUZK_OK);
    assert_int_equal(vk.n_ic, p.vk.n_ic);
    assert_memory_equal(vk.ic, p.vk.ic, vk.n_ic * sizeof *vk.ic);
    assert_memory_equal(prefix.ic, p.vk.ic, vk.n_ic * sizeof *vk.ic);
    assert_memory_equal(&vk.delta_g2, &p.vk.delta_g2, sizeof vk.delta_g2);
    /* a .params is not a .vk: bytes after ic */
    fil_vk not_vk;
    assert_int_equal(fil_vk_read(&not_vk, path, 0, &err), CUZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "after ic"));
    assert_null(not_vk.ic);
    assert_int_equal(fil_params_counts(&counts, path, &err), CUZK_OK);
    assert_int_equal(counts.n_h, p.n_h);
    assert_int_equal(counts.n_b_g2, p.n_b_g2);
    assert_null(counts.h);
    fil_vk_free(&vk);
    fil_vk_free(&prefix);
    fil_params_free(&back);
    fil_params_free(&p);
    free(b1);
    free(b2);
}

/* the file's bytes, edited, must fail with a message holding `want` */
static void expect_refused(const uint8_t *data, size_t len, const char *want)
{
    cuzk_error err = {0};
    fil_params p;
    int rc = fil_params_read_memory(&p, data, len, "edited.params", &(fil_read_options){2, NULL, NULL, FIL_CHECK_ALL}, &err);
    if (rc != CUZK_ERR_FORMAT)
        fail_msg("expected a format error with '%s', got %d (%s)", want, rc, err.msg);
    if (!strstr(err.msg, want))
        fail_msg("expected '%s' in: %s", want, err.msg);
    assert_null(p.h);
    assert_null(p.vk.ic);
}

/* offsets in the file of k.params's layout */
typedef struct {
    size_t ic_count, h_count, l_count, a_count, b1_count, b2_count, end;
} layout;

static layout layout_of(const fil_params *p)
{
    layout l;
    l.ic_count = FIL_VK_FIXED_BYTES;
    l.h_count = l.ic_count + 4 + (size_t)p->vk.n_ic * 96;
    l.l_count = l.h_count + 4 + (size_t)p->n_h * 96;
    l.a_count = l.l_count + 4 + (size_t)p->n_l * 96;
    l.b1_count = l.a_count + 4 + (size_t)p->n_a * 96;
    l.b2_count = l.b1_count + 4 + (size_t)p->n_b_g1 * 96;
    l.end = l.b2_count + 4 + (size_t)p->n_b_g2 * 192;
    return l;
}

static void put_be32(uint8_t *at, uint32_t v)
{
    at[0] = (uint8_t)(v >> 24);
    at[1] = (uint8_t)(v >> 16);
    at[2] = (uint8_t)(v >> 8);
    at[3] = (uint8_t)v;
}

static void test_bad_files(void **state)
{
    (void)state;
    fil_params p;
    make_key(&p, FC_RANDOM, 2, 20);
    char path[128];
    snprintf(path, sizeof path, "%s/bad.params", tmpdir);
    cuzk_error err = {0};
    assert_int_equal(fil_params_write(&p, path, &err), CUZK_OK);
    size_t len;
    uint8_t *good = (uint8_t *)read_whole_file(path, &len), *t = malloc(len + 200);
    assert_non_null(good);
    assert_non_null(t);
    layout L = layout_of(&p);
    assert_int_equal(L.end, len);
    /* truncated anywhere */
    const size_t cuts[] = {0, 10, 96 * 2 + 5, L.ic_count + 2, L.h_count + 4 + 50, L.b2_count + 3, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        expect_refused(good, cuts[i], "truncated");
    /* trailing bytes */
    memcpy(t, good, len);
    t[len] = 0;
    expect_refused(t, len + 1, "after b_g2");
    /* a count past the end */
    memcpy(t, good, len);
    put_be32(t + L.l_count, 0x7fffffff);
    expect_refused(t, len, "claims");
    /* counts that disagree: b_g2 one point short (the file ends there) */
    memcpy(t, good, len);
    put_be32(t + L.b2_count, p.n_b_g2 - 1);
    expect_refused(t, len - 192, "as many");
    /* h not a domain less one: one point dropped from h, the rest moved up */
    memcpy(t, good, L.h_count);
    put_be32(t + L.h_count, p.n_h - 1);
    memcpy(t + L.h_count + 4, good + L.h_count + 4 + 96, len - L.h_count - 4 - 96);
    expect_refused(t, len - 96, "domain's size less one");
    /* a with fewer points than inputs */
    memcpy(t, good, L.a_count);
    put_be32(t + L.a_count, 1);
    memcpy(t + L.a_count + 4, good + L.a_count + 4, 96);
    memcpy(t + L.a_count + 4 + 96, good + L.b1_count, len - L.b1_count);
    expect_refused(t, L.a_count + 4 + 96 + (len - L.b1_count), "between");
    /* one bad point of each kind, named by section and index */
    const size_t h3 = L.h_count + 4 + 3 * 96;
    memcpy(t, good, len);
    t[h3 + 95] ^= 1;
    expect_refused(t, len, "h point 3 is not on the curve");
    memcpy(t, good, len);
    memset(t + h3, 0, 96);
    t[h3] = 0x40;
    expect_refused(t, len, "h point 3 is the point at infinity");
    memcpy(t, good, len);
    t[h3] |= 0x80;
    expect_refused(t, len, "h point 3 is wrong flag bits");
    memcpy(t, good, len);
    memset(t + h3, 0x1f, 48);
    expect_refused(t, len, "h point 3 is a coordinate not below");
    const size_t b2_0 = L.b2_count + 4;
    memcpy(t, good, len);
    t[b2_0 + 191] ^= 2;
    expect_refused(t, len, "b_g2 point 0 is not on the curve");
    memcpy(t, good, len);
    t[96 * 2 + 191] ^= 1; /* beta_g2 */
    expect_refused(t, len, "beta_g2 is not on the curve");
    /* not in the subgroup: a curve point of G1 outside it, as l's point 1 */
    bls12_381_g1_affine odd;
    uint8_t c[48] = {0};
    int found = 0;
    for (int x = 1; x < 40 && !found; x++) {
        c[0] = 0x80;
        c[47] = (uint8_t)x;
        found = fil_g1_decompress(&odd, c, 0) == FIL_POINT_NOT_IN_SUBGROUP;
    }
    assert_true(found);
    memcpy(t, good, len);
    fil_g1_encode(t + L.l_count + 4 + 96, &odd);
    expect_refused(t, len, "l point 1 is not in the prime-order subgroup");
    /* FIL_CHECK_CURVE lets it through (a prover's choice), not a point off the curve */
    fil_params lax;
    assert_int_equal(fil_params_read_memory(&lax, t, len, "edited.params",
                                            &(fil_read_options){2, NULL, NULL, FIL_CHECK_CURVE}, &err),
                     CUZK_OK);
    assert_memory_equal(&lax.l[1], &odd, sizeof odd);
    fil_params_free(&lax);
    t[L.l_count + 4 + 96 + 95] ^= 1;
    assert_int_equal(fil_params_read_memory(&lax, t, len, "edited.params",
                                            &(fil_read_options){2, NULL, NULL, FIL_CHECK_CURVE}, &err),
                     CUZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "l point 1 is not on the curve"));
    /* a .vk: trailing bytes, an empty ic */
    fil_vk vk;
    assert_int_equal(fil_vk_read_memory(&vk, good, L.h_count, "k.vk", 0, &err), CUZK_OK);
    fil_vk_free(&vk);
    assert_int_equal(fil_vk_read_memory(&vk, good, L.h_count + 1, "k.vk", 0, &err), CUZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "after ic"));
    memcpy(t, good, L.ic_count);
    put_be32(t + L.ic_count, 0);
    assert_int_equal(fil_vk_read_memory(&vk, t, L.ic_count + 4, "k.vk", 0, &err), CUZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "no point"));
    /* a missing file */
    fil_params missing;
    assert_int_equal(fil_params_read(&missing, "/nonexistent/k.params", NULL, &err), CUZK_ERR_IO);
    free(good);
    free(t);
    fil_params_free(&p);
}

/* the writer refuses what the reader would */
static void test_write_refuses(void **state)
{
    (void)state;
    fil_params p;
    make_key(&p, FC_RANDOM, 1, 10);
    char path[128];
    snprintf(path, sizeof path, "%s/refused.params", tmpdir);
    cuzk_error err = {0};
    bls12_381_g1_affine keep = p.l[2];
    bls12_381_g1_affine_set_inf(&p.l[2]);
    assert_int_equal(fil_params_write(&p, path, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "l holds the point at infinity"));
    assert_int_equal(access(path, F_OK), -1); /* nothing published */
    p.l[2] = keep;
    p.n_b_g2--;
    assert_int_equal(fil_params_write(&p, path, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "as many"));
    p.n_b_g2++;
    assert_int_equal(fil_params_write(&p, path, &err), CUZK_OK);
    fil_params_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_encodings),
        cmocka_unit_test(test_point_round_trips),
        cmocka_unit_test(test_bad_points),
        cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_write_refuses),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
