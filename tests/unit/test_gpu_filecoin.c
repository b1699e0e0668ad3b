/* Bellperson's prover with its device part on the GPU
 * (src/filecoin/prove_device.c over the gpu backend's bellman keys):
 * with r = s = 0 the proofs are the CPU prover's bytes, for every density
 * shape (random, all dense, no B-aux, one input, a one-constraint domain
 * of 2, a, b, c filling the domain or not) and at 2^15; blinded proofs
 * verify; a key proves many assignments the same, resident or streamed
 * from host memory; an assignment with other densities is refused;
 * supraseal-c2's ABI on the GPU gives the CPU's bytes for a batch; a
 * .params made with the GPU's fixed-base multiplications is the CPU's,
 * byte for byte, for the same toxic waste. Skips (77) without a usable
 * GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cuzk/supraseal.h"
#include "filecoin/assignment.h"
#include "filecoin/params.h"
#include "filecoin/prove.h"
#include "filecoin/prove_device.h"
#include "filecoin/setup.h"
#include "filecoin_circuit.h"
#include "support.h"
#include "util/threads.h"

static cuzk_backend *gpu;

static void case_make(fc_case *c, fc_shape shape, uint32_t n_pub, uint32_t m, uint64_t seed)
{
    cuzk_error err = {0};
    if (fc_case_make(c, shape, n_pub, m, seed, cuzk_cpu_count(), &err))
        fail_msg("circuit, key or assignment: %s", err.msg);
}

/* the GPU's proofs against the CPU's (r = s = 0), twice with one key, and
 * a blinded one that verifies */
static void check_case(fc_case *c)
{
    cuzk_error err = {0};
    fil_device_key *k = NULL;
    if (fil_device_key_load(&k, gpu, 0, &c->p, &c->as, &err))
        fail_msg("device key: %s", err.msg);
    fil_proof cpu, dev, again, blinded;
    if (fil_prove(&c->p, &c->as, NULL, NULL, cuzk_cpu_count(), &cpu, &err))
        fail_msg("CPU prove: %s", err.msg);
    if (fil_prove_on(k, &c->as, NULL, NULL, &dev, &err) || fil_prove_on(k, &c->as, NULL, NULL, &again, &err))
        fail_msg("GPU prove: %s", err.msg);
    assert_memory_equal(&dev, &cpu, sizeof cpu);
    assert_memory_equal(&again, &cpu, sizeof cpu);
    bls12_381_fr r, s;
    assert_int_equal(fil_random_blinding(&r, &s), 0);
    if (fil_prove_on(k, &c->as, &r, &s, &blinded, &err))
        fail_msg("GPU prove, blinded: %s", err.msg);
    assert_memory_not_equal(&blinded, &cpu, sizeof cpu);
    if (fil_verify(&c->p.vk, fc_case_public(c), c->as.n_inputs - 1, &blinded, &err))
        fail_msg("verify: %s", err.msg);
    fil_device_key_free(k);
}

static void test_shapes(void **state)
{
    (void)state;
    static const struct {
        fc_shape shape;
        uint32_t n_pub, m;
    } shapes[] = {
        {FC_RANDOM, 3, 40},    {FC_ALL_DENSE, 2, 12}, {FC_NO_B_AUX, 1, 30}, {FC_RANDOM, 0, 25},
        {FC_RANDOM, 0, 1},     {FC_RANDOM, 1, 29},    {FC_RANDOM, 1, 30},   {FC_RANDOM, 4, 1000},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        fc_case c;
        case_make(&c, shapes[i].shape, shapes[i].n_pub, shapes[i].m, 100 + i);
        check_case(&c);
        fc_case_free(&c);
    }
}

/* a 2^15 domain: the NTT's several passes, MSMs of thousands of points */
static void test_large(void **state)
{
    (void)state;
    fc_case c;
    case_make(&c, FC_RANDOM, 5, (1u << 15) - 10, 200);
    assert_int_equal(c.p.n_h + 1, 1u << 15);
    check_case(&c);
    fc_case_free(&c);
}

/* keys whose points stay in host memory (what a key larger than the card
 * gets), sent a few hundred points at a time: the same bytes, for a shape
 * with every array split into several slices and for the dense one */
static void test_streamed(void **state)
{
    (void)state;
    cuzk_error err = {0};
    cuzk_backend *resident = gpu;
    if (!(gpu = backend_gpu_create(&(backend_options){.gpu_devices = 1, .gpu_stream_slice = 300}, &err)))
        fail_msg("gpu backend, streamed keys: %s", err.msg);
    fc_case c;
    case_make(&c, FC_RANDOM, 3, 2000, 500);
    check_case(&c);
    fc_case_free(&c);
    case_make(&c, FC_ALL_DENSE, 2, 700, 501);
    check_case(&c);
    fc_case_free(&c);
    gpu->destroy(gpu);
    gpu = resident;
}

/* densities other than the key's, with the same counts: refused */
static void test_other_densities(void **state)
{
    (void)state;
    fc_case c;
    cuzk_error err = {0};
    case_make(&c, FC_RANDOM, 2, 60, 300);
    fil_device_key *k = NULL;
    if (fil_device_key_load(&k, gpu, 0, &c.p, &c.as, &err))
        fail_msg("device key: %s", err.msg);
    size_t on = 0, off = 0; /* one set bit and one clear bit of a_aux swapped: the popcount stays */
    while (on < c.as.n_aux && !fil_density_get(&c.as.a_aux, on))
        on++;
    while (off < c.as.n_aux && fil_density_get(&c.as.a_aux, off))
        off++;
    if (on == c.as.n_aux || off == c.as.n_aux)
        skip(); /* this seed's circuit has no such pair */
    c.as.a_aux.bits[on / 64] ^= 1ULL << (on % 64);
    c.as.a_aux.bits[off / 64] ^= 1ULL << (off % 64);
    assert_false(fil_device_key_fits(k, &c.as));
    fil_proof proof;
    assert_int_equal(fil_prove_on(k, &c.as, NULL, NULL, &proof, &err), CUZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "densities"));
    fil_device_key_free(k);
    fc_case_free(&c);
}

/* supraseal-c2's ABI on the GPU (CUZK_SUPRASEAL_BACKEND=gpu, set in
 * main): a batch of two gives the CPU prover's bytes */
static void test_abi_batch(void **state)
{
    (void)state;
    fc_case c;
    cuzk_error err = {0};
    case_make(&c, FC_RANDOM, 3, 500, 400);
    char dir[64], path[128];
    snprintf(dir, sizeof dir, "/tmp/cuzk-gpu-c2-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/k.params", dir);
    if (fil_params_write(&c.p, path, &err))
        fail_msg("write: %s", err.msg);
    cuzk_srs srs;
    cuzk_rust_error e = create_SRS(&srs, path, true);
    if (e.code)
        fail_msg("create_SRS: %s", e.message);
    cuzk_assignment batch[2] = {fc_abi_of(&c.as), fc_abi_of(&c.as)};
    cuzk_blst_fr zero[2] = {{{0}}};
    cuzk_groth16_proof proofs[2];
    e = generate_groth16_proofs_c(batch, 2, zero, zero, proofs, &srs);
    if (e.code)
        fail_msg("generate_groth16_proofs_c: %s", e.message);
    fil_proof cpu;
    if (fil_prove(&c.p, &c.as, NULL, NULL, cuzk_cpu_count(), &cpu, &err))
        fail_msg("CPU prove: %s", err.msg);
    assert_memory_equal(&proofs[0], &cpu, sizeof cpu);
    assert_memory_equal(&proofs[1], &cpu, sizeof cpu);
    evict_SRS(&srs);
    drop_SRS(&srs);
    assert_int_equal(remove_tree(dir), 0);
    fc_case_free(&c);
}

/* fil_setup with the fixed-base multiplications on the gpu backend (in
 * rounds of 97 points, so that every array takes several) against the
 * CPU's, same toxic waste: the same .params file, byte for byte; and the
 * same again streamed to its file (fil_setup_write, rounds of 500 points
 * handed from the GPU to the writer) */
static void test_setup_on_gpu(void **state)
{
    (void)state;
    cuzk_r1cs r;
    cuzk_wtns w;
    assert_int_equal(fc_build(FC_RANDOM, 4, 700, 500, &r, &w), 0);
    char dir[64], path[3][128];
    snprintf(dir, sizeof dir, "/tmp/cuzk-gpu-fsetup-XXXXXX");
    assert_non_null(mkdtemp(dir));
    static const char *const names[3] = {"cpu", "gpu", "gpu-streamed"};
    for (int k = 0; k < 3; k++) {
        cuzk_error err = {0};
        fil_setup_options o = {.nthreads = cuzk_cpu_count(), .toxic = test_toxic, .backend = k ? gpu : NULL,
                               .device_round = 97, .stream_round = 500};
        snprintf(path[k], sizeof path[k], "%s/%s.params", dir, names[k]);
        if (k == 2) {
            if (fil_setup_write(&r, &o, path[k], NULL, &err)) /* frees r: the last */
                fail_msg("streamed setup (GPU): %s", err.msg);
            continue;
        }
        fil_params p;
        if (fil_setup(&r, &o, &p, &err))
            fail_msg("setup (%s): %s", names[k], err.msg);
        if (fil_params_write(&p, path[k], &err))
            fail_msg("write: %s", err.msg);
        fil_params_free(&p);
    }
    size_t len[3];
    char *bytes[3];
    for (int k = 0; k < 3; k++)
        assert_non_null(bytes[k] = read_whole_file(path[k], &len[k]));
    for (int k = 1; k < 3; k++) {
        assert_int_equal(len[k], len[0]);
        assert_memory_equal(bytes[k], bytes[0], len[0]);
    }
    for (int k = 0; k < 3; k++)
        free(bytes[k]);
    assert_int_equal(remove_tree(dir), 0);
    cuzk_wtns_free(&w);
    cuzk_r1cs_free(&r);
}

int main(void)
{
    if (!backend_gpu_usable()) {
        printf("SKIP: test_gpu_filecoin needs a GPU\n");
        return 77;
    }
    cuzk_error err = {0};
    if (!(gpu = backend_gpu_create(&(backend_options){.gpu_devices = 1}, &err))) {
        fprintf(stderr, "gpu backend: %s\n", err.msg);
        return 1;
    }
    setenv("CUZK_SUPRASEAL_BACKEND", "gpu", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_streamed),
        cmocka_unit_test(test_other_densities),
        cmocka_unit_test(test_abi_batch),
        cmocka_unit_test(test_setup_on_gpu),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    gpu->destroy(gpu);
    return failed;
}
