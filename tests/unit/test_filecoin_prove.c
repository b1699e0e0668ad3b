/* Bellperson's prover on the CPU (src/filecoin/prove.c): proofs of keys
 * made by fil_setup verify (pairing check against the .vk), with random
 * and with zero blinding; a tampered proof or a wrong public input fails;
 * the density edge cases (all dense, no B-aux, one input, a, b, c filling
 * the domain or not); r = s = 0 proofs are the same bytes every time and
 * on any thread count; assignments that disagree with the key are
 * refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "filecoin/assignment.h"
#include "filecoin/params.h"
#include "filecoin/prove.h"
#include "filecoin/setup.h"
#include "filecoin_circuit.h"
#include "support.h"

static void case_make(fc_case *c, fc_shape shape, uint32_t n_pub, uint32_t m, uint64_t seed)
{
    cuzk_error err = {0};
    if (fc_case_make(c, shape, n_pub, m, seed, 2, &err))
        fail_msg("circuit, key or assignment: %s", err.msg);
}

static void prove_ok(const fc_case *c, int blind, int nthreads, fil_proof *proof)
{
    cuzk_error err = {0};
    bls12_381_fr r, s;
    if (blind)
        assert_int_equal(fil_random_blinding(&r, &s), 0);
    if (fil_prove(&c->p, &c->as, blind ? &r : NULL, blind ? &s : NULL, nthreads, proof, &err))
        fail_msg("prove: %s", err.msg);
}

/* a valid proof, a tampered one and a wrong input, for one case */
static void check_case(fc_case *c)
{
    cuzk_error err = {0};
    fil_proof proof, back;
    size_t n_pub = c->as.n_inputs - 1;
    for (int blind = 0; blind < 2; blind++) {
        prove_ok(c, blind, 2, &proof);
        if (fil_verify(&c->p.vk, fc_case_public(c), n_pub, &proof, &err))
            fail_msg("verify (blinding %d): %s", blind, err.msg);
        uint8_t bytes[FIL_PROOF_BYTES];
        fil_proof_write_bytes(bytes, &proof);
        assert_int_equal(fil_proof_read_bytes(&back, bytes, &err), CUZK_OK);
        assert_memory_equal(&back, &proof, sizeof proof);
        /* tampered: c replaced by a, the sign of b's y flipped */
        back = proof;
        back.c = proof.a;
        assert_int_equal(fil_verify(&c->p.vk, fc_case_public(c), n_pub, &back, &err), CUZK_ERR_INVALID_PROOF);
        bytes[48] ^= 0x20;
        assert_int_equal(fil_proof_read_bytes(&back, bytes, &err), CUZK_OK);
        assert_int_equal(fil_verify(&c->p.vk, fc_case_public(c), n_pub, &back, &err), CUZK_ERR_INVALID_PROOF);
        /* a wrong public input, a wrong count */
        if (n_pub) {
            uint64_t(*wrong)[4] = malloc(n_pub * sizeof *wrong);
            assert_non_null(wrong);
            memcpy(wrong, fc_case_public(c), n_pub * sizeof *wrong);
            wrong[n_pub - 1][0] ^= 1;
            assert_int_equal(fil_verify(&c->p.vk, (const uint64_t (*)[4])wrong, n_pub, &proof, &err),
                             CUZK_ERR_INVALID_PROOF);
            assert_non_null(strstr(err.msg, "pairing"));
            free(wrong);
        }
        assert_int_equal(fil_verify(&c->p.vk, fc_case_public(c), n_pub + 1, &proof, &err), CUZK_ERR_INVALID_PROOF);
    }
}

static void test_random_circuit(void **state)
{
    (void)state;
    fc_case c;
    case_make(&c, FC_RANDOM, 3, 40, 1);
    assert_int_equal(c.p.n_a, c.as.n_inputs + c.as.a_aux.popcount);
    check_case(&c);
    fc_case_free(&c);
}

static void test_all_dense(void **state)
{
    (void)state;
    fc_case c;
    case_make(&c, FC_ALL_DENSE, 2, 12, 2);
    assert_int_equal(c.as.a_aux.popcount, c.as.n_aux);
    assert_int_equal(c.as.b_aux.popcount, c.as.n_aux);
    assert_int_equal(c.as.b_inp.popcount, c.as.n_inputs);
    assert_int_equal(c.p.n_a, c.p.vk.n_ic + c.p.n_l);
    assert_int_equal(c.p.n_b_g1, c.p.vk.n_ic + c.p.n_l);
    check_case(&c);
    fc_case_free(&c);
}

static void test_no_b_aux(void **state)
{
    (void)state;
    fc_case c;
    case_make(&c, FC_NO_B_AUX, 1, 30, 3);
    assert_int_equal(c.as.b_aux.popcount, 0);
    assert_true(c.p.n_b_g1 >= 1 && c.p.n_b_g1 <= 2);
    check_case(&c);
    fc_case_free(&c);
}

/* no public input: ic holds ONE alone; also a one-constraint circuit
 * (domain 2, h one point) */
static void test_one_input(void **state)
{
    (void)state;
    fc_case c;
    case_make(&c, FC_RANDOM, 0, 25, 4);
    assert_int_equal(c.p.vk.n_ic, 1);
    check_case(&c);
    fc_case_free(&c);
    case_make(&c, FC_RANDOM, 0, 1, 5);
    assert_int_equal(c.p.n_h, 1);
    check_case(&c);
    fc_case_free(&c);
}

/* a, b, c fill the domain exactly (30 + 2 rows = 32) or not (29 + 2) */
static void test_abc_size_vs_domain(void **state)
{
    (void)state;
    for (uint32_t m = 29; m <= 30; m++) {
        fc_case c;
        case_make(&c, FC_RANDOM, 1, m, 6 + m);
        assert_int_equal(c.p.n_h + 1, 32);
        assert_int_equal(c.as.abc_size, m + 2);
        check_case(&c);
        fc_case_free(&c);
    }
}

/* r = s = 0: the same proof on every run and thread count; blinded
 * proofs differ */
static void test_deterministic(void **state)
{
    (void)state;
    fc_case c;
    case_make(&c, FC_RANDOM, 2, 50, 7);
    fil_proof p1, p3, again, blinded;
    prove_ok(&c, 0, 1, &p1);
    prove_ok(&c, 0, 3, &p3);
    prove_ok(&c, 0, 2, &again);
    prove_ok(&c, 1, 2, &blinded);
    assert_memory_equal(&p1, &p3, sizeof p1);
    assert_memory_equal(&p1, &again, sizeof p1);
    assert_memory_not_equal(&p1, &blinded, sizeof p1);
    fc_case_free(&c);
}

static void expect_mismatch(const fc_case *c, const fil_assignment *as, const char *want)
{
    cuzk_error err = {0};
    fil_proof proof;
    assert_int_equal(fil_prove(&c->p, as, NULL, NULL, 1, &proof, &err), CUZK_ERR_MISMATCH);
    if (!strstr(err.msg, want))
        fail_msg("expected '%s' in: %s", want, err.msg);
}

static void test_mismatched_assignment(void **state)
{
    (void)state;
    fc_case c;
    case_make(&c, FC_RANDOM, 2, 20, 8);
    fil_assignment as = c.as;
    as.abc_size = c.p.n_h + 2;
    expect_mismatch(&c, &as, "more than the key's domain");
    as = c.as;
    as.n_inputs++;
    expect_mismatch(&c, &as, "inputs");
    as = c.as;
    as.n_aux--;
    expect_mismatch(&c, &as, "aux");
    as = c.as;
    as.a_aux.popcount++;
    expect_mismatch(&c, &as, "density");
    as = c.as;
    as.a_aux.bits[0] ^= 1; /* the count says one thing, the bits another */
    expect_mismatch(&c, &as, "density");
    c.as.a_aux.bits[0] ^= 1;
    as = c.as;
    as.b_aux.bits[0] ^= 1;
    as.b_aux.popcount = as.b_aux.popcount + (as.b_aux.bits[0] & 1 ? 1 : (size_t)-1);
    expect_mismatch(&c, &as, "b_inp + b_aux");
    c.as.b_aux.bits[0] ^= 1;
    fc_case_free(&c);
}

/* a witness that does not satisfy the circuit, or lacks ONE */
static void test_bad_witness(void **state)
{
    (void)state;
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_error err = {0};
    fil_assignment as;
    assert_int_equal(fc_build(FC_RANDOM, 1, 10, 9, &r, &w), 0);
    w.values[4 * 5] ^= 1;
    assert_int_equal(fil_assignment_from_r1cs(&as, &r, &w, 2, &err), CUZK_ERR_UNSATISFIED);
    assert_non_null(strstr(err.msg, "constraint"));
    w.values[4 * 5] ^= 1;
    w.values[0] = 2;
    assert_int_equal(fil_assignment_from_r1cs(&as, &r, &w, 2, &err), CUZK_ERR_MISMATCH);
    w.values[0] = 1;
    w.n_witness--;
    assert_int_equal(fil_assignment_from_r1cs(&as, &r, &w, 2, &err), CUZK_ERR_MISMATCH);
    w.n_witness++;
    assert_int_equal(fil_assignment_from_r1cs(&as, &r, &w, 2, &err), CUZK_OK);
    fil_assignment_free(&as);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_circuit),   cmocka_unit_test(test_all_dense),
        cmocka_unit_test(test_no_b_aux),         cmocka_unit_test(test_one_input),
        cmocka_unit_test(test_abc_size_vs_domain), cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_mismatched_assignment), cmocka_unit_test(test_bad_witness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
