/* Phase 1 of the ceremony on both curves: a chain of contributions and a
 * beacon from powersoftau new verifies, its prepared bases are those of
 * the known secrets' (ptau_fixture.inc, written the slow way), and a key
 * made from it proves; altered files are refused by verify. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "ceremony/ceremony.h"
#include "codec/binfile.h"
#include "ec/ec.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "poly/ntt.h"
#include "support.h"
#include "ceremony_test.h"

#define C_(x) bn254_##x
#include "ptau_fixture.inc"
#define C_(x) bls12_381_##x
#include "ptau_fixture.inc"

static const cuzk_ceremony_options opts = {.nthreads = 2};

static void contribute(const char *in, const char *out, int beacon)
{
    cuzk_error err = {0};
    cuzk_ptau p;
    cuzk_chacha rng;
    cuzk_mpc_contribution info = {.type = beacon ? CUZK_MPC_BEACON : CUZK_MPC_CONTRIBUTION, .has_name = 1};
    snprintf(info.name, sizeof info.name, "%s", beacon ? "beacon" : "someone");
    if (beacon) {
        info.num_iterations_exp = 10;
        info.beacon_len = 3;
        memcpy(info.beacon_hash, "\x01\x02\x03", 3);
        assert_int_equal(cuzk_ceremony_beacon_rng(&rng, info.beacon_hash, 3, 10, NULL, &err), CUZK_OK);
    } else {
        assert_int_equal(cuzk_ceremony_entropy_rng(&rng, "test", &err), CUZK_OK);
    }
    assert_int_equal(cuzk_ptau_open(&p, in, &err), CUZK_OK);
    uint8_t hash[64];
    assert_int_equal(cuzk_ceremony_ptau_contribute(&p, out, &rng, &info, &opts, hash, &err), CUZK_OK);
    cuzk_ptau_close(&p);
}

static int verify(const char *path, cuzk_error *err)
{
    cuzk_ptau p;
    int rc = cuzk_ptau_open(&p, path, err);
    if (!rc) rc = cuzk_ceremony_ptau_verify(&p, &opts, NULL, err);
    cuzk_ptau_close(&p);
    return rc;
}

static void prepare(const char *in, const char *out)
{
    cuzk_error err = {0};
    cuzk_ptau p;
    assert_int_equal(cuzk_ptau_open(&p, in, &err), CUZK_OK);
    assert_int_equal(cuzk_ceremony_ptau_prepare(&p, out, &opts, &err), CUZK_OK);
    cuzk_ptau_close(&p);
}

/* flips a bit at byte `at` of section id's payload */
static void flip(const char *path, uint32_t id, uint64_t at)
{
    cuzk_error err = {0};
    cuzk_ptau p;
    assert_int_equal(cuzk_ptau_open(&p, path, &err), CUZK_OK);
    uint64_t offset = cuzk_bin_find(&p.bf, id)->offset + at;
    cuzk_ptau_close(&p);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)offset, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, (long)offset, SEEK_SET), 0);
    fputc(c ^ 1, f);
    fclose(f);
}

static void copy(const char *from, const char *to)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
}

static void test_chain_verifies_and_proves(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        cuzk_error err = {0};
        assert_int_equal(cuzk_ceremony_ptau_new((cuzk_curve_id)curve, 7, tmp_path("0.ptau"), &err), CUZK_OK);
        /* no contribution: not usable */
        assert_int_equal(verify(tmp_path("0.ptau"), &err), CUZK_ERR_INVALID_PROOF);
        contribute(tmp_path("0.ptau"), tmp_path("1.ptau"), 0);
        assert_int_equal(verify(tmp_path("1.ptau"), &err), CUZK_OK);
        contribute(tmp_path("1.ptau"), tmp_path("2.ptau"), 0);
        contribute(tmp_path("2.ptau"), tmp_path("3.ptau"), 1);
        assert_int_equal(verify(tmp_path("3.ptau"), &err), CUZK_OK);
        prepare(tmp_path("3.ptau"), tmp_path("final.ptau"));
        assert_int_equal(verify(tmp_path("final.ptau"), &err), CUZK_OK);

        /* a key from it proves */
        cuzk_r1cs r;
        cuzk_wtns w;
        cuzk_synth_params sp = {.curve = (cuzk_curve_id)curve, .n_constraints = 60, .n_public = 2, .seed = 3};
        assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
        cuzk_ptau p;
        assert_int_equal(cuzk_ptau_open(&p, tmp_path("final.ptau"), &err), CUZK_OK);
        cuzk_zkey z;
        cuzk_mpc m = {.g1_bytes = 2 * p.n8q, .g2_bytes = 4 * p.n8q};
        assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &opts, &z, m.cs_hash, &err), CUZK_OK);
        cuzk_chacha rng;
        cuzk_mpc_contribution info = {.type = CUZK_MPC_CONTRIBUTION};
        assert_int_equal(cuzk_ceremony_entropy_rng(&rng, NULL, &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_zkey_contribute(&z, &m, &rng, &info, &opts, &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &opts, &err), CUZK_OK);
        proves(&z, &w);
        cuzk_zkey_free(&z);
        cuzk_mpc_free(&m);
        cuzk_ptau_close(&p);
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);

        /* altered files */
        uint32_t g1 = curve == CUZK_CURVE_BN254 ? 64 : 96;
        copy(tmp_path("final.ptau"), tmp_path("bad.ptau"));
        flip(tmp_path("bad.ptau"), 2, 5 * g1 + 3); /* tau^5 G1's x: off the curve */
        assert_int_equal(verify(tmp_path("bad.ptau"), &err), CUZK_ERR_FORMAT);
        copy(tmp_path("final.ptau"), tmp_path("bad.ptau"));
        /* contribution 1 is tau G1, tau G2, alpha G1, beta G1, beta G2, a key of 6 G1 and 3 G2, the partial
         * hash, then its next challenge, which contribution 2 answers */
        flip(tmp_path("bad.ptau"), 7, 4 + 19 * g1 + 216 + 5);
        assert_int_equal(verify(tmp_path("bad.ptau"), &err), CUZK_ERR_INVALID_PROOF);
        assert_non_null(strstr(err.msg, "INVALID(2)"));
        copy(tmp_path("final.ptau"), tmp_path("bad.ptau"));
        flip(tmp_path("bad.ptau"), 14, 0); /* a Lagrange point's lowest bit: off the curve, or another point */
        assert_int_not_equal(verify(tmp_path("bad.ptau"), &err), CUZK_OK);
        /* a file cut short */
        assert_int_equal(truncate(tmp_path("bad.ptau"), 4000), 0);
        cuzk_ptau cut;
        assert_int_equal(cuzk_ptau_open(&cut, tmp_path("bad.ptau"), &err), CUZK_ERR_FORMAT);
    }
}

/* prepare phase2's bases are the Lagrange bases of the secrets (those of the fixture, written directly) */
static void test_prepare_gives_the_lagrange_bases(void **state)
{
    (void)state;
    static const uint64_t secrets[3][4] = {{0x77, 0x1, 0, 0x5}, {0xa1, 0, 0, 0}, {0xb2, 0x3, 0, 0}};
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        cuzk_error err = {0};
        const unsigned power = 5;
        if (curve == CUZK_CURVE_BN254)
            bn254_fixture_ptau(tmp_path("fix.ptau"), power, secrets, 1);
        else
            bls12_381_fixture_ptau(tmp_path("fix.ptau"), power, secrets, 1);
        prepare(tmp_path("fix.ptau"), tmp_path("prep.ptau"));
        cuzk_ptau a, b;
        assert_int_equal(cuzk_ptau_open(&a, tmp_path("fix.ptau"), &err), CUZK_OK);
        assert_int_equal(cuzk_ptau_open(&b, tmp_path("prep.ptau"), &err), CUZK_OK);
        uint64_t all = ((uint64_t)2 << power) - 1;
        /* section 12 up to the domain 2^power: the fixture's 2^(power+1) is the true basis, snarkjs's lacks a point */
        assert_memory_equal(a.sec[12], b.sec[12], all * a.g1_bytes);
        assert_memory_equal(a.sec[13], b.sec[13], all * a.g2_bytes);
        assert_memory_equal(a.sec[14], b.sec[14], all * a.g1_bytes);
        assert_memory_equal(a.sec[15], b.sec[15], all * a.g1_bytes);
        cuzk_ptau_close(&a);
        cuzk_ptau_close(&b);
    }
}

static int group_setup(void **state)
{
    (void)state;
    return ceremony_dir_make();
}

static int group_teardown(void **state)
{
    (void)state;
    static const char *const names[] = {"0.ptau", "1.ptau", "2.ptau", "3.ptau", "final.ptau", "bad.ptau", "fix.ptau", "prep.ptau", NULL};
    return ceremony_dir_remove(names);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_verifies_and_proves),
        cmocka_unit_test(test_prepare_gives_the_lagrange_bases),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
