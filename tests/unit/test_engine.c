/* The pipeline engine's dynamics on the simulated backend (no GPU needed),
 * and one real end-to-end run on the CPU backend. Assertions are on counts,
 * order and invariants, never on how long something took; the sim runs
 * are on a virtual clock (util/vclock.h): the model's time whatever the
 * machine's load (the budget test, whose waits the clock cannot see, and
 * the gate test, decided by events, excepted). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "codec/curve_id.h"
#include "groth16/synth.h"
#include "support.h"
#include "util/vclock.h"

#define SIM_DOMAIN 1024 /* 96 KiB a/b/c buffers */
#define SIM_BUFFER ((uint64_t)3 * SIM_DOMAIN * 32)

static void sim_config(cuzk_engine_config *cfg, cuzk_dispatch_policy policy, int synth_workers, int depth,
                       double synth_ms, uint64_t budget)
{
    cuzk_engine_config_default(cfg);
    cfg->policy = policy;
    cfg->synthesis_workers = synth_workers;
    cfg->max_device_queue_depth = depth;
    cfg->sim_synth_ms = synth_ms;
    cfg->poll_ms = 20;
    cfg->budget_bytes = budget;
    cfg->prewarm_buffers = 0;
}

/* An engine on one simulated device taking gpu_ms, with circuit "sim". */
static cuzk_engine *sim_engine_with(const cuzk_engine_config *cfg, double gpu_ms)
{
    cuzk_error err = {0};
    cuzk_engine *e = cuzk_engine_create(cfg, backend_sim_create_on(1, gpu_ms, cfg->clock), &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_sim_circuit(e, "sim", SIM_DOMAIN, &err), CUZK_OK);
    return e;
}

/* The same on a virtual clock (util/vclock.h), so that what a test sees
 * does not depend on the machine's load: time passes only while this
 * thread waits for the engine. The budget must never block a checkout
 * (a wait the clock cannot see); sim_destroy ends both. */
static cuzk_vclock *sim_clock;

static cuzk_engine *sim_engine(cuzk_dispatch_policy policy, int synth_workers, int depth, double synth_ms,
                               double gpu_ms, uint64_t budget)
{
    cuzk_engine_config cfg;
    sim_config(&cfg, policy, synth_workers, depth, synth_ms, budget);
    cfg.clock = sim_clock = vclock_create(0);
    assert_non_null(sim_clock);
    return sim_engine_with(&cfg, gpu_ms);
}

static void sim_destroy(cuzk_engine *e)
{
    cuzk_engine_destroy(e);
    vclock_destroy(sim_clock);
    sim_clock = NULL;
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

/* One job of n partitions of witness w (n <= 4) on circuit id, waited for:
 * it must end done with every proof verified. */
static cuzk_job_result prove_verified(cuzk_engine *e, const char *id, const cuzk_wtns *w, uint32_t n)
{
    cuzk_partition_input parts[4] = {{.witness = w}, {.witness = w}, {.witness = w}, {.witness = w}};
    assert_true(n <= 4);
    cuzk_job_request req = {id, CUZK_PRIORITY_HIGH, NULL, n, parts};
    cuzk_error err = {0};
    uint64_t job;
    assert_int_equal(cuzk_engine_submit(e, &req, &job, &err), CUZK_OK);
    cuzk_job_result r = wait_job(e, job);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    assert_int_equal(r.verified, 1);
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
    sim_destroy(e);
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
    sim_destroy(e);
}

/* What a timeline says about the second half of a run (after the start-up
 * transient): the device queue's length averaged over time (GPU_QUEUE adds
 * one, GPU_START takes one), the mean spacing of synthesis starts (with
 * idle workers, of dispatches), and how busy the device was from its first
 * start to its last end. */
typedef struct {
    double queue_depth_mean, dispatch_interval_mean, busy_fraction;
} timeline_profile;

typedef struct {
    double t;
    int event; /* 0 synthesis start, +1 queued for the device, -1 device start, 2 device end */
} tl_event;

static int cmp_tl_event(const void *a, const void *b)
{
    double x = ((const tl_event *)a)->t, y = ((const tl_event *)b)->t;
    return (x > y) - (x < y);
}

static timeline_profile profile_timeline(const char *path, int partitions)
{
    static const struct {
        const char *name;
        int event;
    } kinds[] = {{"SYNTH_START", 0}, {"GPU_QUEUE", 1}, {"GPU_START", -1}, {"GPU_END", 2}};
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    tl_event *ev = calloc((size_t)partitions * 6, sizeof *ev);
    double *synth = calloc((size_t)partitions, sizeof *synth);
    assert_true(ev && synth);
    int n = 0, n_synth = 0;
    char line[256], name[32];
    double t;
    while (fgets(line, sizeof line, f) && n < partitions * 6)
        if (sscanf(line, "{\"t\":%lf,\"event\":\"%31[A-Z_]\"", &t, name) == 2)
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
                if (!strcmp(name, kinds[k].name))
                    ev[n++] = (tl_event){t, kinds[k].event};
    fclose(f);
    qsort(ev, (size_t)n, sizeof *ev, cmp_tl_event);
    for (int i = 0; i < n; i++)
        if (ev[i].event == 0)
            synth[n_synth++] = ev[i].t;
    assert_int_equal(n_synth, partitions);
    double from = synth[partitions / 2], to = synth[partitions - 1];
    double area = 0, busy = 0, started = 0, first_start = -1, last_end = 0;
    int depth = 0;
    for (int i = 0; i < n; i++) {
        double lo = i ? fmax(ev[i - 1].t, from) : from, hi = fmin(ev[i].t, to);
        if (hi > lo)
            area += depth * (hi - lo);
        if (ev[i].event == 1 || ev[i].event == -1)
            depth += ev[i].event;
        if (ev[i].event == -1) {
            started = ev[i].t;
            if (first_start < 0)
                first_start = started;
        } else if (ev[i].event == 2) {
            busy += ev[i].t - started; /* one device slot: ends follow their starts */
            last_end = ev[i].t;
        }
    }
    timeline_profile p = {area / (to - from), (to - from) / (partitions - 1 - partitions / 2),
                          busy / (last_end - first_start)};
    free(ev);
    free(synth);
    return p;
}

/* The same run under one dispatch policy, with a timeline, on a virtual
 * clock; returns its profile and fills *s. */
static timeline_profile profiled_run(cuzk_dispatch_policy policy, int workers, int depth, double synth_ms,
                                     double gpu_ms, int partitions, cuzk_engine_stats *s)
{
    char dir[] = "/tmp/cuzk-pacer-XXXXXX", tl_path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(tl_path, sizeof tl_path, "%s/timeline.jsonl", dir);
    cuzk_engine_config cfg;
    sim_config(&cfg, policy, workers, depth, synth_ms, 64ULL << 20);
    cfg.timeline_path = tl_path;
    cfg.clock = vclock_create(0);
    assert_non_null(cfg.clock);
    cuzk_engine *e = sim_engine_with(&cfg, gpu_ms);
    run_jobs(e, 1, (uint32_t)partitions);
    cuzk_engine_get_stats(e, s);
    sim_destroy(e);
    vclock_destroy(cfg.clock);
    timeline_profile p = profile_timeline(tl_path, partitions);
    remove(tl_path);
    rmdir(dir);
    return p;
}

/* Eight permits and eight idle synthesis workers: the semaphore lets the
 * device queue fill to what the permits allow; the pacer holds it near its
 * target (1) while the device stays busy, so dispatches end up spaced by
 * the device's service time, and fewer buffers are ever checked out at
 * once. The clock is virtual: a loaded machine changes none of it. */
static void test_pacer_holds_queue_near_target(void **state)
{
    (void)state;
    const int workers = 8, depth = 8, partitions = 60;
    const double synth_ms = 10, gpu_ms = 20;
    cuzk_engine_stats sem_stats, pace_stats;
    timeline_profile sem = profiled_run(CUZK_DISPATCH_SEMAPHORE, workers, depth, synth_ms, gpu_ms, partitions,
                                        &sem_stats);
    timeline_profile pace = profiled_run(CUZK_DISPATCH_PACER, workers, depth, synth_ms, gpu_ms, partitions,
                                         &pace_stats);
    print_message("device queue depth: semaphore %.2f, pacer %.2f; pacer dispatch interval %.4f s, "
                  "service %.4f s, busy %.2f; pool allocations: semaphore %llu, pacer %llu\n",
                  sem.queue_depth_mean, pace.queue_depth_mean, pace.dispatch_interval_mean,
                  pace_stats.device_busy_s[0] / partitions, pace.busy_fraction,
                  (unsigned long long)sem_stats.pool.allocations, (unsigned long long)pace_stats.pool.allocations);
    assert_int_equal(pace_stats.partitions_done, partitions);
    assert_true(pace_stats.pool.allocations <= (uint64_t)(depth + workers));
    assert_int_equal(sem_stats.pool.allocations, depth);
    assert_true(pace_stats.pool.allocations < sem_stats.pool.allocations);
    assert_true(sem.queue_depth_mean > 3);
    assert_true(pace.queue_depth_mean <= 2.5);
    assert_true(pace.queue_depth_mean < sem.queue_depth_mean / 2);
    assert_true(pace.busy_fraction >= 0.7);
    /* one worker per device: its busy time fits between its first start and last end */
    assert_true(pace_stats.device_span_s[0] > 0 && pace_stats.device_busy_s[0] <= pace_stats.device_span_s[0] + 1e-9);
    assert_true(sem_stats.device_span_s[0] > 0 && sem_stats.device_busy_s[0] <= sem_stats.device_span_s[0] + 1e-9);
    double service = pace_stats.device_busy_s[0] / partitions;
    assert_true(pace.dispatch_interval_mean >= 0.7 * service && pace.dispatch_interval_mean <= 1.5 * service);
    cuzk_engine_stats_free(&sem_stats);
    cuzk_engine_stats_free(&pace_stats);
}

/* A budget of 3 buffers: checkouts wait, the limit is never crossed. */
static void test_budget_never_exceeded(void **state)
{
    (void)state;
    cuzk_engine_config cfg; /* real time: checkouts wait for the budget, which the clock cannot see */
    sim_config(&cfg, CUZK_DISPATCH_POLL, 6, 8, 0.5, 3 * SIM_BUFFER);
    cuzk_engine *e = sim_engine_with(&cfg, 1);
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
    assert_int_equal(s.queued + s.synthesizing + s.device_queued + s.on_device, 0);
    cuzk_engine_stats_free(&s);
    /* permits came back: a new job runs to completion */
    uint64_t next = submit_sim(e, 4, CUZK_PRIORITY_NORMAL, NULL);
    r = wait_job(e, next);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&r);
    assert_int_equal(cuzk_engine_cancel(e, 999999), CUZK_ERR_ARG);
    sim_destroy(e);
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
    sim_destroy(e);
}

/* Every row of CUZK_DISPATCH_POLICIES has a name that parses back, in the
 * config choices; an engine with a value outside the enum is refused. */
static void test_policy_table(void **state)
{
    (void)state;
    for (int i = 0; i < CUZK_N_DISPATCH_POLICIES; i++) {
        const char *name = cuzk_dispatch_policy_name((cuzk_dispatch_policy)i);
        cuzk_dispatch_policy back;
        assert_int_equal(cuzk_dispatch_policy_parse(name, &back), 0);
        assert_int_equal(back, i);
        assert_non_null(strstr(CUZK_DISPATCH_CHOICES, name));
    }
    cuzk_dispatch_policy none;
    assert_int_equal(cuzk_dispatch_policy_parse("fifo", &none), -1);
    assert_string_equal(CUZK_DISPATCH_CHOICES, "semaphore|pacer|poll");
    cuzk_engine_config cfg;
    sim_config(&cfg, CUZK_N_DISPATCH_POLICIES, 1, 1, 0, 64ULL << 20);
    cuzk_error err = {0};
    assert_null(cuzk_engine_create(&cfg, backend_sim_create(1, 0), &err));
    assert_int_equal(err.code, CUZK_ERR_ARG);
}

/* Every name of CUZK_BACKEND_CHOICES makes a backend (gpu: or says why
 * not), whose proofs are real exactly when CUZK_BACKEND_PROVERS names it;
 * another name is refused with the list. */
static void test_backend_table(void **state)
{
    (void)state;
    char choices[] = CUZK_BACKEND_CHOICES;
    const char *provers = "|" CUZK_BACKEND_PROVERS "|";
    backend_options o = {.cpu_threads = 1, .sim_devices = 1};
    int n = 0;
    for (char *save = NULL, *name = strtok_r(choices, "|", &save); name; name = strtok_r(NULL, "|", &save), n++) {
        char bars[16];
        snprintf(bars, sizeof bars, "|%s|", name);
        int proves = strstr(provers, bars) != NULL;
        assert_true(backend_is_choice(name, 0));
        assert_int_equal(backend_is_choice(name, 1), proves);
        cuzk_error err = {0};
        cuzk_backend *b = backend_create(name, &o, &err);
        if (!b) {
            assert_string_equal(name, "gpu"); /* no GPU, or built without CUDA */
            assert_int_not_equal(err.code, 0);
            continue;
        }
        assert_int_equal(b->simulated, !proves);
        b->destroy(b);
    }
    assert_int_equal(n, 4);
    assert_string_equal(CUZK_BACKEND_PROVERS, "auto|cpu|gpu");
    assert_false(backend_is_choice("nope", 0));
    assert_false(backend_is_choice("", 0));
    cuzk_error err = {0};
    assert_null(backend_create("nope", &o, &err));
    assert_int_equal(err.code, CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "(auto, cpu, sim or gpu)"));
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
    assert_int_equal(cuzk_engine_submit(e, &other, &c, &err), CUZK_ERR_CONFLICT);
    assert_non_null(strstr(err.msg, "req-1"));
    cuzk_job_request unknown = {"nope", CUZK_PRIORITY_NORMAL, NULL, 1, NULL};
    assert_int_equal(cuzk_engine_submit(e, &unknown, &c, &err), CUZK_ERR_ARG);
    cuzk_job_result r = wait_job(e, a);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&r);
    sim_destroy(e);
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
    sim_destroy(e);
}

/* An engine on backend with one real circuit "real" of a small key in dir
 * (a mkdtemp template, filled in); *w is a witness for it. */
static cuzk_engine *small_key_engine(char *dir, cuzk_backend *backend, cuzk_wtns *w)
{
    char zkey[64];
    assert_non_null(mkdtemp(dir));
    snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
    assert_int_equal(write_dev_key(zkey, NULL, CUZK_CURVE_BN254, 200, 5, w), CUZK_OK);
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 1;
    cfg.budget_bytes = 64ULL << 20;
    cuzk_error err = {0};
    cuzk_engine *e = cuzk_engine_create(&cfg, backend, &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_circuit(e, "real", zkey, NULL, NULL, &err), CUZK_OK);
    return e;
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
    assert_int_equal(write_dev_key(zkey, NULL, CUZK_CURVE_BN254, 200, 5, &w), CUZK_OK);

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
    assert_int_equal(cuzk_engine_register_circuit(e, "c", zkey, NULL, NULL, &err), CUZK_OK);
    cuzk_job_result r = prove_verified(e, "c", &w, 3);
    assert_int_equal(r.n_public, 2);
    assert_memory_equal(r.publics[0], w.values + 4, 32);
    cuzk_job_result_free(&r);
    cuzk_engine_destroy(e);
    cuzk_logger_close(cfg.log);

    assert_int_equal(count_lines_with(log_path, "pinned pool: checkout", NULL), 3);
    assert_int_equal(count_lines_with(log_path, "partition proved\" backend=cpu", NULL), 3);
    int events = count_lines_with(tl_path, "", NULL);
    assert_int_equal(events, 3 * 8);
    assert_int_equal(count_lines_with(tl_path, "\"WITNESS_END\"", NULL), 3);
    cuzk_wtns_free(&w);
    assert_int_equal(remove_tree(dir), 0);
}

/* Job ids of a new engine (a restarted daemon) go on above the old one's,
 * so an id a client kept never names another job. */
static void test_job_ids_survive_restart(void **state)
{
    (void)state;
    uint64_t last = 0;
    for (int run = 0; run < 3; run++) {
        cuzk_engine *e = sim_engine(CUZK_DISPATCH_SEMAPHORE, 1, 1, 0, 0, 64ULL << 20);
        for (int i = 0; i < 3; i++) {
            uint64_t id = submit_sim(e, 1, CUZK_PRIORITY_NORMAL, NULL);
            assert_true(id > last);
            assert_true(id < (1ULL << 53)); /* exact in a JSON double */
            last = id;
        }
        assert_int_equal(cuzk_engine_drain(e, -1), 0);
        sim_destroy(e);
    }
}

/* Drain waits for every job; cancel_all ends them; nothing is left active. */
static void test_drain_and_cancel_all(void **state)
{
    (void)state;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_SEMAPHORE, 2, 2, 1, 20, 64ULL << 20);
    assert_int_equal(cuzk_engine_drain(e, 0), 0); /* nothing submitted: idle at once */
    uint64_t a = submit_sim(e, 40, CUZK_PRIORITY_NORMAL, NULL);
    uint64_t b = submit_sim(e, 40, CUZK_PRIORITY_LOW, NULL);
    assert_int_equal(cuzk_engine_drain(e, 0.01), -1);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.jobs_active, 2);
    cuzk_engine_stats_free(&s);
    cuzk_engine_cancel_all(e);
    assert_int_equal(cuzk_engine_drain(e, -1), 0);
    cuzk_job_result r = wait_job(e, a);
    assert_int_equal(r.state, CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&r);
    r = wait_job(e, b);
    assert_int_equal(r.state, CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&r);
    /* a job that runs to its end is drained too */
    submit_sim(e, 3, CUZK_PRIORITY_NORMAL, NULL);
    assert_int_equal(cuzk_engine_drain(e, -1), 0);
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.jobs_active, 0);
    assert_int_equal(s.jobs_cancelled, 2);
    assert_int_equal(s.jobs_done, 1);
    cuzk_engine_stats_free(&s);
    sim_destroy(e);
}

/* A job's state after waiting up to timeout_s. */
static cuzk_job_state job_state_after(cuzk_engine *e, uint64_t id, double timeout_s)
{
    cuzk_job_result r;
    assert_int_equal(cuzk_engine_wait(e, id, timeout_s, &r), CUZK_OK);
    cuzk_job_state state = r.state;
    cuzk_job_result_free(&r);
    return state;
}

/* A file `name` in dir made (open 1) or removed (open 0). */
static void gate_set(const char *dir, const char *name, int open)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (open) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
    } else
        assert_int_equal(unlink(path), 0);
}

/* The sim backend behind a gate (backend_sim_create_gated): partitions
 * wait until the file exists, however long that takes; a cancel, a
 * cancel-all and destroy end the wait. Real time, but no assertion depends
 * on how long anything takes: what is waited for is an event, and
 * GATE_PATIENCE_S only turns a wait that never ends (the behaviour broken)
 * into a failure instead of a hang. */
#define GATE_PATIENCE_S 60
static void test_sim_gate(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-gate-XXXXXX", gate[64];
    assert_non_null(mkdtemp(dir));
    snprintf(gate, sizeof gate, "%s/open", dir);
    cuzk_error err = {0};
    cuzk_backend *b = backend_sim_create_gated(1, 0, gate, &err);
    assert_non_null(b);
    cuzk_engine_config cfg;
    sim_config(&cfg, CUZK_DISPATCH_SEMAPHORE, 1, 2, 0, 64ULL << 20);
    cuzk_engine *e = cuzk_engine_create(&cfg, b, &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_sim_circuit(e, "sim", SIM_DOMAIN, &err), CUZK_OK);

    uint64_t held = submit_sim(e, 3, CUZK_PRIORITY_HIGH, NULL);
    uint64_t next = submit_sim(e, 1, CUZK_PRIORITY_LOW, NULL);
    /* shut: no partition passes, however long we wait */
    assert_true(job_state_after(e, held, 0.2) < CUZK_JOB_DONE);
    assert_int_equal(cuzk_engine_drain(e, 0.05), -1);
    /* a cancel ends the wait of the partition at the gate */
    assert_int_equal(cuzk_engine_cancel(e, held), CUZK_OK);
    assert_int_equal(job_state_after(e, held, GATE_PATIENCE_S), CUZK_JOB_CANCELLED);
    assert_true(job_state_after(e, next, 0) < CUZK_JOB_DONE);
    /* open: the next job's partition passes */
    gate_set(dir, "open", 1);
    assert_int_equal(job_state_after(e, next, GATE_PATIENCE_S), CUZK_JOB_DONE);
    assert_int_equal(job_state_after(e, submit_sim(e, 4, CUZK_PRIORITY_NORMAL, NULL), GATE_PATIENCE_S), CUZK_JOB_DONE);
    /* shut again: cancel-all ends a drain's wait */
    gate_set(dir, "open", 0);
    uint64_t drained = submit_sim(e, 2, CUZK_PRIORITY_NORMAL, NULL);
    assert_int_equal(cuzk_engine_drain(e, 0.05), -1);
    cuzk_engine_cancel_all(e);
    assert_int_equal(cuzk_engine_drain(e, GATE_PATIENCE_S), 0);
    assert_int_equal(job_state_after(e, drained, 0), CUZK_JOB_CANCELLED);
    /* and destroy ends the wait of a job still at the gate */
    submit_sim(e, 2, CUZK_PRIORITY_NORMAL, NULL);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.jobs_done, 2);
    assert_int_equal(s.jobs_cancelled, 2);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);

    /* a gate whose folder is missing, or on a virtual clock, is refused */
    char missing[96];
    snprintf(missing, sizeof missing, "%s/no/open", dir);
    assert_null(backend_sim_create_gated(1, 0, missing, &err));
    assert_int_equal(err.code, CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot watch the folder"));
    cuzk_vclock *clock = vclock_create(0);
    backend_options o = {.sim_devices = 1, .sim_clock = clock, .sim_gate = gate};
    assert_null(backend_create("sim", &o, &err));
    assert_int_equal(err.code, CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "real time only"));
    vclock_destroy(clock);
    assert_int_equal(rmdir(dir), 0);
}

/* Every partition lands in exactly one bucket of each stage's histogram. */
static void test_stage_histograms(void **state)
{
    (void)state;
    cuzk_engine *e = sim_engine(CUZK_DISPATCH_SEMAPHORE, 2, 2, 0.2, 0.5, 64ULL << 20);
    run_jobs(e, 5, 4);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.n_samples, 20);
    for (int st = 0; st < N_STAGES; st++) {
        const cuzk_stage_histogram *h = &s.stage_hist[st];
        uint64_t total = 0;
        for (int i = 0; i <= CUZK_STAGE_BUCKETS; i++)
            total += h->buckets[i];
        assert_int_equal(h->count, 20);
        assert_int_equal(total, 20);
        assert_true(h->sum >= 0);
    }
    /* the whole time of a partition is at least its device time */
    assert_true(s.stage_hist[STAGE_TOTAL].sum >= s.stage_hist[STAGE_GPU].sum);
    for (int i = 1; i < CUZK_STAGE_BUCKETS; i++)
        assert_true(cuzk_stage_bucket_bounds[i] > cuzk_stage_bucket_bounds[i - 1]);
    cuzk_engine_stats_free(&s);
    sim_destroy(e);
}

/* Circuits are listed with their keys' tiers; keys are preloaded and
 * evicted on request, never while a job uses them. */
static void test_circuit_keys(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-engine-XXXXXX";
    cuzk_wtns w;
    /* a simulated device slow enough that a job holds its key for a while */
    cuzk_engine *e = small_key_engine(dir, backend_sim_create(1, 300), &w);
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_register_sim_circuit(e, "sim", SIM_DOMAIN, &err), CUZK_OK);

    assert_int_equal(cuzk_engine_list_circuits(e, NULL, 0), 2);
    cuzk_circuit_info list[2];
    assert_int_equal(cuzk_engine_list_circuits(e, list, 2), 2);
    assert_string_equal(list[0].id, "sim");
    assert_true(list[0].simulated);
    assert_string_equal(list[1].id, "real");
    assert_false(list[1].simulated);
    assert_int_equal(list[1].n_vars, w.n_witness);
    assert_int_equal(list[1].n_public, 2);
    assert_int_equal(list[1].key.tier, KEY_HOT); /* registration loaded it */
    assert_non_null(strstr(list[1].key.path, "/c.zkey"));

    cuzk_circuit_info info;
    assert_int_equal(cuzk_engine_evict_key(e, "real", 0, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_circuit_info(e, "real", &info), CUZK_OK);
    assert_int_equal(info.key.tier, KEY_WARM);
    assert_int_equal(cuzk_engine_evict_key(e, "real", 1, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_circuit_info(e, "real", &info), CUZK_OK);
    assert_int_equal(info.key.tier, KEY_COLD);
    assert_int_equal(cuzk_engine_preload_key(e, "real", &err), CUZK_OK);
    assert_int_equal(cuzk_engine_circuit_info(e, "real", &info), CUZK_OK);
    assert_int_equal(info.key.tier, KEY_HOT);
    assert_int_equal(info.key.refs, 0);

    assert_int_equal(cuzk_engine_circuit_info(e, "nope", &info), CUZK_ERR_ARG);
    assert_int_equal(cuzk_engine_preload_key(e, "nope", &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "unknown circuit"));
    assert_int_equal(cuzk_engine_evict_key(e, "sim", 0, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "simulated"));

    /* a job holds its key from submit to its end */
    cuzk_partition_input part = {.witness = &w};
    cuzk_job_request req = {"real", CUZK_PRIORITY_NORMAL, NULL, 1, &part};
    uint64_t id;
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_evict_key(e, "real", 0, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "in use"));
    cuzk_job_result r = wait_job(e, id);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&r);
    assert_int_equal(cuzk_engine_evict_key(e, "real", 0, &err), CUZK_OK);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
    assert_int_equal(remove_tree(dir), 0);
}

/* A key the engine makes itself (no zkey file): the circuit is consumed,
 * its jobs' proofs verify, the key stays hot and cannot be evicted, and a
 * device-only key on a backend without a device is refused by name. */
static void test_made_key(void **state)
{
    (void)state;
    cuzk_error err = {0};
    const cuzk_synth_params sp = {.curve = CUZK_CURVE_BLS12_381, .n_constraints = 300, .n_public = 2, .seed = 3,
                                  .shape = CUZK_SHAPE_BITS};
    cuzk_r1cs r;
    cuzk_wtns w;
    assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 1;
    cfg.budget_bytes = 64ULL << 20;
    cuzk_engine *e = cuzk_engine_create(&cfg, backend_cpu_create(2), &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_setup(e, "made", &r, 0, &err), CUZK_OK);
    assert_null(r.terms[0]); /* freed once read */

    cuzk_job_result res = prove_verified(e, "made", &w, 2);
    assert_memory_equal(res.publics[1], w.values + 4 * 2, 32);
    cuzk_job_result_free(&res);

    cuzk_circuit_info info;
    assert_int_equal(cuzk_engine_circuit_info(e, "made", &info), CUZK_OK);
    assert_int_equal(info.key.tier, KEY_HOT);
    assert_true(info.key.made);
    assert_int_equal(info.n_vars, w.n_witness);
    assert_int_equal(cuzk_engine_evict_key(e, "made", 1, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "made in memory"));
    assert_int_equal(cuzk_engine_circuit_info(e, "made", &info), CUZK_OK);
    assert_int_equal(info.key.tier, KEY_HOT);

    cuzk_wtns_free(&w);
    assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_register_setup(e, "device", &r, 1, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "needs a backend with one"));
    assert_null(r.terms[0]);
    assert_int_equal(cuzk_engine_circuit_info(e, "device", &info), CUZK_ERR_ARG);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
}

/* A backend whose setup keeps something of each key it makes (a device
 * copy, as the gpu backend's does): the CPU setup, the serial noted. */
static uint64_t made_serial, forgotten_serial;
static int forget_calls;
static int keeping_setup(cuzk_backend *b, const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z,
                         cuzk_error *err)
{
    (void)b;
    cuzk_setup_options on_cpu = *o;
    on_cpu.no_host_points = 0;
    int rc = cuzk_groth16_setup_with(r, &on_cpu, z, err);
    made_serial = rc ? 0 : z->serial;
    return rc;
}

static void keeping_forget(cuzk_backend *b, uint64_t serial)
{
    (void)b;
    forgotten_serial = serial;
    forget_calls++;
}

/* A made key whose registration fails (its host part is over the budget)
 * is forgotten by the backend that keeps a copy; one that registers is not. */
static void test_failed_made_key_forgotten(void **state)
{
    (void)state;
    cuzk_error err = {0};
    const cuzk_synth_params sp = {.curve = CUZK_CURVE_BN254, .n_constraints = 3000, .n_public = 1, .seed = 4};
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 1;
    for (int fits = 0; fits < 2; fits++) {
        cfg.budget_bytes = fits ? 64ULL << 20 : 64ULL << 10; /* the key is ~1.3 MiB */
        cuzk_backend *b = backend_cpu_create(1);
        b->setup = keeping_setup;
        b->key_forget = keeping_forget;
        cuzk_engine *e = cuzk_engine_create(&cfg, b, &err);
        assert_non_null(e);
        assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
        made_serial = forgotten_serial = 0;
        forget_calls = 0;
        const int rc = cuzk_engine_register_setup(e, "made", &r, 0, &err);
        assert_true(made_serial != 0);
        if (fits) {
            assert_int_equal(rc, CUZK_OK);
            assert_int_equal(forget_calls, 0);
        } else {
            assert_int_equal(rc, CUZK_ERR_NOMEM);
            assert_int_equal(forget_calls, 1);
            assert_true(forgotten_serial == made_serial);
        }
        cuzk_engine_destroy(e);
        cuzk_wtns_free(&w);
    }
}

/* Device memory as a backend reports it, one value per call: the stats
 * keep the last and the most (sampled at registration and after each
 * proof, four calls here). */
static int fake_memory_calls;
static int fake_device_memory(cuzk_backend *b, int device, backend_device_memory *m)
{
    (void)b;
    static const size_t seen[] = {4, 9, 6, 5};
    assert_int_equal(device, 0);
    m->used = seen[fake_memory_calls % 4] << 20;
    m->total = (size_t)16 << 20;
    m->waits = (unsigned long long)fake_memory_calls++; /* a counter: the last sample is the stats' */
    return CUZK_OK;
}

static void test_device_memory_stats(void **state)
{
    (void)state;
    cuzk_engine_config cfg;
    sim_config(&cfg, CUZK_DISPATCH_SEMAPHORE, 1, 2, 0, 64ULL << 20);
    cuzk_backend *b = backend_sim_create(1, 0);
    b->device_memory = fake_device_memory;
    fake_memory_calls = 0;
    cuzk_error err = {0};
    cuzk_engine *e = cuzk_engine_create(&cfg, b, &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_sim_circuit(e, "sim", SIM_DOMAIN, &err), CUZK_OK);
    cuzk_job_result r = wait_job(e, submit_sim(e, 3, CUZK_PRIORITY_NORMAL, NULL));
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_job_result_free(&r);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(fake_memory_calls, 4);
    assert_int_equal(s.device_memory_used[0], (uint64_t)5 << 20);
    assert_int_equal(s.device_memory_high_water[0], (uint64_t)9 << 20);
    assert_int_equal(s.device_memory_total[0], (uint64_t)16 << 20);
    assert_int_equal(s.device_memory_waits[0], 3);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
}

/* Witnesses are checked at submit: a wrong length or a missing file is
 * refused at once, naming the partition, and no job is created. */
static void test_submit_checks_witness(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-engine-XXXXXX";
    cuzk_wtns w;
    cuzk_engine *e = small_key_engine(dir, backend_cpu_create(1), &w);
    cuzk_error err = {0};
    cuzk_wtns short_w = w;
    short_w.n_witness = w.n_witness - 1;
    cuzk_partition_input parts[2] = {{.witness = &w}, {.witness = &short_w}};
    cuzk_job_request req = {"real", CUZK_PRIORITY_NORMAL, NULL, 2, parts};
    uint64_t id = 0;
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "partition 1"));
    /* a witness file is checked by its header */
    char path[96];
    snprintf(path, sizeof path, "%s/short.wtns", dir);
    assert_int_equal(cuzk_wtns_write(&short_w, path, &err), CUZK_OK);
    parts[1] = (cuzk_partition_input){.witness_path = path};
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "partition 1: the witness has"));
    snprintf(path, sizeof path, "%s/missing.wtns", dir);
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, "missing.wtns"));
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.jobs_active, 0);
    cuzk_engine_stats_free(&s);
    cuzk_circuit_info info;
    assert_int_equal(cuzk_engine_circuit_info(e, "real", &info), CUZK_OK);
    assert_int_equal(info.key.refs, 0); /* the refused job gave its key back */
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
    assert_int_equal(remove_tree(dir), 0);
}

/* A witness given in each form (a file, read straight into the staging
 * buffer; a copy; a lent one, two partitions sharing it) proves and
 * verifies with the witness's public signals, and the lent one is left as
 * it was; a file whose header passed the submit but whose value is not
 * below r fails its job naming the value. */
static void test_witness_forms(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-engine-XXXXXX", path[96], bad_path[96];
    cuzk_wtns w;
    cuzk_engine *e = small_key_engine(dir, backend_cpu_create(1), &w);
    cuzk_error err = {0};
    snprintf(path, sizeof path, "%s/w.wtns", dir);
    assert_int_equal(cuzk_wtns_write(&w, path, &err), CUZK_OK);
    size_t bytes = (size_t)w.n_witness * 32;
    uint64_t *before = malloc(bytes);
    assert_non_null(before);
    memcpy(before, w.values, bytes);
    cuzk_partition_input parts[4] = {{.witness_path = path}, {.witness = &w},
                                     {.witness = &w, .lend_witness = 1}, {.witness = &w, .lend_witness = 1}};
    cuzk_job_request req = {"real", CUZK_PRIORITY_NORMAL, NULL, 4, parts};
    uint64_t id = 0;
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_OK);
    cuzk_job_result r = wait_job(e, id);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    assert_int_equal(r.verified, 1);
    assert_true(r.n_public > 0);
    for (uint32_t i = 0; i < 4; i++)
        for (uint32_t k = 0; k < r.n_public; k++)
            assert_memory_equal(r.publics[(size_t)i * r.n_public + k], w.values + (size_t)(1 + k) * 4, 32);
    cuzk_job_result_free(&r);
    assert_memory_equal(before, w.values, bytes);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s); /* the CPU's phase timings are its own clock: part of the busy time */
    assert_true(s.device_clock_s[0] > 0 && s.device_clock_s[0] <= s.device_busy_s[0]);
    cuzk_engine_stats_free(&s);

    /* the last value set to r itself, written past the writer's check */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *file = malloc(bytes + 4096);
    assert_non_null(file);
    size_t len = fread(file, 1, bytes + 4096, f);
    fclose(f);
    memcpy(file + len - 32, cuzk_curve_r(CUZK_CURVE_BN254), 32);
    snprintf(bad_path, sizeof bad_path, "%s/bad.wtns", dir);
    f = fopen(bad_path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(file, 1, len, f), len);
    fclose(f);
    parts[0] = (cuzk_partition_input){.witness_path = bad_path};
    req.n_partitions = 1;
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_OK);
    r = wait_job(e, id);
    assert_int_equal(r.state, CUZK_JOB_FAILED);
    assert_non_null(strstr(r.error, "is not below r"));
    cuzk_job_result_free(&r);
    free(file);
    free(before);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
    assert_int_equal(remove_tree(dir), 0);
}

/* A key file replaced after registration (evicted, then another key put at
 * its path: of the same size, larger, smaller) is refused when the cache
 * reloads it, naming the file, and no job is created; with the original
 * back the circuit proves again. */
static void test_replaced_key_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-engine-XXXXXX", zkey[64], saved[64];
    cuzk_wtns w;
    cuzk_engine *e = small_key_engine(dir, backend_cpu_create(1), &w);
    snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
    snprintf(saved, sizeof saved, "%s/saved.zkey", dir);
    assert_int_equal(rename(zkey, saved), 0);
    cuzk_error err = {0};
    cuzk_partition_input part = {.witness = &w};
    cuzk_job_request req = {"real", CUZK_PRIORITY_NORMAL, NULL, 1, &part};
    uint64_t id = 0;
    const uint32_t sizes[3] = {200, 400, 100};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(cuzk_engine_evict_key(e, "real", 1, &err), CUZK_OK);
        remove(zkey);
        assert_int_equal(write_dev_key(zkey, NULL, CUZK_CURVE_BN254, sizes[i], 9, NULL), CUZK_OK);
        assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_ERR_MISMATCH);
        assert_non_null(strstr(err.msg, "c.zkey"));
        assert_non_null(strstr(err.msg, "has changed since"));
        /* a preload is refused in the same way */
        assert_int_equal(cuzk_engine_preload_key(e, "real", &err), CUZK_ERR_MISMATCH);
    }
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.jobs_active + s.jobs_done + s.jobs_failed, 0);
    cuzk_engine_stats_free(&s);
    assert_int_equal(rename(saved, zkey), 0);
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_OK);
    cuzk_job_result r = wait_job(e, id);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    assert_int_equal(r.verified, 1);
    cuzk_job_result_free(&r);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
    assert_int_equal(remove_tree(dir), 0);
}

/* Budget sizes of circuit "real" of small_key_engine: its key, its PCE and
 * what one partition holds beyond them (pinned a, b, c and witness, and
 * the witness's working set). */
typedef struct {
    uint64_t key, pce, partition;
} real_sizes;

static real_sizes real_circuit_sizes(cuzk_engine *e)
{
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    cuzk_circuit_info info;
    assert_int_equal(cuzk_engine_circuit_info(e, "real", &info), CUZK_OK);
    real_sizes z = {info.key.bytes, s.budget.by_category[BUDGET_PCE],
                    (uint64_t)3 * info.domain_size * 32 + (uint64_t)2 * info.n_vars * 32};
    cuzk_engine_stats_free(&s);
    return z;
}

/* A budget too small for the key and its PCE, or for them and one
 * partition, fails the registration with the numbers (before, it was
 * accepted and every job then waited forever). */
static void test_budget_that_cannot_fit_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-engine-XXXXXX", zkey[64];
    cuzk_wtns w;
    cuzk_engine *e = small_key_engine(dir, backend_cpu_create(1), &w);
    real_sizes z = real_circuit_sizes(e);
    cuzk_engine_destroy(e);
    snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
    const uint64_t budgets[2] = {z.key + z.pce - 1, z.key + z.pce + z.partition - 1};
    for (int i = 0; i < 2; i++) {
        cuzk_engine_config cfg;
        cuzk_engine_config_default(&cfg);
        cfg.budget_bytes = budgets[i];
        cfg.prewarm_buffers = 0;
        cuzk_error err = {0};
        e = cuzk_engine_create(&cfg, backend_cpu_create(1), &err);
        assert_non_null(e);
        assert_int_equal(cuzk_engine_register_circuit(e, "real", zkey, NULL, NULL, &err), CUZK_ERR_NOMEM);
        char limit[32];
        snprintf(limit, sizeof limit, "%llu", (unsigned long long)budgets[i]);
        assert_non_null(strstr(err.msg, "budget"));
        assert_non_null(strstr(err.msg, limit));
        cuzk_engine_stats s;
        cuzk_engine_get_stats(e, &s);
        assert_int_equal(s.budget.used, 0); /* nothing of it is kept */
        cuzk_engine_stats_free(&s);
        cuzk_engine_destroy(e);
    }
    cuzk_wtns_free(&w);
    assert_int_equal(remove_tree(dir), 0);
}

typedef struct {
    cuzk_engine *e;
    cuzk_job_request req;
    int rc;
    cuzk_error err;
} submit_call;

static void *submit_thread(void *arg)
{
    submit_call *c = arg;
    uint64_t id;
    c->rc = cuzk_engine_submit(c->e, &c->req, &id, &c->err);
    return NULL;
}

/* Until a caller waits for budget in e to load a key (polled: its arrival
 * has no other signal; the assertion is on the state reached, not on
 * time). Only a submit loads a key: the running job's partitions wait for
 * budget too, so the count of all waiters could be theirs alone. */
static void engine_key_waiter_arrives(cuzk_engine *e)
{
    for (int i = 0; i < 20000; i++) {
        cuzk_engine_stats s;
        cuzk_engine_get_stats(e, &s);
        uint32_t got = s.budget.waiting[BUDGET_KEYS];
        cuzk_engine_stats_free(&s);
        if (got >= 1)
            return;
        usleep(1000);
    }
    fail_msg("no submit ever waited for budget for its key");
}

/* A submit waiting for memory for its key (another circuit's job holds
 * the only room) ends when the jobs are cancelled (cancel_all: a drain's
 * timeout or a second signal) and when the engine stops taking jobs. The
 * long job's partitions wait at a sim gate that never opens, so it holds
 * its room however slowly the submit thread comes to wait. */
static void test_submit_wait_cancellable(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-engine-XXXXXX", zkey[64], other[64], gate[64];
    cuzk_wtns w, w2;
    cuzk_engine *e = small_key_engine(dir, backend_cpu_create(1), &w);
    real_sizes z = real_circuit_sizes(e);
    cuzk_engine_destroy(e);
    snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
    snprintf(other, sizeof other, "%s/other.zkey", dir);
    snprintf(gate, sizeof gate, "%s/never", dir);
    assert_int_equal(write_dev_key(other, NULL, CUZK_CURVE_BN254, 200, 6, &w2), CUZK_OK);

    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 1;
    cfg.prewarm_buffers = 0;
    cfg.max_device_queue_depth = 1;
    /* both PCEs, one key and one partition: room for one circuit's job */
    cfg.budget_bytes = 2 * z.pce + z.key + z.partition + z.key / 2;
    cuzk_error err = {0};
    cuzk_backend *gated = backend_sim_create_gated(1, 0, gate, &err);
    assert_non_null(gated);
    e = cuzk_engine_create(&cfg, gated, &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_circuit(e, "real", zkey, NULL, NULL, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_register_circuit(e, "other", other, NULL, NULL, &err), CUZK_OK);

    cuzk_partition_input parts[20];
    for (int i = 0; i < 20; i++)
        parts[i] = (cuzk_partition_input){.witness = &w};
    cuzk_partition_input part2 = {.witness = &w2};
    for (int round = 0; round < 2; round++) {
        cuzk_job_request long_job = {"real", CUZK_PRIORITY_NORMAL, NULL, 20, parts};
        uint64_t id;
        assert_int_equal(cuzk_engine_submit(e, &long_job, &id, &err), CUZK_OK);
        submit_call c = {e, {"other", CUZK_PRIORITY_NORMAL, NULL, 1, &part2}, -1, {0}};
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, submit_thread, &c), 0);
        engine_key_waiter_arrives(e);
        if (round == 0)
            cuzk_engine_cancel_all(e);
        else
            cuzk_engine_stop_accepting(e);
        pthread_join(t, NULL);
        assert_int_equal(c.rc, CUZK_ERR_CANCELLED);
        assert_non_null(strstr(c.err.msg, round == 0 ? "cancelled" : "takes no new jobs"));
        if (round == 1)
            cuzk_engine_cancel_all(e);
        assert_int_equal(cuzk_engine_drain(e, -1), 0);
    }
    /* once closed, a submit is refused at once */
    cuzk_job_request again = {"other", CUZK_PRIORITY_NORMAL, NULL, 1, &part2};
    uint64_t id;
    assert_int_equal(cuzk_engine_submit(e, &again, &id, &err), CUZK_ERR_CANCELLED);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
    cuzk_wtns_free(&w2);
    assert_int_equal(remove_tree(dir), 0);
}

typedef struct {
    cuzk_engine *e;
    const cuzk_job_request *req;
    pthread_barrier_t *start;
    uint64_t id;
    int rc;
} racing_submit;

static void *racing_submit_main(void *arg)
{
    racing_submit *r = arg;
    cuzk_error err = {0};
    pthread_barrier_wait(r->start);
    r->rc = cuzk_engine_submit(r->e, r->req, &r->id, &err);
    return NULL;
}

/* One request id submitted by many threads at once makes one job: every
 * submit gets its id (the lookup is made again where the job is added). */
static void test_request_id_under_concurrency(void **state)
{
    (void)state;
    enum { THREADS = 8, ROUNDS = 25 };
    char dir[] = "/tmp/cuzk-engine-XXXXXX";
    cuzk_wtns w;
    cuzk_engine *e = small_key_engine(dir, backend_sim_create(1, 0), &w);
    /* a witness file: its header is read between the first lookup and the
     * insertion, which widens the window a second lookup closes */
    char path[64];
    snprintf(path, sizeof path, "%s/w.wtns", dir);
    cuzk_error err = {0};
    assert_int_equal(cuzk_wtns_write(&w, path, &err), CUZK_OK);
    cuzk_partition_input part = {.witness_path = path};
    for (int round = 0; round < ROUNDS; round++) {
        char rid[32];
        snprintf(rid, sizeof rid, "race-%d", round);
        cuzk_job_request req = {"real", CUZK_PRIORITY_NORMAL, rid, 1, &part};
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, THREADS);
        racing_submit r[THREADS];
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++) {
            r[i] = (racing_submit){e, &req, &start, 0, -1};
            assert_int_equal(pthread_create(&t[i], NULL, racing_submit_main, &r[i]), 0);
        }
        for (int i = 0; i < THREADS; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&start);
        for (int i = 0; i < THREADS; i++) {
            assert_int_equal(r[i].rc, CUZK_OK);
            assert_int_equal(r[i].id, r[0].id);
        }
    }
    assert_int_equal(cuzk_engine_drain(e, -1), 0);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.jobs_done, ROUNDS);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
    assert_int_equal(remove_tree(dir), 0);
}

/* A circuit of dir/c.zkey with its r1cs dir/c.r1cs registered as "real" on
 * the CPU backend; *w satisfies it. */
static cuzk_engine *checked_key_engine(char *dir, cuzk_wtns *w)
{
    char zkey[64], r1cs[64];
    assert_non_null(mkdtemp(dir));
    snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
    snprintf(r1cs, sizeof r1cs, "%s/c.r1cs", dir);
    assert_int_equal(write_dev_key(zkey, r1cs, CUZK_CURVE_BN254, 200, 5, w), CUZK_OK);
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 1;
    cfg.budget_bytes = 64ULL << 20;
    cuzk_error err = {0};
    cuzk_engine *e = cuzk_engine_create(&cfg, backend_cpu_create(1), &err);
    assert_non_null(e);
    assert_int_equal(cuzk_engine_register_circuit(e, "real", zkey, r1cs, NULL, &err), CUZK_OK);
    return e;
}

/* A partition that fails (a witness that does not satisfy the r1cs) makes
 * its job "failed", with the partition and the reason, counted as failed,
 * not cancelled; the other partitions are proved and their proofs kept. */
static void test_failure_is_failed(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-engine-XXXXXX";
    cuzk_wtns w;
    cuzk_engine *e = checked_key_engine(dir, &w);
    cuzk_wtns bad = w;
    size_t bytes = (size_t)w.n_witness * 32;
    assert_non_null(bad.values = aligned_alloc(64, (bytes + 63) / 64 * 64));
    memcpy(bad.values, w.values, bytes);
    bad.values[4 * (w.n_witness - 1)] ^= 1; /* still below r: it passes the submit's checks */
    /* the bad one between good ones: they are proved all the same */
    cuzk_partition_input parts[3] = {{.witness = &w}, {.witness = &bad}, {.witness = &w}};
    cuzk_job_request req = {"real", CUZK_PRIORITY_NORMAL, NULL, 3, parts};
    uint64_t id;
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_OK);
    cuzk_job_result r = wait_job(e, id);
    assert_int_equal(r.state, CUZK_JOB_FAILED);
    assert_string_equal(cuzk_job_state_name(r.state), "failed");
    assert_non_null(strstr(r.error, "partition 1: "));
    assert_non_null(strstr(r.error, "constraint")); /* the r1cs check's reason */
    assert_int_equal(r.partitions_done, 2);
    assert_non_null(r.proofs);
    assert_true(r.proved[0] && !r.proved[1] && r.proved[2]);
    char zkey[64];
    snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
    assert_int_equal(verify_partition_proof(zkey, &r, 0), CUZK_OK);
    assert_int_equal(verify_partition_proof(zkey, &r, 2), CUZK_OK);
    cuzk_job_result_free(&r);
    /* a cancelled job is still "cancelled" */
    parts[1] = parts[0];
    req.n_partitions = 2;
    assert_int_equal(cuzk_engine_submit(e, &req, &id, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_cancel(e, id), CUZK_OK);
    r = wait_job(e, id);
    assert_true(r.state == CUZK_JOB_CANCELLED || r.state == CUZK_JOB_DONE);
    assert_int_equal(r.error[0], 0);
    cuzk_job_result_free(&r);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    assert_int_equal(s.jobs_failed, 1);
    assert_int_equal(s.jobs_failed + s.jobs_cancelled + s.jobs_done, 2);
    cuzk_engine_stats_free(&s);
    cuzk_engine_destroy(e);
    free(bad.values);
    cuzk_wtns_free(&w);
    assert_int_equal(remove_tree(dir), 0);
}

/* A registration that fails after the key was loaded (an r1cs of another
 * circuit) keeps nothing: no key, no PCE in the budget, however often. */
static void test_failed_registration_keeps_nothing(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-engine-XXXXXX", zkey[64], r1cs[64];
    cuzk_wtns w;
    cuzk_engine *e = checked_key_engine(dir, &w);
    snprintf(zkey, sizeof zkey, "%s/other.zkey", dir);
    snprintf(r1cs, sizeof r1cs, "%s/c.r1cs", dir);
    assert_int_equal(write_dev_key(zkey, NULL, CUZK_CURVE_BN254, 300, 7, NULL), CUZK_OK);
    cuzk_engine_stats before, after;
    cuzk_engine_get_stats(e, &before);
    cuzk_error err = {0};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(cuzk_engine_register_circuit(e, "other", zkey, r1cs, NULL, &err), CUZK_ERR_MISMATCH);
        assert_non_null(strstr(err.msg, "does not belong to"));
    }
    cuzk_engine_get_stats(e, &after);
    assert_int_equal(after.budget.by_category[BUDGET_KEYS], before.budget.by_category[BUDGET_KEYS]);
    assert_int_equal(after.budget.by_category[BUDGET_PCE], before.budget.by_category[BUDGET_PCE]);
    cuzk_engine_stats_free(&before);
    cuzk_engine_stats_free(&after);
    assert_int_equal(cuzk_engine_list_circuits(e, NULL, 0), 1);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(&w);
    assert_int_equal(remove_tree(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_semaphore_reuses),      cmocka_unit_test(test_poll_bursts),
        cmocka_unit_test(test_pacer_holds_queue_near_target),cmocka_unit_test(test_budget_never_exceeded),
        cmocka_unit_test(test_cancel_frees_everything), cmocka_unit_test(test_priorities), cmocka_unit_test(test_policy_table), cmocka_unit_test(test_backend_table),
        cmocka_unit_test(test_idempotent_request_ids), cmocka_unit_test(test_thousand_jobs),
        cmocka_unit_test(test_cpu_backend_end_to_end), cmocka_unit_test(test_drain_and_cancel_all),
        cmocka_unit_test(test_sim_gate),
        cmocka_unit_test(test_stage_histograms),      cmocka_unit_test(test_circuit_keys),
        cmocka_unit_test(test_submit_checks_witness), cmocka_unit_test(test_witness_forms),
        cmocka_unit_test(test_made_key),
        cmocka_unit_test(test_failed_made_key_forgotten),
        cmocka_unit_test(test_device_memory_stats),
        cmocka_unit_test(test_replaced_key_refused),
        cmocka_unit_test(test_budget_that_cannot_fit_refused),
        cmocka_unit_test(test_submit_wait_cancellable),
        cmocka_unit_test(test_request_id_under_concurrency),
        cmocka_unit_test(test_failure_is_failed),
        cmocka_unit_test(test_failed_registration_keeps_nothing),
        cmocka_unit_test(test_job_ids_survive_restart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
