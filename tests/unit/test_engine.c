/* The pipeline engine's dynamics on the simulated backend (no GPU needed),
 * and one real end-to-end run on the CPU backend. Assertions are on counts,
 * order and invariants, never on how long something took. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "support.h"

#define SIM_DOMAIN 1024 /* 96 KiB a/b/c buffers */
#define SIM_BUFFER ((uint64_t)3 * SIM_DOMAIN * 32)

static cuzk_engine *sim_engine(cuzk_dispatch_policy policy, int synth_workers, int depth, double synth_ms,
                               double gpu_ms, uint64_t budget)
{
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.policy = policy;
    cfg.synthesis_workers = synth_workers;
    cfg.max_gpu_queue_depth = depth;
    cfg.sim_synth_ms = synth_ms;
    cfg.poll_ms = 20;
    cfg.budget_bytes = budget;
    cfg.prewarm_buffers = 0;
    cuzk_error err = {0};
    cuzk_engine *e = cuzk_engine_create(&cfg, backend_sim_create(1, gpu_ms), &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_sim_circuit(e, "sim", SIM_DOMAIN, &err), CUZK_OK);
    return e;
}

static uint64_t submit_sim(cuzk_engine *e, uint32_t partitions, cuzk_priority prio, const char *request_id)
{
    cuzk_job_request req = {"sim", prio, request_id, partitions, NULL};
    uint64_t id = 0;
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_OK);
    return id;
}

static cuzk_job_result wait_job(cuzk_engine *e, uint64_t id)
{
    cuzk_job_result r;
    assert_int_equal(cuzk_engine_wait(e, id, -1, &r), CUZK_OK);
    return r;
}

static void run_jobs(cuzk_engine *e, int jobs, uint32_t partitions)
{
    uint64_t *ids = calloc((size_t)jobs, sizeof *ids);
    assert_non_null(ids);
    for (int i = 0; i < jobs; i++)
        ids[i] = submit_sim(e, partitions, CUZK_PRIORITY_NORMAL, NULL);
    for (int i = 0; i < jobs; i++) {
        cuzk_job_result r = wait_job(e, ids[i]);
        assert_int_equal(r.state, CUZK_JOB_DONE);
        assert_int_equal(r.partitions_done, partitions);
        cuzk_job_result_free(&r);
    }
    free(ids);
}

/* Permits bound what is in flight: allocations <= depth + synthesis
 * workers, and nearly every checkout after warm-up is a reuse. */
static void test_semaphore_reuses(void **state)
{
    (void)state;
    const int workers = 4, depth = 2;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_SEMAPHORE, workers, depth, 1, 2, 64ULL << 20);
    run_jobs(e, 25, 8);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.partitions_done, 200);
    assert_true(s.pool.allocations <= (uint64_t)(depth + workers));
    double reuse = (double)s.pool.reuses / (double)(s.pool.reuses + s.pool.allocations);
    assert_true(reuse >= 0.95);
    assert_int_equal(s.pool.checkins, 200);
    assert_true(s.budget.high_water <= s.budget.limit);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
}

/* The legacy poll releases everything pending at once: the pool balloons
 * and few checkouts are reuses (the original's failure, reproduced). */
static void test_poll_bursts(void **state)
{
    (void)state;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_POLL, 4, 2, 0.2, 2, 1ULL << 30);
    run_jobs(e, 25, 8);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.partitions_done, 200);
    assert_true(s.pool.allocations > 4 * (2 + 4));
    assert_true(s.pool.reuses < s.pool.allocations);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
}

/* The pacer keeps what is in flight bounded by the permits as well. */
static void test_pacer_completes(void **state)
{
    (void)state;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_PACER, 4, 2, 0.5, 1, 64ULL << 20);
    run_jobs(e, 10, 6);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.partitions_done, 60);
    assert_true(s.pool.allocations <= 2 + 4);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
}

/* A budget of 3 buffers: checkouts wait, the limit is never crossed. */
static void test_budget_never_exceeded(void **state)
{
    (void)state;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_POLL, 6, 8, 0.5, 1, 3 * SIM_BUFFER);
    run_jobs(e, 6, 6);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.partitions_done, 36);
    assert_true(s.budget.high_water <= 3 * SIM_BUFFER);
    assert_true(s.pool.buffers_total <= 3);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
}

/* Cancelling returns every buffer, permit and byte, and the engine goes on. */
static void test_cancel_frees_everything(void **state)
{
    (void)state;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_SEMAPHORE, 2, 2, 1, 20, 64ULL << 20);
    uint64_t big = submit_sim(e, 40, CUZK_PRIORITY_NORMAL, NULL);
    cuzk_job_result r;
    assert_int_equal(cuzk_engine_wait(e, big, 0.05, &r), CUZK_OK);
    cuzk_job_result_free(&r);
    assert_int_equal(cuzk_engine_cancel(e, big), CUZK_OK);
    assert_int_equal(cuzk_engine_cancel(e, big), CUZK_OK); /* idempotent */
    r = wait_job(e, big);
    assert_int_equal(r.state, CUZK_JOB_CANCELLED);
    assert_true(r.partitions_done < 40);
    cuzk_job_result_free(&r);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.pool.buffers_idle, s.pool.buffers_total);
    assert_int_equal(s.budget.by_category[BUDGET_PARTITIONS], 0);
    assert_int_equal(s.queued + s.synthesizing + s.gpu_queued + s.on_gpu, 0);
    cuzk_engine_stats_free(&s);
    /* permits came back: a new job runs to completion */
    uint64_t next = submit_sim(e, 4, CUZK_PRIORITY_NORMAL, NULL);
    r = wait_job(e, next);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&r);
    assert_int_equal(cuzk_engine_cancel(e, 999999), CUZK_ERR_ARG);
    cuzk_engine_destroy(e);
}

/* A critical job submitted behind a long low-priority one finishes first. */
static void test_priorities(void **state)
{
    (void)state;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_SEMAPHORE, 1, 1, 0.5, 2, 64ULL << 20);
    uint64_t low = submit_sim(e, 30, CUZK_PRIORITY_LOW, NULL);
    uint64_t normal = submit_sim(e, 3, CUZK_PRIORITY_NORMAL, NULL);
    uint64_t critical = submit_sim(e, 3, CUZK_PRIORITY_CRITICAL, NULL);
    cuzk_job_result rc = wait_job(e, critical);
    assert_int_equal(rc.state, CUZK_JOB_DONE);
    /* when the critical job is done, the low one is still far from done */
    cuzk_job_result rl;
    assert_int_equal(cuzk_engine_wait(e, low, 0, &rl), CUZK_OK);
    assert_true(rl.partitions_done < 10);
    cuzk_job_result_free(&rl);
    cuzk_job_result rn = wait_job(e, normal);
    assert_int_equal(rn.state, CUZK_JOB_DONE);
    assert_int_equal(cuzk_engine_wait(e, low, 0, &rl), CUZK_OK);
    assert_true(rl.partitions_done < 30);
    cuzk_job_result_free(&rl);
    rl = wait_job(e, low);
    assert_int_equal(rl.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&rc);
    cuzk_job_result_free(&rn);
    cuzk_job_result_free(&rl);
    cuzk_engine_destroy(e);
}

static void test_idempotent_request_ids(void **state)
{
    (void)state;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_SEMAPHORE, 2, 2, 0, 0.1, 64ULL << 20);
    uint64_t a = submit_sim(e, 2, CUZK_PRIORITY_NORMAL, "req-1");
    uint64_t b = submit_sim(e, 2, CUZK_PRIORITY_NORMAL, "req-1");
    assert_int_equal(a, b);
    cuzk_job_request other = {"sim", CUZK_PRIORITY_NORMAL, "req-1", 3, NULL};
    uint64_t c = 0;
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_submit(e, &other, &c, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "req-1"));
    cuzk_job_request unknown = {"nope", CUZK_PRIORITY_NORMAL, NULL, 1, NULL};
    assert_int_equal(cuzk_engine_submit(e, &unknown, &c, &err), CUZK_ERR_ARG);
    cuzk_job_result r = wait_job(e, a);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&r);
    cuzk_engine_destroy(e);
}

typedef struct {
    cuzk_engine *e;
    uint64_t ids[250];
} submitter;

static void *submit_many(void *arg)
{
    submitter *s = arg;
    for (int i = 0; i < 250; i++) {
        cuzk_job_request req = {"sim", (cuzk_priority)(i % CUZK_N_PRIORITIES), NULL, 1, NULL};
        cuzk_error err = {0};
        if (cuzk_engine_submit(s->e, &req, &s->ids[i], &err))
            s->ids[i] = 0;
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* 1,000 small jobs from four threads: all complete, none lost or twice. */
static void test_thousand_jobs(void **state)
{
    (void)state;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_SEMAPHORE, 4, 4, 0, 0.05, 64ULL << 20);
    submitter subs[4];
    pthread_t th[4];
    for (int t = 0; t < 4; t++) {
        subs[t].e = e;
        assert_int_equal(pthread_create(&th[t], NULL, submit_many, &subs[t]), 0);
    }
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    uint64_t all[1000];
    for (int t = 0; t < 4; t++)
        memcpy(all + 250 * t, subs[t].ids, sizeof subs[t].ids);
    qsort(all, 1000, sizeof all[0], cmp_u64);
    for (int i = 0; i < 1000; i++) {
        assert_true(all[i] != 0);
        if (i)
            assert_true(all[i] != all[i - 1]);
        cuzk_job_result r = wait_job(e, all[i]);
        assert_int_equal(r.state, CUZK_JOB_DONE);
        assert_int_equal(r.partitions_done, 1);
        cuzk_job_result_free(&r);
    }
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.partitions_done, 1000);
    assert_int_equal(s.jobs_done, 1000);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
}

/* Real proofs through the whole pipeline on the CPU backend, verified. */
static void test_cpu_backend_end_to_end(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-engine-XXXXXX", zkey[64], log_path[64], tl_path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
    snprintf(log_path, sizeof log_path, "%s/engine.log", dir);
    snprintf(tl_path, sizeof tl_path, "%s/timeline.jsonl", dir);
    cuzk_wtns w;
    assert_int_equal(write_dev_key(zkey, CUZK_CURVE_BN254, 200, 5, &w), CUZK_OK);

    cuzk_error err = {0};
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 2;
    cfg.budget_bytes = 256ULL << 20;
    cfg.pce_cache_dir = dir;
    cfg.timeline_path = tl_path;
    cfg.log = cuzk_logger_open(log_path, CUZK_LOG_INFO);
    assert_non_null(cfg.log);
    cuzk_engine *e = cuzk_engine_create(&cfg, backend_cpu_create(2), &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_circuit(e, "c", zkey, NULL, &err), CUZK_OK);
    cuzk_partition_input parts[3] = {{NULL, &w}, {NULL, &w}, {NULL, &w}};
    cuzk_job_request req = {"c", CUZK_PRIORITY_HIGH, NULL, 3, parts};
    uint64_t id;
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_OK);
    cuzk_job_result r = wait_job(e, id);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    assert_int_equal(r.verified, 1);
    assert_int_equal(r.n_public, 2);
    assert_memory_equal(r.publics[0], w.values + 4, 32);
    cuzk_job_result_free(&r);
    cuzk_engine_destroy(e);
    cuzk_logger_close(cfg.log);

    assert_int_equal(count_lines_with(log_path, "pinned pool: checkout", NULL), 3);
    assert_int_equal(count_lines_with(log_path, "gpu: partition proved", NULL), 3);
    int events = count_lines_with(tl_path, "", NULL);
    assert_int_equal(events, 3 * 6);
    cuzk_wtns_free(&w);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_semaphore_reuses),      cmocka_unit_test(test_poll_bursts),
        cmocka_unit_test(test_pacer_completes),       cmocka_unit_test(test_budget_never_exceeded),
        cmocka_unit_test(test_cancel_frees_everything), cmocka_unit_test(test_priorities),
        cmocka_unit_test(test_idempotent_request_ids), cmocka_unit_test(test_thousand_jobs),
        cmocka_unit_test(test_cpu_backend_end_to_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
