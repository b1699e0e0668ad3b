/* The PoRep-shaped synthetic circuit (src/filecoin/porep_shape.c) and
 * keys streamed to their file (fil_setup_write): the shape's counts and
 * densities, a satisfying witness, the streamed .params byte for byte
 * fil_setup's written whole (same toxic waste, rounds of a few points),
 * a proof from it that verifies, and the compact assignment file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/assignment.h"
#include "filecoin/assignment_file.h"
#include "filecoin/params.h"
#include "filecoin/porep_shape.h"
#include "filecoin/prove.h"
#include "filecoin/setup.h"
#include "support.h"
#include "util/threads.h"

static void test_counts(void **state)
{
    (void)state;
    fil_porep_counts c;
    assert_int_equal(fil_porep_counts_of(27, &c), 0);
    assert_int_equal(c.inputs, 328);
    assert_int_equal(c.aux, 130169893u);
    assert_int_equal(c.constraints, 130278869u);
    for (unsigned k = FIL_POREP_LOG_MIN; k <= FIL_POREP_LOG_MAX; k++) { /* the domain is 2^k */
        assert_int_equal(fil_porep_counts_of(k, &c), 0);
        assert_true(c.constraints + c.inputs <= 1u << k);
        assert_true(c.constraints + c.inputs > 1u << (k - 1));
    }
    assert_int_equal(fil_porep_counts_of(FIL_POREP_LOG_MIN - 1, &c), -1);
    assert_int_equal(fil_porep_counts_of(FIL_POREP_LOG_MAX + 1, &c), -1);
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_error err = {0};
    assert_int_equal(fil_porep_synth(28, 1, 1, &r, &w, &err), CUZK_ERR_ARG);
}

static void test_key_and_proof(void **state)
{
    (void)state;
    const unsigned log_k = 14;
    const int nt = cuzk_cpu_count();
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    if (fil_porep_synth(log_k, 7, nt, &r, &w, &err))
        fail_msg("synth: %s", err.msg);
    fil_assignment as;
    if (fil_assignment_from_r1cs(&as, &r, &w, nt, &err)) /* checks every constraint */
        fail_msg("assignment: %s", err.msg);
    /* densities: A-aux 99.7 %, B-aux 25.4 % (in whole periods of 1000
     * wires; the last, partial one moves them a little), of the inputs
     * ONE only in B */
    assert_true(as.a_aux.popcount * 1000 >= as.n_aux * 996 && as.a_aux.popcount * 1000 <= as.n_aux * 998);
    assert_true(as.b_aux.popcount * 1000 >= as.n_aux * 250 && as.b_aux.popcount * 1000 <= as.n_aux * 260);
    assert_int_equal(as.b_inp.popcount, 1);
    assert_true(fil_density_get(&as.b_inp, 0));
    cuzk_witness_mix mix;
    cuzk_witness_mix_count(&w, &mix);
    assert_true((mix.zeros + mix.ones) * 100 > (uint64_t)w.n_witness * 95); /* mostly bits */
    assert_true(mix.full > 0 && mix.small > 0);

    char dir[64], whole[128], streamed[128], vk[128], asc[128];
    snprintf(dir, sizeof dir, "/tmp/cuzk-porep-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(whole, sizeof whole, "%s/whole.params", dir);
    snprintf(streamed, sizeof streamed, "%s/streamed.params", dir);
    snprintf(vk, sizeof vk, "%s/streamed.vk", dir);
    snprintf(asc, sizeof asc, "%s/a.as", dir);
    fil_setup_options o = {.nthreads = nt, .toxic = test_toxic, .stream_round = 1000};
    fil_params p;
    if (fil_setup(&r, &o, &p, &err) || fil_params_write(&p, whole, &err))
        fail_msg("setup: %s", err.msg);
    fil_proof proof;
    bls12_381_fr rr, ss;
    assert_int_equal(fil_random_blinding(&rr, &ss), 0);
    if (fil_prove(&p, &as, &rr, &ss, nt, &proof, &err))
        fail_msg("prove: %s", err.msg);
    if (fil_verify(&p.vk, (const uint64_t (*)[4])(w.values + 4), as.n_inputs - 1, &proof, &err))
        fail_msg("verify: %s", err.msg);
    if (fil_setup_write(&r, &o, streamed, vk, &err)) /* frees r */
        fail_msg("streamed setup: %s", err.msg);
    size_t len[2];
    char *bytes[2] = {read_whole_file(whole, &len[0]), read_whole_file(streamed, &len[1])};
    assert_non_null(bytes[0]);
    assert_non_null(bytes[1]);
    assert_int_equal(len[0], len[1]);
    assert_int_equal(len[0], fil_params_file_bytes(&p));
    assert_memory_equal(bytes[0], bytes[1], len[0]);
    fil_vk v;
    if (fil_vk_read(&v, vk, 0, &err))
        fail_msg("vk: %s", err.msg);
    assert_int_equal(v.n_ic, 328);
    fil_vk_free(&v);

    /* the compact assignment: a byte a 0/1 scalar, far smaller than 32 */
    if (fil_assignment_write(&as, asc, 1, &err))
        fail_msg("assignment file: %s", err.msg);
    size_t alen;
    char *abytes = read_whole_file(asc, &alen);
    assert_non_null(abytes);
    assert_memory_equal(abytes, "C2ASSIGC", 8);
    assert_true(alen < (3 * as.abc_size + as.n_aux) * 4);
    free(abytes);
    free(bytes[0]);
    free(bytes[1]);
    fil_params_free(&p);
    fil_assignment_free(&as);
    cuzk_wtns_free(&w);
    cuzk_r1cs_free(&r);
    assert_int_equal(remove_tree(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_key_and_proof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
