/* Whole proofs on the GPU backend (src/engine/backend_gpu.c) against the CPU
 * backend, on both curves:
 *   - the MSM results of one proof equal the CPU's, point for point (C and
 *     H as their sum, all a proof uses),
 *     on the same a, b, c and witness (the proofs themselves differ: fresh
 *     blinding each time); also with a, b, c built on the device, on a key
 *     whose points stream from host memory in several slices, and on a
 *     resident key without window tables
 *   - a packed witness (src/synthesis/wtns_pack.h: a bit-heavy or all-zero
 *     one packs, a random one does not) gives the same results, through
 *     the backend and through cuzk_gpu_prove_packed on a key of its own
 *   - GPU proofs verify, again with the key resident, for an all-zero
 *     witness, for a bit-heavy one (its MSMs on plans fitted to it), and for the snarkjs-made fixture keys; a changed public
 *     signal is rejected
 *   - the engine on the GPU backend: jobs of several partitions, each proof
 *     verified, the phase log line written, a bit-heavy witness packed
 *   - the public library (include/cuzk/groth16.h) on the GPU: "auto" picks
 *     it, two threads prove the fixture keys at once, the proofs verify
 *     against snarkjs's verification keys with snarkjs's public signals.
 * Skips (exit 77) without a usable GPU and under AddressSanitizer, like
 * test_gpu. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pthread.h>

#include "cuzk/groth16.h"
#include "ec/ec.h"
#include "backend/backend.h"
#include "engine/engine.h"
#include "gpu/gpu.h"
#include "groth16/synth.h"
#include "support.h"

static cuzk_backend *gpu_backend, *cpu_backend;

typedef struct {
    cuzk_zkey z;
    cuzk_wtns w;
} circuit;

static void make_circuit(circuit *c, cuzk_curve_id curve, uint32_t constraints, int zero_witness,
                         cuzk_synth_shape shape)
{
    cuzk_synth_params sp = {.curve = curve, .n_constraints = constraints, .n_public = 3, .seed = 11,
                                .zero_witness = zero_witness, .shape = shape};
    assert_int_equal(make_dev_key(&sp, &c->z, &c->w, NULL), CUZK_OK);
}

static void free_circuit(circuit *c)
{
    cuzk_zkey_free(&c->z);
    cuzk_wtns_free(&c->w);
}

/* The Jacobian words of a and b are the same point. */
#define SAME_POINT(G, a, b) G##_jac_eq((const G##_jac *)(a), (const G##_jac *)(b))

/* *s <- the sum of the C and H results (all a proof uses of them: a
 * backend may return it in c alone) */
#define SUM_C_H(G, s, m) G##_jac_add_var((G##_jac *)(s), (const G##_jac *)(m)->c, (const G##_jac *)(m)->h)

/* 1 when the CPU's and the GPU's results are the same points: A, B1,
 * C + H in G1 and B2 in G2 of the curve's groups; *which <- the first that
 * differs. */
#define SAME_RESULTS_(prefix, PREFIX, name)                                                                   \
    case CUZK_CURVE_##PREFIX: {                                                                              \
        uint64_t ch_cpu[sizeof(prefix##_g1_jac) / 8], ch_gpu[sizeof(prefix##_g1_jac) / 8];                   \
        SUM_C_H(prefix##_g1, ch_cpu, cpu);                                                                   \
        SUM_C_H(prefix##_g1, ch_gpu, gpu);                                                                   \
        *which = "A";                                                                                        \
        if (!SAME_POINT(prefix##_g1, cpu->a, gpu->a))                                                        \
            return 0;                                                                                        \
        *which = "B1";                                                                                       \
        if (!SAME_POINT(prefix##_g1, cpu->b1, gpu->b1))                                                      \
            return 0;                                                                                        \
        *which = "C + H";                                                                                    \
        if (!SAME_POINT(prefix##_g1, ch_cpu, ch_gpu))                                                        \
            return 0;                                                                                        \
        *which = "B2";                                                                                       \
        return SAME_POINT(prefix##_g2, cpu->b2, gpu->b2);                                                    \
    }

static int same_results(cuzk_curve_id curve, const cuzk_msm_results *cpu, const cuzk_msm_results *gpu,
                        const char **which)
{
    *which = "curve";
    switch (curve) {
        CUZK_CURVES(SAME_RESULTS_)
    }
    return 0;
}

static void expect_same_results(cuzk_curve_id curve, const cuzk_msm_results *cpu, const cuzk_msm_results *gpu)
{
    const char *which = NULL;
    if (!same_results(curve, cpu, gpu, &which))
        fail_msg("MSM %s: the GPU's point differs from the CPU's", which);
}

/* The device part of proofs of c on k (resident, no window tables) with
 * C' + H' forced into slices, H's digits sorted aside or with the slices'
 * (cuzk_gpu_set_c_plus_h; unforced, only a 2^27 key on an H200 is
 * sliced): the CPU's results. 3 slices end neither at C's last point nor
 * at H's. */
static void check_c_plus_h_sliced(cuzk_gpu *g, const cuzk_gpu_key *k, const circuit *c, const cuzk_msm_results *cpu)
{
    static const struct {
        unsigned slices;
        int h_aside;
    } ways[] = {{2, 1}, {3, 0}, {3, 1}, {CUZK_GPU_C_PLUS_H_SLICES_MAX, 1}};
    cuzk_error err = {0};
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        assert_int_equal(cuzk_gpu_set_c_plus_h(g, ways[i].slices, ways[i].h_aside, &err), CUZK_OK);
        cuzk_msm_results m;
        if (cuzk_gpu_prove(g, k, NULL, c->w.values, &m, NULL, &err))
            fail_msg("C' + H' in %u slices, H aside %d: %s", ways[i].slices, ways[i].h_aside, err.msg);
        expect_same_results(c->z.curve, cpu, &m);
    }
    assert_int_equal(cuzk_gpu_set_c_plus_h(g, CUZK_GPU_C_PLUS_H_SLICES_MAX + 1, 1, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_set_c_plus_h(g, 2, 2, &err), CUZK_ERR_ARG);
    assert_int_equal(cuzk_gpu_set_c_plus_h(g, 0, 1, &err), CUZK_OK);
}

/* t's phases of a proof whose a, b, c the device built: none negative, and
 * together the device part (each runs from the mark before it, in whatever
 * order the MSMs ran; the events' clock resolves about a microsecond) */
static void expect_phases_add_up(const cuzk_prove_timings *t)
{
    const double phase[] = {t->h2d, t->abc, t->ntt, t->msm_a, t->msm_b1, t->msm_b2, t->msm_c, t->msm_h};
    double sum = 0;
    for (size_t i = 0; i < sizeof phase / sizeof phase[0]; i++) {
        if (phase[i] < 0)
            fail_msg("phase %zu took %g s", i, phase[i]);
        sum += phase[i];
    }
    if (t->device <= 0 || fabs(sum - t->device) > 1e-4)
        fail_msg("phases add up to %g s, the device part took %g", sum, t->device);
}

/* The device part of a proof of c on a key of its own, a, b, c built on
 * the device: the CPU's results. The key is made by cuzk_gpu_key_stream
 * (points streamed in slices of `slice` points) or, for slice 0, resident
 * without window tables (the backend's keys have them). */
static void check_own_key(const circuit *c, const cuzk_msm_results *cpu, size_t slice,
                          const cuzk_wtns_packed *packed)
{
    cuzk_error err = {0};
    cuzk_gpu *g = NULL;
    cuzk_gpu_key *k = NULL;
    assert_int_equal(cuzk_gpu_open(&g, 0, &err), CUZK_OK);
    if (slice == 0) {
        assert_int_equal(cuzk_gpu_set_key_tables(g, 0, &err), CUZK_OK);
        if (cuzk_gpu_key_upload(g, &c->z, &k, &err))
            fail_msg("key without tables: %s", err.msg);
    } else if (cuzk_gpu_key_stream(g, &c->z, slice, &k, &err)) {
        fail_msg("streamed key: %s", err.msg);
    }
    assert_int_equal(cuzk_gpu_key_streamed(k), slice != 0);
    assert_false(cuzk_gpu_key_has_rows(k));
    cuzk_msm_results none;
    assert_int_equal(cuzk_gpu_prove(g, k, NULL, c->w.values, &none, NULL, &err), CUZK_ERR_ARG); /* no rows yet */
    if (backend_gpu_key_rows(g, k, &c->z, NULL, &err))
        fail_msg("the key's rows: %s", err.msg);
    assert_true(cuzk_gpu_key_has_rows(k));
    assert_int_equal(backend_gpu_key_rows(g, k, &c->z, NULL, &err), CUZK_ERR_ARG); /* once only */
    cuzk_msm_results m;
    cuzk_prove_timings t = {0};
    if (cuzk_gpu_prove(g, k, NULL, c->w.values, &m, &t, &err))
        fail_msg("proof on a key of its own (slice %zu): %s", slice, err.msg);
    expect_same_results(c->z.curve, cpu, &m);
    expect_phases_add_up(&t);
    if (slice == 0)
        check_c_plus_h_sliced(g, k, c, cpu);
    if (packed) {
        if (cuzk_gpu_prove_packed(g, k, packed, &m, &t, &err))
            fail_msg("packed witness on a key of its own (slice %zu): %s", slice, err.msg);
        expect_same_results(c->z.curve, cpu, &m);
        cuzk_wtns_packed short_one = *packed;
        short_one.n--;
        assert_int_equal(cuzk_gpu_prove_packed(g, k, &short_one, &m, &t, &err), CUZK_ERR_ARG);
    }
    cuzk_gpu_key_free(k);
    cuzk_gpu_close(g);
}

/* prove_start on both backends from the same a, b, c; on the GPU also with
 * a, b, c built on the device, with the witness packed (which `packs`
 * says it does), and on a streamed key. */
static void check_msm_results(const circuit *c, int packs)
{
    size_t bytes = cuzk_groth16_abc_bytes(&c->z);
    void *abc_cpu = malloc(bytes), *abc_gpu = gpu_backend->host.alloc(gpu_backend->host.ctx, bytes);
    assert_non_null(abc_cpu);
    assert_non_null(abc_gpu);
    cuzk_groth16_synthesize_abc(&c->z, &c->w, abc_cpu, 4);
    memcpy(abc_gpu, abc_cpu, bytes);
    backend_work wc = {&c->z, &c->w, abc_cpu, c->z.domain_size, NULL, NULL, NULL},
                 wg = {&c->z, &c->w, abc_gpu, c->z.domain_size, NULL, NULL, NULL};
    cuzk_msm_results mc, mg;
    cuzk_prove_timings tc = {0}, tg = {0};
    cuzk_error err = {0};
    assert_int_equal(cpu_backend->prove_start(cpu_backend, 0, &wc, &mc, &tc, &err), CUZK_OK);
    if (gpu_backend->prove_start(gpu_backend, 0, &wg, &mg, &tg, &err))
        fail_msg("GPU prove_start: %s", err.msg);
    expect_same_results(c->z.curve, &mc, &mg);
    assert_true(tg.total > 0);
    assert_true(gpu_backend->builds_abc);
    wg.abc = NULL;
    if (gpu_backend->prove_start(gpu_backend, 0, &wg, &mg, &tg, &err))
        fail_msg("GPU prove_start building a, b, c: %s", err.msg);
    expect_same_results(c->z.curve, &mc, &mg);
    assert_true(tg.abc > 0);
    const size_t wbytes = (size_t)c->w.n_witness * 32;
    void *pinned = gpu_backend->host.alloc(gpu_backend->host.ctx, wbytes);
    assert_non_null(pinned);
    cuzk_wtns_packed packed;
    assert_int_equal(cuzk_wtns_pack(c->w.values, c->w.n_witness, pinned, 3, &packed), CUZK_OK);
    assert_int_equal(packed.base != NULL, packs);
    if (packs) {
        wg.packed = &packed;
        if (gpu_backend->prove_start(gpu_backend, 0, &wg, &mg, &tg, &err))
            fail_msg("GPU prove_start with the witness packed: %s", err.msg);
        expect_same_results(c->z.curve, &mc, &mg);
        wg.packed = NULL;
    }
    check_own_key(c, &mc, 1000, NULL);
    check_own_key(c, &mc, 0, packs ? &packed : NULL);
    gpu_backend->host.free(gpu_backend->host.ctx, pinned, wbytes);
    free(abc_cpu);
    gpu_backend->host.free(gpu_backend->host.ctx, abc_gpu, bytes);
}

/* A GPU proof of c verifies; with a changed public signal it does not. */
static void check_proof_verifies(const cuzk_zkey *z, const cuzk_wtns *w, const cuzk_vk *vk)
{
    cuzk_error err = {0};
    cuzk_proof proof;
    uint64_t(*pub)[4] = calloc((size_t)z->n_public + 1, sizeof *pub);
    assert_non_null(pub);
    if (backend_prove(gpu_backend, z, w, 4, &proof, pub, NULL, &err))
        fail_msg("GPU proof: %s", err.msg);
    if (cuzk_groth16_verify(vk, (const uint64_t(*)[4])pub, z->n_public, &proof, &err))
        fail_msg("the GPU proof does not verify: %s", err.msg);
    if (z->n_public > 0) {
        pub[0][0] ^= 1;
        assert_int_equal(cuzk_groth16_verify(vk, (const uint64_t(*)[4])pub, z->n_public, &proof, &err),
                         CUZK_ERR_INVALID_PROOF);
    }
    free(pub);
}

/* MSM results against the CPU, then GPU proofs that verify (twice when
 * `again`: the second with the key already resident). */
static void check_circuit(cuzk_curve_id curve, uint32_t constraints, int zero_witness, int again,
                          cuzk_synth_shape shape)
{
    circuit c;
    make_circuit(&c, curve, constraints, zero_witness, shape);
    check_msm_results(&c, zero_witness || shape == CUZK_SHAPE_BITS);
    cuzk_vk vk;
    cuzk_error err = {0};
    assert_int_equal(cuzk_groth16_export_vk(&c.z, &vk, &err), CUZK_OK);
    for (int i = 0; i <= again; i++)
        check_proof_verifies(&c.z, &c.w, &vk);
    cuzk_vk_free(&vk);
    free_circuit(&c);
}

static void test_synthetic_circuit(void **state)
{
    check_circuit((cuzk_curve_id)(uintptr_t)*state, 3000, 0, 1, CUZK_SHAPE_RANDOM);
}

/* a bit-heavy witness: the MSMs take windows fitted to its 0/1 values,
 * on the backend's keys the plain plan over their tables' first rows */
static void test_bit_heavy_circuit(void **state)
{
    check_circuit((cuzk_curve_id)(uintptr_t)*state, 3000, 0, 0, CUZK_SHAPE_BITS);
}

static void test_zero_witness(void **state)
{
    check_circuit((cuzk_curve_id)(uintptr_t)*state, 500, 1, 0, CUZK_SHAPE_RANDOM);
}

/* Keys made by snarkjs (tests/fixtures), with their verification keys. */
static void test_fixture_key(void **state)
{
    const char *dir = *state;
    char path[256];
    cuzk_error err = {0};
    cuzk_zkey z;
    cuzk_wtns w;
    cuzk_vk vk;
    snprintf(path, sizeof path, "%s/mul.zkey", dir);
    assert_int_equal(cuzk_zkey_read(&z, path, &err), CUZK_OK);
    snprintf(path, sizeof path, "%s/mul.wtns", dir);
    assert_int_equal(cuzk_wtns_read(&w, path, &err), CUZK_OK);
    snprintf(path, sizeof path, "%s/verification_key.json", dir);
    assert_int_equal(cuzk_vk_read_json(&vk, path, &err), CUZK_OK);
    check_proof_verifies(&z, &w, &vk);
    cuzk_vk_free(&vk);
    cuzk_wtns_free(&w);
    cuzk_zkey_free(&z);
}

/* The engine on the GPU backend with `devices` GPUs (0: all): every proof
 * verified, phases logged, and with several GPUs each one used. Half the
 * partitions give the witness in memory, half in a file (packed in place
 * in the pinned buffer where it packs). */
static void run_engine_on_gpus(int devices, cuzk_synth_shape shape)
{
    char dir[] = "/tmp/cuzk-gpu-engine-XXXXXX", zkey[64], log_path[64], wtns[64];
    assert_non_null(mkdtemp(dir));
    snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
    snprintf(wtns, sizeof wtns, "%s/w.wtns", dir);
    snprintf(log_path, sizeof log_path, "%s/engine.log", dir);
    circuit c;
    make_circuit(&c, CUZK_CURVE_BLS12_381, 2000, 0, shape);
    cuzk_error err = {0};
    assert_int_equal(cuzk_zkey_write(&c.z, zkey, &err), CUZK_OK);
    assert_int_equal(cuzk_wtns_write(&c.w, wtns, &err), CUZK_OK);

    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 4;
    cfg.synthesis_threads = 2; /* packing on threads */
    cfg.workers_per_device = 2;
    cfg.max_device_queue_depth = 4;
    cfg.budget_bytes = 1ULL << 30;
    cfg.log = cuzk_logger_open(log_path, CUZK_LOG_INFO);
    assert_non_null(cfg.log);
    cuzk_backend *b = backend_gpu_create(&(backend_options){.gpu_devices = devices}, &err);
    assert_non_null(b);
    int n_devices = b->n_devices;
    cuzk_engine *e = cuzk_engine_create(&cfg, b, &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_circuit(e, "c", zkey, NULL, NULL, &err), CUZK_OK);
    enum { PARTS = 8 }; /* 16 partitions: every GPU gets some */
    cuzk_partition_input parts[PARTS];
    for (int i = 0; i < PARTS; i++)
        parts[i] = i % 2 ? (cuzk_partition_input){.witness_path = wtns} : (cuzk_partition_input){.witness = &c.w};
    cuzk_job_request req = {"c", CUZK_PRIORITY_NORMAL, NULL, PARTS, parts};
    uint64_t ids[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(cuzk_engine_submit(e, &req, &ids[i], &err), CUZK_OK);
    for (int i = 0; i < 2; i++) {
        cuzk_job_result r;
        assert_int_equal(cuzk_engine_wait(e, ids[i], 120, &r), CUZK_OK);
        if (r.state != CUZK_JOB_DONE)
            fail_msg("job %d: %s %s", i, cuzk_job_state_name(r.state), r.error);
        assert_int_equal(r.verified, 1);
        cuzk_job_result_free(&r);
    }
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    for (int d = 0; d < n_devices; d++)
        if (!(st.device_busy_s[d] > 0) || !(st.device_clock_s[d] > 0) || st.device_clock_s[d] > st.device_busy_s[d])
            fail_msg("GPU %d of %d: busy %g s, by its own clock %g s", d, n_devices, st.device_busy_s[d],
                     st.device_clock_s[d]);
    cuzk_engine_stats_free(&st);
    cuzk_engine_destroy(e);
    cuzk_logger_close(cfg.log);

    assert_int_equal(count_lines_with(log_path, "partition proved\" backend=gpu", "msm_b2="), 2 * PARTS);
    /* the device builds a, b, c: a bit-heavy witness crosses packed */
    assert_int_equal(count_lines_with(log_path, "partition proved\" backend=gpu", "witness_packed=1"),
                     shape == CUZK_SHAPE_BITS ? 2 * PARTS : 0);
    free_circuit(&c);
    assert_int_equal(remove_tree(dir), 0);
}

static void test_engine_on_gpu(void **state)
{
    (void)state;
    run_engine_on_gpus(1, CUZK_SHAPE_RANDOM);
    run_engine_on_gpus(1, CUZK_SHAPE_BITS);
}

/* Independent proofs spread over every visible GPU, each with its own
 * resident key (skipped with one GPU). */
static void test_engine_on_all_gpus(void **state)
{
    (void)state;
    if (cuzk_gpu_device_count() < 2) {
        printf("one GPU: the several-GPU test needs two\n");
        skip();
    }
    run_engine_on_gpus(0, CUZK_SHAPE_RANDOM);
}

typedef struct {
    cuzk_prover *p;
    const cuzk_key *key;
    const char *wtns_path;
    int rc;
    char *proof, *pub;
    cuzk_error err;
} library_proof;

static void *library_prove(void *arg)
{
    library_proof *j = arg;
    j->rc = cuzk_prove_wtns_file(j->p, j->key, j->wtns_path, 0, &j->proof, &j->pub, &j->err);
    return NULL;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *s = calloc(1, 1 << 16);
    assert_non_null(s);
    assert_true(fread(s, 1, (1 << 16) - 1, f) > 0);
    fclose(f);
    return s;
}

static void test_library_on_gpu(void **state)
{
    const char *dir = *state;
    char zkey[256], wtns[256], vk_path[256], pub_path[256];
    snprintf(zkey, sizeof zkey, "%s/mul.zkey", dir);
    snprintf(wtns, sizeof wtns, "%s/mul.wtns", dir);
    snprintf(vk_path, sizeof vk_path, "%s/verification_key.json", dir);
    snprintf(pub_path, sizeof pub_path, "%s/public.json", dir);
    cuzk_error err = {0};
    cuzk_prover *p = NULL;
    assert_int_equal(cuzk_prover_create(&p, "auto", 2, &err), CUZK_OK);
    assert_string_equal(cuzk_prover_backend(p), "gpu");
    cuzk_key *key = NULL;
    assert_int_equal(cuzk_key_load_file(&key, zkey, &err), CUZK_OK);
    library_proof jobs[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        jobs[i] = (library_proof){.p = p, .key = key, .wtns_path = wtns};
        assert_int_equal(pthread_create(&t[i], NULL, library_prove, &jobs[i]), 0);
    }
    char *vk = read_text(vk_path), *want_pub = read_text(pub_path);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        if (jobs[i].rc)
            fail_msg("%s: %s", dir, jobs[i].err.msg);
        assert_string_equal(jobs[i].pub, want_pub);
        assert_int_equal(cuzk_verify_json(vk, jobs[i].pub, jobs[i].proof, &err), CUZK_OK);
        free(jobs[i].proof);
        free(jobs[i].pub);
    }
    free(vk);
    free(want_pub);
    cuzk_key_free(key);
    cuzk_prover_destroy(p);
}

int main(void)
{
    if (gpu_tests_unavailable())
        return 77;
    cuzk_error err = {0};
    gpu_backend = backend_gpu_create(&(backend_options){.gpu_devices = 1}, &err);
    if (!gpu_backend) {
        printf("cannot start the GPU backend: %s\n", err.msg);
        return 1;
    }
    cpu_backend = backend_cpu_create(4);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_synthetic_circuit, (void *)(uintptr_t)CUZK_CURVE_BN254),
        cmocka_unit_test_prestate(test_synthetic_circuit, (void *)(uintptr_t)CUZK_CURVE_BLS12_381),
        cmocka_unit_test_prestate(test_bit_heavy_circuit, (void *)(uintptr_t)CUZK_CURVE_BN254),
        cmocka_unit_test_prestate(test_bit_heavy_circuit, (void *)(uintptr_t)CUZK_CURVE_BLS12_381),
        cmocka_unit_test_prestate(test_zero_witness, (void *)(uintptr_t)CUZK_CURVE_BN254),
        cmocka_unit_test_prestate(test_zero_witness, (void *)(uintptr_t)CUZK_CURVE_BLS12_381),
        cmocka_unit_test_prestate(test_fixture_key, "tests/fixtures/bn128"),
        cmocka_unit_test_prestate(test_fixture_key, "tests/fixtures/bls12381"),
        cmocka_unit_test_prestate(test_library_on_gpu, "tests/fixtures/bn128"),
        cmocka_unit_test_prestate(test_library_on_gpu, "tests/fixtures/bls12381"),
        cmocka_unit_test(test_engine_on_gpu),
        cmocka_unit_test(test_engine_on_all_gpus),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    gpu_backend->destroy(gpu_backend);
    cpu_backend->destroy(cpu_backend);
    return failed;
}
