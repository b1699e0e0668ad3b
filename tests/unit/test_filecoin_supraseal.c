/* supraseal-c2's C ABI as libcuzk exports it (include/cuzk/supraseal.h),
 * called from C: an SRS from a .params file, batches of 1 and 3 circuits
 * whose proofs verify (r = s = 0 giving the CPU prover's bytes), the cache
 * and the handles' reference counts, and every bad input a returned error
 * with a message: a missing or truncated file, no SRS, NULL arrays, an
 * assignment that disagrees with the SRS, r not below the modulus. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/supraseal.h"
#include "filecoin/assignment.h"
#include "filecoin/params.h"
#include "filecoin/prove.h"
#include "filecoin/setup.h"
#include "filecoin_circuit.h"
#include "support.h"

static char tmpdir[64], params_path[128];
static cuzk_r1cs r1cs;
static cuzk_wtns wtns;
static fil_params params;
static fil_assignment as;

static int setup_all(void **state)
{
    (void)state;
    cuzk_error err = {0};
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cuzk-c2-XXXXXX");
    if (!mkdtemp(tmpdir) || fc_build(FC_RANDOM, 2, 30, 21, &r1cs, &wtns))
        return -1;
    fil_setup_options o = {.nthreads = 2, .toxic = test_toxic};
    snprintf(params_path, sizeof params_path, "%s/c2.params", tmpdir);
    if (fil_setup(&r1cs, &o, &params, &err) || fil_params_write(&params, params_path, &err) ||
        fil_assignment_from_r1cs(&as, &r1cs, &wtns, 2, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown_all(void **state)
{
    (void)state;
    fil_assignment_free(&as);
    fil_params_free(&params);
    cuzk_r1cs_free(&r1cs);
    cuzk_wtns_free(&wtns);
    return remove_tree(tmpdir);
}

static void expect_error(cuzk_rust_error e, int code, const char *want)
{
    if (e.code != code || !e.message || !strstr(e.message, want))
        fail_msg("expected code %d with '%s', got %d: %s", code, want, e.code, e.message ? e.message : "(none)");
    free(e.message);
}

static void test_batches_verify(void **state)
{
    (void)state;
    cuzk_srs srs;
    cuzk_rust_error e = create_SRS(&srs, params_path, false);
    assert_int_equal(e.code, 0);
    assert_null(e.message);
    assert_non_null(srs.ptr);
    cuzk_assignment batch[3] = {fc_abi_of(&as), fc_abi_of(&as), fc_abi_of(&as)};
    cuzk_blst_fr r_s[3], s_s[3];
    memset(r_s, 0, sizeof r_s);
    memset(s_s, 0, sizeof s_s);
    for (int i = 1; i < 3; i++)
        assert_int_equal(fil_random_blinding((bls12_381_fr *)&r_s[i], (bls12_381_fr *)&s_s[i]), 0);
    cuzk_groth16_proof proofs[3], one;
    for (size_t n = 1; n <= 3; n += 2) {
        e = generate_groth16_proofs_c(batch, n, r_s, s_s, proofs, &srs);
        assert_int_equal(e.code, 0);
    }
    e = generate_groth16_proofs_c(batch, 1, r_s, s_s, &one, &srs);
    assert_int_equal(e.code, 0);
    cuzk_error err = {0};
    fil_proof direct;
    assert_int_equal(fil_prove(&params, &as, NULL, NULL, 1, &direct, &err), CUZK_OK);
    assert_memory_equal(&one, &direct, sizeof direct); /* r = s = 0: the CPU prover's bytes */
    assert_memory_equal(&proofs[0], &direct, sizeof direct);
    assert_memory_not_equal(&proofs[1], &proofs[2], sizeof direct);
    for (int i = 0; i < 3; i++)
        if (fil_verify(&params.vk, (const uint64_t (*)[4])(wtns.values + 4), as.n_inputs - 1,
                       (const fil_proof *)&proofs[i], &err))
            fail_msg("proof %d: %s", i, err.msg);
    assert_int_equal(generate_groth16_proofs_c(batch, 0, NULL, NULL, NULL, &srs).code, 0); /* nothing to do */
    drop_SRS(&srs);
    assert_null(srs.ptr);
}

static void test_handles_and_cache(void **state)
{
    (void)state;
    cuzk_srs a, b;
    assert_int_equal(create_SRS(&a, params_path, true).code, 0);
    assert_int_equal(create_SRS(&b, params_path, true).code, 0);
    assert_ptr_equal(a.ptr, b.ptr); /* read once, cached */
    cuzk_srs c = clone_SRS(&a);
    assert_ptr_equal(c.ptr, a.ptr);
    evict_SRS(&a);
    drop_SRS(&a);
    drop_SRS(&b);
    /* c still holds it: it proves */
    cuzk_assignment one = fc_abi_of(&as);
    cuzk_blst_fr zero = {{0}};
    cuzk_groth16_proof proof;
    assert_int_equal(generate_groth16_proofs_c(&one, 1, &zero, &zero, &proof, &c).code, 0);
    cuzk_srs d;
    assert_int_equal(create_SRS(&d, params_path, true).code, 0);
    assert_ptr_not_equal(d.ptr, NULL);
    drop_SRS(&c);
    evict_SRS(&d);
    drop_SRS(&d);
    drop_SRS(&d); /* an empty handle: nothing */
    cuzk_srs empty = clone_SRS(&d);
    assert_null(empty.ptr);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    cuzk_srs srs;
    expect_error(create_SRS(&srs, "/nonexistent/x.params", false), EIO, "cannot open");
    assert_null(srs.ptr);
    expect_error(create_SRS(&srs, "/nonexistent/x.params", true), EIO, "cannot open");
    expect_error(create_SRS(&srs, NULL, false), EINVAL, "no path");
    /* a truncated file */
    size_t len;
    char *bytes = read_whole_file(params_path, &len);
    assert_non_null(bytes);
    char cut[160];
    snprintf(cut, sizeof cut, "%s/cut.params", tmpdir);
    FILE *f = fopen(cut, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len - 100, f), len - 100);
    fclose(f);
    free(bytes);
    expect_error(create_SRS(&srs, cut, false), EBADMSG, "truncated");

    assert_int_equal(create_SRS(&srs, params_path, false).code, 0);
    cuzk_assignment one = fc_abi_of(&as);
    cuzk_blst_fr zero = {{0}}, big = {{~0ULL, ~0ULL, ~0ULL, ~0ULL}};
    cuzk_groth16_proof proof;
    expect_error(generate_groth16_proofs_c(&one, 1, &zero, &zero, &proof, NULL), EINVAL, "no SRS");
    expect_error(generate_groth16_proofs_c(NULL, 1, &zero, &zero, &proof, &srs), EINVAL, "NULL");
    expect_error(generate_groth16_proofs_c(&one, 1, &big, &zero, &proof, &srs), EINVAL, "modulus");
    cuzk_assignment batch[2] = {one, one};
    batch[1].a_aux_popcount++;
    expect_error(generate_groth16_proofs_c(batch, 2, (cuzk_blst_fr[2]){{{0}}}, (cuzk_blst_fr[2]){{{0}}},
                                           (cuzk_groth16_proof[2]){0}, &srs),
                 EINVAL, "circuit 1: ");
    batch[1] = one;
    batch[1].aux_assignment_size--;
    batch[1].a_aux_bit_len--;
    batch[1].b_aux_bit_len--;
    expect_error(generate_groth16_proofs_c(batch, 2, (cuzk_blst_fr[2]){{{0}}}, (cuzk_blst_fr[2]){{{0}}},
                                           (cuzk_groth16_proof[2]){0}, &srs),
                 EINVAL, "aux");
    batch[1] = one;
    batch[1].abc_size = params.n_h + 2;
    expect_error(generate_groth16_proofs_c(batch, 2, (cuzk_blst_fr[2]){{{0}}}, (cuzk_blst_fr[2]){{{0}}},
                                           (cuzk_groth16_proof[2]){0}, &srs),
                 EINVAL, "domain");
    drop_SRS(&srs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batches_verify),
        cmocka_unit_test(test_handles_and_cache),
        cmocka_unit_test(test_bad_inputs),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
