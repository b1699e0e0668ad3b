/* cuzk zkey export verificationkey, and cuzk setup (development keys). */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "groth16/curve_id.h"
#include "groth16/groth16.h"
#include "util/timer.h"

static int run_export_vk(int argc, char **argv)
{
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_zkey_export_vk, NULL, NULL, NULL, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 2)
        return cli_usage_error(&cli_cmd_zkey_export_vk, "expected 2 file arguments, got %d", argc - first);
    cuzk_error err = {0};
    cuzk_zkey z;
    cuzk_vk vk;
    if (cuzk_zkey_read_header(&z, argv[first], &err))
        return cli_report("reading the proving key", &err);
    rc = cuzk_groth16_export_vk(&z, &vk, &err) || cuzk_vk_write_json(&vk, argv[first + 1], &err);
    cuzk_zkey_free(&z);
    cuzk_vk_free(&vk);
    return rc ? cli_report("exporting the verification key", &err) : CLI_OK;
}

static int setup_opt(int opt, const char *arg, void *ctx)
{
    if (opt != 'c')
        return -1;
    return cuzk_curve_from_name(arg, ctx);
}

static const char setup_warning[] =
    "WARNING: cuzk setup makes a DEVELOPMENT key from local randomness (toxic waste wiped after use).\n"
    "WARNING: whoever runs it could forge proofs: NOT FOR PRODUCTION. Use a multi-party ceremony for that.\n";

static int run_setup(int argc, char **argv)
{
    static const struct option opts[] = {{"curve", required_argument, NULL, 'c'}, {0, 0, 0, 0}};
    cuzk_curve_id curve = (cuzk_curve_id)-1;
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_setup, opts, setup_opt, &curve, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 2)
        return cli_usage_error(&cli_cmd_setup, "expected 2 file arguments, got %d", argc - first);
    fputs(setup_warning, stderr);
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_zkey z;
    if (cuzk_r1cs_read(&r, argv[first], &err))
        return cli_report("reading the r1cs", &err);
    if ((int)curve >= 0 && curve != r.curve) {
        fprintf(stderr, "cuzk: %s is over %s, not %s\n", argv[first], cuzk_curve_snarkjs_name(r.curve),
                cuzk_curve_snarkjs_name(curve));
        cuzk_r1cs_free(&r);
        return CLI_FAIL;
    }
    fprintf(stderr, "setup: %s, %u constraints, %u wires, %u public: computing the key...\n",
            cuzk_curve_snarkjs_name(r.curve), r.n_constraints, r.n_wires, r.n_pub_out + r.n_pub_in);
    double t0 = cuzk_now_s();
    rc = cuzk_groth16_setup(&r, common.threads, &z, &err);
    cuzk_r1cs_free(&r);
    if (rc)
        return cli_report("setup", &err);
    double t1 = cuzk_now_s();
    fprintf(stderr, "setup: key computed in %.2f s (domain %u), writing %s\n", t1 - t0, z.domain_size,
            argv[first + 1]);
    rc = cuzk_zkey_write(&z, argv[first + 1], &err);
    cuzk_zkey_free(&z);
    if (rc)
        return cli_report("writing the key", &err);
    fprintf(stderr, "setup: done in %.2f s\n", cuzk_now_s() - t0);
    return CLI_OK;
}

const cli_command cli_cmd_zkey_export_vk = {
    "zkey export verificationkey", "zkev",
    "cuzk zkey export verificationkey <circuit.zkey> <verification_key.json>\n"
    "  Writes the key's verification key exactly as snarkjs does.\n",
    run_export_vk};

const cli_command cli_cmd_setup = {
    "setup", NULL,
    "cuzk setup [--curve bn128|bls12381] <circuit.r1cs> <circuit.zkey>\n"
    "  Makes a DEVELOPMENT Groth16 key (random toxic waste, NOT for production) that snarkjs accepts.\n"
    "  --curve C     fail unless the r1cs is over curve C\n"
    "  --threads N   worker threads (default: all CPUs)\n",
    run_setup};
