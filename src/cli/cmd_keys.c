/* cuzk zkey export verificationkey, and cuzk setup (development keys). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "backend/backend.h"
#include "codec/curve_id.h"
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

typedef struct {
    cuzk_curve_id curve;
    const char *backend;
    const char *format;
} setup_opts;

static int setup_opt(int opt, const char *arg, void *ctx)
{
    setup_opts *o = ctx;
    switch (opt) {
    case 'c':
        return cuzk_curve_from_name(arg, &o->curve);
    case 'b':
        o->backend = arg;
        return 0;
    case 'f':
        o->format = arg;
        return strcmp(arg, "zkey") && strcmp(arg, "params") ? -1 : 0;
    }
    return -1;
}

static const char setup_warning[] =
    "WARNING: cuzk setup makes a DEVELOPMENT key from local randomness (toxic waste wiped after use).\n"
    "WARNING: whoever runs it could forge proofs: NOT FOR PRODUCTION. Use a multi-party ceremony for that.\n";

static int run_setup(int argc, char **argv)
{
    static const struct option opts[] = {
        {"curve", required_argument, NULL, 'c'},
        {"backend", required_argument, NULL, 'b'},
        {"format", required_argument, NULL, 'f'},
        {0, 0, 0, 0}};
    setup_opts o = {(cuzk_curve_id)-1, "auto", "zkey"};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_setup, opts, setup_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 2)
        return cli_usage_error(&cli_cmd_setup, "expected 2 file arguments, got %d", argc - first);
    if (!backend_is_choice(o.backend, 1))
        return cli_usage_error(&cli_cmd_setup, "--backend takes one of " CUZK_BACKEND_PROVERS ", not '%s'", o.backend);
    fputs(setup_warning, stderr);
    if (!strcmp(o.format, "params"))
        return cli_setup_params(argv[first], argv[first + 1], o.backend, common.threads);
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_zkey z;
    if (cuzk_r1cs_read(&r, argv[first], &err))
        return cli_report("reading the r1cs", &err);
    if ((int)o.curve >= 0 && o.curve != r.curve) {
        fprintf(stderr, "cuzk: %s is over %s, not %s\n", argv[first], cuzk_curve_snarkjs_name(r.curve),
                cuzk_curve_snarkjs_name(o.curve));
        cuzk_r1cs_free(&r);
        return CLI_FAIL;
    }
    cuzk_backend *b = backend_create(o.backend, &(backend_options){.cpu_threads = common.threads, .gpu_one_shot = 1},
                                     &err);
    if (!b) {
        cuzk_r1cs_free(&r);
        return cli_report("choosing the backend", &err);
    }
    fprintf(stderr, "setup: %s, %u constraints, %u wires, %u public: computing the key...\n",
            cuzk_curve_snarkjs_name(r.curve), r.n_constraints, r.n_wires, r.n_pub_out + r.n_pub_in);
    double t0 = cuzk_now_s();
    rc = cli_setup_key("setup", b, &r, common.threads, 0, &z, &err);
    b->destroy(b);
    if (rc)
        return cli_report("setup", &err);
    fprintf(stderr, "setup: writing %s\n", argv[first + 1]);
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
    "cuzk setup [--curve " CUZK_CURVE_CHOICES "] [--backend " CUZK_BACKEND_PROVERS "] [--format zkey|params]\n"
    "           <circuit.r1cs> <circuit.zkey | key.params>\n"
    "  Makes a DEVELOPMENT Groth16 key (random toxic waste, NOT for production) that snarkjs accepts.\n"
    "  --format F    zkey (default: snarkjs's) or params: Filecoin's (bellperson's layout, BLS12-381,\n"
    "                blstrs's domain), its .vk written beside (KEY.params -> KEY.vk)\n"
    "  --curve C     fail unless the r1cs is over curve C\n"
    "  --backend B   where the key's points are computed: gpu (the fixed-base multiplications on\n"
    "                GPU 0), cpu, or auto (default: gpu when one is usable); the same kind of key\n"
    "  --threads N   worker threads (default: all CPUs)\n",
    run_setup};
