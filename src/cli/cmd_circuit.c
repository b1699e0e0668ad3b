/* cuzk circuit synth: synthetic satisfiable circuits for benchmarks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "codec/curve_id.h"
#include "groth16/synth.h"


static int synth_opt(int opt, const char *arg, void *ctx)
{
    cli_synth_opts *o = ctx;
    char *end;
    int taken = cli_synth_opt(o, opt, arg);
    if (taken <= 0)
        return taken;
    switch (opt) {
    case 's':
        o->p.seed = strtoull(arg, &end, 0);
        return *arg && !*end ? 0 : -1;
    case 'z':
        o->p.zero_witness = 1;
        return 0;
    }
    return -1;
}

static int run_synth(int argc, char **argv)
{
    static const struct option opts[] = {{"curve", required_argument, NULL, 'c'},
                                         {"constraints", required_argument, NULL, 'n'},
                                         {"public", required_argument, NULL, 'p'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"zero-witness", no_argument, NULL, 'z'},
                                         CLI_SHAPE_OPTION,
                                         {0, 0, 0, 0}};
    cli_synth_opts o = {.p = {.n_public = 1, .seed = 1}};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_circuit_synth, opts, synth_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (!o.have_curve || !o.have_constraints)
        return cli_usage_error(&cli_cmd_circuit_synth, "--curve and --constraints are required");
    if (argc - first != 2)
        return cli_usage_error(&cli_cmd_circuit_synth, "expected 2 file arguments, got %d", argc - first);
    cli_circuit_paths to = {argv[first], argv[first + 1], NULL};
    cuzk_wtns w;
    if ((rc = cli_make_circuit_files(NULL, &o.p, common.threads, NULL, &to, &w)))
        return rc;
    cli_print_witness_mix("circuit synth", &w);
    cuzk_wtns_free(&w);
    return CLI_OK;
}

const cli_command cli_cmd_circuit_synth = {
    "circuit synth", NULL,
    "cuzk circuit synth --curve " CUZK_CURVE_CHOICES " --constraints N [--public K] [--seed S] [--zero-witness]\n"
    "                   [--shape " CUZK_SHAPE_CHOICES "] <out.r1cs> <out.wtns>\n"
    "  Writes a satisfiable circuit of N constraints and its witness, and prints the witness's mix of\n"
    "  zeros, ones, small and full-size values. K public inputs (default 1); the same seed gives the\n"
    "  same files.\n"
    "  --shape random   multiplication gates over sparse linear combinations of earlier wires: a\n"
    "                   witness of random field elements (the default)\n"
    "  --shape bits     the gates of SHA-256 (booleanity, AND, XOR, bit packing into words) and a\n"
    "                   few full-size products: ~59 % zeros, ~38 % ones, ~1 % small, ~1 % full\n"
    "  --shape mixed    half random gates, half bits\n"
    "  --zero-witness   every input is 0, so every wire but the constant is 0\n",
    run_synth};
