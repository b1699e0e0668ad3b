/* The cuzk command: a snarkjs/rapidsnark-compatible Groth16 prover and
 * verifier, development setup, synthetic circuits, benchmarks, the daemon,
 * its client and diagnostics. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const cli_command *const commands[] = {
    &cli_cmd_groth16_prove, &cli_cmd_groth16_verify, &cli_cmd_groth16_fullprove, &cli_cmd_wtns_calculate,
    &cli_cmd_wtns_export_json, &cli_cmd_r1cs_info, &cli_cmd_zkey_export_vk,
    &cli_cmd_setup,         &cli_cmd_circuit_synth,  &cli_cmd_bench_prove,    &cli_cmd_bench_pipeline,
    &cli_cmd_daemon,        &cli_cmd_client_register, &cli_cmd_client_submit, &cli_cmd_client_await,
    &cli_cmd_client_prove,  &cli_cmd_client_status,  &cli_cmd_client_cancel,  &cli_cmd_client_metrics,
    &cli_cmd_client_preload, &cli_cmd_client_evict,  &cli_cmd_client_verification_key, &cli_cmd_diag_pool,
    &cli_cmd_diag_timeline,
    &cli_cmd_params_info,   &cli_cmd_params_prove,   &cli_cmd_params_verify, &cli_cmd_params_synth,
    &cli_cmd_zkey_export_solidityverifier, &cli_cmd_zkey_export_soliditycalldata,
    &cli_cmd_zkey_new,      &cli_cmd_groth16_setup,  &cli_cmd_zkey_contribute, &cli_cmd_zkey_beacon,
    &cli_cmd_zkey_verify,   &cli_cmd_ptau_new,       &cli_cmd_ptau_contribute, &cli_cmd_ptau_beacon,
    &cli_cmd_ptau_prepare,  &cli_cmd_ptau_verify,
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static void print_help(FILE *f)
{
    fprintf(f, "cuzk: Groth16 proving for BN254 (bn128) and BLS12-381 (bls12381)\n\nusage: cuzk <command> [options] "
               "<args>\n       cuzk --version\n\ncommands:\n");
    for (int i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-34s%s%s\n", commands[i]->name, commands[i]->alias ? "alias " : "",
                commands[i]->alias ? commands[i]->alias : "");
    fprintf(f, "\n'cuzk <command> --help' describes each; every command takes --threads N.\n");
}

/* Matches "word1 word2 [word3]" of a command name against argv; returns
 * the number of words consumed, 0 when it does not match. */
static int match_words(const char *name, int argc, char **argv)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", name);
    int used = 0;
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (used >= argc || strcmp(argv[used], w))
            return 0;
        used++;
    }
    return used;
}

int main(int argc, char **argv)
{
    /* Large blocks from the system and back to it when freed. glibc raises
     * its mmap threshold to the size of the first large block freed, and
     * later temporaries of that size (NTT twiddles, MSM scratch) then come
     * from the heap and stay resident once freed: fixing the threshold at
     * glibc's initial 128 KiB took a one-shot BN254 prove of 2^18 from
     * 254 to 207 MB at its peak. */
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("cuzk %s\n", CUZK_VERSION);
        return CLI_OK;
    }
    for (int i = 0; i < N_COMMANDS; i++) {
        const cli_command *cmd = commands[i];
        int used = match_words(cmd->name, argc - 1, argv + 1);
        if (!used && cmd->alias && !strcmp(argv[1], cmd->alias))
            used = 1;
        if (used)
            return cmd->run(argc - used, argv + used);
    }
    fprintf(stderr, "cuzk: unknown command '%s'\n\n", argv[1]);
    print_help(stderr);
    return CLI_USAGE;
}
