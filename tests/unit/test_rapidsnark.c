/* rapidsnark's C API, written against its documented prototypes (what a
 * program built for librapidsnark calls): proofs from a zkey buffer and a
 * zkey file on the fixtures of both curves, the two-call buffer-size
 * protocol, wrong witness lengths, garbage keys and the error-message
 * truncation. The proofs are checked with the library's verifier against
 * the fixtures' verification_key.json (tests/interop/rapidsnark_api.sh
 * checks them with snarkjs). Set CUZK_FIXTURES to run from outside the
 * repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/groth16.h"
#include "cuzk/rapidsnark/prover.h"
#include "support.h"

static const char *const curve_dirs[2] = {"bn128", "bls12381"};

/* Buffers of the sizes the size calls give. */
typedef struct {
    char *proof, *pub;
    unsigned long long proof_size, public_size, proof_cap, public_cap;
    char msg[256];
} outputs;

static void outputs_init(outputs *o, const file_bytes *zkey)
{
    memset(o, 0, sizeof *o);
    groth16_proof_size(&o->proof_cap);
    assert_int_equal(groth16_public_size_for_zkey_buf(zkey->data, zkey->len, &o->public_cap, o->msg, sizeof o->msg),
                     PROVER_OK);
    o->proof = malloc(o->proof_cap);
    o->pub = malloc(o->public_cap);
    assert_non_null(o->proof);
    assert_non_null(o->pub);
    o->proof_size = o->proof_cap;
    o->public_size = o->public_cap;
}

static void outputs_free(outputs *o)
{
    free(o->proof);
    free(o->pub);
}

/* A successful proof: lengths without the NUL, public.json as snarkjs
 * wrote it, the proof valid for the fixture's verification key. */
static void check_proof(const outputs *o, const char *curve_dir)
{
    assert_int_equal(o->proof_size, strlen(o->proof));
    assert_int_equal(o->public_size, strlen(o->pub));
    file_bytes pub = fixture_bytes(curve_dir, "public.json"), vk = fixture_bytes(curve_dir, "verification_key.json");
    assert_string_equal(o->pub, pub.data);
    cuzk_error err = {0};
    int rc = cuzk_verify_json(vk.data, o->pub, o->proof, &err);
    if (rc) fprintf(stderr, "%s: %s\n", curve_dir, err.msg);
    assert_int_equal(rc, CUZK_OK);
    free(pub.data);
    free(vk.data);
}

/* The one-shot calls, the key from a buffer (groth16_prover) and from its
 * file (groth16_prover_zkey_file); the public size the same both ways. */
static void test_prove_one_shot(void **state)
{
    (void)state;
    for (int c = 0; c < 4; c++) {
        const char *curve_dir = curve_dirs[c % 2], *zkey_path = fixture_path(curve_dir, "mul.zkey");
        int from_file = c / 2;
        file_bytes zkey = fixture_bytes(curve_dir, "mul.zkey"), wtns = fixture_bytes(curve_dir, "mul.wtns");
        outputs o;
        outputs_init(&o, &zkey);
        unsigned long long size_of_file = 0;
        assert_int_equal(groth16_public_size_for_zkey_file(zkey_path, &size_of_file, o.msg, sizeof o.msg), PROVER_OK);
        assert_int_equal(size_of_file, o.public_cap);
        int rc = from_file ? groth16_prover_zkey_file(zkey_path, wtns.data, wtns.len, o.proof, &o.proof_size, o.pub,
                                                      &o.public_size, o.msg, sizeof o.msg)
                           : groth16_prover(zkey.data, zkey.len, wtns.data, wtns.len, o.proof, &o.proof_size, o.pub,
                                            &o.public_size, o.msg, sizeof o.msg);
        if (rc) fprintf(stderr, "%s from a %s: %s\n", curve_dir, from_file ? "file" : "buffer", o.msg);
        assert_int_equal(rc, PROVER_OK);
        check_proof(&o, curve_dir);
        outputs_free(&o);
        free(zkey.data);
        free(wtns.data);
    }
}

/* One prover object, several proofs; from a buffer and from a file. */
static void test_prover_object(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        const char *zkey_path = fixture_path(curve_dirs[c], "mul.zkey");
        file_bytes zkey = fixture_bytes(curve_dirs[c], "mul.zkey"), wtns = fixture_bytes(curve_dirs[c], "mul.wtns");
        char msg[256] = "";
        void *made[2] = {NULL, NULL};
        assert_int_equal(groth16_prover_create(&made[0], zkey.data, zkey.len, msg, sizeof msg), PROVER_OK);
        assert_int_equal(groth16_prover_create_zkey_file(&made[1], zkey_path, msg, sizeof msg), PROVER_OK);
        /* the key was copied: the buffer may go */
        memset(zkey.data, 0, zkey.len);
        for (int i = 0; i < 4; i++) {
            outputs o;
            file_bytes again = fixture_bytes(curve_dirs[c], "mul.zkey");
            outputs_init(&o, &again);
            free(again.data);
            assert_int_equal(groth16_prover_prove(made[i % 2], wtns.data, wtns.len, o.proof, &o.proof_size, o.pub,
                                                  &o.public_size, o.msg, sizeof o.msg),
                             PROVER_OK);
            check_proof(&o, curve_dirs[c]);
            outputs_free(&o);
        }
        groth16_prover_destroy(made[0]);
        groth16_prover_destroy(made[1]);
        groth16_prover_destroy(NULL);
        free(zkey.data);
        free(wtns.data);
    }
}

/* Too small a buffer: PROVER_ERROR_SHORT_BUFFER, nothing written, both
 * sizes set to what is needed (NUL included); a second call with those
 * succeeds. */
static void test_short_buffer(void **state)
{
    (void)state;
    file_bytes zkey = fixture_bytes("bn128", "mul.zkey"), wtns = fixture_bytes("bn128", "mul.wtns");
    file_bytes pub = fixture_bytes("bn128", "public.json");
    void *p = NULL;
    char msg[256];
    assert_int_equal(groth16_prover_create(&p, zkey.data, zkey.len, msg, sizeof msg), PROVER_OK);
    unsigned long long bound;
    groth16_proof_size(&bound);
    char proof_buf[4096], public_buf[256];
    /* the proof's buffer short, then the public signals' alone */
    const unsigned long long given[2][2] = {{10, sizeof public_buf}, {sizeof proof_buf, 3}};
    for (int k = 0; k < 2; k++) {
        memset(proof_buf, 'x', sizeof proof_buf);
        memset(public_buf, 'x', sizeof public_buf);
        unsigned long long proof_size = given[k][0], public_size = given[k][1];
        msg[0] = '\0';
        assert_int_equal(groth16_prover_prove(p, wtns.data, wtns.len, proof_buf, &proof_size, public_buf,
                                              &public_size, msg, sizeof msg),
                         PROVER_ERROR_SHORT_BUFFER);
        assert_true(strlen(msg) > 0);
        assert_true(proof_size > 100 && proof_size <= bound);
        assert_int_equal(public_size, pub.len + 1);
        assert_int_equal(proof_buf[0], 'x');
        assert_int_equal(public_buf[0], 'x');
        /* the sizes given back are enough (a proof's length varies with its
         * random r and s by a few digits: the retry gets the bound) */
        proof_size = bound;
        assert_int_equal(groth16_prover_prove(p, wtns.data, wtns.len, proof_buf, &proof_size, public_buf,
                                              &public_size, msg, sizeof msg),
                         PROVER_OK);
        assert_int_equal(public_size, pub.len);
        assert_string_equal(public_buf, pub.data);
        assert_int_equal(proof_buf[proof_size], '\0');
    }
    /* exactly the text and its NUL fits */
    unsigned long long proof_size = bound, public_size = pub.len + 1;
    assert_int_equal(groth16_prover_prove(p, wtns.data, wtns.len, proof_buf, &proof_size, public_buf, &public_size,
                                          msg, sizeof msg),
                     PROVER_OK);
    groth16_prover_destroy(p);
    free(zkey.data);
    free(wtns.data);
    free(pub.data);
}

/* The fixture's witness (5 values) with n values instead: rewritten in
 * place of its count and section size (header: 12 bytes; section 1: 12 +
 * 40; section 2: 12 + n x 32), new values 0. */
static file_bytes witness_of_length(uint32_t n)
{
    file_bytes w = fixture_bytes("bn128", "mul.wtns");
    enum { COUNT_AT = 24 + 4 + 32, SIZE_AT = 64 + 4, VALUES_AT = 76 };
    assert_int_equal(w.len, VALUES_AT + 5 * 32);
    size_t len = VALUES_AT + (size_t)n * 32;
    w.data = realloc(w.data, len + 1);
    assert_non_null(w.data);
    if (len > w.len) memset(w.data + w.len, 0, len - w.len);
    w.len = len;
    uint64_t size = (uint64_t)n * 32;
    memcpy(w.data + COUNT_AT, &n, 4);
    memcpy(w.data + SIZE_AT, &size, 8);
    return w;
}

static void test_invalid_witness_length(void **state)
{
    (void)state;
    file_bytes zkey = fixture_bytes("bn128", "mul.zkey");
    const uint32_t lengths[] = {4, 6, 1};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        file_bytes w = witness_of_length(lengths[i]);
        outputs o;
        outputs_init(&o, &zkey);
        int rc = groth16_prover(zkey.data, zkey.len, w.data, w.len, o.proof, &o.proof_size, o.pub, &o.public_size,
                                o.msg, sizeof o.msg);
        assert_int_equal(rc, PROVER_INVALID_WITNESS_LENGTH);
        assert_non_null(strstr(o.msg, "witness"));
        /* the sizes stay as they were */
        assert_int_equal(o.proof_size, o.proof_cap);
        outputs_free(&o);
        free(w.data);
    }
    /* the right length, rebuilt the same way, proves */
    file_bytes w = witness_of_length(5);
    outputs o;
    outputs_init(&o, &zkey);
    assert_int_equal(groth16_prover(zkey.data, zkey.len, w.data, w.len, o.proof, &o.proof_size, o.pub,
                                    &o.public_size, o.msg, sizeof o.msg),
                     PROVER_OK);
    outputs_free(&o);
    free(w.data);
    free(zkey.data);
}

/* A witness over the other curve, of the right length: an error, not a
 * length problem. */
static void test_wrong_curve_witness(void **state)
{
    (void)state;
    file_bytes zkey = fixture_bytes("bn128", "mul.zkey"), wtns = fixture_bytes("bls12381", "mul.wtns");
    outputs o;
    outputs_init(&o, &zkey);
    assert_int_equal(groth16_prover(zkey.data, zkey.len, wtns.data, wtns.len, o.proof, &o.proof_size, o.pub,
                                    &o.public_size, o.msg, sizeof o.msg),
                     PROVER_ERROR);
    assert_non_null(strstr(o.msg, "bls12381"));
    outputs_free(&o);
    free(zkey.data);
    free(wtns.data);
}

/* Garbage where the key belongs: PROVER_ERROR with a message, cut to the
 * room given and NUL-terminated; nothing written without room. */
static void test_garbage_zkey(void **state)
{
    (void)state;
    char garbage[100];
    memset(garbage, 'G', sizeof garbage);
    file_bytes wtns = fixture_bytes("bn128", "mul.wtns");
    char proof[4096], pub[256], msg[64];
    unsigned long long proof_size = sizeof proof, public_size = sizeof pub, size = 0;

    assert_int_equal(groth16_prover(garbage, sizeof garbage, wtns.data, wtns.len, proof, &proof_size, pub,
                                    &public_size, msg, sizeof msg),
                     PROVER_ERROR);
    assert_true(strlen(msg) > 0 && strlen(msg) < sizeof msg);
    char whole[512];
    void *p = (void *)1;
    assert_int_equal(groth16_prover_create(&p, garbage, sizeof garbage, whole, sizeof whole), PROVER_ERROR);
    assert_true(strlen(whole) > 8);

    memset(msg, 'Z', sizeof msg);
    assert_int_equal(groth16_prover(garbage, sizeof garbage, wtns.data, wtns.len, proof, &proof_size, pub,
                                    &public_size, msg, 8),
                     PROVER_ERROR);
    assert_int_equal(strlen(msg), 7);
    assert_memory_equal(msg, whole, 7);
    assert_int_equal(msg[8], 'Z');

    memset(msg, 'Z', sizeof msg);
    assert_int_equal(groth16_public_size_for_zkey_buf(garbage, sizeof garbage, &size, msg, 0), PROVER_ERROR);
    assert_int_equal(msg[0], 'Z');
    assert_int_equal(groth16_public_size_for_zkey_buf(garbage, sizeof garbage, &size, NULL, 100), PROVER_ERROR);
    assert_int_equal(groth16_public_size_for_zkey_file("/nonexistent/mul.zkey", &size, msg, sizeof msg),
                     PROVER_ERROR);
    assert_non_null(strstr(msg, "/nonexistent/mul.zkey"));
    assert_int_equal(groth16_prover_zkey_file("/nonexistent/mul.zkey", wtns.data, wtns.len, proof, &proof_size, pub,
                                              &public_size, msg, sizeof msg),
                     PROVER_ERROR);
    /* a truncated key */
    file_bytes zkey = fixture_bytes("bn128", "mul.zkey");
    assert_int_equal(groth16_prover(zkey.data, zkey.len - 1, wtns.data, wtns.len, proof, &proof_size, pub,
                                    &public_size, msg, sizeof msg),
                     PROVER_ERROR);
    free(zkey.data);
    free(wtns.data);
}

/* NULL arguments: PROVER_ERROR with a message, never a crash. */
static void test_null_arguments(void **state)
{
    (void)state;
    file_bytes zkey = fixture_bytes("bn128", "mul.zkey"), wtns = fixture_bytes("bn128", "mul.wtns");
    void *p = NULL;
    char msg[128], proof[4096], pub[256];
    unsigned long long proof_size = sizeof proof, public_size = sizeof pub;
    assert_int_equal(groth16_prover_create(NULL, zkey.data, zkey.len, msg, sizeof msg), PROVER_ERROR);
    assert_int_equal(groth16_prover_create(&p, NULL, zkey.len, msg, sizeof msg), PROVER_ERROR);
    assert_int_equal(groth16_prover_create_zkey_file(&p, NULL, msg, sizeof msg), PROVER_ERROR);
    assert_int_equal(groth16_public_size_for_zkey_buf(zkey.data, zkey.len, NULL, msg, sizeof msg), PROVER_ERROR);
    assert_int_equal(groth16_prover_create(&p, zkey.data, zkey.len, msg, sizeof msg), PROVER_OK);
    assert_int_equal(groth16_prover_prove(NULL, wtns.data, wtns.len, proof, &proof_size, pub, &public_size, msg,
                                          sizeof msg),
                     PROVER_ERROR);
    assert_int_equal(groth16_prover_prove(p, NULL, wtns.len, proof, &proof_size, pub, &public_size, msg, sizeof msg),
                     PROVER_ERROR);
    assert_int_equal(groth16_prover_prove(p, wtns.data, wtns.len, NULL, &proof_size, pub, &public_size, msg,
                                          sizeof msg),
                     PROVER_ERROR);
    assert_int_equal(groth16_prover_prove(p, wtns.data, wtns.len, proof, NULL, pub, &public_size, msg, sizeof msg),
                     PROVER_ERROR);
    assert_int_equal(groth16_prover_prove(p, wtns.data, wtns.len, proof, &proof_size, NULL, &public_size, msg,
                                          sizeof msg),
                     PROVER_ERROR);
    assert_int_equal(groth16_prover_prove(p, wtns.data, wtns.len, proof, &proof_size, pub, NULL, msg, sizeof msg),
                     PROVER_ERROR);
    assert_non_null(strstr(msg, "ull"));
    groth16_proof_size(NULL);
    groth16_prover_destroy(p);
    free(zkey.data);
    free(wtns.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prove_one_shot),         cmocka_unit_test(test_prover_object),
        cmocka_unit_test(test_short_buffer),
        cmocka_unit_test(test_invalid_witness_length), cmocka_unit_test(test_wrong_curve_witness),
        cmocka_unit_test(test_garbage_zkey),           cmocka_unit_test(test_null_arguments),
    };
    /* the CPU: what every machine has (a GPU prover is tested by test_gpu_prove) */
    setenv("CUZK_BACKEND", "cpu", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
