/* The public API of include/cuzk/groth16.h, on the fixtures of both curves
 * and the CPU prover: keys from files and buffers, proofs from witness
 * buffers and files, verification from texts and files, several threads
 * on one prover, and the bad inputs the header documents (truncated keys,
 * a witness of the other curve, a corrupt key, a witness that does not
 * satisfy the circuit, NULL arguments). Set
 * CUZK_FIXTURES to run from outside the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/groth16.h"
#include "support.h"

static const char *const curve_dirs[2] = {"bn128", "bls12381"};

static cuzk_prover *cpu_prover(void)
{
    cuzk_prover *p = NULL;
    cuzk_error err = {0};
    assert_int_equal(cuzk_prover_create(&p, "cpu", 2, &err), CUZK_OK);
    assert_string_equal(cuzk_prover_backend(p), "cpu");
    return p;
}

/* A proof's texts: public.json as snarkjs wrote it, the proof valid for
 * the fixture's and the key's own verification key. */
static void check_proof(const char *curve_dir, const cuzk_key *key, const char *proof, const char *pub)
{
    file_bytes want = fixture_bytes(curve_dir, "public.json"), vk = fixture_bytes(curve_dir, "verification_key.json");
    assert_string_equal(pub, want.data);
    cuzk_error err = {0};
    int rc = cuzk_verify_json(vk.data, pub, proof, &err);
    if (rc) fprintf(stderr, "%s: %s\n", curve_dir, err.msg);
    assert_int_equal(rc, CUZK_OK);
    char *own = NULL;
    assert_int_equal(cuzk_key_vk_json(key, &own, &err), CUZK_OK);
    assert_int_equal(cuzk_verify_json(own, pub, proof, &err), CUZK_OK);
    free(own);
    free(want.data);
    free(vk.data);
}

static void test_load_and_info(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        cuzk_error err = {0};
        cuzk_key *from_file = NULL, *from_memory = NULL;
        file_bytes zkey = fixture_bytes(curve_dirs[c], "mul.zkey");
        assert_int_equal(cuzk_key_load_file(&from_file, fixture_path(curve_dirs[c], "mul.zkey"), &err), CUZK_OK);
        assert_int_equal(cuzk_key_load_memory(&from_memory, zkey.data, zkey.len, &err), CUZK_OK);
        /* the key holds copies: the buffer may go */
        memset(zkey.data, 0, zkey.len);
        free(zkey.data);
        cuzk_key_info a, b;
        assert_int_equal(cuzk_key_get_info(from_file, &a, &err), CUZK_OK);
        assert_int_equal(cuzk_key_get_info(from_memory, &b, &err), CUZK_OK);
        assert_memory_equal(&a, &b, sizeof a);
        assert_int_equal(a.curve, c == 0 ? CUZK_CURVE_BN254 : CUZK_CURVE_BLS12_381);
        assert_int_equal(a.n_public, 2); /* mul.circom: output c, input a */
        assert_int_equal(a.n_vars, 5);
        /* the verification key, as snarkjs exported it */
        char *vk = NULL;
        file_bytes want = fixture_bytes(curve_dirs[c], "verification_key.json");
        assert_int_equal(cuzk_key_vk_json(from_memory, &vk, &err), CUZK_OK);
        assert_string_equal(vk, want.data);
        free(vk);
        free(want.data);
        cuzk_key_free(from_file);
        cuzk_key_free(from_memory);
    }
}

static void test_prove_and_verify(void **state)
{
    (void)state;
    cuzk_prover *p = cpu_prover();
    for (int c = 0; c < 2; c++) {
        cuzk_error err = {0};
        cuzk_key *key = NULL;
        assert_int_equal(cuzk_key_load_file(&key, fixture_path(curve_dirs[c], "mul.zkey"), &err), CUZK_OK);
        file_bytes wtns = fixture_bytes(curve_dirs[c], "mul.wtns");
        char *proof = NULL, *pub = NULL;
        int rc = cuzk_prove_wtns_memory(p, key, wtns.data, wtns.len, 0, &proof, &pub, &err);
        if (rc) fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(rc, CUZK_OK);
        check_proof(curve_dirs[c], key, proof, pub);
        free(proof);
        free(pub);
        assert_int_equal(cuzk_prove_wtns_file(p, key, fixture_path(curve_dirs[c], "mul.wtns"), CUZK_PROVE_NO_VERIFY, &proof,
                                              &pub, &err),
                         CUZK_OK);
        check_proof(curve_dirs[c], key, proof, pub);
        free(proof);
        free(pub);
        free(wtns.data);
        cuzk_key_free(key);

        /* snarkjs's own proof, from the files */
        assert_int_equal(cuzk_verify_files(fixture_path(curve_dirs[c], "verification_key.json"),
                                           fixture_path(curve_dirs[c], "public.json"), fixture_path(curve_dirs[c], "proof.json"),
                                           &err),
                         CUZK_OK);
        /* another public signal: the pairing check fails */
        file_bytes vk = fixture_bytes(curve_dirs[c], "verification_key.json");
        file_bytes good = fixture_bytes(curve_dirs[c], "proof.json");
        assert_int_equal(cuzk_verify_json(vk.data, "[\"111\", \"3\"]", good.data, &err), CUZK_ERR_INVALID_PROOF);
        assert_int_equal(cuzk_verify_json(vk.data, "[\"110\"]", good.data, &err), CUZK_ERR_INVALID_PROOF);
        assert_int_equal(cuzk_verify_json(vk.data, "[\"110\", \"3\"", good.data, &err), CUZK_ERR_FORMAT);
        assert_non_null(strstr(err.msg, "public signals"));
        assert_int_equal(cuzk_verify_json("{}", "[\"110\", \"3\"]", good.data, &err), CUZK_ERR_FORMAT);
        assert_non_null(strstr(err.msg, "verification key"));
        assert_int_equal(cuzk_verify_files(fixture_path(curve_dirs[c], "verification_key.json"),
                                           fixture_path(curve_dirs[c], "public.json"), "/nonexistent/proof.json", &err),
                         CUZK_ERR_IO);
        free(vk.data);
        free(good.data);
    }
    /* a proof of one curve against the other's key */
    file_bytes vk = fixture_bytes("bn128", "verification_key.json"), proof = fixture_bytes("bls12381", "proof.json");
    cuzk_error err = {0};
    assert_int_equal(cuzk_verify_json(vk.data, "[\"110\", \"3\"]", proof.data, &err), CUZK_ERR_MISMATCH);
    free(vk.data);
    free(proof.data);
    cuzk_prover_destroy(p);
}

typedef struct {
    cuzk_prover *p;
    const cuzk_key *key;
    const file_bytes *wtns;
    int rc;
    char *proof, *pub;
} prove_job;

static void *prove_thread(void *arg)
{
    prove_job *j = arg;
    j->rc = cuzk_prove_wtns_memory(j->p, j->key, j->wtns->data, j->wtns->len, 0, &j->proof, &j->pub, NULL);
    return NULL;
}

/* The header's promise: one key and one prover, several threads at once. */
static void test_threads_share_key_and_prover(void **state)
{
    (void)state;
    enum { N = 4 };
    cuzk_prover *p = cpu_prover();
    cuzk_key *key = NULL;
    assert_int_equal(cuzk_key_load_file(&key, fixture_path("bls12381", "mul.zkey"), NULL), CUZK_OK);
    file_bytes wtns = fixture_bytes("bls12381", "mul.wtns");
    prove_job jobs[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (prove_job){p, key, &wtns, -1, NULL, NULL};
        assert_int_equal(pthread_create(&t[i], NULL, prove_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(jobs[i].rc, CUZK_OK);
        check_proof("bls12381", key, jobs[i].proof, jobs[i].pub);
        free(jobs[i].proof);
        free(jobs[i].pub);
    }
    free(wtns.data);
    cuzk_key_free(key);
    cuzk_prover_destroy(p);
}

/* Every length short of the whole key is refused as a format error. */
static void test_truncated_key(void **state)
{
    (void)state;
    file_bytes zkey = fixture_bytes("bn128", "mul.zkey");
    for (size_t len = 0; len < zkey.len; len += len < 64 ? 1 : 37) {
        cuzk_key *key = (cuzk_key *)1;
        cuzk_error err = {0};
        assert_int_equal(cuzk_key_load_memory(&key, zkey.data, len, &err), CUZK_ERR_FORMAT);
        assert_null(key);
        assert_int_equal(err.code, CUZK_ERR_FORMAT);
        assert_true(strlen(err.msg) > 0);
    }
    cuzk_key *key = NULL;
    assert_int_equal(cuzk_key_load_memory(&key, zkey.data, zkey.len - 1, NULL), CUZK_ERR_FORMAT);
    assert_int_equal(cuzk_key_load_file(&key, "/nonexistent/mul.zkey", NULL), CUZK_ERR_IO);
    assert_int_equal(cuzk_key_load_file(&key, fixture_path("bn128", "mul.wtns"), NULL), CUZK_ERR_FORMAT);
    free(zkey.data);
}

/* The other curve's witness (the same circuit: the same length) and one
 * of another length: a mismatch; garbage: a format error. */
static void test_bad_witness(void **state)
{
    (void)state;
    cuzk_prover *p = cpu_prover();
    cuzk_key *key = NULL;
    cuzk_error err = {0};
    assert_int_equal(cuzk_key_load_file(&key, fixture_path("bn128", "mul.zkey"), &err), CUZK_OK);
    char *proof = (char *)1, *pub = (char *)1;
    assert_int_equal(cuzk_prove_wtns_file(p, key, fixture_path("bls12381", "mul.wtns"), 0, &proof, &pub, &err),
                     CUZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "bls12381"));
    assert_null(proof);
    assert_null(pub);
    file_bytes wtns = fixture_bytes("bn128", "mul.wtns");
    assert_int_equal(cuzk_prove_wtns_memory(p, key, wtns.data, wtns.len - 1, 0, &proof, &pub, &err), CUZK_ERR_FORMAT);
    assert_int_equal(cuzk_prove_wtns_memory(p, key, "wtns", 4, 0, &proof, &pub, &err), CUZK_ERR_FORMAT);
    assert_int_equal(cuzk_prove_wtns_file(p, key, "/nonexistent/w.wtns", 0, &proof, &pub, &err), CUZK_ERR_IO);
    free(wtns.data);
    cuzk_key_free(key);
    cuzk_prover_destroy(p);
}

/* Offset of the payload of section id in a .zkey in memory. */
static size_t section_offset(const file_bytes *b, uint32_t id)
{
    uint32_t n;
    memcpy(&n, b->data + 8, 4);
    size_t at = 12;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t sid;
        uint64_t size;
        memcpy(&sid, b->data + at, 4);
        memcpy(&size, b->data + at + 4, 8);
        if (sid == id) return at + 12;
        at += 12 + size;
    }
    fail_msg("no section %u", id);
    return 0;
}

/* A key whose C points are another valid point's: it loads, but its proofs
 * fail its own verification key, and are refused unless the caller opts
 * out of the check. */
static void test_corrupt_key(void **state)
{
    (void)state;
    cuzk_prover *p = cpu_prover();
    file_bytes zkey = fixture_bytes("bn128", "mul.zkey");
    /* section 8 (C) gets the first A point (section 5): both 64-byte G1 */
    memcpy(zkey.data + section_offset(&zkey, 8), zkey.data + section_offset(&zkey, 5), 64);
    cuzk_key *key = NULL;
    cuzk_error err = {0};
    assert_int_equal(cuzk_key_load_memory(&key, zkey.data, zkey.len, &err), CUZK_OK);
    file_bytes wtns = fixture_bytes("bn128", "mul.wtns");
    char *proof = NULL, *pub = NULL;
    assert_int_equal(cuzk_prove_wtns_memory(p, key, wtns.data, wtns.len, 0, &proof, &pub, &err),
                     CUZK_ERR_INVALID_PROOF);
    assert_non_null(strstr(err.msg, "corrupt"));
    assert_int_equal(cuzk_prove_wtns_memory(p, key, wtns.data, wtns.len, CUZK_PROVE_NO_VERIFY, &proof, &pub, &err),
                     CUZK_OK);
    char *vk = NULL;
    assert_int_equal(cuzk_key_vk_json(key, &vk, &err), CUZK_OK);
    assert_int_equal(cuzk_verify_json(vk, pub, proof, &err), CUZK_ERR_INVALID_PROOF);
    free(vk);
    free(proof);
    free(pub);
    free(wtns.data);
    free(zkey.data);
    cuzk_key_free(key);
    cuzk_prover_destroy(p);
}

/* A witness that does not satisfy the circuit (b changed) makes a proof
 * that fails the key's own check; the message says so, that a corrupt key
 * would too, and how to tell the two apart, rather than blaming the key. */
static void test_unsatisfying_witness(void **state)
{
    (void)state;
    cuzk_prover *p = cpu_prover();
    cuzk_key *key = NULL;
    cuzk_error err = {0};
    assert_int_equal(cuzk_key_load_file(&key, fixture_path("bn128", "mul.zkey"), &err), CUZK_OK);
    file_bytes wtns = fixture_bytes("bn128", "mul.wtns");
    /* the values end the file, 32 bytes each (1, c, a, b, m): b = 11 -> 12 */
    wtns.data[wtns.len - 5 * 32 + 3 * 32] += 1;
    char *proof = NULL, *pub = NULL;
    assert_int_equal(cuzk_prove_wtns_memory(p, key, wtns.data, wtns.len, 0, &proof, &pub, &err),
                     CUZK_ERR_INVALID_PROOF);
    if (!strstr(err.msg, "the witness does not satisfy the circuit, or the proving key is corrupt") ||
        !strstr(err.msg, "--r1cs"))
        fail_msg("the message: %s", err.msg);
    assert_null(proof);
    assert_null(pub);
    free(wtns.data);
    cuzk_key_free(key);
    cuzk_prover_destroy(p);
}

/* NULL where an argument is required, out-of-range values: CUZK_ERR_ARG,
 * outputs NULL, never a crash; err may be NULL. */
static void test_null_and_bad_arguments(void **state)
{
    (void)state;
    cuzk_error err = {0};
    cuzk_key *key = (cuzk_key *)1;
    cuzk_prover *p = (cuzk_prover *)1;
    char *a = (char *)1, *b = (char *)1;
    assert_int_equal(cuzk_key_load_file(NULL, "x", &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_key_load_file(&key, NULL, &err), CUZK_ERR_ARG);
    assert_null(key);
    assert_int_equal(cuzk_key_load_memory(&key, NULL, 10, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_key_load_memory(&key, NULL, 0, NULL), CUZK_ERR_FORMAT);
    assert_int_equal(cuzk_key_get_info(NULL, &(cuzk_key_info){0}, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_key_vk_json(NULL, &a, &err), CUZK_ERR_ARG);
    assert_null(a);
    cuzk_key_free(NULL);

    assert_int_equal(cuzk_prover_create(NULL, "cpu", 0, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_prover_create(&p, NULL, 0, &err), CUZK_ERR_ARG);
    assert_null(p);
    assert_int_equal(cuzk_prover_create(&p, "tpu", 0, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "tpu"));
    assert_int_equal(cuzk_prover_create(&p, "sim", 0, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_prover_create(&p, "cpu", -1, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_prover_create(&p, "cpu", 1025, NULL), CUZK_ERR_ARG);
    assert_null(cuzk_prover_backend(NULL));
    cuzk_prover_destroy(NULL);

    p = cpu_prover();
    assert_int_equal(cuzk_key_load_file(&key, fixture_path("bn128", "mul.zkey"), &err), CUZK_OK);
    file_bytes wtns = fixture_bytes("bn128", "mul.wtns");
    assert_int_equal(cuzk_prove_wtns_memory(NULL, key, wtns.data, wtns.len, 0, &a, &b, &err), CUZK_ERR_ARG);
    assert_null(a);
    assert_null(b);
    assert_int_equal(cuzk_prove_wtns_memory(p, NULL, wtns.data, wtns.len, 0, &a, &b, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_prove_wtns_memory(p, key, NULL, wtns.len, 0, &a, &b, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_prove_wtns_memory(p, key, wtns.data, wtns.len, 0, NULL, &b, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_prove_wtns_memory(p, key, wtns.data, wtns.len, 0, &a, NULL, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_prove_wtns_memory(p, key, wtns.data, wtns.len, 0x80, &a, &b, &err), CUZK_ERR_ARG);
    assert_null(a);
    assert_int_equal(cuzk_prove_wtns_file(p, key, NULL, 0, &a, &b, NULL), CUZK_ERR_ARG);
    assert_int_equal(cuzk_verify_json(NULL, "[]", "{}", &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_verify_json("{}", NULL, "{}", &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_verify_json("{}", "[]", NULL, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_verify_files(NULL, "a", "b", &err), CUZK_ERR_ARG);
    free(wtns.data);
    cuzk_key_free(key);
    cuzk_prover_destroy(p);
    assert_string_equal(cuzk_status_name(CUZK_ERR_INVALID_PROOF), "invalid proof");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_and_info),      cmocka_unit_test(test_prove_and_verify),
        cmocka_unit_test(test_threads_share_key_and_prover), cmocka_unit_test(test_truncated_key),
        cmocka_unit_test(test_bad_witness),        cmocka_unit_test(test_corrupt_key),
        cmocka_unit_test(test_unsatisfying_witness),
        cmocka_unit_test(test_null_and_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
