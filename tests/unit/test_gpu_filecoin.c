/* Bellperson's prover with its device part on the GPU
 * (src/filecoin/prove_device.c over the gpu backend's bellman keys):
 * with r = s = 0 the proofs are the CPU prover's bytes, for every density
 * shape (random, all dense, no B-aux, one input, a one-constraint domain
 * of 2, a, b, c filling the domain or not) and at 2^15; blinded proofs
 * verify; a key proves many assignments the same, resident or streamed
 * from host memory; an assignment with other densities is refused;
 * supraseal-c2's ABI on the GPU gives the CPU's bytes for a batch; a
 * bit-heavy PoRep-shaped partition proved with its arrays packed, alone
 * and through the ABI, gives the CPU's bytes too; a
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
#include "ff/constants.h"
#include "filecoin/params.h"
#include "filecoin/porep_shape.h"
#include "filecoin/prove.h"
#include "filecoin/prove_device.h"
#include "filecoin/setup.h"
#include "filecoin_circuit.h"
#include "support.h"
#include "synthesis/wtns_pack.h"
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
 * gets), sent a few hundred points at a time, and the quotient in three
 * buffers (bellman_h_lean): the same bytes, for a shape with every array
 * split into several slices and for the dense one */
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
 * main): a batch of count copies of as gives the CPU prover's bytes, each */
static void check_abi_batch(const fil_params *p, const fil_assignment *as, size_t count, const fil_proof *cpu)
{
    cuzk_error err = {0};
    char dir[64], path[128];
    snprintf(dir, sizeof dir, "/tmp/cuzk-gpu-c2-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/k.params", dir);
    if (fil_params_write(p, path, &err))
        fail_msg("write: %s", err.msg);
    cuzk_srs srs;
    cuzk_rust_error e = create_SRS(&srs, path, true);
    if (e.code)
        fail_msg("create_SRS: %s", e.message);
    cuzk_assignment *batch = malloc(count * sizeof *batch);
    cuzk_blst_fr *zero = calloc(count, sizeof *zero);
    cuzk_groth16_proof *proofs = malloc(count * sizeof *proofs);
    assert_true(batch && zero && proofs);
    for (size_t i = 0; i < count; i++)
        batch[i] = fc_abi_of(as);
    e = generate_groth16_proofs_c(batch, count, zero, zero, proofs, &srs);
    if (e.code)
        fail_msg("generate_groth16_proofs_c: %s", e.message);
    for (size_t i = 0; i < count; i++)
        assert_memory_equal(&proofs[i], cpu, sizeof *cpu);
    evict_SRS(&srs);
    drop_SRS(&srs);
    free(batch), free(zero), free(proofs);
    assert_int_equal(remove_tree(dir), 0);
}

static void test_abi_batch(void **state)
{
    (void)state;
    fc_case c;
    cuzk_error err = {0};
    case_make(&c, FC_RANDOM, 3, 500, 400);
    fil_proof cpu;
    if (fil_prove(&c.p, &c.as, NULL, NULL, cuzk_cpu_count(), &cpu, &err))
        fail_msg("CPU prove: %s", err.msg);
    check_abi_batch(&c.p, &c.as, 2, &cpu);
    fc_case_free(&c);
}

/* a bit-heavy PoRep-shaped partition (2^12): its a, b and aux pack (0 and
 * Montgomery's one as two bits); proved with them packed on a resident and
 * on a streamed key (the lean quotient), and through the
 * ABI in a batch of 3 (each packed while the one before is proved), the
 * CPU prover's bytes */
static void test_packed_porep(void **state)
{
    (void)state;
    const int nt = cuzk_cpu_count();
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    fil_assignment as;
    fil_params p;
    if (fil_porep_synth(12, 9, nt, &r, &w, &err) || fil_assignment_from_r1cs(&as, &r, &w, nt, &err))
        fail_msg("PoRep-shaped circuit: %s", err.msg);
    fil_setup_options o = {.nthreads = nt, .toxic = test_toxic};
    if (fil_setup(&r, &o, &p, &err))
        fail_msg("setup: %s", err.msg);
    fil_proof cpu, dev;
    if (fil_prove(&p, &as, NULL, NULL, nt, &cpu, &err))
        fail_msg("CPU prove: %s", err.msg);

    cuzk_bellman_packed packed;
    const bls12_381_fr *arrays[4] = {as.a, as.b, as.c, as.aux};
    cuzk_wtns_packed *out[4] = {&packed.a, &packed.b, &packed.c, &packed.aux};
    uint64_t *room[4];
    for (int k = 0; k < 4; k++) {
        const size_t n = k < 3 ? as.abc_size : as.n_aux;
        assert_non_null(room[k] = malloc(cuzk_wtns_pack_room(n)));
        assert_int_equal(cuzk_wtns_pack_as((const uint64_t *)arrays[k], n, bls12_381_fr_R, room[k], nt, out[k]),
                         CUZK_OK);
    }
    assert_non_null(packed.a.base); /* the shape's bits: these pack */
    assert_non_null(packed.b.base);
    assert_non_null(packed.aux.base);
    cuzk_backend *streaming = backend_gpu_create(&(backend_options){.gpu_devices = 1, .gpu_stream_slice = 1000}, &err);
    if (!streaming)
        fail_msg("gpu backend, streamed keys: %s", err.msg);
    cuzk_backend *const backends[2] = {gpu, streaming}; /* resident; streamed (the lean quotient) */
    for (int b = 0; b < 2; b++) {
        fil_device_key *k = NULL;
        if (fil_device_key_load(&k, backends[b], 0, &p, &as, &err) ||
            fil_prove_on_packed(k, &as, &packed, NULL, NULL, &dev, NULL, &err))
            fail_msg("GPU prove, packed (%s key): %s", b ? "streamed" : "resident", err.msg);
        assert_memory_equal(&dev, &cpu, sizeof cpu);
        fil_device_key_free(k);
    }
    streaming->destroy(streaming);
    for (int j = 0; j < 4; j++)
        free(room[j]);

    check_abi_batch(&p, &as, 3, &cpu);
    fil_params_free(&p);
    fil_assignment_free(&as);
    cuzk_wtns_free(&w);
    cuzk_r1cs_free(&r);
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
        cmocka_unit_test(test_packed_porep),
        cmocka_unit_test(test_setup_on_gpu),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    gpu->destroy(gpu);
    return failed;
}
