/* Witnesses in the engine: circuits registered with circom's wasm,
 * partitions given as input JSON, calculated by the synthesis workers on
 * the CPU backend (tests/fixtures: mul on both curves, witness_checks).
 *   - a job of inputs (beside a .wtns partition) is proved, each proof
 *     verified against the key, its public signals those of snarkjs's
 *     .wtns, the witness checked against the r1cs; the witness stage is
 *     counted and is a part of synthesis
 *   - a calculation that fails (circom's assert, a trap) fails its job
 *     with circom's message, while a good job beside it is proved
 *   - refused at submit, naming the partition: input that is not JSON, a
 *     signal the circuit lacks, a missing one, input for a circuit
 *     registered without its wasm, a partition giving two things
 *   - refused at registration: a wasm that is not circom's calculator, one
 *     of another circuit or curve than the key's */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "groth16/groth16.h"
#include "groth16/r1cs.h"
#include "log_watch.h"
#include "support.h"
#include "util/log.h"

static char work[] = "/tmp/cuzk-engine-wasm-XXXXXX";

/* the engine's settings beyond the defaults */
typedef struct {
    double witness_timeout_s;
    cuzk_logger *log;
    uint64_t budget_bytes; /* 0: 256 MiB */
    int no_prewarm;        /* no pinned buffers made at registration */
} engine_extras;

static cuzk_engine *cpu_engine_with(int workers, engine_extras x)
{
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = workers;
    cfg.witness_timeout_s = x.witness_timeout_s;
    cfg.log = x.log;
    cfg.budget_bytes = x.budget_bytes ? x.budget_bytes : 256ULL << 20;
    if (x.no_prewarm)
        cfg.prewarm_buffers = 0;
    cfg.wasm_cache_dir = work;
    cuzk_error err = {0};
    cuzk_engine *e = cuzk_engine_create(&cfg, backend_cpu_create(2), &err);
    if (!e)
        fail_msg("%s", err.msg);
    return e;
}

static cuzk_engine *cpu_engine(int workers)
{
    return cpu_engine_with(workers, (engine_extras){0});
}

static void register_ok(cuzk_engine *e, const char *id, const char *zkey, const char *r1cs, const char *wasm)
{
    cuzk_error err = {0};
    if (cuzk_engine_register_circuit(e, id, zkey, r1cs, wasm, &err))
        fail_msg("%s", err.msg);
}

static uint64_t submit_ok(cuzk_engine *e, const char *circuit, const cuzk_partition_input *parts, uint32_t n)
{
    cuzk_job_request req = {circuit, CUZK_PRIORITY_NORMAL, NULL, n, parts};
    uint64_t id;
    cuzk_error err = {0};
    if (cuzk_engine_submit(e, &req, &id, &err))
        fail_msg("%s", err.msg);
    return id;
}

static cuzk_job_result wait_job(cuzk_engine *e, uint64_t id)
{
    cuzk_job_result r;
    assert_int_equal(cuzk_engine_wait(e, id, -1, &r), CUZK_OK);
    return r;
}

/* The job once ended; fails after a minute (a calculation nobody stops
 * would keep it running for good). */
static cuzk_job_result wait_ended(cuzk_engine *e, uint64_t id)
{
    cuzk_job_result r;
    assert_int_equal(cuzk_engine_wait(e, id, 60, &r), CUZK_OK);
    if (r.state < CUZK_JOB_DONE)
        fail_msg("job %llu is still %s", (unsigned long long)id, cuzk_job_state_name(r.state));
    return r;
}

static void test_inputs_proved(void **state)
{
    (void)state;
    static const char *const curves[] = {"bn128", "bls12381"};
    size_t len;
    char *input = read_whole_file(fixture_path(".", "input.json"), &len);
    assert_non_null(input);
    for (int c = 0; c < 2; c++) {
        cuzk_engine *e = cpu_engine(2);
        char zkey[512], r1cs[512], wasm[512], wtns[512];
        snprintf(zkey, sizeof zkey, "%s", fixture_path(curves[c], "mul.zkey"));
        snprintf(r1cs, sizeof r1cs, "%s", fixture_path(curves[c], "mul.r1cs"));
        snprintf(wasm, sizeof wasm, "%s", fixture_path(curves[c], "mul.wasm"));
        snprintf(wtns, sizeof wtns, "%s", fixture_path(curves[c], "mul.wtns"));
        register_ok(e, "mul", zkey, r1cs, wasm);
        cuzk_circuit_info info;
        assert_int_equal(cuzk_engine_circuit_info(e, "mul", &info), CUZK_OK);
        assert_true(info.has_wasm);

        cuzk_partition_input parts[4] = {
            {.input_json = input}, {.witness_path = wtns}, {.input_json = input}, {.input_json = input}};
        cuzk_job_result r = wait_job(e, submit_ok(e, "mul", parts, 4));
        assert_int_equal(r.state, CUZK_JOB_DONE);
        assert_true(r.verified);
        cuzk_wtns snarkjs;
        cuzk_error err = {0};
        assert_int_equal(cuzk_wtns_read(&snarkjs, wtns, &err), CUZK_OK);
        for (uint32_t i = 0; i < 4; i++) {
            assert_int_equal(verify_partition_proof(zkey, &r, i), CUZK_OK);
            /* public signals are the witness's values 1 .. n_public */
            assert_memory_equal(r.publics[(size_t)i * r.n_public], snarkjs.values + 4, (size_t)r.n_public * 32);
        }
        assert_true(r.witness_s <= r.synth_s);
        cuzk_wtns_free(&snarkjs);
        cuzk_job_result_free(&r);

        cuzk_engine_stats s;
        cuzk_engine_get_stats(e, &s);
        assert_int_equal(s.stage_hist[STAGE_WITNESS].count, 4);
        assert_true(s.stage_hist[STAGE_WITNESS].sum <= s.stage_hist[STAGE_SYNTH].sum);
        assert_string_equal(engine_stage_name(STAGE_WITNESS), "witness");
        cuzk_engine_stats_free(&s);
        cuzk_engine_destroy(e);
    }
    free(input);
}

/* bn128's fixture <name>.r1cs registered in e as id with its wasm and a
 * development key of its own, written to zkey (in the work folder) */
static void register_with_dev_key(cuzk_engine *e, const char *id, const char *name, char zkey[512])
{
    cuzk_r1cs r;
    cuzk_zkey z;
    cuzk_error err = {0};
    char r1cs[512], wasm[512];
    snprintf(zkey, 512, "%s/%s.zkey", work, id);
    snprintf(r1cs, sizeof r1cs, "%s.r1cs", name);
    snprintf(r1cs, sizeof r1cs, "%s", fixture_path("bn128", r1cs));
    snprintf(wasm, sizeof wasm, "%s.wasm", name);
    snprintf(wasm, sizeof wasm, "%s", fixture_path("bn128", wasm));
    assert_int_equal(cuzk_r1cs_read(&r, r1cs, &err), CUZK_OK);
    assert_int_equal(cuzk_groth16_setup(&r, 2, &z, &err), CUZK_OK);
    assert_int_equal(cuzk_zkey_write(&z, zkey, &err), CUZK_OK);
    cuzk_zkey_free(&z);
    cuzk_r1cs_free(&r);
    register_ok(e, id, zkey, r1cs, wasm);
}

/* witness_checks with a development key of its own, in the work folder */
static cuzk_engine *checks_engine(char zkey[512])
{
    cuzk_engine *e = cpu_engine(2);
    register_with_dev_key(e, "checks", "witness_checks", zkey);
    return e;
}

static const char good_input[] = "{\"a\": 5, \"b\": [[1, 2], [3, 4]], \"d\": 3}";

static void test_failed_calculation_fails_its_job(void **state)
{
    (void)state;
    char zkey[512];
    cuzk_engine *e = checks_engine(zkey);
    const char *assert_input = "{\"a\": 13, \"b\": [[1, 2], [3, 4]], \"d\": 3}";
    const char *trap_input = "{\"a\": 1, \"b\": [[1, 2], [3, 4]], \"d\": 1000000}";
    cuzk_partition_input bad[2] = {{.input_json = good_input}, {.input_json = assert_input}};
    cuzk_partition_input good[3] = {{.input_json = good_input}, {.input_json = good_input}, {.input_json = good_input}};
    cuzk_partition_input trap[1] = {{.input_json = trap_input}};
    uint64_t bad_id = submit_ok(e, "checks", bad, 2), good_id = submit_ok(e, "checks", good, 3),
             trap_id = submit_ok(e, "checks", trap, 1);

    cuzk_job_result r = wait_job(e, bad_id);
    assert_int_equal(r.state, CUZK_JOB_FAILED);
    /* circom's own words: the failed assert, its template and line */
    if (!strstr(r.error, "partition 1: ") || !strstr(r.error, "Assert Failed") ||
        !strstr(r.error, "Error in template Checks_0 line: 21"))
        fail_msg("the error: %s", r.error);
    assert_true(r.proved[0] && !r.proved[1]);
    assert_int_equal(verify_partition_proof(zkey, &r, 0), CUZK_OK);
    cuzk_job_result_free(&r);

    r = wait_job(e, trap_id);
    assert_int_equal(r.state, CUZK_JOB_FAILED);
    if (!strstr(r.error, "partition 0: ") || !strstr(r.error, "trapped"))
        fail_msg("the error: %s", r.error);
    cuzk_job_result_free(&r);

    r = wait_job(e, good_id);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    assert_true(r.verified);
    assert_int_equal(r.error[0], 0);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(verify_partition_proof(zkey, &r, i), CUZK_OK);
    cuzk_job_result_free(&r);
    cuzk_engine_destroy(e);
}

/* cuzk_engine_submit's answer to one partition (after a good one) */
static int submit_one(cuzk_engine *e, const char *circuit, cuzk_partition_input second, cuzk_error *err)
{
    cuzk_partition_input parts[2] = {{.input_json = good_input}, second};
    cuzk_job_request req = {circuit, CUZK_PRIORITY_NORMAL, NULL, 2, parts};
    uint64_t id;
    memset(err, 0, sizeof *err);
    return cuzk_engine_submit(e, &req, &id, err);
}

static void expect_refused(int rc, int code, const cuzk_error *err, const char *partition, const char *needle)
{
    assert_int_equal(rc, code);
    if (!strstr(err->msg, partition) || !strstr(err->msg, needle))
        fail_msg("the message lacks '%s' or '%s': %s", partition, needle, err->msg);
}

static void test_bad_inputs_refused_at_submit(void **state)
{
    (void)state;
    char zkey[512];
    cuzk_engine *e = checks_engine(zkey);
    register_ok(e, "plain", zkey, NULL, NULL);
    cuzk_error err;
    int rc = submit_one(e, "checks", (cuzk_partition_input){.input_json = "{\"a\": 5,"}, &err);
    expect_refused(rc, CUZK_ERR_FORMAT, &err, "partition 1: ", "not JSON");
    rc = submit_one(e, "checks", (cuzk_partition_input){.input_json = "{\"a\": {\"x\": 1}}"}, &err);
    expect_refused(rc, CUZK_ERR_FORMAT, &err, "partition 1: ", "'a'");
    rc = submit_one(e, "checks",
                    (cuzk_partition_input){.input_json = "{\"a\": 5, \"b\": [[1, 2], [3, 4]], \"d\": 3, \"e\": 1}"},
                    &err);
    expect_refused(rc, CUZK_ERR_ARG, &err, "partition 1: ", "no input signal 'e'");
    rc = submit_one(e, "checks", (cuzk_partition_input){.input_json = "{\"a\": 5, \"b\": [1, 2, 3], \"d\": 3}"}, &err);
    expect_refused(rc, CUZK_ERR_ARG, &err, "partition 1: ", "'b' takes 4 values");
    rc = submit_one(e, "checks", (cuzk_partition_input){.input_json = "{\"a\": 5, \"d\": 3}"}, &err);
    expect_refused(rc, CUZK_ERR_ARG, &err, "partition 1: ", "missing");
    rc = submit_one(e, "plain", (cuzk_partition_input){.input_json = good_input}, &err);
    expect_refused(rc, CUZK_ERR_ARG, &err, "partition 0: ", "without its wasm");
    rc = submit_one(e, "checks", (cuzk_partition_input){.input_json = good_input, .witness_path = "/x.wtns"}, &err);
    expect_refused(rc, CUZK_ERR_ARG, &err, "partition 1: ", "one of");
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.jobs_active + s.jobs_done + s.jobs_failed, 0);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
}

static void test_wrong_wasm_refused(void **state)
{
    (void)state;
    cuzk_engine *e = cpu_engine(1);
    char zkey[512], r1cs[512];
    snprintf(zkey, sizeof zkey, "%s", fixture_path("bn128", "mul.zkey"));
    snprintf(r1cs, sizeof r1cs, "%s", fixture_path("bn128", "mul.r1cs"));
    static const struct {
        const char *curve, *file;
        int code;
        const char *needle;
    } rows[] = {
        {"bn128", "mul.zkey", CUZK_ERR_FORMAT, "not a WebAssembly file"},
        {"bn128", "witness_checks.wasm", CUZK_ERR_MISMATCH, "does not belong to"},
        {"bls12381", "mul.wasm", CUZK_ERR_MISMATCH, "bls12381"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cuzk_error err = {0};
        int rc = cuzk_engine_register_circuit(e, "mul", zkey, r1cs, fixture_path(rows[i].curve, rows[i].file), &err);
        assert_int_equal(rc, rows[i].code);
        if (!strstr(err.msg, rows[i].needle))
            fail_msg("the message lacks '%s': %s", rows[i].needle, err.msg);
        cuzk_circuit_info info;
        assert_int_equal(cuzk_engine_circuit_info(e, "mul", &info), CUZK_ERR_ARG);
    }
    cuzk_engine_destroy(e);
}

/* loops (tests/fixtures): n = p - 1 never ends, n = 5 ends at once */
static const char forever_input[] =
    "{\"n\": \"21888242871839275222246405745257275088548364400416034343698204186575808495616\"}";
static const char short_input[] = "{\"n\": 5}";

static void test_witness_time_limit_fails_its_job(void **state)
{
    (void)state;
    char zkey[512];
    cuzk_engine *e = cpu_engine_with(1, (engine_extras){.witness_timeout_s = 0.2});
    register_with_dev_key(e, "loops", "loops", zkey);
    cuzk_partition_input forever[1] = {{.input_json = forever_input}}, done[1] = {{.input_json = short_input}};
    uint64_t stuck = submit_ok(e, "loops", forever, 1), after = submit_ok(e, "loops", done, 1);
    cuzk_job_result r = wait_ended(e, stuck);
    assert_int_equal(r.state, CUZK_JOB_FAILED);
    if (!strstr(r.error, "partition 0: ") || !strstr(r.error, "ran past its time limit of 0.2 s"))
        fail_msg("the error: %s", r.error);
    cuzk_job_result_free(&r);
    /* the one synthesis worker is free again */
    r = wait_ended(e, after);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    assert_int_equal(verify_partition_proof(zkey, &r, 0), CUZK_OK);
    cuzk_job_result_free(&r);
    cuzk_engine_destroy(e);
}

/* The job's calculation under way (its circuit logged "spinning") is
 * ended by cancel and by a drain's cancel_all (the daemon's drain timeout
 * and second signal); the jobs end "cancelled", no error is logged, and
 * the one worker proves a job after them. */
static void test_cancel_and_drain_stop_a_calculation(void **state)
{
    (void)state;
    char zkey[512], log_path[600];
    snprintf(log_path, sizeof log_path, "%s/engine.log", work);
    log_watch *watch = log_watch_start(log_path);
    assert_non_null(watch);
    cuzk_logger *log = cuzk_logger_open(log_path, CUZK_LOG_DEBUG);
    assert_non_null(log);
    cuzk_engine *e = cpu_engine_with(1, (engine_extras){.log = log});
    register_with_dev_key(e, "loops", "loops", zkey);
    cuzk_partition_input forever[1] = {{.input_json = forever_input}}, done[1] = {{.input_json = short_input}};

    uint64_t cancelled = submit_ok(e, "loops", forever, 1);
    assert_true(log_watch_wait(watch, "line=\"spinning\"", 1));
    assert_int_equal(cuzk_engine_cancel(e, cancelled), CUZK_OK);
    cuzk_job_result r = wait_ended(e, cancelled);
    assert_int_equal(r.state, CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&r);
    r = wait_ended(e, submit_ok(e, "loops", done, 1));
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&r);

    uint64_t drained = submit_ok(e, "loops", forever, 1);
    /* the short job logged the second */
    assert_true(log_watch_wait(watch, "line=\"spinning\"", 3));
    cuzk_engine_stop_accepting(e);
    assert_int_equal(cuzk_engine_drain(e, 0.1), -1);
    cuzk_engine_cancel_all(e);
    assert_int_equal(cuzk_engine_drain(e, 60), 0);
    r = wait_ended(e, drained);
    assert_int_equal(r.state, CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&r);
    cuzk_engine_destroy(e);
    cuzk_logger_close(log);
    log_watch_closed(watch);
    /* a stopped calculation is no partition's failure */
    assert_int_equal(log_watch_count(watch, "level=error"), 0);
    assert_int_equal(log_watch_count(watch, "job cancelled"), 2);
    log_watch_free(watch);
}

/* The witnesses of queued jobs are held in the budget (its partitions
 * category): a submit whose inline witnesses do not fit now is refused
 * with the numbers and holds nothing; one that fits is proved. */
static void test_inline_witnesses_charged_to_the_budget(void **state)
{
    (void)state;
    char zkey[512];
    snprintf(zkey, sizeof zkey, "%s/inline.zkey", work);
    cuzk_wtns w;
    assert_int_equal(write_dev_key(zkey, NULL, CUZK_CURVE_BN254, 4096, 7, &w), CUZK_OK);
    const uint64_t wbytes = (uint64_t)w.n_witness * 32;
    /* what the circuit holds once registered and a job has run (its key,
     * PCE and the pinned buffer a job needs, idle), measured on an engine
     * of its own */
    cuzk_engine *e = cpu_engine_with(1, (engine_extras){.no_prewarm = 1});
    register_ok(e, "c", zkey, NULL, NULL);
    cuzk_partition_input two[2] = {{.witness = &w}, {.witness = &w}};
    cuzk_job_result r = wait_job(e, submit_ok(e, "c", two, 1));
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&r);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    const uint64_t registered = s.budget.used;
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);

    /* room for that and one witness more: a job of as many witnesses as
     * the buffer and two more is refused (before its buffer is made, its
     * witnesses are all the budget holds; no idle buffer to evict: none is
     * made before a job needs it) */
    e = cpu_engine_with(1, (engine_extras){.budget_bytes = registered + wbytes, .no_prewarm = 1});
    register_ok(e, "c", zkey, NULL, NULL);
    cuzk_engine_get_stats(e, &s);
    const uint64_t before = s.budget.used;
    cuzk_engine_stats_free(&s);
    const uint32_t many = (uint32_t)((registered / wbytes) + 2);
    cuzk_partition_input *parts = calloc(many, sizeof *parts);
    assert_non_null(parts);
    for (uint32_t i = 0; i < many; i++)
        parts[i].witness = &w;
    cuzk_job_request req = {"c", CUZK_PRIORITY_NORMAL, NULL, many, parts};
    uint64_t id;
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_ERR_NOMEM);
    free(parts);
    if (!strstr(err.msg, ": its witness (") || !strstr(err.msg, "does not fit in the memory budget now"))
        fail_msg("the message: %s", err.msg);
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.budget.used, before); /* the witnesses charged before the refusal given back */
    assert_int_equal(s.jobs_active, 0);
    cuzk_engine_stats_free(&s);

    r = wait_job(e, submit_ok(e, "c", two, 1));
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&r);
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.budget.by_category[BUDGET_PARTITIONS], 0);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
}

int main(void)
{
    if (wasm_tests_unavailable())
        return 77;
    if (!mkdtemp(work))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inputs_proved),
        cmocka_unit_test(test_failed_calculation_fails_its_job),
        cmocka_unit_test(test_bad_inputs_refused_at_submit),
        cmocka_unit_test(test_wrong_wasm_refused),
        cmocka_unit_test(test_witness_time_limit_fails_its_job),
        cmocka_unit_test(test_cancel_and_drain_stop_a_calculation),
        cmocka_unit_test(test_inline_witnesses_charged_to_the_budget),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    remove_tree(work);
    return failed;
}
