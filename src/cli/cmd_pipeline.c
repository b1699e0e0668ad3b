/* cuzk bench pipeline: drive the engine with J jobs of P partitions and
 * report what the pipeline did: throughput, device busy fraction (over the
 * wall time, and from each device's first proof to its last), pinned
 * pool allocations / reuses / checkins, peak pinned bytes, budget
 * high-water mark, per-stage latency percentiles. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "engine/engine.h"
#include "codec/curve_id.h"
#include "groth16/synth.h"
#include "util/timer.h"
#include "util/vclock.h"

typedef struct {
    cuzk_engine_config cfg;
    const char *backend;
    cuzk_curve_id curve;
    cuzk_synth_shape shape;
    uint32_t jobs, partitions, constraints;
    double gpu_ms;
    int json;
    int virtual_time; /* sim: on a virtual clock (util/vclock.h), not in real time */
    int in_memory, device_key; /* the key made by the engine, no files (device_key: on the device only) */
    const char *log_path;
} pipeline_opts;

static int parse_ms(const char *arg, double *out)
{
    char *end;
    *out = strtod(arg, &end);
    return *arg && !*end && *out >= 0 ? 0 : -1;
}

static int pipeline_opt(int opt, const char *arg, void *ctx)
{
    pipeline_opts *o = ctx;
    uint32_t v;
    switch (opt) {
    case 'b':
        o->backend = arg;
        return backend_is_choice(arg, 0) ? 0 : -1;
    case 'P':
        return cuzk_dispatch_policy_parse(arg, &o->cfg.policy);
    case 'j':
        return cli_parse_u32(arg, 1, 1000000, &o->jobs);
    case 'p':
        return cli_parse_u32(arg, 1, 10000, &o->partitions);
    case 'n':
        return cli_parse_u32(arg, 1, 1u << 28, &o->constraints);
    case 'c':
        return cuzk_curve_from_name(arg, &o->curve);
    case CLI_OPT_SHAPE:
        return cuzk_synth_shape_from_name(arg, &o->shape);
    case 'w':
        if (cli_parse_u32(arg, 1, 1024, &v))
            return -1;
        o->cfg.synthesis_workers = (int)v;
        return 0;
    case 'd':
        if (cli_parse_u32(arg, 1, 1024, &v))
            return -1;
        o->cfg.max_device_queue_depth = (int)v;
        return 0;
    case 'Y':
        if (cli_parse_u32(arg, 1, 1024, &v))
            return -1;
        o->cfg.synthesis_threads = (int)v;
        return 0;
    case 'g':
        if (cli_parse_u32(arg, 1, 16, &v))
            return -1;
        o->cfg.workers_per_device = (int)v;
        return 0;
    case 'F':
        if (cli_parse_u32(arg, 1, 256, &v))
            return -1;
        o->cfg.finalizers = (int)v;
        return 0;
    case 'B':
        if (cli_parse_u32(arg, 1, 1u << 20, &v))
            return -1;
        o->cfg.budget_bytes = (uint64_t)v << 30;
        return 0;
    case 'M':
        if (cli_parse_u32(arg, 1, 1u << 30, &v))
            return -1;
        o->cfg.budget_bytes = (uint64_t)v << 20;
        return 0;
    case 's':
        return parse_ms(arg, &o->cfg.sim_synth_ms);
    case 'G':
        return parse_ms(arg, &o->gpu_ms);
    case 'o':
        return parse_ms(arg, &o->cfg.poll_ms);
    case 'J':
        o->json = 1;
        return 0;
    case 'V':
        o->virtual_time = 1;
        return 0;
    case 'm':
        o->in_memory = 1;
        return 0;
    case 'k':
        o->in_memory = o->device_key = 1;
        return 0;
    case 'T': /* not 't': that is the common --threads */
        o->cfg.timeline_path = arg;
        return 0;
    case 'l':
        o->log_path = arg;
        return 0;
    }
    return -1;
}

/* A synthetic circuit and its witness in memory, for an in-memory key. */
static int make_memory_circuit(const pipeline_opts *o, cuzk_r1cs *r, cuzk_wtns *w)
{
    cuzk_synth_params sp = {.curve = o->curve, .n_constraints = o->constraints, .n_public = 1, .seed = 1,
                            .shape = o->shape};
    cuzk_error err = {0};
    fprintf(stderr, "pipeline: synthesizing %u constraints (%s) in memory...\n", o->constraints,
            cuzk_synth_shape_name(o->shape));
    if (cuzk_circuit_synth(&sp, r, w, &err))
        return cli_report("synthesizing the circuit", &err);
    cli_print_witness_mix("pipeline", w);
    return CLI_OK;
}

/* A synthetic circuit, its development key in a new work directory, and
 * its witness in memory, for the real backends. */
static int make_real_circuit(const pipeline_opts *o, int threads, char *zkey_path, size_t cap, cuzk_wtns *w)
{
    char dir[] = "/tmp/cuzk-pipeline-XXXXXX";
    if (!mkdtemp(dir))
        return fprintf(stderr, "cuzk: cannot create a work directory\n"), CLI_FAIL;
    snprintf(zkey_path, cap, "%s/circuit.zkey", dir);
    cuzk_synth_params sp = {.curve = o->curve, .n_constraints = o->constraints, .n_public = 1, .seed = 1,
                            .shape = o->shape};
    cli_circuit_paths to = {NULL, NULL, zkey_path};
    int rc = cli_make_circuit_files("pipeline", &sp, threads, o->backend, &to, w);
    if (!rc)
        cli_print_witness_mix("pipeline", w);
    return rc;
}

static void print_report(const pipeline_opts *o, const char *backend, cuzk_engine_stats *s, double wall_s)
{
    double busy = 0, span = 0, own = 0;
    for (int d = 0; d < s->n_devices; d++)
        busy += s->device_busy_s[d], span += s->device_span_s[d], own += s->device_clock_s[d];
    double busy_fraction = wall_s > 0 ? busy / (wall_s * s->n_devices) : 0;
    /* the same while the devices prove: without the first synthesis before
     * any device has work, and the last finalization after */
    double busy_active = span > 0 ? busy / span : 0;
    /* the same by the device's own clock: without what prove_start waited
     * for outside it (the driver, e.g. while another thread pins memory) */
    double own_active = span > 0 ? own / span : 0;
    double checkouts = (double)(s->pool.reuses + s->pool.allocations);
    double reuse_ratio = checkouts > 0 ? (double)s->pool.reuses / checkouts : 0;
    double p[N_STAGES][3];
    for (int st = 0; st < N_STAGES; st++) {
        p[st][0] = cuzk_engine_percentile(s->samples[st], s->n_samples, 0.5);
        p[st][1] = cuzk_engine_percentile(s->samples[st], s->n_samples, 0.95);
        p[st][2] = cuzk_engine_percentile(s->samples[st], s->n_samples, 0.99);
    }
    if (o->json) {
        printf("{\"backend\": \"%s\", \"policy\": \"%s\", \"jobs\": %u, \"partitions\": %u, \"devices\": %d, "
               "\"synthesis_workers\": %d, \"max_gpu_queue_depth\": %d, \"proofs\": %llu, "
               "\"proofs_verified\": %llu, \"wall_s\": %.3f, \"throughput_partitions_per_s\": %.3f, "
               "\"gpu_busy_fraction\": %.4f, \"gpu_busy_fraction_active\": %.4f, "
               "\"gpu_device_clock_fraction_active\": %.4f, \"pool_allocations\": %llu, \"pool_reuses\": %llu, "
               "\"pool_checkins\": %llu, \"pool_frees\": %llu, \"pool_reuse_ratio\": %.4f, "
               "\"peak_pinned_bytes\": %llu, \"budget_bytes\": %llu, \"budget_high_water_bytes\": %llu",
               backend, cuzk_dispatch_policy_name(o->cfg.policy), o->jobs, o->partitions, s->n_devices,
               o->cfg.synthesis_workers, o->cfg.max_device_queue_depth, (unsigned long long)s->partitions_done,
               (unsigned long long)s->proofs_verified, wall_s, (double)s->partitions_done / wall_s, busy_fraction,
               busy_active, own_active, (unsigned long long)s->pool.allocations, (unsigned long long)s->pool.reuses,
               (unsigned long long)s->pool.checkins, (unsigned long long)s->pool.frees, reuse_ratio,
               (unsigned long long)s->pool.bytes_peak, (unsigned long long)s->budget.limit,
               (unsigned long long)s->budget.high_water);
        for (int st = 0; st < N_STAGES; st++)
            printf(", \"%s_p50_s\": %.4f, \"%s_p95_s\": %.4f, \"%s_p99_s\": %.4f", engine_stage_name(st), p[st][0],
                   engine_stage_name(st), p[st][1], engine_stage_name(st), p[st][2]);
        for (int d = 0; d < s->n_devices && s->device_memory_total[d]; d++)
            printf(", \"device%d_memory_used_bytes\": %llu, \"device%d_memory_high_water_bytes\": %llu, "
                   "\"device%d_memory_total_bytes\": %llu, \"device%d_memory_waits\": %llu",
                   d, (unsigned long long)s->device_memory_used[d], d,
                   (unsigned long long)s->device_memory_high_water[d], d,
                   (unsigned long long)s->device_memory_total[d], d, (unsigned long long)s->device_memory_waits[d]);
        printf("}\n");
        return;
    }
    printf("cuzk bench pipeline: backend %s (%d device%s), policy %s, %u jobs x %u partitions, %d synthesis "
           "workers, depth %d\n\n",
           backend, s->n_devices, s->n_devices > 1 ? "s" : "", cuzk_dispatch_policy_name(o->cfg.policy), o->jobs,
           o->partitions, o->cfg.synthesis_workers, o->cfg.max_device_queue_depth);
    printf("| metric | value |\n|---|---|\n");
    printf("| proofs (verified) | %llu (%llu) |\n", (unsigned long long)s->partitions_done,
           (unsigned long long)s->proofs_verified);
    printf("| wall seconds | %.3f |\n| throughput, partitions/s | %.2f |\n| device busy fraction | %.3f |\n", wall_s,
           (double)s->partitions_done / wall_s, busy_fraction);
    printf("| device busy fraction, first to last proof | %.3f |\n", busy_active);
    printf("| the same by the device's own clock | %.3f |\n", own_active);
    printf("| pool allocations / reuses / checkins / frees | %llu / %llu / %llu / %llu |\n",
           (unsigned long long)s->pool.allocations, (unsigned long long)s->pool.reuses,
           (unsigned long long)s->pool.checkins, (unsigned long long)s->pool.frees);
    printf("| pool reuse ratio | %.3f |\n| peak pinned MiB | %.1f |\n| budget MiB / high-water MiB | %.1f / %.1f |\n",
           reuse_ratio, (double)s->pool.bytes_peak / (1 << 20), (double)s->budget.limit / (1 << 20),
           (double)s->budget.high_water / (1 << 20));
    for (int d = 0; d < s->n_devices && s->device_memory_total[d]; d++)
        printf("| device %d memory GiB: in use / high water / card; proofs that waited for room | %.1f / %.1f / "
               "%.1f; %llu |\n",
               d, s->device_memory_used[d] / 1073741824.0, s->device_memory_high_water[d] / 1073741824.0,
               s->device_memory_total[d] / 1073741824.0, (unsigned long long)s->device_memory_waits[d]);
    printf("\n| stage | p50 s | p95 s | p99 s |\n|---|---|---|---|\n");
    for (int st = 0; st < N_STAGES; st++)
        printf("| %s | %.4f | %.4f | %.4f |\n", engine_stage_name(st), p[st][0], p[st][1], p[st][2]);
}

/* The run itself, on o->cfg.clock when set (real time otherwise). */
static int pipeline_run(pipeline_opts *o, int threads)
{
    cuzk_wtns w = {0};
    char zkey[256] = "";
    cuzk_error err = {0};
    backend_options bo = {.cpu_threads = threads, .sim_devices = 1, .sim_device_ms = o->gpu_ms, .sim_clock = o->cfg.clock};
    cuzk_backend *b = backend_create(o->backend, &bo, &err);
    if (!b)
        return cli_report("choosing the backend", &err);
    const char *backend_name = b->name;
    if (o->device_key && cli_device_key_usable(b)) {
        b->destroy(b);
        return CLI_USAGE;
    }
    int rc;
    cuzk_r1cs circuit = {0}; /* an in-memory key's, until the engine has read it */
    if (!b->simulated && (rc = o->in_memory ? make_memory_circuit(o, &circuit, &w)
                                            : make_real_circuit(o, threads, zkey, sizeof zkey, &w))) {
        b->destroy(b);
        return rc;
    }
    if (o->log_path && !(o->cfg.log = cuzk_logger_open(o->log_path, CUZK_LOG_INFO))) {
        fprintf(stderr, "cuzk: cannot open the log %s\n", o->log_path);
        b->destroy(b);
        cuzk_wtns_free(&w);
        cuzk_r1cs_free(&circuit);
        return CLI_FAIL;
    }
    cuzk_engine *e = cuzk_engine_create(&o->cfg, b, &err);
    if (e && o->in_memory && !b->simulated)
        fprintf(stderr, "pipeline: the engine makes the key on the %s backend%s (development setup)...\n",
                backend_name, o->device_key ? ", kept on the device only" : "");
    const double t_setup = cuzk_now_s();
    if (!e || (b->simulated ? cuzk_engine_register_sim_circuit(e, "bench", 1u << 12, &err)
               : o->in_memory ? cuzk_engine_register_setup(e, "bench", &circuit, o->device_key, &err)
                              : cuzk_engine_register_circuit(e, "bench", zkey, NULL, NULL, &err))) {
        cuzk_engine_destroy(e);
        cuzk_logger_close(o->cfg.log);
        cuzk_wtns_free(&w);
        cuzk_r1cs_free(&circuit);
        return cli_report("starting the engine", &err);
    }
    if (o->in_memory && !b->simulated)
        fprintf(stderr, "pipeline: key made and registered in %.2f s\n", cuzk_now_s() - t_setup);
    cuzk_partition_input *parts = calloc(o->partitions, sizeof *parts);
    uint64_t *ids = calloc(o->jobs, sizeof *ids);
    for (uint32_t i = 0; parts && i < o->partitions; i++) /* all of them one witness, lent: w outlives the jobs */
        parts[i].witness = &w, parts[i].lend_witness = 1;
    double t0 = cuzk_engine_now(e);
    rc = parts && ids ? CLI_OK : CLI_FAIL;
    for (uint32_t i = 0; !rc && i < o->jobs; i++) {
        cuzk_job_request req = {"bench", CUZK_PRIORITY_NORMAL, NULL, o->partitions, b->simulated ? NULL : parts};
        if (cuzk_engine_submit(e, &req, &ids[i], &err))
            rc = cli_report("submitting", &err);
    }
    for (uint32_t i = 0; !rc && i < o->jobs; i++) {
        cuzk_job_result r;
        cuzk_engine_wait(e, ids[i], -1, &r);
        if (r.state != CUZK_JOB_DONE) {
            fprintf(stderr, "cuzk: job %llu ended %s: %s\n", (unsigned long long)r.id, cuzk_job_state_name(r.state),
                    r.error);
            rc = CLI_FAIL;
        }
        cuzk_job_result_free(&r);
    }
    double wall = cuzk_engine_now(e) - t0;
    if (!rc) {
        cuzk_engine_stats s;
        cuzk_engine_get_stats(e, &s);
        print_report(o, backend_name, &s, wall);
        cuzk_engine_stats_free(&s);
    }
    cuzk_engine_destroy(e);
    cuzk_logger_close(o->cfg.log);
    cuzk_wtns_free(&w);
    free(parts);
    free(ids);
    return rc;
}

static int run_pipeline(int argc, char **argv)
{
    static const struct option opts[] = {
        {"backend", required_argument, NULL, 'b'},  {"policy", required_argument, NULL, 'P'},
        {"jobs", required_argument, NULL, 'j'},     {"partitions", required_argument, NULL, 'p'},
        {"constraints", required_argument, NULL, 'n'}, {"curve", required_argument, NULL, 'c'},
        {"synthesis-workers", required_argument, NULL, 'w'}, {"depth", required_argument, NULL, 'd'},
        {"synthesis-threads", required_argument, NULL, 'Y'},
        {"gpu-workers", required_argument, NULL, 'g'}, {"finalizers", required_argument, NULL, 'F'},
        {"budget-gib", required_argument, NULL, 'B'},
        {"budget-mib", required_argument, NULL, 'M'}, {"synth-ms", required_argument, NULL, 's'},
        {"gpu-ms", required_argument, NULL, 'G'},   {"poll-ms", required_argument, NULL, 'o'},
        {"timeline", required_argument, NULL, 'T'}, {"log", required_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'J'},           {"virtual-time", no_argument, NULL, 'V'},
        {"in-memory", no_argument, NULL, 'm'},      {"device-key", no_argument, NULL, 'k'},
        CLI_SHAPE_OPTION,                           {0, 0, 0, 0}};
    pipeline_opts o = {.backend = "sim", .curve = CUZK_CURVE_BLS12_381, .jobs = 10, .partitions = 4,
                       .constraints = 1 << 12, .gpu_ms = 50};
    cuzk_engine_config_default(&o.cfg);
    o.cfg.sim_synth_ms = 100;
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_bench_pipeline, opts, pipeline_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (first != argc)
        return cli_usage_error(&cli_cmd_bench_pipeline, "unexpected argument '%s'", argv[first]);
    if (o.virtual_time && backend_is_choice(o.backend, 1)) /* a backend whose proofs are real */
        return cli_usage_error(&cli_cmd_bench_pipeline, "--virtual-time is for a simulated backend, not %s",
                               o.backend);
    if (o.virtual_time && !(o.cfg.clock = vclock_create(0)))
        return fprintf(stderr, "cuzk: out of memory\n"), CLI_FAIL;
    rc = pipeline_run(&o, common.threads);
    vclock_destroy(o.cfg.clock);
    return rc;
}

const cli_command cli_cmd_bench_pipeline = {
    "bench pipeline", NULL,
    "cuzk bench pipeline [--backend " CUZK_BACKEND_CHOICES "] [--policy " CUZK_DISPATCH_CHOICES "] [--jobs J]\n"
    "                    [--partitions P] [--constraints N] [--curve C] [--shape " CUZK_SHAPE_CHOICES "]\n"
    "                    [--synthesis-workers W] [--synthesis-threads T] [--depth D] [--gpu-workers G]\n"
    "                    [--finalizers F]\n"
    "                    [--budget-gib B | --budget-mib M] [--synth-ms S] [--gpu-ms T] [--poll-ms Q]\n"
    "                    [--timeline FILE] [--log FILE] [--json] [--virtual-time] [--in-memory | --device-key]\n"
    "  Runs J jobs of P partitions through the engine and reports throughput, device busy fraction,\n"
    "  pinned pool allocations / reuses / checkins, peak pinned bytes, the budget's high-water mark and\n"
    "  per-stage latency percentiles. sim: a simulated device taking T ms per partition (default 50)\n"
    "  after S ms of synthesis (default 100); cpu, gpu: real proofs of an N-constraint synthetic\n"
    "  circuit (default 4096) of the shape's witness mix (see circuit synth; default random), each\n"
    "  verified; auto: gpu when one is usable, else cpu. --virtual-time (sim only): the engine and the\n"
    "  device on a virtual clock, whose time moves only when every thread waits: the run follows the\n"
    "  model whatever the machine's load, and its seconds are the model's (the budget must hold what\n"
    "  is in flight: a checkout waiting for memory would stop the clock). --in-memory: no files; the\n"
    "  engine makes the development key on its backend (on the device for gpu); --device-key: and\n"
    "  keeps its points on the device only (gpu; the way to 2^27 constraints). --synthesis-threads:\n"
    "  threads inside one synthesis (default 1; the daemon's [synthesis] threads).\n",
    run_pipeline};
