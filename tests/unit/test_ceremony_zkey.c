/* Phase 2 of the ceremony on both curves, on powers of tau written from
 * known secrets (ptau_fixture.inc): zkey new against the development setup
 * with the same tau, alpha, beta and gamma = delta = 1; bad powers of tau
 * refused; contributions, a beacon and zkey verify, which refuses a key
 * whose chain or points were altered; proofs with the final key. */
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

/* tau, alpha, beta, gamma, delta in normal form; gamma = delta = 1 as zkey new leaves them */
static const uint64_t secrets[5][4] = {{0x1234567890abcdefULL, 0x1111, 0x2222, 0x0333}, {0xa1fa, 0x77, 0, 0x1},
                                       {0xbe7a, 0, 0x99, 0x2}, {1, 0, 0, 0}, {1, 0, 0, 0}};

static void write_ptau(cuzk_curve_id curve, const char *path, unsigned power, int prepared)
{
    if (curve == CUZK_CURVE_BN254)
        bn254_fixture_ptau(path, power, (const uint64_t(*)[4])secrets, prepared);
    else
        bls12_381_fixture_ptau(path, power, (const uint64_t(*)[4])secrets, prepared);
}

static void circuit(cuzk_curve_id curve, uint32_t m, cuzk_r1cs *r, cuzk_wtns *w)
{
    cuzk_error err = {0};
    cuzk_synth_params sp = {.curve = curve, .n_constraints = m, .n_public = 2, .seed = 5, .shape = CUZK_SHAPE_MIXED};
    assert_int_equal(cuzk_circuit_synth(&sp, r, w, &err), CUZK_OK);
}

/* a circuit of 40 constraints, its witness, and a prepared ptau of 2^7 */
static void fixture(cuzk_curve_id curve, cuzk_r1cs *r, cuzk_wtns *w, cuzk_ptau *p)
{
    cuzk_error err = {0};
    circuit(curve, 40, r, w);
    write_ptau(curve, tmp_path("p.ptau"), 7, 1);
    assert_int_equal(cuzk_ptau_open(p, tmp_path("p.ptau"), &err), CUZK_OK);
}

static size_t g1_bytes(const cuzk_zkey *z) { return 2 * (size_t)z->n8q; }

/* zkey new from a ptau of these secrets is the development setup of the same toxic waste */
static void test_zkey_new_is_the_setup_of_the_secrets(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        cuzk_error err = {0};
        cuzk_r1cs r;
        cuzk_wtns w;
        cuzk_ptau p;
        fixture((cuzk_curve_id)curve, &r, &w, &p);
        cuzk_zkey z, dev;
        uint8_t h1[64], h2[64];
        cuzk_ceremony_options o = {.nthreads = 2};
        assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &o, &z, h1, &err), CUZK_OK);
        assert_int_equal(cuzk_groth16_setup_with(&r, &(cuzk_setup_options){.nthreads = 2, .toxic = secrets}, &dev, &err),
                         CUZK_OK);
        assert_int_equal(z.domain_size, dev.domain_size);
        assert_int_equal(z.n_coefs, dev.n_coefs);
        size_t g1 = g1_bytes(&z), g2 = 2 * g1;
        assert_memory_equal(z.alpha1, dev.alpha1, g1);
        assert_memory_equal(z.beta1, dev.beta1, g1);
        assert_memory_equal(z.beta2, dev.beta2, g2);
        assert_memory_equal(z.gamma2, dev.gamma2, g2);
        assert_memory_equal(z.delta1, dev.delta1, g1);
        assert_memory_equal(z.delta2, dev.delta2, g2);
        assert_memory_equal(z.ic, dev.ic, (z.n_public + 1) * g1);
        assert_memory_equal(z.a, dev.a, z.n_vars * g1);
        assert_memory_equal(z.b1, dev.b1, z.n_vars * g1);
        assert_memory_equal(z.b2, dev.b2, z.n_vars * g2);
        assert_memory_equal(z.c, dev.c, (z.n_vars - z.n_public - 1) * g1);
        assert_memory_equal(z.h, dev.h, z.domain_size * g1);
        /* deterministic, whatever the threads */
        cuzk_zkey z1;
        o.nthreads = 1;
        assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &o, &z1, h2, &err), CUZK_OK);
        assert_memory_equal(h1, h2, 64);
        assert_memory_equal(z1.a, z.a, z.n_vars * g1);
        cuzk_zkey_free(&z1);
        /* written as it is made: the bytes of the key written after; a
         * folder that is not there an error */
        uint8_t mpc[CUZK_CEREMONY_HASH_BYTES + 4] = {0};
        memcpy(mpc, h1, CUZK_CEREMONY_HASH_BYTES);
        assert_int_equal(cuzk_zkey_write_mpc(&z, mpc, sizeof mpc, tmp_path("after.zkey"), &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_zkey_new_write(&r, &p, &o, tmp_path("new.zkey"), &z1, h2, &err), CUZK_OK);
        assert_memory_equal(h1, h2, 64);
        same_file(tmp_path("after.zkey"), tmp_path("new.zkey"));
        cuzk_zkey_free(&z1);
        assert_int_equal(cuzk_ceremony_zkey_new_write(&r, &p, &o, "/nonexistent-dir/k.zkey", &z1, h2, &err),
                         CUZK_ERR_IO);
        assert_non_null(strstr(err.msg, "/nonexistent-dir/k.zkey"));
        /* every output with terms one MSM, then those of 5 terms or more
         * (runs of term-by-term outputs between them): the same key, its
         * progress never going back */
        static const uint64_t msm_min[2] = {1, 5};
        for (int i = 0; i < 2; i++) {
            stage_seen seen = {0};
            cuzk_ceremony_options om = {.nthreads = 2, .msm_min_terms = msm_min[i], .progress = watch_stage,
                                        .progress_ctx = &seen};
            assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &om, &z1, h2, &err), CUZK_OK);
            assert_memory_equal(h1, h2, 64);
            assert_memory_equal(z1.ic, z.ic, (z.n_public + 1) * g1);
            assert_memory_equal(z1.a, z.a, z.n_vars * g1);
            assert_memory_equal(z1.b1, z.b1, z.n_vars * g1);
            assert_memory_equal(z1.b2, z.b2, z.n_vars * g2);
            assert_memory_equal(z1.c, z.c, (z.n_vars - z.n_public - 1) * g1);
            assert_int_equal(seen.b2_done, z.n_vars);
            cuzk_zkey_free(&z1);
        }
        cuzk_zkey_free(&z);
        cuzk_zkey_free(&dev);
        cuzk_ptau_close(&p);
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);
    }
}

static void corrupt(const char *path, long offset_from_end, uint8_t x)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, -offset_from_end, SEEK_END), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, -offset_from_end, SEEK_END), 0);
    fputc(c ^ x, f);
    fclose(f);
}

static void test_bad_ptau_refused(void **state)
{
    (void)state;
    cuzk_error err = {0};
    cuzk_r1cs r, r2;
    cuzk_wtns w, w2;
    circuit(CUZK_CURVE_BN254, 40, &r, &w);
    circuit(CUZK_CURVE_BLS12_381, 40, &r2, &w2);
    cuzk_ceremony_options o = {.nthreads = 2};
    cuzk_zkey z;
    uint8_t h[64];
    cuzk_ptau p;
    /* too small: 40 constraints + 2 public need 2^6 */
    write_ptau(CUZK_CURVE_BN254, tmp_path("tiny.ptau"), 3, 1);
    assert_int_equal(cuzk_ptau_open(&p, tmp_path("tiny.ptau"), &err), CUZK_OK);
    assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &o, &z, h, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "need a domain of 2^6"));
    cuzk_ptau_close(&p);
    /* not prepared */
    write_ptau(CUZK_CURVE_BN254, tmp_path("raw.ptau"), 7, 0);
    assert_int_equal(cuzk_ptau_open(&p, tmp_path("raw.ptau"), &err), CUZK_OK);
    assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &o, &z, h, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "prepare"));
    cuzk_ptau_close(&p);
    /* the other curve */
    write_ptau(CUZK_CURVE_BN254, tmp_path("p.ptau"), 7, 1);
    assert_int_equal(cuzk_ptau_open(&p, tmp_path("p.ptau"), &err), CUZK_OK);
    assert_int_equal(cuzk_ceremony_zkey_new(&r2, &p, &o, &z, h, &err), CUZK_ERR_MISMATCH);
    cuzk_ptau_close(&p);
    /* a point of the Lagrange basis off the curve: in the last section, the
     * last point of the domain 2^6 (the domain 2^7's 128 points follow it) */
    corrupt(tmp_path("p.ptau"), 128 * 64 + 1, 0x01);
    assert_int_equal(cuzk_ptau_open(&p, tmp_path("p.ptau"), &err), CUZK_OK);
    assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &o, &z, h, &err), CUZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "section 15"));
    cuzk_ptau_close(&p);
    /* a tau G1 point that only the circuit hash's H part reads (the hashing
     * thread's error, reported once the multiplications end) */
    write_ptau(CUZK_CURVE_BN254, tmp_path("q.ptau"), 7, 1);
    assert_int_equal(cuzk_ptau_open(&p, tmp_path("q.ptau"), &err), CUZK_OK);
    long from_end = (long)(p.bf.file_size - (uint64_t)(p.sec[PTAU_SEC_TAU_G1] - p.bf.mem) - 3 * 64);
    cuzk_ptau_close(&p);
    corrupt(tmp_path("q.ptau"), from_end, 0x01);
    assert_int_equal(cuzk_ptau_open(&p, tmp_path("q.ptau"), &err), CUZK_OK);
    assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &o, &z, h, &err), CUZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "section 2 (tau G1) point 3 "));
    cuzk_ptau_close(&p);
    /* truncated */
    assert_int_equal(truncate(tmp_path("p.ptau"), 5000), 0);
    assert_int_equal(cuzk_ptau_open(&p, tmp_path("p.ptau"), &err), CUZK_ERR_FORMAT);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
    cuzk_r1cs_free(&r2);
    cuzk_wtns_free(&w2);
}

/* the key and its section 10 written, then read back as zkey verify reads them */
static void roundtrip(cuzk_zkey *z, cuzk_mpc *m)
{
    cuzk_error err = {0};
    size_t len;
    uint8_t *bytes = cuzk_mpc_encode(m, &len);
    assert_non_null(bytes);
    assert_int_equal(cuzk_zkey_write_mpc(z, bytes, len, tmp_path("k.zkey"), &err), CUZK_OK);
    free(bytes);
    cuzk_mpc back;
    assert_int_equal(cuzk_mpc_read(&back, tmp_path("k.zkey"), z->n8q, &err), CUZK_OK);
    assert_int_equal(back.n, m->n);
    assert_memory_equal(back.cs_hash, m->cs_hash, 64);
    for (uint32_t i = 0; i < m->n; i++) {
        assert_memory_equal(back.c[i].transcript, m->c[i].transcript, 64);
        assert_memory_equal(back.c[i].g2_spx, m->c[i].g2_spx, 4 * z->n8q);
        assert_int_equal(back.c[i].type, m->c[i].type);
        assert_string_equal(back.c[i].name, m->c[i].name);
        assert_int_equal(back.c[i].beacon_len, m->c[i].beacon_len);
    }
    cuzk_mpc_free(&back);
    cuzk_zkey z2;
    assert_int_equal(cuzk_zkey_read(&z2, tmp_path("k.zkey"), &err), CUZK_OK);
    assert_memory_equal(z2.h, z->h, z->domain_size * g1_bytes(z));
    cuzk_zkey_free(&z2);
}

static void test_contribute_beacon_verify(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        cuzk_error err = {0};
        cuzk_r1cs r;
        cuzk_wtns w;
        cuzk_ptau p;
        fixture((cuzk_curve_id)curve, &r, &w, &p);
        cuzk_ceremony_options o = {.nthreads = 2};
        cuzk_zkey z;
        cuzk_mpc m = {.g1_bytes = 2 * (uint32_t)(curve == CUZK_CURVE_BN254 ? 32 : 48)};
        m.g2_bytes = 2 * m.g1_bytes;
        assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &o, &z, m.cs_hash, &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &o, &err), CUZK_OK);
        /* two contributions and a beacon */
        for (int i = 0; i < 2; i++) {
            cuzk_chacha rng;
            assert_int_equal(cuzk_ceremony_entropy_rng(&rng, i ? "more" : NULL, &err), CUZK_OK);
            cuzk_mpc_contribution info = {.type = CUZK_MPC_CONTRIBUTION, .has_name = 1};
            snprintf(info.name, sizeof info.name, "party %d", i);
            assert_int_equal(cuzk_ceremony_zkey_contribute(&z, &m, &rng, &info, &o, &err), CUZK_OK);
        }
        cuzk_mpc_contribution beacon = {.type = CUZK_MPC_BEACON, .num_iterations_exp = 10, .beacon_len = 2,
                                        .beacon_hash = {0xab, 0xcd}};
        cuzk_chacha rng;
        assert_int_equal(cuzk_ceremony_beacon_rng(&rng, beacon.beacon_hash, 2, 10, NULL, &err), CUZK_OK);
        uint8_t delta_before[96];
        memcpy(delta_before, z.delta1, sizeof delta_before);
        assert_int_equal(cuzk_ceremony_zkey_contribute(&z, &m, &rng, &beacon, &o, &err), CUZK_OK);
        assert_int_equal(m.n, 3);
        assert_memory_not_equal(z.delta1, delta_before, g1_bytes(&z));
        uint8_t hashes[3][64];
        for (int i = 0; i < 3; i++) memcpy(hashes[i], m.c[i].contribution_hash, 64);
        assert_int_equal(cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &o, &err), CUZK_OK);
        for (int i = 0; i < 3; i++) assert_memory_equal(hashes[i], m.c[i].contribution_hash, 64);
        proves(&z, &w);
        roundtrip(&z, &m);

        /* a transcript altered */
        m.c[1].transcript[5] ^= 1;
        assert_int_equal(cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &o, &err), CUZK_ERR_INVALID_PROOF);
        assert_non_null(strstr(err.msg, "INVALID(2)"));
        m.c[1].transcript[5] ^= 1;
        /* a beacon whose hash is not the one its key came from */
        m.c[2].beacon_hash[0] ^= 1;
        assert_int_equal(cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &o, &err), CUZK_ERR_INVALID_PROOF);
        assert_non_null(strstr(err.msg, "beacon"));
        m.c[2].beacon_hash[0] ^= 1;
        /* a contribution dropped from the record: the chain breaks */
        cuzk_mpc_contribution last = m.c[2];
        m.n = 2;
        assert_int_equal(cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &o, &err), CUZK_ERR_INVALID_PROOF);
        m.n = 3;
        m.c[2] = last;
        /* one H point replaced by another */
        uint8_t h0[96];
        memcpy(h0, z.h, g1_bytes(&z));
        memcpy((uint8_t *)z.h, (uint8_t *)z.h + g1_bytes(&z), g1_bytes(&z));
        assert_int_equal(cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &o, &err), CUZK_ERR_INVALID_PROOF);
        assert_non_null(strstr(err.msg, "H points"));
        memcpy(z.h, h0, g1_bytes(&z));
        assert_int_equal(cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &o, &err), CUZK_OK);
        /* the key of another circuit */
        cuzk_r1cs r2;
        cuzk_wtns w2;
        cuzk_synth_params sp = {.curve = (cuzk_curve_id)curve, .n_constraints = 40, .n_public = 2, .seed = 6};
        assert_int_equal(cuzk_circuit_synth(&sp, &r2, &w2, &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_zkey_verify(&r2, &p, &z, &m, &o, &err), CUZK_ERR_INVALID_PROOF);
        cuzk_r1cs_free(&r2);
        cuzk_wtns_free(&w2);
        cuzk_mpc_free(&m);
        cuzk_zkey_free(&z);
        cuzk_ptau_close(&p);
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);
    }
}

/* A beacon's contribution is a function of the key and the beacon alone. */
static void test_beacon_is_deterministic(void **state)
{
    (void)state;
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    circuit(CUZK_CURVE_BN254, 20, &r, &w);
    write_ptau(CUZK_CURVE_BN254, tmp_path("p.ptau"), 6, 1);
    cuzk_ptau p;
    assert_int_equal(cuzk_ptau_open(&p, tmp_path("p.ptau"), &err), CUZK_OK);
    cuzk_ceremony_options o = {.nthreads = 2};
    cuzk_zkey z[2];
    cuzk_mpc m[2] = {{.g1_bytes = 64, .g2_bytes = 128}, {.g1_bytes = 64, .g2_bytes = 128}};
    cuzk_mpc_contribution beacon = {.type = CUZK_MPC_BEACON, .num_iterations_exp = 10, .beacon_len = 1,
                                    .beacon_hash = {7}};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(cuzk_ceremony_zkey_new(&r, &p, &o, &z[i], m[i].cs_hash, &err), CUZK_OK);
        cuzk_chacha rng;
        assert_int_equal(cuzk_ceremony_beacon_rng(&rng, beacon.beacon_hash, 1, 10, NULL, &err), CUZK_OK);
        assert_int_equal(cuzk_ceremony_zkey_contribute(&z[i], &m[i], &rng, &beacon, &o, &err), CUZK_OK);
    }
    assert_memory_equal(z[0].delta2, z[1].delta2, 128);
    assert_memory_equal(z[0].h, z[1].h, z[0].domain_size * 64);
    assert_memory_equal(m[0].c[0].contribution_hash, m[1].c[0].contribution_hash, 64);
    /* exponents outside 10..63 are refused, as snarkjs refuses them */
    cuzk_chacha rng;
    assert_int_equal(cuzk_ceremony_beacon_rng(&rng, beacon.beacon_hash, 1, 9, NULL, &err), CUZK_ERR_ARG);
    for (int i = 0; i < 2; i++) {
        cuzk_zkey_free(&z[i]);
        cuzk_mpc_free(&m[i]);
    }
    cuzk_ptau_close(&p);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

static int group_setup(void **state)
{
    (void)state;
    return ceremony_dir_make();
}

static int group_teardown(void **state)
{
    (void)state;
    static const char *const names[] = {"p.ptau", "tiny.ptau", "raw.ptau", "q.ptau", "k.zkey",
                                         "after.zkey", "new.zkey", NULL};
    return ceremony_dir_remove(names);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zkey_new_is_the_setup_of_the_secrets),
        cmocka_unit_test(test_bad_ptau_refused),
        cmocka_unit_test(test_contribute_beacon_verify),
        cmocka_unit_test(test_beacon_is_deterministic),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
