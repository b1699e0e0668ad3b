/* src/export: points as the EVM's precompiles take them (the generators'
 * encodings that EIP-197 and EIP-2537 give), G2 negation, the call data's
 * exact text, and the contract's shape per curve and signal count. That
 * the contracts verify is tests/interop/solidity_verifier.sh's, in an EVM. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/curve_id.h"
#include "export/evm_words.h"
#include "export/solidity.h"

/* A big-endian hexadecimal string (no 0x) into n little-endian words. */
static void hex_words(const char *hex, uint64_t *out, int n)
{
    memset(out, 0, sizeof(uint64_t) * (size_t)n);
    size_t len = strlen(hex);
    for (size_t i = 0; i < len; i++) {
        char c = hex[len - 1 - i];
        uint64_t v = (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
        out[i / 16] |= v << (4 * (i % 16));
    }
}

static void assert_word_hex(const evm_word *w, const char *hex64)
{
    char got[EVM_WORD_HEX_CAP];
    evm_word_hex(w, got);
    assert_string_equal(got + 2, hex64);
}

/* EIP-2537's G1 generator: each coordinate 16 zero bytes, then its 48. */
static void test_bls12_381_g1_words(void **state)
{
    (void)state;
    cuzk_g1_plain g = {0};
    hex_words("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb", g.x, 6);
    hex_words("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1", g.y, 6);
    evm_word w[EVM_MAX_POINT_WORDS];
    assert_int_equal(evm_g1_encode(CUZK_CURVE_BLS12_381, &g, w), 4);
    assert_word_hex(&w[0], "0000000000000000000000000000000017f1d3a73197d7942695638c4fa9ac0f");
    assert_word_hex(&w[1], "c3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    assert_word_hex(&w[2], "0000000000000000000000000000000008b3f481e3aaa0f1a09e30ed741d8ae4");
    assert_word_hex(&w[3], "fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    g.infinity = 1;
    assert_int_equal(evm_g1_encode(CUZK_CURVE_BLS12_381, &g, w), 4);
    for (int i = 0; i < 4; i++)
        assert_word_hex(&w[i], "0000000000000000000000000000000000000000000000000000000000000000");
}

/* Fp2 orders: EIP-197 the imaginary part first, EIP-2537 the real part. */
static void test_g2_fp2_order(void **state)
{
    (void)state;
    cuzk_g2_plain q = {0};
    q.x[0][0] = 1, q.x[1][0] = 2, q.y[0][0] = 3, q.y[1][0] = 4;
    evm_word w[EVM_MAX_POINT_WORDS];
    assert_int_equal(evm_g2_encode(CUZK_CURVE_BN254, &q, w), 4);
    uint64_t expect_bn[4] = {2, 1, 4, 3};
    for (int i = 0; i < 4; i++)
        assert_true(w[i].limb[0] == expect_bn[i] && !w[i].limb[1] && !w[i].limb[2] && !w[i].limb[3]);
    assert_int_equal(evm_g2_encode(CUZK_CURVE_BLS12_381, &q, w), 8);
    uint64_t expect_bls[4] = {1, 2, 3, 4};
    for (int i = 0; i < 4; i++) {
        assert_true(!w[2 * i].limb[0] && !w[2 * i].limb[1]); /* the high word: nothing above 2^256 */
        assert_true(w[2 * i + 1].limb[0] == expect_bls[i]);
    }
    assert_int_equal(evm_g2_encode((cuzk_curve_id)99, &q, w), 0);
}

/* -y + y = q for each coordinate; zero and infinity stay as they are. */
static void test_g2_negate(void **state)
{
    (void)state;
    for (int c = 0; c < CUZK_N_CURVES; c++) {
        cuzk_curve_id curve = (cuzk_curve_id)c;
        uint32_t n = cuzk_curve_q_words(curve);
        const uint64_t *qm = cuzk_curve_q(curve);
        cuzk_g2_plain p = {0}, neg;
        p.y[0][0] = 5;
        p.y[0][n - 1] = qm[n - 1] >> 1;
        p.y[1][0] = 0; /* zero stays zero */
        neg = p;
        evm_g2_negate(curve, &neg);
        unsigned __int128 carry = 0;
        for (uint32_t i = 0; i < n; i++) {
            carry += (unsigned __int128)p.y[0][i] + neg.y[0][i];
            assert_true((uint64_t)carry == qm[i]);
            carry >>= 64;
        }
        for (uint32_t i = 0; i < n; i++)
            assert_true(neg.y[1][i] == 0);
        assert_memory_equal(neg.x, p.x, sizeof p.x);
        p.infinity = 1;
        neg = p;
        evm_g2_negate(curve, &neg);
        assert_memory_equal(&neg, &p, sizeof p);
    }
}

static char *calldata_text(const cuzk_proof *proof, const uint64_t (*signals)[4], uint32_t n, int *rc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    cuzk_error err = {0};
    *rc = cuzk_solidity_calldata_write(proof, signals, n, f, &err);
    fclose(f);
    return text;
}

#define W(v) "\"0x00000000000000000000000000000000000000000000000000000000000000" v "\""

/* snarkjs's text: ", " inside points, "," between signals, B's Fp2
 * imaginary parts first; BLS12-381's B flat, two words a coordinate. */
static void test_calldata_text(void **state)
{
    (void)state;
    cuzk_proof p = {.curve = CUZK_CURVE_BN254};
    p.a.x[0] = 1, p.a.y[0] = 2;
    p.b.x[0][0] = 3, p.b.x[1][0] = 4, p.b.y[0][0] = 5, p.b.y[1][0] = 6;
    p.c.x[0] = 7, p.c.y[0] = 8;
    const uint64_t signals[2][4] = {{9}, {10}};
    int rc;
    char *t = calldata_text(&p, signals, 2, &rc);
    assert_int_equal(rc, CUZK_OK);
    assert_string_equal(t, "[" W("01") ", " W("02") "],[[" W("04") ", " W("03") "],[" W("06") ", " W("05") "]],[" W(
                               "07") ", " W("08") "],[" W("09") "," W("0a") "]\n");
    free(t);
    p.curve = CUZK_CURVE_BLS12_381;
    t = calldata_text(&p, signals, 0, &rc);
    assert_int_equal(rc, CUZK_OK);
    assert_string_equal(t, "[" W("00") ", " W("01") ", " W("00") ", " W("02") "],[" W("00") ", " W("03") ", " W(
                               "00") ", " W("04") ", " W("00") ", " W("05") ", " W("00") ", " W("06") "],[" W("00")
                               ", " W("07") ", " W("00") ", " W("08") "],[]\n");
    free(t);
    p.curve = (cuzk_curve_id)99;
    t = calldata_text(&p, signals, 2, &rc);
    assert_int_equal(rc, CUZK_ERR_ARG);
    free(t);
}

static char *verifier_text(cuzk_curve_id curve, uint32_t n, int *rc)
{
    cuzk_vk vk = {.curve = curve, .n_public = n};
    vk.ic = calloc(n + 1, sizeof *vk.ic);
    assert_non_null(vk.ic);
    for (uint32_t i = 0; i <= n; i++)
        vk.ic[i].x[0] = i + 1;
    vk.beta2.y[0][0] = 1;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    cuzk_error err = {0};
    *rc = cuzk_solidity_verifier_write(&vk, f, &err);
    fclose(f);
    free(vk.ic);
    return text;
}

/* The arguments per curve, pubSignals only with signals, the precompiles
 * each curve's contract calls, beta negated when written. */
static void test_verifier_shape(void **state)
{
    (void)state;
    int rc;
    char *t = verifier_text(CUZK_CURVE_BN254, 3, &rc);
    assert_int_equal(rc, CUZK_OK);
    assert_non_null(strstr(t, "verifyProof(uint256[2] calldata pA, uint256[2][2] calldata pB, uint256[2] calldata "
                              "pC, uint256[3] calldata pubSignals)"));
    assert_non_null(strstr(t, "staticcall(gas(), 0x07,"));
    assert_non_null(strstr(t, "staticcall(gas(), 0x08, p, 768, p, 32)"));
    assert_non_null(strstr(t, "uint256 constant IC3_1 ="));
    /* -beta's y.c0 = q - 1, the fourth word (EIP-197: y.c1, y.c0 last) */
    assert_non_null(strstr(t, "NEG_BETA_3 = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd46;"));
    free(t);
    t = verifier_text(CUZK_CURVE_BLS12_381, 3, &rc);
    assert_int_equal(rc, CUZK_OK);
    assert_non_null(strstr(t, "verifyProof(uint256[4] calldata pA, uint256[8] calldata pB, uint256[4] calldata "
                              "pC, uint256[3] calldata pubSignals)"));
    assert_non_null(strstr(t, "staticcall(gas(), 0x0c, m, mul(k, 160),"));
    assert_non_null(strstr(t, "staticcall(gas(), 0x0f, p, 1536, p, 32)"));
    assert_non_null(strstr(t, "NEG_BETA_4 = 0x000000000000000000000000000000001a0111ea397fe69a4b1ba7b6434bacd7;"));
    assert_non_null(strstr(t, "NEG_BETA_5 = 0x64774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaaa;"));
    free(t);
    t = verifier_text(CUZK_CURVE_BLS12_381, 0, &rc);
    assert_int_equal(rc, CUZK_OK);
    assert_non_null(strstr(t, "uint256[4] calldata pC)"));
    assert_null(strstr(t, "pubSignals,"));
    assert_null(strstr(t, "staticcall(gas(), 0x0c"));
    free(t);
    t = verifier_text((cuzk_curve_id)99, 1, &rc);
    assert_int_equal(rc, CUZK_ERR_ARG);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bls12_381_g1_words), cmocka_unit_test(test_g2_fp2_order),
        cmocka_unit_test(test_g2_negate),          cmocka_unit_test(test_calldata_text),
        cmocka_unit_test(test_verifier_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
