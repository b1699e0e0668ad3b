/* The ceremony's hashes and generator: BLAKE2b-512 against libcrypto's,
 * its saved state resumed (the .ptau's partial hashes), ChaCha20 against
 * the reference key-stream (all-zero key, counter 0), and the table of
 * first challenges (tools/gen_first_challenges.py, Python's hashlib)
 * against phase 1's own hashing of them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <string.h>

#include "ceremony/blake2b.h"
#include "ceremony/ceremony_ops.h"
#include "ceremony/chacha.h"
#include "ceremony/first_challenges.h"

static void openssl_blake2b(const uint8_t *data, size_t len, uint8_t out[64])
{
    unsigned int n = 0;
    assert_true(EVP_Digest(data, len, out, &n, EVP_blake2b512(), NULL));
    assert_int_equal(n, 64);
}

static void test_blake2b_matches_libcrypto(void **state)
{
    (void)state;
    static uint8_t data[1000];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7 + 3);
    static const size_t lens[] = {0, 1, 63, 64, 127, 128, 129, 255, 256, 257, 1000};
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        uint8_t want[64], got[64];
        openssl_blake2b(data, lens[l], want);
        cuzk_blake2b(data, lens[l], got);
        assert_memory_equal(got, want, 64);
        /* the same bytes in uneven pieces */
        for (size_t piece = 1; piece < 300; piece += 37) {
            cuzk_blake2b_state s;
            cuzk_blake2b_init(&s);
            for (size_t at = 0; at < lens[l]; at += piece)
                cuzk_blake2b_update(&s, data + at, lens[l] - at < piece ? lens[l] - at : piece);
            cuzk_blake2b_final(&s, got);
            assert_memory_equal(got, want, 64);
        }
    }
}

static void test_blake2b_state_resumes(void **state)
{
    (void)state;
    static uint8_t data[700];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i ^ 0x5a);
    uint8_t want[64], got[64], saved[CUZK_BLAKE2B_PARTIAL_BYTES];
    openssl_blake2b(data, sizeof data, want);
    for (size_t cut = 0; cut <= sizeof data; cut += 64) {
        cuzk_blake2b_state a, b;
        cuzk_blake2b_init(&a);
        cuzk_blake2b_update(&a, data, cut);
        cuzk_blake2b_save(&a, saved);
        memset(&b, 0xee, sizeof b);
        assert_int_equal(cuzk_blake2b_load(&b, saved), 0);
        cuzk_blake2b_update(&b, data + cut, sizeof data - cut);
        cuzk_blake2b_final(&b, got);
        assert_memory_equal(got, want, 64);
    }
    /* a buffer fill beyond a block is not a state */
    saved[CUZK_BLAKE2B_BLOCK + 72] = 200;
    cuzk_blake2b_state c;
    assert_int_equal(cuzk_blake2b_load(&c, saved), -1);
}

static void test_chacha_reference_stream(void **state)
{
    (void)state;
    /* ChaCha20, key 0, nonce 0, block 0: 76 b8 e0 ad a0 f1 3d 90 ..., as
     * little-endian words; block 1 begins 9f 07 e7 be */
    static const uint32_t seed[8] = {0};
    cuzk_chacha c;
    cuzk_chacha_init(&c, seed);
    assert_int_equal(cuzk_chacha_u32(&c), 0xade0b876u);
    assert_int_equal(cuzk_chacha_u32(&c), 0x903df1a0u);
    for (int i = 2; i < 16; i++) cuzk_chacha_u32(&c);
    assert_int_equal(cuzk_chacha_u32(&c), 0xbee7079fu);
    /* nextU64: high word first */
    cuzk_chacha d;
    cuzk_chacha_init(&d, seed);
    assert_true(cuzk_chacha_u64(&d) == ((uint64_t)0xade0b876u << 32 | 0x903df1a0u));
    /* the seed of a hash: big-endian words */
    uint8_t hash[32] = {0};
    hash[3] = 1;
    cuzk_chacha e;
    cuzk_chacha_init_from_hash(&e, hash);
    assert_int_equal(e.state[4], 1);
}

static void test_first_challenges_table(void **state)
{
    (void)state;
    const struct {
        cuzk_curve_id curve;
        const uint8_t (*table)[64];
    } curves[] = {{CUZK_CURVE_BN254, bn254_first_challenges}, {CUZK_CURVE_BLS12_381, bls12_381_first_challenges}};
    for (size_t c = 0; c < 2; c++)
        for (unsigned power = 0; power <= 14; power++) {
            uint8_t hashed[64];
            cuzk_ceremony_ops_for(curves[c].curve)->first_challenge_hashed(power, hashed);
            assert_memory_equal(hashed, curves[c].table[power], 64);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blake2b_matches_libcrypto),
        cmocka_unit_test(test_blake2b_state_resumes),
        cmocka_unit_test(test_chacha_reference_stream),
        cmocka_unit_test(test_first_challenges_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
