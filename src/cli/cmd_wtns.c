/* cuzk wtns calculate: snarkjs's `wtns calculate`, natively (src/witness). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/err.h"
#include "witness/circom.h"

static void print_progress(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "cuzk: %s\n", line);
}

/* circom's log() goes to stdout, as snarkjs prints it */
static void print_log(void *ctx, const char *line)
{
    (void)ctx;
    printf("%s\n", line);
}

int cli_calculate_witness(const char *wasm_path, const char *input_path, const char *cache_dir, cuzk_wtns *w)
{
    cuzk_circom_options o = {.cache_dir = cache_dir, .progress = print_progress, .log = print_log};
    cuzk_circom *c;
    cuzk_error err = {0};
    if (cuzk_circom_load(&c, wasm_path, &o, &err)) return cli_report("loading the circuit", &err);
    int rc = cuzk_circom_calculate_file(c, input_path, w, &err);
    cuzk_circom_free(c);
    fflush(stdout);
    return rc ? cli_report("calculating the witness", &err) : CLI_OK;
}

int cli_wtns_opt(int opt, const char *arg, const char **cache_dir)
{
    if (opt != CLI_OPT_WASM_CACHE) return 1;
    *cache_dir = arg;
    return 0;
}

static int wtns_opt(int opt, const char *arg, void *ctx)
{
    return cli_wtns_opt(opt, arg, ctx) ? -1 : 0;
}

static int run_calculate(int argc, char **argv)
{
    static const struct option opts[] = {CLI_WASM_CACHE_OPTION, {0, 0, 0, 0}};
    const char *cache_dir = NULL;
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_wtns_calculate, opts, wtns_opt, &cache_dir, &common, &first);
    if (rc) return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 3)
        return cli_usage_error(&cli_cmd_wtns_calculate, "expected 3 file arguments, got %d", argc - first);
    cuzk_wtns w;
    if ((rc = cli_calculate_witness(argv[first], argv[first + 1], cache_dir, &w))) return rc;
    cuzk_error err = {0};
    rc = cuzk_wtns_write(&w, argv[first + 2], &err) ? cli_report("writing the witness", &err) : CLI_OK;
    cuzk_wtns_free(&w);
    return rc;
}

const cli_command cli_cmd_wtns_calculate = {
    "wtns calculate", "wc",
    "cuzk wtns calculate [options] <circuit.wasm> <input.json> <witness.wtns>\n"
    "  Calculates the witness of a circom 2 circuit (the .wasm circom --wasm writes) for the inputs,\n"
    "  as snarkjs wtns calculate does (the same .wtns), running the wasm as native code: the first run\n"
    "  of a circuit compiles it (wabt's wasm2c, then cc -O2) and caches the result.\n"
    "  " CLI_WASM_CACHE_HELP "\n",
    run_calculate};
