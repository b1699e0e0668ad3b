/* The trusted-setup ceremony's commands, snarkjs's names and arguments:
 * zkey new (alias groth16 setup), zkey contribute, zkey beacon, zkey
 * verify. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceremony/ceremony.h"
#include "cli/cli.h"
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
static void report_progress(void *ctx, const char *stage, uint64_t done, uint64_t total)
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

/* section 10 of a fresh key: csHash, no contributions */
static int write_fresh_zkey(const cuzk_zkey *z, const uint8_t cs_hash[CUZK_CEREMONY_HASH_BYTES], const char *path,
                            cuzk_error *err)
{
    uint8_t mpc[CUZK_CEREMONY_HASH_BYTES + 4] = {0};
    memcpy(mpc, cs_hash, CUZK_CEREMONY_HASH_BYTES);
    return cuzk_zkey_write_mpc(z, mpc, sizeof mpc, path, err);
}

static int zkey_new(const cli_command *cmd, int argc, char **argv)
{
    cli_common common;
    int first, rc = cli_parse(argc, argv, cmd, NULL, NULL, NULL, &common, &first);
    if (rc) return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 3) return cli_usage_error(cmd, "expected 3 file arguments, got %d", argc - first);
    const char *r1cs_path = argv[first], *ptau_path = argv[first + 1], *out = argv[first + 2];
    progress_state ps = {"zkey new", cuzk_now_s(), -1, NULL};
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_ptau p;
    if (cuzk_r1cs_read(&r, r1cs_path, &err)) return cli_report("reading the circuit", &err);
    if (cuzk_ptau_open(&p, ptau_path, &err)) {
        cuzk_r1cs_free(&r);
        return cli_report("reading the powers of tau", &err);
    }
    cuzk_ceremony_options o = {common.threads, NULL, report_progress, &ps};
    cuzk_zkey z;
    uint8_t cs_hash[CUZK_CEREMONY_HASH_BYTES];
    rc = cuzk_ceremony_zkey_new(&r, &p, &o, &z, cs_hash, &err);
    cuzk_r1cs_free(&r);
    cuzk_ptau_close(&p);
    if (rc) return cli_report("zkey new", &err);
    rc = write_fresh_zkey(&z, cs_hash, out, &err);
    cuzk_zkey_free(&z);
    if (rc) return cli_report("writing the key", &err);
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
    "  --threads N   worker threads (default: all CPUs)\n"

const cli_command cli_cmd_zkey_new = {"zkey new", "zkn",
                                      "cuzk zkey new <circuit.r1cs> <pot.ptau> <circuit_0000.zkey>\n" ZKEY_NEW_HELP,
                                      run_zkey_new};
const cli_command cli_cmd_groth16_setup = {
    "groth16 setup", "g16s", "cuzk groth16 setup <circuit.r1cs> <pot.ptau> <circuit_0000.zkey>\n" ZKEY_NEW_HELP,
    run_groth16_setup};

/* ---- zkey contribute / beacon ---- */

typedef struct {
    const char *name, *entropy;
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
    else
        return -1;
    return 0;
}

/* Reads in, contributes (info: name, type, beacon), writes out, prints
 * the hashes. */
static int contribute(const char *cmd, const char *in, const char *out, cuzk_chacha *rng,
                      const cuzk_mpc_contribution *info, int threads)
{
    progress_state ps = {cmd, cuzk_now_s(), -1, NULL};
    cuzk_error err = {0};
    cuzk_zkey z;
    cuzk_mpc m;
    if (cuzk_zkey_read(&z, in, &err)) return cli_report("reading the key", &err);
    if (cuzk_mpc_read(&m, in, z.n8q, &err)) {
        cuzk_zkey_free(&z);
        return cli_report("reading the key's contributions", &err);
    }
    cuzk_ceremony_options o = {threads, NULL, report_progress, &ps};
    int rc = cuzk_ceremony_zkey_contribute(&z, &m, rng, info, &o, &err);
    size_t len = 0;
    uint8_t *mpc = rc ? NULL : cuzk_mpc_encode(&m, &len);
    if (!rc && !mpc) rc = cuzk_fail(&err, CUZK_ERR_NOMEM, "no memory for the contributions");
    if (!rc) rc = cuzk_zkey_write_mpc(&z, mpc, len, out, &err);
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

static int run_zkey_contribute(int argc, char **argv)
{
    static const struct option opts[] = {
        {"name", required_argument, NULL, 'n'}, {"entropy", required_argument, NULL, 'e'}, {0, 0, 0, 0}};
    cli_common common;
    contribute_opts co = {0};
    int first, rc = cli_parse_anywhere(argc, argv, &cli_cmd_zkey_contribute, opts, "n:e:", contribute_opt, &co,
                                       &common, &first);
    if (rc) return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 2)
        return cli_usage_error(&cli_cmd_zkey_contribute, "expected 2 file arguments, got %d", argc - first);
    cuzk_error err = {0};
    cuzk_chacha rng;
    if (cuzk_ceremony_entropy_rng(&rng, co.entropy, &err)) return cli_report("zkey contribute", &err);
    cuzk_mpc_contribution info = {.type = CUZK_MPC_CONTRIBUTION};
    if (co.name) {
        info.has_name = 1;
        snprintf(info.name, sizeof info.name, "%s", co.name);
    }
    rc = contribute("zkey contribute", argv[first], argv[first + 1], &rng, &info, common.threads);
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

static int run_zkey_beacon(int argc, char **argv)
{
    static const struct option opts[] = {{"name", required_argument, NULL, 'n'}, {0, 0, 0, 0}};
    cli_common common;
    contribute_opts co = {0};
    int first, rc = cli_parse_anywhere(argc, argv, &cli_cmd_zkey_beacon, opts, "n:", contribute_opt, &co, &common,
                                       &first);
    if (rc) return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 4)
        return cli_usage_error(&cli_cmd_zkey_beacon, "expected 2 files, a beacon hash and an exponent, got %d "
                                                     "arguments", argc - first);
    cuzk_mpc_contribution info = {.type = CUZK_MPC_BEACON};
    size_t len;
    if (parse_hex(argv[first + 2], info.beacon_hash, sizeof info.beacon_hash, &len))
        return cli_usage_error(&cli_cmd_zkey_beacon, "the beacon hash must be 1 to 255 bytes of hexadecimal, not '%s'",
                               argv[first + 2]);
    char *end;
    unsigned long exp = strtoul(argv[first + 3], &end, 10);
    if (*end || exp < 10 || exp > 63)
        return cli_usage_error(&cli_cmd_zkey_beacon, "the iteration exponent must be 10 to 63, not '%s'",
                               argv[first + 3]);
    info.beacon_len = (uint8_t)len;
    info.num_iterations_exp = (uint8_t)exp;
    if (co.name) {
        info.has_name = 1;
        snprintf(info.name, sizeof info.name, "%s", co.name);
    }
    progress_state ps = {"zkey beacon", cuzk_now_s(), -1, NULL};
    cuzk_ceremony_options o = {common.threads, NULL, report_progress, &ps};
    cuzk_error err = {0};
    cuzk_chacha rng;
    if (cuzk_ceremony_beacon_rng(&rng, info.beacon_hash, len, (unsigned)exp, &o, &err))
        return cli_report("zkey beacon", &err);
    return contribute("zkey beacon", argv[first], argv[first + 1], &rng, &info, common.threads);
}

/* ---- zkey verify ---- */

static int run_zkey_verify(int argc, char **argv)
{
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_zkey_verify, NULL, NULL, NULL, &common, &first);
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
    cuzk_ceremony_options o = {common.threads, NULL, report_progress, &ps};
    rc = cuzk_ceremony_zkey_verify(&r, &p, &z, &m, &o, &err);
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
    return rc ? cli_report("zkey verify", &err) : CLI_OK;
}

const cli_command cli_cmd_zkey_contribute = {
    "zkey contribute", "zkc",
    "cuzk zkey contribute <circuit_old.zkey> <circuit_new.zkey> [--name N] [-e ENTROPY]\n"
    "  Adds a phase-2 contribution (snarkjs's): a secret from getrandom, hashed with ENTROPY when given,\n"
    "  multiplies delta and divides the C and H points; the secret is wiped. Prints the contribution hash.\n"
    "  --name N, -n N      the contributor's name, recorded in the key\n"
    "  --entropy T, -e T   text mixed into the secret\n"
    "  --threads N         worker threads (default: all CPUs)\n",
    run_zkey_contribute};
const cli_command cli_cmd_zkey_beacon = {
    "zkey beacon", "zkb",
    "cuzk zkey beacon <circuit_old.zkey> <circuit_new.zkey> <beaconHash(hex)> <numIterationsExp> [--name N]\n"
    "  The last, public contribution: its secret from the beacon, SHA-256 applied 2^numIterationsExp\n"
    "  times (10 to 63) to the hash, as snarkjs does.\n"
    "  --name N, -n N      a name recorded in the key\n"
    "  --threads N         worker threads (default: all CPUs)\n",
    run_zkey_beacon};
const cli_command cli_cmd_zkey_verify = {
    "zkey verify", "zkv",
    "cuzk zkey verify <circuit.r1cs> <pot.ptau> <circuit.zkey>\n"
    "  Checks that the key is the circuit's from these powers of tau after its recorded contributions\n"
    "  (snarkjs's checks); prints every contribution's hash. Exit 1 when it is not.\n"
    "  --threads N         worker threads (default: all CPUs)\n",
    run_zkey_verify};
