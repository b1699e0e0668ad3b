/* cuzk bench prove: time each stage of a proof on a synthetic circuit and
 * run snarkjs on the same key and witness for a ratio. A benchmark, not a
 * test: it reports, it does not judge. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "backend/backend.h"
#include "gpu/gpu.h"
#include "codec/curve_id.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "util/err.h"
#include "util/timer.h"

typedef struct {
    cli_synth_opts s;
    int in_memory, device_key;
    int raw_witness; /* the witness crosses to the device unpacked */
    uint32_t device_memory_gib; /* 0: all the GPU has */
    uint32_t repeat;
    const char *snarkjs; /* NULL: look in the usual places; "" : do not run */
    const char *workdir;
    const char *backend;
} bench_opts;

static int bench_opt(int opt, const char *arg, void *ctx)
{
    bench_opts *o = ctx;
    int taken = cli_synth_opt(&o->s, opt, arg);
    if (taken <= 0)
        return taken;
    switch (opt) {
    case 'r':
        return cli_parse_u32(arg, 1, 1000, &o->repeat);
    case 'S':
        o->snarkjs = arg;
        return 0;
    case 'N':
        o->snarkjs = "";
        return 0;
    case 'w':
        o->workdir = arg;
        return 0;
    case 'b':
        o->backend = arg;
        return 0;
    case 'm':
        o->in_memory = 1;
        return 0;
    case 'D':
        o->in_memory = o->device_key = 1;
        return 0;
    case 'G':
        return cli_parse_u32(arg, 1, 1u << 20, &o->device_memory_gib);
    case 'R':
        o->raw_witness = 1;
        return 0;
    }
    return -1;
}

/* Runs argv as a child (no shell) with its output discarded; returns the
 * wall seconds, or -1 when it could not run or exited non-zero. */
static double run_timed(char *const argv[])
{
    double t0 = cuzk_now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return cuzk_now_s() - t0;
}

static const char *find_snarkjs(const char *given)
{
    if (given)
        return *given ? given : NULL;
    const char *env = getenv("CUZK_SNARKJS");
    if (env && *env)
        return env;
    static const char *const places[] = {"tests/interop/node_modules/.bin/snarkjs", "node_modules/.bin/snarkjs"};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++)
        if (access(places[i], X_OK) == 0)
            return places[i];
    return NULL;
}

/* Best-of-repeat in-process proofs of w against z on one backend (on a GPU
 * the key stays resident after the first proof, which is a warm-up); every
 * proof is verified. The witness is staged in the backend's host memory
 * (page-locked for a GPU), as the engine stages it in its pool buffers,
 * and packed there where the engine packs it (a backend that builds a, b,
 * c; a witness that packs), unless o->raw_witness. */
static int time_proofs(cuzk_backend *b, const bench_opts *o, int threads, const cuzk_zkey *z, const cuzk_wtns *w,
                       cuzk_prove_timings *best)
{
    cuzk_error err = {0};
    cuzk_vk vk;
    if (cuzk_groth16_export_vk(z, &vk, &err))
        return cli_report("exporting the verification key", &err);
    uint64_t(*pub)[4] = calloc((size_t)z->n_public + 1, sizeof *pub);
    const size_t wbytes = (size_t)w->n_witness * 32;
    cuzk_wtns staged = *w;
    staged.values = b->host.alloc(b->host.ctx, wbytes);
    if (staged.values)
        memcpy(staged.values, w->values, wbytes);
    int rc = pub && staged.values ? CUZK_OK : cuzk_fail(&err, CUZK_ERR_NOMEM, "out of host memory");
    cuzk_wtns_packed packed = {0};
    if (!rc && b->builds_abc && !o->raw_witness) {
        const double t0 = cuzk_now_s();
        rc = cuzk_wtns_pack(w->values, w->n_witness, staged.values, threads, &packed);
        if (!rc && packed.base)
            fprintf(stderr, "bench: witness packed on the host as the engine's synthesis packs it (%d threads, "
                    "%.3f s): %.1f MB of %.1f cross to the device\n", threads, cuzk_now_s() - t0,
                    packed.bytes / 1e6, wbytes / 1e6);
        else if (rc)
            cuzk_fail(&err, rc, "out of host memory packing the witness");
    }
    best->total = 1e30;
    int warmup = !strcmp(b->name, "gpu"); /* the first proof uploads the key */
    for (uint32_t i = 0; i < o->repeat + (uint32_t)warmup && !rc; i++) {
        cuzk_prove_timings t;
        cuzk_proof proof;
        rc = backend_prove_packed(b, z, packed.base ? w : &staged, packed.base ? &packed : NULL, threads, &proof,
                                  pub, &t, &err) ||
             cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, z->n_public, &proof, &err);
        if (!rc && (i > 0 || !warmup) && t.total < best->total)
            *best = t;
    }
    free(pub);
    cuzk_vk_free(&vk);
    if (staged.values)
        b->host.free(b->host.ctx, staged.values, wbytes);
    return rc ? cli_report("proving", &err) : CLI_OK;
}

/* time_proofs on a key and witness read from files */
static int time_in_process(cuzk_backend *b, const bench_opts *o, int threads, const char *wtns_path,
                           const char *zkey_path, cuzk_prove_timings *best, double *load_s)
{
    cuzk_error err = {0};
    cuzk_zkey z;
    cuzk_wtns w;
    double t0 = cuzk_now_s();
    if (cuzk_zkey_read(&z, zkey_path, &err) || cuzk_wtns_read(&w, wtns_path, &err))
        return cli_report("loading", &err);
    *load_s = cuzk_now_s() - t0;
    int rc = time_proofs(b, o, threads, &z, &w, best);
    cuzk_zkey_free(&z);
    cuzk_wtns_free(&w);
    return rc;
}


/* The per-stage table; the first row says what came before the proofs
 * (files loaded, or the circuit and key made in memory). */
static void print_stages(const bench_opts *o, const char *backend, int threads, const cuzk_prove_timings *t,
                         const char *before, double before_s)
{
    const char *curve = cuzk_curve_snarkjs_name(o->s.p.curve);
    printf("cuzk bench prove: %s, %u constraints (%s), %u public, backend %s, %d threads, best of %u\n\n", curve,
           o->s.p.n_constraints, cuzk_synth_shape_name(o->s.p.shape), o->s.p.n_public, backend, threads, o->repeat);
    printf("| stage | seconds |\n|---|---|\n");
    const struct {
        const char *name;
        double v;
    } rows[] = {{before, before_s},             {"a, b, c", t->abc},       {"copies to the device", t->h2d},
                {"NTTs + h", t->ntt},           {"MSM A (G1)", t->msm_a},   {"MSM B1 (G1)", t->msm_b1},
                {"MSM B2 (G2)", t->msm_b2},     {"MSM C (G1)", t->msm_c},   {"MSM H (G1)", t->msm_h},
                {"blinding", t->finish},        {"device part (its own clock)", t->device},
                {"prove total", t->total}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("| %s | %.3f |\n", rows[i].name, rows[i].v);
}

static void print_report(const bench_opts *o, const char *backend, int threads, const cuzk_prove_timings *t,
                         double load_s, double cli_s, double snark_s)
{
    print_stages(o, backend, threads, t, "load key + witness", load_s);
    printf("\n| command (wall, same key and witness) | seconds |\n|---|---|\n");
    printf("| cuzk groth16 prove | %.3f |\n", cli_s);
    if (snark_s > 0)
        printf("| snarkjs groth16 prove | %.3f |\n\nsnarkjs / cuzk: %.1fx\n", snark_s, snark_s / cli_s);
    else
        printf("| snarkjs groth16 prove | not run |\n");
}

/* Circuit, key and witness made in memory, the key by the backend (on the
 * device for a GPU; with o->device_key it stays there, the only copy), then
 * time_proofs: no files, for sizes whose files would not fit a disk. The
 * key outlives the backend (a streamed key refers to its points). */
static int run_in_memory(const bench_opts *o, int threads)
{
    cuzk_error err = {0};
    const backend_options bo = {.cpu_threads = threads,
                                .gpu_memory_limit = (size_t)o->device_memory_gib << 30,
                                .gpu_keys_outlive = 1};
    cuzk_backend *b = backend_create(o->backend, &bo, &err);
    if (!b)
        return cli_report("choosing the backend", &err);
    if (o->device_key && cli_device_key_usable(b)) {
        b->destroy(b);
        return CLI_USAGE;
    }
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_zkey z;
    double t0 = cuzk_now_s();
    fprintf(stderr, "bench: synthesizing %u constraints (%s)...\n", o->s.p.n_constraints,
            cuzk_synth_shape_name(o->s.p.shape));
    if (cuzk_circuit_synth(&o->s.p, &r, &w, &err)) {
        b->destroy(b);
        return cli_report("synthesizing the circuit", &err);
    }
    const double synth_s = cuzk_now_s() - t0;
    cli_print_witness_mix("bench", &w);
    t0 = cuzk_now_s();
    int rc = cli_setup_key("bench", b, &r, threads, o->device_key, &z, &err);
    const double setup_s = cuzk_now_s() - t0; /* r is freed */
    if (rc) {
        b->destroy(b);
        cuzk_wtns_free(&w);
        return cli_report("making the development key", &err);
    }
    fprintf(stderr, "bench: proving in memory on the %s backend (best of %u, every proof verified)...\n", b->name,
            o->repeat);
    size_t used = 0, total = 0;
    const int gpu = b->setup && !cuzk_gpu_memory(0, &used, &total, NULL);
    if (gpu)
        fprintf(stderr, "bench: device memory (GiB of %.1f): key points %.1f, in use after the setup %.1f\n",
                total / 1073741824.0, cuzk_zkey_point_bytes(&z) / 1073741824.0, used / 1073741824.0);
    cuzk_prove_timings best = {0};
    rc = time_proofs(b, o, threads, &z, &w, &best);
    if (!rc && gpu && !cuzk_gpu_memory(0, &used, &total, NULL))
        fprintf(stderr,
                "bench: device memory: in use after the proofs %.1f GiB (key, its rows, twiddles, the pools' high "
                "water)\n",
                used / 1073741824.0);
    if (!rc) {
        print_stages(o, b->name, threads, &best, "synthesis (circuit + witness)", synth_s);
        printf("\n| setup (%s key) | %.3f |\n", o->device_key ? "device-resident" : "host", setup_s);
    }
    b->destroy(b);
    cuzk_zkey_free(&z);
    cuzk_wtns_free(&w);
    return rc;
}

static int run_bench_prove(int argc, char **argv)
{
    static const struct option opts[] = {{"curve", required_argument, NULL, 'c'},
                                         {"constraints", required_argument, NULL, 'n'},
                                         {"public", required_argument, NULL, 'p'},
                                         {"repeat", required_argument, NULL, 'r'},
                                         {"snarkjs", required_argument, NULL, 'S'},
                                         {"no-snarkjs", no_argument, NULL, 'N'},
                                         {"workdir", required_argument, NULL, 'w'},
                                         {"backend", required_argument, NULL, 'b'},
                                         {"in-memory", no_argument, NULL, 'm'},
                                         {"device-key", no_argument, NULL, 'D'},
                                         {"device-memory-gib", required_argument, NULL, 'G'},
                                         {"raw-witness", no_argument, NULL, 'R'},
                                         CLI_SHAPE_OPTION,
                                         {0, 0, 0, 0}};
    bench_opts o = {.s = {.p = {.n_public = 1, .seed = 1}}, .repeat = 3, .backend = "auto"};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_bench_prove, opts, bench_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (!o.s.have_curve || !o.s.have_constraints || first != argc)
        return cli_usage_error(&cli_cmd_bench_prove, "--curve and --constraints are required, nothing else");
    if (o.in_memory)
        return run_in_memory(&o, common.threads);
    char dir[256], r1cs[300], wtns[300], zkey[300], proof[300], pub[300], threads[16];
    snprintf(dir, sizeof dir, "%s", o.workdir ? o.workdir : "/tmp/cuzk-bench-XXXXXX");
    if (o.workdir ? (mkdir(dir, 0755) && access(dir, W_OK)) : !mkdtemp(dir)) {
        fprintf(stderr, "cuzk: cannot create the work directory %s\n", dir);
        return CLI_FAIL;
    }
    snprintf(r1cs, sizeof r1cs, "%s/circuit.r1cs", dir);
    snprintf(wtns, sizeof wtns, "%s/witness.wtns", dir);
    snprintf(zkey, sizeof zkey, "%s/circuit.zkey", dir);
    snprintf(threads, sizeof threads, "%d", common.threads);
    cli_circuit_paths to = {r1cs, wtns, zkey};
    if ((rc = cli_make_circuit_files("bench", &o.s.p, common.threads, o.backend, &to, NULL)))
        return rc;
    cuzk_error err = {0};
    cuzk_backend *b = backend_create(
        o.backend, &(backend_options){.cpu_threads = common.threads, .gpu_memory_limit = (size_t)o.device_memory_gib << 30},
        &err);
    if (!b)
        return cli_report("choosing the backend", &err);
    cuzk_prove_timings best = {0};
    double load_s = 0;
    fprintf(stderr, "bench: proving in process on the %s backend (best of %u)...\n", b->name, o.repeat);
    rc = time_in_process(b, &o, common.threads, wtns, zkey, &best, &load_s);
    char backend[16];
    snprintf(backend, sizeof backend, "%s", b->name);
    b->destroy(b);
    if (rc)
        return rc;

    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = 0;
    snprintf(proof, sizeof proof, "%s/proof.json", dir);
    snprintf(pub, sizeof pub, "%s/public.json", dir);
    char *cuzk_argv[] = {self, "groth16", "prove", "--threads", threads, "--backend", backend, zkey, wtns, proof, pub,
                         NULL};
    fprintf(stderr, "bench: cuzk groth16 prove (command)...\n");
    double cli_s = run_timed(cuzk_argv);
    const char *snarkjs = find_snarkjs(o.snarkjs);
    double snark_s = -1;
    if (snarkjs) {
        fprintf(stderr, "bench: %s groth16 prove...\n", snarkjs);
        snprintf(proof, sizeof proof, "%s/proof_snarkjs.json", dir);
        snprintf(pub, sizeof pub, "%s/public_snarkjs.json", dir);
        char *snark_argv[] = {(char *)snarkjs, "groth16", "prove", zkey, wtns, proof, pub, NULL};
        snark_s = run_timed(snark_argv);
        if (snark_s < 0)
            fprintf(stderr, "bench: snarkjs failed on %s\n", zkey);
    }
    print_report(&o, backend, common.threads, &best, load_s, cli_s, snark_s);
    fprintf(stderr, "bench: files kept in %s\n", dir);
    return cli_s > 0 ? CLI_OK : CLI_FAIL;
}

const cli_command cli_cmd_bench_prove = {
    "bench prove", NULL,
    "cuzk bench prove --curve " CUZK_CURVE_CHOICES " --constraints N [--public K] [--repeat R] [--shape S]\n"
    "                 [--backend " CUZK_BACKEND_PROVERS "] [--snarkjs PATH | --no-snarkjs] [--workdir DIR] [--threads N]\n"
    "                 [--in-memory | --device-key] [--device-memory-gib M] [--raw-witness]\n"
    "  Synthesizes a circuit, makes a development key, times each proving stage (best of R, default 3;\n"
    "  on a GPU after one warm-up proof, with the key resident) and the cuzk and snarkjs commands on\n"
    "  the same key and witness. snarkjs is looked up in $CUZK_SNARKJS, then\n"
    "  tests/interop/node_modules/.bin/snarkjs. --shape " CUZK_SHAPE_CHOICES ": the circuit's witness mix\n"
    "  (circuit synth). --in-memory: no files and no commands; circuit, key (made by the backend: on\n"
    "  the GPU for gpu) and witness in memory, every proof verified. --device-key: the same, the key\n"
    "  made on the GPU staying there with no host copy (no window tables): sizes up to 2^27.\n"
    "  --device-memory-gib M: the GPU behaves as a card of M GiB (the rest is taken at the start):\n"
    "  keys that do not fit stream their points from host memory, as on a smaller card.\n"
    "  On a GPU the witness is packed first, as the engine packs it at synthesis, where that pays (a\n"
    "  bit-heavy one: its 0s and 1s as 2 bits each); --raw-witness: it crosses to the device as it is.\n",
    run_bench_prove};
