/* The trusted-setup ceremony's commands, snarkjs's names and arguments:
 * zkey new (alias groth16 setup), zkey contribute, zkey beacon, zkey
 * verify; powersoftau new, contribute, beacon, prepare phase2, verify. */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "ceremony/ceremony.h"
#include "cli/cli.h"
#include "codec/curve_id.h"
#include "util/err.h"
#include "util/random.h"
#include "util/timer.h"

/* snarkjs's formatHash: 4 lines of 4 big-endian u32 words in hex */
static void print_hash(const char *title, const uint8_t h[CUZK_CEREMONY_HASH_BYTES])
{
    printf("%s\n", title);
    for (int i = 0; i < 4; i++) {
        printf("\t\t");
        for (int j = 0; j < 4; j++) {
            const uint8_t *w = h + 16 * i + 4 * j;
            printf("%s%02x%02x%02x%02x", j ? " " : "", w[0], w[1], w[2], w[3]);
        }
        printf("\n");
    }
}

typedef struct {
    const char *cmd;
    double t0;
    int last_pct;
    const char *last_stage;
} progress_state;

/* stage lines on stderr, and whole percentages of steps that count */
static void report_progress_locked(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    progress_state *s = ctx;
    int pct = total ? (int)(100 * done / total) : -1;
    if (s->last_stage == stage && (pct < 0 || pct / 10 == s->last_pct / 10)) return;
    if (s->last_stage != stage || pct == 100 || pct / 10 != s->last_pct / 10) {
        if (pct >= 0)
            fprintf(stderr, "%s: %s %d%% (%.1f s)\n", s->cmd, stage, pct, cuzk_now_s() - s->t0);
        else
            fprintf(stderr, "%s: %s (%.1f s)\n", s->cmd, stage, cuzk_now_s() - s->t0);
    }
    s->last_stage = stage;
    s->last_pct = pct;
}

/* report_progress_locked from any thread (zkey new hashes beside its
 * multiplications) */
static void report_progress(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    report_progress_locked(ctx, stage, done, total);
    pthread_mutex_unlock(&lock);
}

/* The backend the multiplications run on: --backend auto|cpu|gpu */
static int is_ceremony_backend(const char *name)
{
    return !strcmp(name, "auto") || !strcmp(name, "cpu") || !strcmp(name, "gpu");
}

static int backend_opt(int opt, const char *arg, void *ctx)
{
    if (opt != 'B' || !is_ceremony_backend(arg)) return -1;
    *(const char **)ctx = arg;
    return 0;
}

#define BACKEND_OPTION {"backend", required_argument, NULL, 'B'}
#define BACKEND_HELP                                                                                           \
    "  --backend B         auto|cpu|gpu: where the multiplications run (default: auto, the GPU when one\n"  \
    "                      is usable; gpu without one is an error)\n"

static void ceremony_backend_done(cuzk_backend *b)
{
    if (b) b->destroy(b);
}

/* o->mul <- the multiplications of backend `name` (auto, cpu or gpu), *b
 * the backend made for it (NULL: none, the CPU's threads). gpu without a
 * usable GPU is an error; auto then takes the CPU. Says on stderr which. */
static int ceremony_backend(const char *cmd, const char *name, cuzk_backend **b, cuzk_ceremony_options *o)
{
    *b = NULL;
    o->mul = NULL;
    int want_gpu = !strcmp(name, "gpu") || (!strcmp(name, "auto") && backend_gpu_usable());
    cuzk_error err = {0};
    if (want_gpu) {
        backend_options bo = {.gpu_devices = 1, .gpu_one_shot = 1};
        *b = backend_create("gpu", &bo, &err);
        const cuzk_ceremony_mul *mul = *b && (*b)->ceremony_mul ? (*b)->ceremony_mul(*b, &err) : NULL;
        if (!mul && !err.code) cuzk_fail(&err, CUZK_ERR_ARG, "the gpu backend has no ceremony multiplications");
        if (!mul) {
            ceremony_backend_done(*b);
            *b = NULL;
            if (!strcmp(name, "gpu")) return cli_report(cmd, &err);
            fprintf(stderr, "%s: no GPU after all (%s)\n", cmd, err.msg);
        }
        o->mul = mul;
    }
    fprintf(stderr, "%s: multiplications on the %s\n", cmd, o->mul ? "GPU" : "CPU");
    return CLI_OK;
}

static int zkey_new(const cli_command *cmd, int argc, char **argv)
{
    cli_common common;
    static const struct option opts[] = {BACKEND_OPTION, {0, 0, 0, 0}};
    const char *backend = "auto";
    int first, rc = cli_parse_anywhere(argc, argv, cmd, opts, "", backend_opt, &backend, &common, &first);
    if (rc) return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 3) return cli_usage_error(cmd, "expected 3 file arguments, got %d", argc - first);
    const char *r1cs_path = argv[first], *ptau_path = argv[first + 1], *out = argv[first + 2];
    progress_state ps = {"zkey new", cuzk_now_s(), -1, NULL};
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_ptau p;
    report_progress(&ps, "reading the circuit", 0, 0);
    if (cuzk_r1cs_read(&r, r1cs_path, &err)) return cli_report("reading the circuit", &err);
    if (cuzk_ptau_open(&p, ptau_path, &err)) {
        cuzk_r1cs_free(&r);
        return cli_report("reading the powers of tau", &err);
    }
    cuzk_ceremony_options o = {.nthreads = common.threads, .progress = report_progress, .progress_ctx = &ps};
    cuzk_backend *b;
    if ((rc = ceremony_backend(cmd->name, backend, &b, &o))) {
        cuzk_r1cs_free(&r);
        cuzk_ptau_close(&p);
        return rc;
    }
    cuzk_zkey z;
    uint8_t cs_hash[CUZK_CEREMONY_HASH_BYTES];
    rc = cuzk_ceremony_zkey_new_write(&r, &p, &o, out, &z, cs_hash, &err);
    ceremony_backend_done(b);
    cuzk_r1cs_free(&r);
    cuzk_ptau_close(&p);
    if (rc) return cli_report("zkey new", &err);
    cuzk_zkey_free(&z);
    print_hash("Circuit hash: ", cs_hash);
    fprintf(stderr, "zkey new: %s written in %.2f s\n", out, cuzk_now_s() - ps.t0);
    return CLI_OK;
}

static int run_zkey_new(int argc, char **argv) { return zkey_new(&cli_cmd_zkey_new, argc, argv); }
static int run_groth16_setup(int argc, char **argv) { return zkey_new(&cli_cmd_groth16_setup, argc, argv); }

#define ZKEY_NEW_HELP                                                                                          \
    "  The circuit's initial proving key (phase 2, no contribution yet) from a prepared powers of tau\n"      \
    "  (.ptau, `powersoftau prepare phase2`; the Hermez files are), byte for byte snarkjs's; prints\n"        \
    "  the circuit hash. Contribute to it (zkey contribute) before any production use.\n"                     \
    "  --threads N         worker threads (default: all CPUs)\n" BACKEND_HELP

const cli_command cli_cmd_zkey_new = {
    "zkey new", "zkn", "cuzk zkey new <circuit.r1cs> <pot.ptau> <circuit_0000.zkey> [--backend B]\n" ZKEY_NEW_HELP,
    run_zkey_new};
const cli_command cli_cmd_groth16_setup = {
    "groth16 setup", "g16s",
    "cuzk groth16 setup <circuit.r1cs> <pot.ptau> <circuit_0000.zkey> [--backend B]\n" ZKEY_NEW_HELP,
    run_groth16_setup};

/* ---- zkey contribute / beacon ---- */

typedef struct {
    const char *name, *entropy, *backend;
} contribute_opts;

/* snarkjs writes -e=TEXT and -n=NAME: the '=' is not part of the value */
static const char *value_of(const char *arg) { return arg[0] == '=' ? arg + 1 : arg; }

static int contribute_opt(int opt, const char *arg, void *ctx)
{
    contribute_opts *o = ctx;
    if (opt == 'n')
        o->name = value_of(arg);
    else if (opt == 'e')
        o->entropy = value_of(arg);
    else if (opt == 'B' && is_ceremony_backend(arg))
        o->backend = arg;
    else
        return -1;
    return 0;
}

/* Reads in, contributes (info: name, type, beacon), writes out, prints
 * the hashes. */
static int contribute(const char *cmd, const char *in, const char *out, cuzk_chacha *rng,
                      const cuzk_mpc_contribution *info, int threads, const char *backend)
{
    progress_state ps = {cmd, cuzk_now_s(), -1, NULL};
    cuzk_error err = {0};
    cuzk_zkey z;
    cuzk_mpc m;
    report_progress(&ps, "reading the key", 0, 0);
    if (cuzk_zkey_read(&z, in, &err)) return cli_report("reading the key", &err);
    if (cuzk_mpc_read(&m, in, z.n8q, &err)) {
        cuzk_zkey_free(&z);
        return cli_report("reading the key's contributions", &err);
    }
    cuzk_ceremony_options o = {.nthreads = threads, .progress = report_progress, .progress_ctx = &ps};
    cuzk_backend *b;
    int rc = ceremony_backend(cmd, backend, &b, &o);
    if (rc) {
        cuzk_mpc_free(&m);
        cuzk_zkey_free(&z);
        return rc;
    }
    rc = cuzk_ceremony_zkey_contribute(&z, &m, rng, info, &o, &err);
    ceremony_backend_done(b);
    size_t len = 0;
    uint8_t *mpc = rc ? NULL : cuzk_mpc_encode(&m, &len);
    if (!rc && !mpc) rc = cuzk_fail(&err, CUZK_ERR_NOMEM, "no memory for the contributions");
    if (!rc) {
        report_progress(&ps, "writing the key", 0, 0);
        rc = cuzk_zkey_write_mpc(&z, mpc, len, out, &err);
    }
    if (!rc) {
        print_hash("Circuit Hash: ", m.cs_hash);
        print_hash("Contribution Hash: ", m.c[m.n - 1].contribution_hash);
        fprintf(stderr, "%s: %s written in %.2f s\n", cmd, out, cuzk_now_s() - ps.t0);
    }
    free(mpc);
    cuzk_mpc_free(&m);
    cuzk_zkey_free(&z);
    return rc ? cli_report(cmd, &err) : CLI_OK;
}

/* The arguments of a contribution (IN OUT [--name N] [-e ENTROPY]) and its
 * stream: CLI_OK with *first, info and rng set, -1 after --help, or the
 * exit code. */
static int contribute_args(const cli_command *cmd, int argc, char **argv, int *first, cli_common *common,
                           cuzk_mpc_contribution *info, cuzk_chacha *rng, const char **backend)
{
    static const struct option opts[] = {{"name", required_argument, NULL, 'n'},
                                         {"entropy", required_argument, NULL, 'e'},
                                         BACKEND_OPTION,
                                         {0, 0, 0, 0}};
    contribute_opts co = {.backend = "auto"};
    int rc = cli_parse_anywhere(argc, argv, cmd, opts, "n:e:", contribute_opt, &co, common, first);
    if (rc) return rc > 0 ? -1 : CLI_USAGE;
    if (argc - *first != 2) return cli_usage_error(cmd, "expected 2 file arguments, got %d", argc - *first);
    *backend = co.backend;
    cuzk_error err = {0};
    if (cuzk_ceremony_entropy_rng(rng, co.entropy, &err)) return cli_report(cmd->name, &err);
    *info = (cuzk_mpc_contribution){.type = CUZK_MPC_CONTRIBUTION};
    if (co.name) {
        info->has_name = 1;
        snprintf(info->name, sizeof info->name, "%s", co.name);
    }
    return CLI_OK;
}

static int run_zkey_contribute(int argc, char **argv)
{
    cli_common common;
    cuzk_mpc_contribution info;
    cuzk_chacha rng;
    const char *backend = "auto";
    int first, rc = contribute_args(&cli_cmd_zkey_contribute, argc, argv, &first, &common, &info, &rng, &backend);
    if (rc) return rc < 0 ? CLI_OK : rc;
    rc = contribute("zkey contribute", argv[first], argv[first + 1], &rng, &info, common.threads, backend);
    cuzk_chacha_wipe(&rng);
    return rc;
}

/* hex digits, two a byte, snarkjs's rule: 1 to 255 bytes, every digit hex */
static int parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2, n -= 2;
    if (n == 0 || n % 2 || n / 2 > cap) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        char byte[3] = {s[2 * i], s[2 * i + 1], 0}, *end;
        if (!strchr("0123456789abcdefABCDEF", byte[0]) || !strchr("0123456789abcdefABCDEF", byte[1])) return -1;
        out[i] = (uint8_t)strtoul(byte, &end, 16);
    }
    *len = n / 2;
    return 0;
}

/* The arguments of a beacon (IN OUT HASH EXP [--name N]) and its stream:
 * CLI_OK with *first, info and rng set, or the exit code. */
static int beacon_args(const cli_command *cmd, int argc, char **argv, int *first, cli_common *common,
                       cuzk_mpc_contribution *info, cuzk_chacha *rng, const char **backend)
{
    static const struct option opts[] = {{"name", required_argument, NULL, 'n'}, BACKEND_OPTION, {0, 0, 0, 0}};
    contribute_opts co = {.backend = "auto"};
    int rc = cli_parse_anywhere(argc, argv, cmd, opts, "n:", contribute_opt, &co, common, first);
    if (rc) return rc > 0 ? -1 : CLI_USAGE;
    int f = *first;
    if (argc - f != 4)
        return cli_usage_error(cmd, "expected 2 files, a beacon hash and an exponent, got %d arguments", argc - f);
    *info = (cuzk_mpc_contribution){.type = CUZK_MPC_BEACON};
    size_t len;
    if (parse_hex(argv[f + 2], info->beacon_hash, sizeof info->beacon_hash, &len))
        return cli_usage_error(cmd, "the beacon hash must be 1 to 255 bytes of hexadecimal, not '%s'", argv[f + 2]);
    char *end;
    unsigned long exp = strtoul(argv[f + 3], &end, 10);
    if (*end || exp < 10 || exp > 63)
        return cli_usage_error(cmd, "the iteration exponent must be 10 to 63, not '%s'", argv[f + 3]);
    *backend = co.backend;
    info->beacon_len = (uint8_t)len;
    info->num_iterations_exp = (uint8_t)exp;
    if (co.name) {
        info->has_name = 1;
        snprintf(info->name, sizeof info->name, "%s", co.name);
    }
    progress_state ps = {cmd->name, cuzk_now_s(), -1, NULL};
    cuzk_ceremony_options o = {.nthreads = common->threads, .progress = report_progress, .progress_ctx = &ps};
    cuzk_error err = {0};
    if (cuzk_ceremony_beacon_rng(rng, info->beacon_hash, len, (unsigned)exp, &o, &err))
        return cli_report(cmd->name, &err);
    return CLI_OK;
}

static int run_zkey_beacon(int argc, char **argv)
{
    cli_common common;
    cuzk_mpc_contribution info;
    cuzk_chacha rng;
    const char *backend = "auto";
    int first, rc = beacon_args(&cli_cmd_zkey_beacon, argc, argv, &first, &common, &info, &rng, &backend);
    if (rc) return rc < 0 ? CLI_OK : rc;
    return contribute("zkey beacon", argv[first], argv[first + 1], &rng, &info, common.threads, backend);
}

/* ---- zkey verify ---- */

static int run_zkey_verify(int argc, char **argv)
{
    cli_common common;
    static const struct option opts[] = {BACKEND_OPTION, {0, 0, 0, 0}};
    const char *backend = "auto";
    int first, rc = cli_parse_anywhere(argc, argv, &cli_cmd_zkey_verify, opts, "", backend_opt, &backend, &common,
                                       &first);
    if (rc) return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 3) return cli_usage_error(&cli_cmd_zkey_verify, "expected 3 file arguments, got %d", argc - first);
    progress_state ps = {"zkey verify", cuzk_now_s(), -1, NULL};
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_ptau p;
    cuzk_zkey z;
    cuzk_mpc m;
    if (cuzk_r1cs_read(&r, argv[first], &err)) return cli_report("reading the circuit", &err);
    if (cuzk_ptau_open(&p, argv[first + 1], &err)) {
        cuzk_r1cs_free(&r);
        return cli_report("reading the powers of tau", &err);
    }
    rc = cuzk_zkey_read(&z, argv[first + 2], &err);
    if (!rc && (rc = cuzk_mpc_read(&m, argv[first + 2], z.n8q, &err))) cuzk_zkey_free(&z);
    if (rc) {
        cuzk_r1cs_free(&r);
        cuzk_ptau_close(&p);
        return cli_report("reading the key", &err);
    }
    cuzk_ceremony_options o = {.nthreads = common.threads, .progress = report_progress, .progress_ctx = &ps};
    cuzk_backend *b = NULL;
    int backend_rc = ceremony_backend("zkey verify", backend, &b, &o);
    rc = backend_rc ? backend_rc : cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &o, &err);
    ceremony_backend_done(b);
    if (!rc) {
        print_hash("Circuit Hash: ", m.cs_hash);
        for (uint32_t i = m.n; i-- > 0;) {
            char title[320];
            printf("-------------------------\n");
            snprintf(title, sizeof title, "contribution #%u %s:", i + 1, m.c[i].has_name ? m.c[i].name : "");
            print_hash(title, m.c[i].contribution_hash);
            if (m.c[i].type == CUZK_MPC_BEACON) {
                printf("Beacon generator: ");
                for (unsigned k = 0; k < m.c[i].beacon_len; k++) printf("%02x", m.c[i].beacon_hash[k]);
                printf("\nBeacon iterations Exp: %u\n", m.c[i].num_iterations_exp);
            }
        }
        printf("-------------------------\nZKey Ok!\n");
    }
    cuzk_mpc_free(&m);
    cuzk_zkey_free(&z);
    cuzk_r1cs_free(&r);
    cuzk_ptau_close(&p);
    if (backend_rc) return backend_rc;
    return rc ? cli_report("zkey verify", &err) : CLI_OK;
}

const cli_command cli_cmd_zkey_contribute = {
    "zkey contribute", "zkc",
    "cuzk zkey contribute <circuit_old.zkey> <circuit_new.zkey> [--name N] [-e ENTROPY] [--backend B]\n"
    "  Adds a phase-2 contribution (snarkjs's): a secret from getrandom, hashed with ENTROPY when given,\n"
    "  multiplies delta and divides the C and H points; the secret is wiped. Prints the contribution hash.\n"
    "  --name N, -n N      the contributor's name, recorded in the key\n"
    "  --entropy T, -e T   text mixed into the secret\n"
    "  --threads N         worker threads (default: all CPUs)\n" BACKEND_HELP,
    run_zkey_contribute};
const cli_command cli_cmd_zkey_beacon = {
    "zkey beacon", "zkb",
    "cuzk zkey beacon <circuit_old.zkey> <circuit_new.zkey> <beaconHash(hex)> <numIterationsExp> [--name N]\n"
    "       [--backend B]\n"
    "  The last, public contribution: its secret from the beacon, SHA-256 applied 2^numIterationsExp\n"
    "  times (10 to 63) to the hash, as snarkjs does.\n"
    "  --name N, -n N      a name recorded in the key\n"
    "  --threads N         worker threads (default: all CPUs)\n" BACKEND_HELP,
    run_zkey_beacon};
const cli_command cli_cmd_zkey_verify = {
    "zkey verify", "zkv",
    "cuzk zkey verify <circuit.r1cs> <pot.ptau> <circuit.zkey> [--backend B]\n"
    "  Checks that the key is the circuit's from these powers of tau after its recorded contributions\n"
    "  (snarkjs's checks, zkey new's multiplications again among them); prints every contribution's\n"
    "  hash. Exit 1 when it is not.\n"
    "  --threads N         worker threads (default: all CPUs)\n" BACKEND_HELP,
    run_zkey_verify};

/* ---- powersoftau ---- */

static int run_ptau_new(int argc, char **argv)
{
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_ptau_new, NULL, NULL, NULL, &common, &first);
    if (rc) return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 3)
        return cli_usage_error(&cli_cmd_ptau_new, "expected a curve, a power and a file, got %d arguments",
                               argc - first);
    cuzk_curve_id curve;
    if (cuzk_curve_from_name(argv[first], &curve))
        return cli_usage_error(&cli_cmd_ptau_new, "unknown curve '%s' (" CUZK_CURVE_CHOICES ")", argv[first]);
    char *end;
    unsigned long power = strtoul(argv[first + 1], &end, 10);
    if (*end || power < 1 || power > 40)
        return cli_usage_error(&cli_cmd_ptau_new, "the power must be a number from 1, not '%s'", argv[first + 1]);
    cuzk_error err = {0};
    if (cuzk_ceremony_ptau_new(curve, (unsigned)power, argv[first + 2], &err))
        return cli_report("powersoftau new", &err);
    return CLI_OK;
}

/* opens in, contributes to out, prints the contribution's hash */
static int ptau_contribute(const char *cmd, const char *in, const char *out, cuzk_chacha *rng,
                           const cuzk_mpc_contribution *info, int threads, const char *backend)
{
    progress_state ps = {cmd, cuzk_now_s(), -1, NULL};
    cuzk_ceremony_options o = {.nthreads = threads, .progress = report_progress, .progress_ctx = &ps};
    cuzk_error err = {0};
    cuzk_ptau p;
    if (cuzk_ptau_open(&p, in, &err)) return cli_report("reading the powers of tau", &err);
    uint8_t hash[64];
    cuzk_backend *b;
    int rc = ceremony_backend(cmd, backend, &b, &o);
    if (!rc) {
        if ((rc = cuzk_ceremony_ptau_contribute(&p, out, rng, info, &o, hash, &err))) rc = cli_report(cmd, &err);
        ceremony_backend_done(b);
    }
    cuzk_ptau_close(&p);
    if (rc) return rc;
    print_hash("Contribution Response Hash: ", hash);
    fprintf(stderr, "%s: %s written in %.2f s\n", cmd, out, cuzk_now_s() - ps.t0);
    return CLI_OK;
}

static int run_ptau_contribute(int argc, char **argv)
{
    cli_common common;
    cuzk_mpc_contribution info;
    cuzk_chacha rng;
    const char *backend = "auto";
    int first, rc = contribute_args(&cli_cmd_ptau_contribute, argc, argv, &first, &common, &info, &rng, &backend);
    if (rc) return rc < 0 ? CLI_OK : rc;
    rc = ptau_contribute("powersoftau contribute", argv[first], argv[first + 1], &rng, &info, common.threads, backend);
    cuzk_chacha_wipe(&rng);
    return rc;
}

static int run_ptau_beacon(int argc, char **argv)
{
    cli_common common;
    cuzk_mpc_contribution info;
    cuzk_chacha rng;
    const char *backend = "auto";
    int first, rc = beacon_args(&cli_cmd_ptau_beacon, argc, argv, &first, &common, &info, &rng, &backend);
    if (rc) return rc < 0 ? CLI_OK : rc;
    return ptau_contribute("powersoftau beacon", argv[first], argv[first + 1], &rng, &info, common.threads, backend);
}

static int run_ptau_prepare(int argc, char **argv)
{
    cli_common common;
    static const struct option opts[] = {BACKEND_OPTION, {0, 0, 0, 0}};
    const char *backend = "auto";
    int first, rc = cli_parse_anywhere(argc, argv, &cli_cmd_ptau_prepare, opts, "", backend_opt, &backend, &common,
                                       &first);
    if (rc) return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 2) return cli_usage_error(&cli_cmd_ptau_prepare, "expected 2 file arguments, got %d", argc - first);
    progress_state ps = {"powersoftau prepare phase2", cuzk_now_s(), -1, NULL};
    cuzk_ceremony_options o = {.nthreads = common.threads, .progress = report_progress, .progress_ctx = &ps};
    cuzk_error err = {0};
    cuzk_ptau p;
    if (cuzk_ptau_open(&p, argv[first], &err)) return cli_report("reading the powers of tau", &err);
    cuzk_backend *b;
    if ((rc = ceremony_backend("powersoftau prepare phase2", backend, &b, &o))) {
        cuzk_ptau_close(&p);
        return rc;
    }
    rc = cuzk_ceremony_ptau_prepare(&p, argv[first + 1], &o, &err);
    ceremony_backend_done(b);
    cuzk_ptau_close(&p);
    if (rc) return cli_report("powersoftau prepare phase2", &err);
    fprintf(stderr, "powersoftau prepare phase2: %s written in %.2f s\n", argv[first + 1], cuzk_now_s() - ps.t0);
    return CLI_OK;
}

static int run_ptau_verify(int argc, char **argv)
{
    cli_common common;
    static const struct option opts[] = {BACKEND_OPTION, {0, 0, 0, 0}};
    const char *backend = "auto";
    int first, rc = cli_parse_anywhere(argc, argv, &cli_cmd_ptau_verify, opts, "", backend_opt, &backend, &common,
                                       &first);
    if (rc) return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 1) return cli_usage_error(&cli_cmd_ptau_verify, "expected 1 file argument, got %d", argc - first);
    progress_state ps = {"powersoftau verify", cuzk_now_s(), -1, NULL};
    cuzk_ceremony_options o = {.nthreads = common.threads, .progress = report_progress, .progress_ctx = &ps};
    cuzk_error err = {0};
    cuzk_ptau p;
    if (cuzk_ptau_open(&p, argv[first], &err)) return cli_report("reading the powers of tau", &err);
    cuzk_backend *b;
    if ((rc = ceremony_backend("powersoftau verify", backend, &b, &o))) {
        cuzk_ptau_close(&p);
        return rc;
    }
    cuzk_ptau_contribution *cs = NULL;
    uint32_t n = 0;
    uint8_t(*hashes)[64] = NULL;
    rc = cuzk_ptau_read_contributions(&p, &cs, &n, &err);
    if (!rc && !(hashes = calloc(n ? n : 1, 64))) rc = cuzk_fail(&err, CUZK_ERR_NOMEM, "no memory");
    if (!rc) rc = cuzk_ceremony_ptau_verify(&p, &o, hashes, &err);
    ceremony_backend_done(b);
    if (!rc) {
        for (uint32_t i = n; i-- > 0;) {
            char title[320];
            printf("-----------------------------------------------------\n");
            snprintf(title, sizeof title, "Contribution #%u: %s", i + 1, cs[i].info.has_name ? cs[i].info.name : "");
            printf("%s\n", title);
            print_hash("Next Challenge: ", cs[i].next_challenge);
            print_hash("Response Hash:", hashes[i]);
            if (cs[i].info.type == CUZK_MPC_BEACON) {
                printf("Beacon generator: ");
                for (unsigned k = 0; k < cs[i].info.beacon_len; k++) printf("%02x", cs[i].info.beacon_hash[k]);
                printf("\nBeacon iterations Exp: %u\n", cs[i].info.num_iterations_exp);
            }
        }
        printf("-----------------------------------------------------\nPowers of Tau Ok!\n");
    }
    free(hashes);
    free(cs);
    cuzk_ptau_close(&p);
    return rc ? cli_report("powersoftau verify", &err) : CLI_OK;
}

#define PTAU_THREADS_HELP "  --threads N         worker threads (default: all CPUs)\n"
const cli_command cli_cmd_ptau_new = {
    "powersoftau new", "ptn",
    "cuzk powersoftau new <" CUZK_CURVE_CHOICES "> <power> <pot_0000.ptau>\n"
    "  A fresh powers of tau (every point the generator, no contribution), snarkjs's file.\n" PTAU_THREADS_HELP,
    run_ptau_new};
const cli_command cli_cmd_ptau_contribute = {
    "powersoftau contribute", "ptc",
    "cuzk powersoftau contribute <pot_old.ptau> <pot_new.ptau> [--name N] [-e ENTROPY] [--backend B]\n"
    "  Adds a contribution: fresh tau, alpha and beta from getrandom (hashed with ENTROPY when given),\n"
    "  wiped after use; prints the contribution's hash. Prepare phase 2 again afterwards.\n"
    "  --name N, -n N      the contributor's name\n"
    "  --entropy T, -e T   text mixed into the secrets\n" PTAU_THREADS_HELP BACKEND_HELP,
    run_ptau_contribute};
const cli_command cli_cmd_ptau_beacon = {
    "powersoftau beacon", "ptb",
    "cuzk powersoftau beacon <pot_old.ptau> <pot_new.ptau> <beaconHash(hex)> <numIterationsExp> [--name N]\n"
    "       [--backend B]\n"
    "  The last, public contribution: its secrets from the beacon (SHA-256 2^numIterationsExp times).\n" PTAU_THREADS_HELP
    BACKEND_HELP,
    run_ptau_beacon};
const cli_command cli_cmd_ptau_prepare = {
    "powersoftau prepare phase2", "pt2",
    "cuzk powersoftau prepare phase2 <pot.ptau> <pot_final.ptau> [--backend B]\n"
    "  Adds the Lagrange bases that zkey new reads (sections 12 to 15), byte for byte snarkjs's (inverse\n"
    "  FFTs of points: on the GPU when it holds them, else on the CPU).\n" PTAU_THREADS_HELP BACKEND_HELP,
    run_ptau_prepare};
const cli_command cli_cmd_ptau_verify = {
    "powersoftau verify", "ptv",
    "cuzk powersoftau verify <pot.ptau> [--backend B]\n"
    "  Checks every contribution against the one before, the powers against the last one, and a\n"
    "  prepared file's bases (recomputed as prepare phase2 makes them: on the GPU when it holds them);\n"
    "  prints each contribution's hashes. Exit 1 when it does not verify.\n" PTAU_THREADS_HELP BACKEND_HELP,
    run_ptau_verify};
