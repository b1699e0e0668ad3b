/* Development setups on the GPU (cuzk_gpu_setup, the gpu backend's setup)
 * against the CPU's, on both curves and on random and bit-heavy circuits:
 *   - from the same toxic waste the GPU's key is the CPU's, byte for byte
 *     (points at infinity from zero scalars included), in one round of
 *     multiplications per array or in several
 *   - a key made on the device with no host copy (no_host_points) proves:
 *     the proof verifies, a changed public signal is rejected
 *   - without a kept key, no_host_points is refused
 *   - a device-only key of the gpu backend gets its window tables, made
 *     from its points on the device (compacted where many are infinity),
 *     each one's building told to the progress hook, and proves: the proof
 *     verifies
 *   - a backend with a memory limit leaves only that much of the card free
 *     while it lives
 *   - the engine makes a device-only key itself and its jobs verify; one
 *     whose registration fails leaves no device memory behind.
 * Skips (exit 77) without a usable GPU and under AddressSanitizer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "engine/engine.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support.h"

static cuzk_gpu *gpu;

typedef struct {
    cuzk_curve_id curve;
    cuzk_synth_shape shape;
    uint32_t constraints;
    size_t device_round; /* cuzk_setup_options.device_round (0: the default) */
} setup_case;

static void synth(const setup_case *c, cuzk_r1cs *r, cuzk_wtns *w)
{
    cuzk_error err = {0};
    const cuzk_synth_params sp = {.curve = c->curve, .n_constraints = c->constraints, .n_public = 3, .seed = 5,
                                  .shape = c->shape};
    assert_int_equal(cuzk_circuit_synth(&sp, r, w, &err), CUZK_OK);
}

static void test_same_key_as_cpu(void **state)
{
    const setup_case *c = *state;
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_zkey cpu, dev;
    synth(c, &r, &w);
    const cuzk_setup_options o = {.nthreads = 4, .toxic = test_toxic, .device_round = c->device_round};
    assert_int_equal(cuzk_groth16_setup_with(&r, &o, &cpu, &err), CUZK_OK);
    int rc = cuzk_gpu_setup(gpu, &r, &o, &dev, NULL, &err);
    if (rc)
        printf("GPU setup: %s\n", err.msg);
    assert_int_equal(rc, CUZK_OK);
    assert_true(zkeys_equal(&cpu, &dev));
    cuzk_zkey_free(&cpu);
    cuzk_zkey_free(&dev);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

/* A proof of w by b on its key z verifies; with a changed public signal
 * it does not. */
static void expect_proof_verifies(cuzk_backend *b, const cuzk_zkey *z, const cuzk_wtns *w)
{
    cuzk_error err = {0};
    cuzk_vk vk;
    cuzk_proof proof;
    uint64_t(*pub)[4] = calloc((size_t)z->n_public + 1, sizeof *pub);
    assert_non_null(pub);
    int rc = backend_prove(b, z, w, 4, &proof, pub, NULL, &err);
    if (rc)
        printf("proving: %s\n", err.msg);
    assert_int_equal(rc, CUZK_OK);
    assert_int_equal(cuzk_groth16_export_vk(z, &vk, &err), CUZK_OK);
    assert_int_equal(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, z->n_public, &proof, &err), CUZK_OK);
    pub[0][0] ^= 1;
    assert_int_equal(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, z->n_public, &proof, &err),
                     CUZK_ERR_INVALID_PROOF);
    free(pub);
    cuzk_vk_free(&vk);
}

static void count_table_stages(void *ctx, const char *stage)
{
    if (!strncmp(stage, "window table of ", 16))
        ++*(int *)ctx;
}

static void test_key_tables(void **state)
{
    const setup_case *c = *state;
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_zkey z;
    int tables = 0;
    synth(c, &r, &w);
    cuzk_backend *b = backend_gpu_create(&(backend_options){.gpu_devices = 1}, &err);
    assert_non_null(b);
    const cuzk_setup_options o = {
        .nthreads = 4, .no_host_points = 1, .progress = count_table_stages, .progress_ctx = &tables};
    int rc = backend_setup(b, &r, &o, &z, &err);
    if (rc)
        printf("GPU setup: %s\n", err.msg);
    assert_int_equal(rc, CUZK_OK);
    assert_int_equal(tables, 4); /* A, B1, B2, C and H */
    expect_proof_verifies(b, &z, &w);
    cuzk_zkey_free(&z);
    b->destroy(b);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

static void test_device_only_key_proves(void **state)
{
    const setup_case *c = *state;
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_zkey z;
    synth(c, &r, &w);
    cuzk_backend *b = backend_gpu_create(&(backend_options){.gpu_devices = 1, .gpu_one_shot = 1}, &err);
    assert_non_null(b);
    const cuzk_setup_options o = {.nthreads = 4, .no_host_points = 1};
    assert_int_equal(backend_setup(b, &r, &o, &z, &err), CUZK_OK);
    assert_null(z.a);
    assert_null(z.h);
    expect_proof_verifies(b, &z, &w);
    /* the CPU has nowhere to keep a device-only key */
    cuzk_backend *cpu = backend_cpu_create(2);
    cuzk_zkey none;
    assert_int_equal(backend_setup(cpu, &r, &o, &none, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_setup(gpu, &r, &o, &none, NULL, &err), CUZK_ERR_ARG);
    cpu->destroy(cpu);
    cuzk_zkey_free(&z);
    b->destroy(b);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

/* An engine on GPU 0 with a memory budget of `budget` bytes. */
static cuzk_engine *gpu_engine(uint64_t budget)
{
    cuzk_error err = {0};
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 2;
    cfg.budget_bytes = budget;
    cuzk_backend *b = backend_gpu_create(&(backend_options){.gpu_devices = 1}, &err);
    assert_non_null(b);
    cuzk_engine *e = cuzk_engine_create(&cfg, b, &err);
    assert_non_null(e);
    return e;
}

/* The engine makes a key on the device with no host copy and no file
 * (cuzk_engine_register_setup); its jobs' proofs verify. */
static void test_engine_device_key(void **state)
{
    const setup_case *c = *state;
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    synth(c, &r, &w);
    cuzk_engine *e = gpu_engine(256ULL << 20);
    int rc = cuzk_engine_register_setup(e, "made", &r, 1, &err);
    if (rc)
        printf("registering: %s\n", err.msg);
    assert_int_equal(rc, CUZK_OK);
    cuzk_partition_input parts[3] = {{.witness = &w}, {.witness = &w}, {.witness = &w}};
    cuzk_job_request req = {"made", CUZK_PRIORITY_NORMAL, NULL, 3, parts};
    uint64_t id;
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_OK);
    cuzk_job_result res;
    assert_int_equal(cuzk_engine_wait(e, id, -1, &res), CUZK_OK);
    if (res.state != CUZK_JOB_DONE)
        printf("job: %s\n", res.error);
    assert_int_equal(res.state, CUZK_JOB_DONE);
    assert_int_equal(res.verified, 1);
    cuzk_job_result_free(&res);
    cuzk_circuit_info info;
    assert_int_equal(cuzk_engine_circuit_info(e, "made", &info), CUZK_OK);
    assert_true(info.key.made);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
}

/* A device-only key whose registration fails (a budget too small for its
 * host part) leaves no device memory behind: the capacity for proofs'
 * scratch (free memory and what the pool holds, which the setup's own
 * buffers only move between) is what it was before. */
static void test_failed_registration_frees_device_key(void **state)
{
    const setup_case *c = *state;
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    synth(c, &r, &w);
    cuzk_engine *e = gpu_engine(1ULL << 20); /* less than the key's host part */
    size_t before = 0, after = 0;
    assert_int_equal(cuzk_gpu_scratch_capacity(0, &before, &err), CUZK_OK);
    assert_int_not_equal(cuzk_engine_register_setup(e, "made", &r, 1, &err), CUZK_OK);
    assert_int_equal(cuzk_gpu_scratch_capacity(0, &after, &err), CUZK_OK);
    printf("capacity %zu -> %zu bytes: %s\n", before, after, err.msg);
    assert_true(after + (8u << 20) >= before); /* a key of this size is ~50 MiB */
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
}

/* a backend limited to less memory than the card has leaves no more free */
static void test_memory_limit(void **state)
{
    (void)state;
    cuzk_error err = {0};
    size_t used0 = 0, used = 0, total = 0;
    assert_int_equal(cuzk_gpu_memory(0, &used0, &total, &err), CUZK_OK);
    const size_t limit = used0 + ((size_t)1 << 30);
    const backend_options o = {.gpu_devices = 1, .gpu_one_shot = 1, .gpu_memory_limit = limit};
    cuzk_backend *b = backend_gpu_create(&o, &err);
    assert_non_null(b);
    assert_int_equal(cuzk_gpu_memory(0, &used, &total, &err), CUZK_OK);
    assert_true(total - used <= ((size_t)1 << 30)); /* 1 GiB free at the most */
    b->destroy(b);
    assert_int_equal(cuzk_gpu_memory(0, &used, &total, &err), CUZK_OK);
    assert_true(total - used > ((size_t)2 << 30));
    const backend_options less = {.gpu_devices = 1, .gpu_memory_limit = used / 2}; /* less than is in use */
    assert_null(backend_gpu_create(&less, &err));
}

int main(void)
{
    if (gpu_tests_unavailable())
        return 77;
    cuzk_error err = {0};
    if (cuzk_gpu_open(&gpu, 0, &err)) {
        printf("cannot open GPU 0: %s\n", err.msg);
        return 1;
    }
    static const setup_case cases[] = {
        {.curve = CUZK_CURVE_BN254, .shape = CUZK_SHAPE_RANDOM, .constraints = 3000},
        {.curve = CUZK_CURVE_BLS12_381, .shape = CUZK_SHAPE_RANDOM, .constraints = 3000},
        {.curve = CUZK_CURVE_BN254, .shape = CUZK_SHAPE_BITS, .constraints = 5000},
        {.curve = CUZK_CURVE_BLS12_381, .shape = CUZK_SHAPE_BITS, .constraints = 5000},
        {.curve = CUZK_CURVE_BLS12_381, .shape = CUZK_SHAPE_MIXED, .constraints = 70000},
        /* rounds of 1000 points (the last one short) instead of one */
        {.curve = CUZK_CURVE_BN254, .shape = CUZK_SHAPE_MIXED, .constraints = 4500, .device_round = 1000},
        {.curve = CUZK_CURVE_BLS12_381, .shape = CUZK_SHAPE_RANDOM, .constraints = 1u << 17},
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_same_key_as_cpu, (void *)&cases[0]),
        cmocka_unit_test_prestate(test_same_key_as_cpu, (void *)&cases[1]),
        cmocka_unit_test_prestate(test_same_key_as_cpu, (void *)&cases[2]),
        cmocka_unit_test_prestate(test_same_key_as_cpu, (void *)&cases[3]),
        cmocka_unit_test_prestate(test_same_key_as_cpu, (void *)&cases[4]),
        cmocka_unit_test_prestate(test_same_key_as_cpu, (void *)&cases[5]),
        cmocka_unit_test_prestate(test_device_only_key_proves, (void *)&cases[1]),
        cmocka_unit_test_prestate(test_device_only_key_proves, (void *)&cases[2]),
        cmocka_unit_test_prestate(test_key_tables, (void *)&cases[1]),
        cmocka_unit_test_prestate(test_key_tables, (void *)&cases[2]),
        cmocka_unit_test_prestate(test_key_tables, (void *)&cases[3]),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test_prestate(test_engine_device_key, (void *)&cases[3]),
        cmocka_unit_test_prestate(test_failed_registration_frees_device_key, (void *)&cases[6]),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cuzk_gpu_close(gpu);
    return failed;
}
