/* Filecoin's parameter files: cuzk params info / prove / verify, and the
 * .params half of cuzk setup (cli_setup_params). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "filecoin/assignment.h"
#include "filecoin/assignment_file.h"
#include "filecoin/porep_shape.h"
#include "filecoin/params.h"
#include "filecoin/prove.h"
#include "filecoin/prove_device.h"
#include "filecoin/setup.h"
#include "codec/json_io.h"
#include "util/err.h"
#include "util/file.h"
#include "util/random.h"
#include "util/timer.h"

/* KEY.vk beside KEY.params (or KEY + ".vk" for another name); malloc'd */
static char *vk_path_beside(const char *params_path)
{
    size_t len = strlen(params_path);
    const char *ext = ".params";
    size_t keep = len > strlen(ext) && !strcmp(params_path + len - strlen(ext), ext) ? len - strlen(ext) : len;
    char *out = malloc(keep + 4);
    if (out)
        snprintf(out, keep + 4, "%.*s.vk", (int)keep, params_path);
    return out;
}

static void setup_stage(void *ctx, const char *stage)
{
    fprintf(stderr, "setup: %s (%.2f s into the setup)\n", stage, cuzk_now_s() - *(double *)ctx);
}

int cli_setup_params(const char *r1cs_path, const char *params_path, const char *backend, int threads)
{
    cuzk_error err = {0};
    cuzk_r1cs r;
    if (cuzk_r1cs_read(&r, r1cs_path, &err))
        return cli_report("reading the r1cs", &err);
    char *vk_path = vk_path_beside(params_path);
    cuzk_backend *b = NULL;
    if (!vk_path)
        cuzk_fail(&err, CUZK_ERR_NOMEM, "out of memory");
    if (!vk_path || !(b = backend_create(backend, &(backend_options){.cpu_threads = threads, .gpu_one_shot = 1},
                                         &err))) {
        cuzk_r1cs_free(&r);
        free(vk_path);
        return cli_report("choosing the backend", &err);
    }
    fprintf(stderr, "setup: %u constraints, %u wires, %u public: a key in bellperson's layout (.params), "
            "multiplied on the %s backend...\n", r.n_constraints, r.n_wires, r.n_pub_out + r.n_pub_in, b->name);
    double t0 = cuzk_now_s();
    fil_params p;
    fil_setup_options o = {.nthreads = threads, .progress = setup_stage, .progress_ctx = &t0, .backend = b};
    int rc = fil_setup(&r, &o, &p, &err);
    b->destroy(b);
    cuzk_r1cs_free(&r);
    if (!rc) {
        fprintf(stderr, "setup: writing %s and %s\n", params_path, vk_path);
        rc = fil_params_write(&p, params_path, &err) || fil_vk_write(&p.vk, vk_path, &err);
    }
    fil_params_free(&p);
    free(vk_path);
    if (rc)
        return cli_report("setup", &err);
    fprintf(stderr, "setup: done in %.2f s\n", cuzk_now_s() - t0);
    return CLI_OK;
}

/* ---- params info ---- */

static void print_fp(const char *name, const bls12_381_fp *a)
{
    bls12_381_fp t;
    bls12_381_fp_from_mont(&t, a);
    printf("  %-12s 0x", name);
    for (int i = 5; i >= 0; i--)
        printf("%016" PRIx64, t.l[i]);
    printf("\n");
}

static void print_g1(const char *name, const bls12_381_g1_affine *p)
{
    char n[64];
    snprintf(n, sizeof n, "%.48s.x", name);
    print_fp(n, &p->x);
    snprintf(n, sizeof n, "%.48s.y", name);
    print_fp(n, &p->y);
}

static void print_g2(const char *name, const bls12_381_g2_affine *p)
{
    const bls12_381_fp *c[4] = {&p->x.c0, &p->x.c1, &p->y.c0, &p->y.c1};
    static const char *const part[4] = {"x.c0", "x.c1", "y.c0", "y.c1"};
    for (int i = 0; i < 4; i++) {
        char n[64];
        snprintf(n, sizeof n, "%.48s.%s", name, part[i]);
        print_fp(n, c[i]);
    }
}

static void print_vk(const fil_vk *vk)
{
    printf("verifying key:\n");
    print_g1("alpha_g1", &vk->alpha_g1);
    print_g1("beta_g1", &vk->beta_g1);
    print_g2("beta_g2", &vk->beta_g2);
    print_g2("gamma_g2", &vk->gamma_g2);
    print_g1("delta_g1", &vk->delta_g1);
    print_g2("delta_g2", &vk->delta_g2);
    for (uint32_t i = 0; i < vk->n_ic; i++) {
        char n[64];
        snprintf(n, sizeof n, "ic[%" PRIu32 "]", i);
        print_g1(n, &vk->ic[i]);
    }
}

typedef struct {
    const char *path;
    int shown; /* the last percentage printed, -1 for none */
} read_report;

/* a line each time the whole percentage moves (a 44 GiB file reports a
 * round of points a few thousand times) */
static void read_progress(void *ctx, uint64_t done, uint64_t total)
{
    read_report *r = ctx;
    int pct = (int)(100 * done / (total ? total : 1));
    if (pct == r->shown)
        return;
    r->shown = pct;
    fprintf(stderr, "%s: %" PRIu64 " of %" PRIu64 " points checked (%d %%)\n", r->path, done, total, pct);
}

static int info_opt(int opt, const char *arg, void *ctx)
{
    (void)arg;
    if (opt != 'k')
        return -1;
    *(int *)ctx = 1;
    return 0;
}

static int run_info(int argc, char **argv)
{
    static const struct option opts[] = {{"check", no_argument, NULL, 'k'}, {0, 0, 0, 0}};
    int check = 0;
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_params_info, opts, info_opt, &check, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 1)
        return cli_usage_error(&cli_cmd_params_info, "expected 1 file argument, got %d", argc - first);
    const char *path = argv[first];
    cuzk_error err = {0};
    fil_vk vk;
    fil_params p;
    int is_vk = fil_vk_read(&vk, path, 0, NULL) == CUZK_OK; /* else a .params, its vk block first */
    if (!is_vk && fil_vk_read(&vk, path, 1, &err))
        return cli_report("reading the verifying key", &err);
    if (is_vk) {
        printf("%s: a verifying key (.vk), %" PRIu64 " bytes\n", path, fil_vk_file_bytes(vk.n_ic));
        printf("  inputs (ic)  %" PRIu32 " (ONE and %" PRIu32 " public)\n", vk.n_ic, vk.n_ic - 1);
    } else {
        read_report report = {path, -1};
        rc = check ? fil_params_read(&p, path, &(fil_read_options){common.threads, read_progress, &report, FIL_CHECK_ALL}, &err)
                   : fil_params_counts(&p, path, &err);
        if (rc) {
            fil_vk_free(&vk);
            return cli_report("reading the parameters", &err);
        }
        printf("%s: Groth16 parameters (.params), %" PRIu64 " bytes%s\n", path, fil_params_file_bytes(&p),
               check ? ", every point checked" : " (points not checked: --check)");
        printf("  domain       2^%d (h: %" PRIu32 " points)\n", __builtin_ctz(p.n_h + 1), p.n_h);
        printf("  inputs (ic)  %" PRIu32 " (ONE and %" PRIu32 " public)\n", p.vk.n_ic, p.vk.n_ic - 1);
        printf("  aux (l)      %" PRIu32 "\n", p.n_l);
        printf("  a            %" PRIu32 " (inputs + %" PRIu32 " aux of a non-zero A column)\n", p.n_a,
               p.n_a - p.vk.n_ic);
        printf("  b_g1, b_g2   %" PRIu32 ", %" PRIu32 " (non-zero B columns)\n", p.n_b_g1, p.n_b_g2);
        printf("  points       %" PRIu64 " G1 (%" PRIu64 " bytes), %" PRIu32 " G2 (%" PRIu64 " bytes)\n",
               (uint64_t)p.n_h + p.n_l + p.n_a + p.n_b_g1 + p.vk.n_ic,
               ((uint64_t)p.n_h + p.n_l + p.n_a + p.n_b_g1 + p.vk.n_ic) * 96, p.n_b_g2, (uint64_t)p.n_b_g2 * 192);
        if (check)
            fil_params_free(&p);
    }
    print_vk(&vk);
    fil_vk_free(&vk);
    return CLI_OK;
}

/* ---- params prove ---- */

typedef struct {
    int deterministic;
    const char *blst_path;
    const char *backend;
} prove_opts;

static int prove_opt(int opt, const char *arg, void *ctx)
{
    prove_opts *o = ctx;
    switch (opt) {
    case 'd':
        o->deterministic = 1;
        return 0;
    case 'b':
        o->blst_path = arg;
        return 0;
    case 'B':
        o->backend = arg;
        return backend_is_choice(arg, 1) ? 0 : -1;
    }
    return -1;
}

/* The proof on the backend named (its device when it keeps bellman keys,
 * else the CPU); *key_s <- the seconds the key took to reach the device. */
static int prove_on_backend(const char *name, const fil_params *p, const fil_assignment *as, const bls12_381_fr *r,
                            const bls12_381_fr *s, int threads, fil_proof *proof, double *key_s, const char **used,
                            cuzk_error *err)
{
    *key_s = 0;
    cuzk_backend *b = backend_create(name, &(backend_options){.cpu_threads = threads, .gpu_devices = 1}, err);
    if (!b)
        return err->code ? err->code : CUZK_ERR_ARG;
    *used = b->name;
    int rc;
    if (!b->bellman_key_load) {
        rc = fil_prove(p, as, r, s, threads, proof, err);
    } else {
        fil_device_key *k = NULL;
        double t0 = cuzk_now_s();
        rc = fil_device_key_load(&k, b, 0, p, as, err);
        *key_s = cuzk_now_s() - t0;
        rc = rc ? rc : fil_prove_on(k, as, r, s, proof, err);
        fil_device_key_free(k);
    }
    b->destroy(b);
    return rc;
}

static int write_bytes(const char *path, const void *data, size_t len, cuzk_error *err)
{
    cuzk_outfile out;
    int rc = cuzk_outfile_open(&out, path, err);
    if (rc)
        return rc;
    if (fwrite(data, 1, len, out.f) != len) {
        cuzk_outfile_abort(&out);
        return cuzk_fail(err, CUZK_ERR_IO, "%s: write error", path);
    }
    return cuzk_outfile_commit(&out, err);
}

static int run_prove(int argc, char **argv)
{
    static const struct option opts[] = {
        {"deterministic", no_argument, NULL, 'd'},
        {"blst", required_argument, NULL, 'b'},
        {"backend", required_argument, NULL, 'B'},
        {0, 0, 0, 0}};
    prove_opts o = {.backend = "auto"};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_params_prove, opts, prove_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 5)
        return cli_usage_error(&cli_cmd_params_prove, "expected 5 file arguments, got %d", argc - first);
    const char *r1cs_path = argv[first], *params_path = argv[first + 1], *wtns_path = argv[first + 2],
               *proof_path = argv[first + 3], *public_path = argv[first + 4];
    cuzk_error err = {0};
    cuzk_r1cs r = {0};
    cuzk_wtns w = {0};
    fil_params p = {0};
    fil_assignment as = {0};
    const char *what = "reading the r1cs";
    double t0 = cuzk_now_s();
    if ((rc = cuzk_r1cs_read(&r, r1cs_path, &err)))
        goto done;
    what = "reading the witness";
    if ((rc = cuzk_wtns_read(&w, wtns_path, &err)))
        goto done;
    what = "synthesizing the assignment";
    if ((rc = fil_assignment_from_r1cs(&as, &r, &w, common.threads, &err)))
        goto done;
    what = "reading the parameters";
    read_report report = {params_path, -1};
    if ((rc = fil_params_read(&p, params_path, &(fil_read_options){common.threads, read_progress, &report, FIL_CHECK_ALL}, &err)))
        goto done;
    double t1 = cuzk_now_s();
    bls12_381_fr rs[2];
    what = "drawing r and s";
    if (!o.deterministic && fil_random_blinding(&rs[0], &rs[1])) {
        rc = cuzk_fail(&err, CUZK_ERR_IO, "getrandom failed");
        goto done;
    }
    fil_proof proof;
    what = "proving";
    double key_s = 0;
    const char *used = o.backend;
    rc = prove_on_backend(o.backend, &p, &as, o.deterministic ? NULL : &rs[0], o.deterministic ? NULL : &rs[1],
                          common.threads, &proof, &key_s, &used, &err);
    cuzk_wipe(rs, sizeof rs);
    if (rc)
        goto done;
    double t2 = cuzk_now_s();
    uint8_t bytes[FIL_PROOF_BYTES];
    fil_proof_write_bytes(bytes, &proof);
    what = "writing the proof";
    if ((rc = write_bytes(proof_path, bytes, sizeof bytes, &err)))
        goto done;
    if (o.blst_path && (rc = write_bytes(o.blst_path, &proof, sizeof proof, &err)))
        goto done;
    what = "writing the public inputs";
    rc = cuzk_public_write_json((const uint64_t (*)[4])(w.values + 4), (uint32_t)(as.n_inputs - 1), public_path, &err);
    if (!rc)
        fprintf(stderr, "params prove: read in %.2f s, key to the device in %.2f s, proved in %.2f s (backend %s)%s\n",
                t1 - t0, key_s, t2 - t1 - key_s, used, o.deterministic ? " (deterministic: r = s = 0)" : "");
done:
    fil_assignment_free(&as);
    fil_params_free(&p);
    cuzk_wtns_free(&w);
    cuzk_r1cs_free(&r);
    return rc ? cli_report(what, &err) : CLI_OK;
}

/* ---- params verify ---- */

static int run_verify(int argc, char **argv)
{
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_params_verify, NULL, NULL, NULL, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 3)
        return cli_usage_error(&cli_cmd_params_verify, "expected 3 file arguments, got %d", argc - first);
    const char *vk_path = argv[first], *public_path = argv[first + 1], *proof_path = argv[first + 2];
    cuzk_error err = {0};
    fil_vk vk;
    if (fil_vk_read(&vk, vk_path, 1, &err))
        return cli_report("reading the verifying key", &err);
    uint64_t(*pub)[4] = NULL;
    uint32_t n_pub = 0;
    uint8_t *bytes = NULL;
    size_t len = 0;
    fil_proof proof;
    const char *what = "reading the public inputs";
    rc = cuzk_public_read_json(&pub, &n_pub, CUZK_CURVE_BLS12_381, public_path, &err);
    if (!rc) {
        what = "reading the proof";
        rc = cuzk_file_read_all(proof_path, FIL_PROOF_BYTES + 1, &bytes, &len, &err);
    }
    if (!rc && len != FIL_PROOF_BYTES)
        rc = cuzk_fail(&err, CUZK_ERR_FORMAT, "%s: %zu bytes, a proof is %d", proof_path, len, FIL_PROOF_BYTES);
    rc = rc ? rc : fil_proof_read_bytes(&proof, bytes, &err);
    if (!rc) {
        what = NULL;
        rc = fil_verify(&vk, (const uint64_t (*)[4])pub, n_pub, &proof, &err);
    }
    free(bytes);
    free(pub);
    fil_vk_free(&vk);
    if (rc == CUZK_OK) {
        printf("OK!\n");
        return CLI_OK;
    }
    if (what)
        return cli_report(what, &err);
    fprintf(stderr, "cuzk: INVALID proof: %s\n", err.msg);
    return CLI_FAIL;
}

const cli_command cli_cmd_params_info = {
    "params info", NULL,
    "cuzk params info [--check] <key.params | key.vk>\n"
    "  Prints a Filecoin (bellperson) parameter file's counts, sizes and verifying key.\n"
    "  --check       read and check every point (on the curve, in the subgroup), with progress\n"
    "  --threads N   threads for --check (default: all CPUs)\n",
    run_info};

const cli_command cli_cmd_params_prove = {
    "params prove", NULL,
    "cuzk params prove [--deterministic] [--blst FILE] [--backend B] <circuit.r1cs> <key.params> <witness.wtns> <proof>\n"
    "                  <public.json>\n"
    "  Proves as bellperson does (BLS12-381; circom's wire 0 is the input ONE): writes the proof as\n"
    "  bellperson's 192 bytes (a, b, c compressed) and the public inputs as snarkjs's public.json.\n"
    "  --deterministic  r = s = 0 (the same proof every time; for comparing provers, not for use)\n"
    "  --blst FILE      also write the proof in blst's affine layout (supraseal-c2's groth16_proof)\n"
    "  --backend B      " CUZK_BACKEND_PROVERS " (default auto: the GPU when one is usable; the same bytes)\n"
    "  --threads N      worker threads (default: all CPUs)\n",
    run_prove};

const cli_command cli_cmd_params_verify = {
    "params verify", NULL,
    "cuzk params verify <key.vk | key.params> <public.json> <proof>\n"
    "  Checks a 192-byte bellperson proof against the verifying key and the public inputs.\n"
    "  Prints OK! and exits 0 when the proof is valid; exits 1 with the reason when not.\n",
    run_verify};

/* ---- params synth ---- */

typedef struct {
    uint32_t log_k;
    uint64_t seed;
    const char *backend;
    int plain;
} synth_opts;

static int synth_opt(int opt, const char *arg, void *ctx)
{
    synth_opts *o = ctx;
    switch (opt) {
    case 's':
        return strcmp(arg, "porep") ? cli_usage_error(&cli_cmd_params_synth, "--shape: porep only, not '%s'", arg)
                                    : 0;
    case 'l':
        return cli_parse_u32(arg, FIL_POREP_LOG_MIN, FIL_POREP_LOG_MAX, &o->log_k)
                   ? cli_usage_error(&cli_cmd_params_synth, "--log takes %d to %d, not '%s'", FIL_POREP_LOG_MIN,
                                     FIL_POREP_LOG_MAX, arg)
                   : 0;
    case 'S':
        o->seed = strtoull(arg, NULL, 0);
        return 0;
    case 'b':
        o->backend = arg;
        return 0;
    case 'p':
        o->plain = 1;
        return 0;
    }
    return -1;
}

static int run_synth(int argc, char **argv)
{
    static const struct option opts[] = {{"shape", required_argument, NULL, 's'},
                                         {"log", required_argument, NULL, 'l'},
                                         {"seed", required_argument, NULL, 'S'},
                                         {"backend", required_argument, NULL, 'b'},
                                         {"plain", no_argument, NULL, 'p'},
                                         {0, 0, 0, 0}};
    synth_opts o = {.log_k = 0, .seed = 1, .backend = "auto"};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_params_synth, opts, synth_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 2)
        return cli_usage_error(&cli_cmd_params_synth, "expected 2 file arguments, got %d", argc - first);
    if (!o.log_k)
        return cli_usage_error(&cli_cmd_params_synth, "--log K is required");
    if (!backend_is_choice(o.backend, 1))
        return cli_usage_error(&cli_cmd_params_synth, "--backend takes one of " CUZK_BACKEND_PROVERS ", not '%s'",
                               o.backend);
    const char *params_path = argv[first], *as_path = argv[first + 1];
    char *vk_path = vk_path_beside(params_path);
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    fil_assignment as;
    fil_porep_counts n;
    fil_porep_counts_of(o.log_k, &n);
    double t0 = cuzk_now_s();
    fprintf(stderr, "params synth: PoRep-shaped, domain 2^%u: %u inputs, %u aux, %u constraints\n", o.log_k, n.inputs,
            n.aux, n.constraints);
    const char *what = "out of memory";
    if (!vk_path || (what = "making the circuit", fil_porep_synth(o.log_k, o.seed, common.threads, &r, &w, &err)))
        goto fail;
    fprintf(stderr, "params synth: circuit made (%.2f s); the assignment...\n", cuzk_now_s() - t0);
    what = "the assignment";
    rc = fil_assignment_from_r1cs(&as, &r, &w, common.threads, &err);
    cuzk_wtns_free(&w);
    if (rc || (rc = fil_assignment_write(&as, as_path, !o.plain, &err))) {
        fil_assignment_free(&as);
        cuzk_r1cs_free(&r);
        goto fail;
    }
    fprintf(stderr, "params synth: %s written (%.2f s): %zu of %zu aux in A, %zu in B; the key...\n", as_path,
            cuzk_now_s() - t0, as.a_aux.popcount, as.n_aux, as.b_aux.popcount);
    fil_assignment_free(&as);
    what = "choosing the backend";
    cuzk_backend *b = backend_create(o.backend, &(backend_options){.cpu_threads = common.threads, .gpu_one_shot = 1},
                                     &err);
    if (!b) {
        cuzk_r1cs_free(&r);
        goto fail;
    }
    fprintf(stderr, "params synth: key multiplied on the %s backend, streamed to %s\n", b->name, params_path);
    fil_setup_options so = {.nthreads = common.threads, .progress = setup_stage, .progress_ctx = &t0, .backend = b};
    what = "setup";
    rc = fil_setup_write(&r, &so, params_path, vk_path, &err);
    b->destroy(b);
    cuzk_r1cs_free(&r);
    if (rc)
        goto fail;
    free(vk_path);
    fprintf(stderr, "params synth: done in %.2f s\n", cuzk_now_s() - t0);
    return CLI_OK;
fail:
    free(vk_path);
    return cli_report(what, &err);
}

const cli_command cli_cmd_params_synth = {
    "params synth", NULL,
    "cuzk params synth --shape porep --log K [--seed S] [--backend B] [--plain] <key.params> <assignment>\n"
    "  Makes a synthetic circuit of the shape of Filecoin's 32 GiB PoRep partition (328 inputs, A-aux 99.7 %,\n"
    "  B-aux 25.4 %, only ONE of the inputs in B, a mostly 0/1 witness) at a domain of 2^K (K 10..27) in\n"
    "  memory, writes its assignment (bench/peers/c2_prove.c's format, compact unless --plain) and a\n"
    "  DEVELOPMENT key in bellperson's layout (streamed to the file as it is made; its .vk beside).\n"
    "  --seed S      the same seed, the same circuit and witness (default 1)\n"
    "  --backend B   where the key's fixed-base multiplications run: " CUZK_BACKEND_PROVERS " (default auto)\n"
    "  --threads N   worker threads (default: all CPUs)\n",
    run_synth};
