/* cuzk groth16 prove / verify: drop-ins for snarkjs and rapidsnark. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/lib.h"
#include "cli/cli.h"
#include "groth16/groth16.h"
#include "util/err.h"
#include "util/file.h"
#include "util/timer.h"

typedef struct {
    const char *r1cs_path;
    const char *backend;
    int timings;
    int no_verify;
    const char *wasm_cache; /* fullprove's --wasm-cache */
} prove_opts;

/* The options of groth16 prove, which fullprove takes too (prove_opt). */
#define PROVE_OPTIONS                                                                                          \
    {"r1cs", required_argument, NULL, 'r'}, {"timings", no_argument, NULL, 'T'},                               \
        {"backend", required_argument, NULL, 'b'}, {"no-verify", no_argument, NULL, 'N'}

static int prove_opt(int opt, const char *arg, void *ctx)
{
    prove_opts *o = ctx;
    if (opt == 'r')
        o->r1cs_path = arg;
    else if (opt == 'T')
        o->timings = 1;
    else if (opt == 'b')
        o->backend = arg;
    else if (opt == 'N')
        o->no_verify = 1;
    else
        return -1;
    return 0;
}

/* Refuses a witness that does not satisfy the circuit's constraints. */
static int check_against_r1cs(const char *r1cs_path, const char *wtns_path, const cuzk_wtns *w)
{
    cuzk_r1cs r;
    cuzk_error err = {0};
    if (cuzk_r1cs_read(&r, r1cs_path, &err))
        return cli_report("reading the r1cs", &err);
    int rc = cuzk_r1cs_check_witness(&r, w, &err);
    cuzk_r1cs_free(&r);
    if (rc) {
        fprintf(stderr, "cuzk: %s does not satisfy %s: %s\n", wtns_path, r1cs_path, err.msg);
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* witness: its reading or calculation; load: reading the key (beside
 * the witness); the proof's stages; key: its device copy made (part of
 * total); verify: the proof checked against the key's verification key */
static void print_timings(const char *backend, double witness, double load, const cuzk_prove_timings *t,
                          double verify)
{
    fprintf(stderr,
            "stage      seconds (backend %s)\n"
            "witness    %8.3f\nload       %8.3f\nkey        %8.3f\n"
            "abc        %8.3f\nh2d        %8.3f\nntt        %8.3f\nmsm_a      %8.3f\nmsm_b1     %8.3f\n"
            "msm_b2     %8.3f\nmsm_c      %8.3f\nmsm_h      %8.3f\nfinish     %8.3f\n"
            "total      %8.3f\nverify     %8.3f\n",
            backend, witness, load, t->key, t->abc, t->h2d, t->ntt, t->msm_a, t->msm_b1, t->msm_b2, t->msm_c,
            t->msm_h, t->finish, t->total, verify);
}

/* proof.json and public.json: both, or (a write failed) neither, and what
 * stood at either path is untouched unless both are written whole. */
static int write_proof_files(const cuzk_proof *proof, const uint64_t (*pub)[4], uint32_t n_public,
                             const char *proof_path, const char *public_path, cuzk_error *err)
{
    cuzk_outfile out[2];
    int rc = cuzk_outfile_open(&out[0], proof_path, err);
    if (rc)
        return rc;
    if ((rc = cuzk_outfile_open(&out[1], public_path, err))) {
        cuzk_outfile_abort(&out[0]);
        return rc;
    }
    cuzk_error why = {0};
    if (cuzk_proof_dump_json(proof, out[0].f, &why))
        rc = cuzk_fail(err, why.code, "%s: %.480s", proof_path, why.msg);
    else if (cuzk_public_dump_json(pub, n_public, out[1].f, &why))
        rc = cuzk_fail(err, why.code, "%s: %.480s", public_path, why.msg);
    if (!rc)
        return cuzk_outfile_commit_all(out, 2, err);
    cuzk_outfile_abort(&out[0]);
    cuzk_outfile_abort(&out[1]);
    return rc;
}

/* Proves w (which it frees) with the key the loader gives and writes the
 * proof files; wtns_name stands for the witness in messages, witness_s is
 * the time it took (--timings). */
static int prove_witness(const prove_opts *o, int threads, cli_key_beside *loader, const char *wtns_name,
                         double witness_s, cuzk_wtns *w, const char *proof_path, const char *public_path)
{
    cuzk_error err = {0};
    cuzk_key *key = NULL;
    cuzk_prover *prover = NULL;
    double load_s;
    int rc = o->r1cs_path ? check_against_r1cs(o->r1cs_path, wtns_name, w) : CLI_OK;
    if (rc) cli_key_beside_drop(loader);
    if (rc || (rc = cli_key_beside_finish(loader, &key, &load_s))) {
        cuzk_wtns_free(w);
        return rc;
    }
    cuzk_proof proof;
    cuzk_prove_timings t;
    const uint32_t n_public = key->z.n_public;
    uint64_t(*pub)[4] = calloc((size_t)n_public + 1, sizeof *pub);
    rc = !pub ? cuzk_fail(&err, CUZK_ERR_NOMEM, "out of memory for %u public signals", n_public)
              : lib_prover_make(&prover, o->backend, threads, 1, &err);
    const double t_prove = cuzk_now_s();
    if (!rc)
        rc = lib_prove(prover, key, w,
                       (o->no_verify ? CUZK_PROVE_NO_VERIFY : 0) | (o->r1cs_path ? LIB_PROVE_WITNESS_CHECKED : 0),
                       &proof, pub, &t, &err);
    if (!rc && o->timings)
        print_timings(cuzk_prover_backend(prover), witness_s, load_s, &t, cuzk_now_s() - t_prove - t.total);
    if (rc) {
        fprintf(stderr, "cuzk: proving %s with %s failed: %s\n", wtns_name, loader->path, err.msg);
        rc = CLI_FAIL;
    } else if (write_proof_files(&proof, (const uint64_t(*)[4])pub, n_public, proof_path, public_path, &err)) {
        rc = cli_report("writing the proof", &err);
    }
    free(pub);
    cuzk_prover_destroy(prover);
    cuzk_key_free(key);
    cuzk_wtns_free(w);
    return rc;
}

/* 1 when the file's first character other than a space is '{': input JSON
 * given where a witness belongs. */
static int looks_like_json(const char *path)
{
    cuzk_error ignored;
    FILE *f = cuzk_fopen_regular(path, NULL, &ignored);
    int ch = ' ';
    while (f && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')) ch = fgetc(f);
    if (f) fclose(f);
    return ch == '{';
}

static int run_prove(int argc, char **argv)
{
    static const struct option opts[] = {PROVE_OPTIONS, {0, 0, 0, 0}};
    prove_opts o = {.backend = "auto"};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_groth16_prove, opts, prove_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 4)
        return cli_usage_error(&cli_cmd_groth16_prove, "expected 4 file arguments, got %d", argc - first);
    const char *wtns_path = argv[first + 1];
    cli_key_beside loader;
    cli_key_beside_start(&loader, argv[first]);
    cuzk_error err = {0};
    cuzk_wtns w;
    const double t0 = cuzk_now_s();
    if (cuzk_wtns_read(&w, wtns_path, &err)) {
        cli_key_beside_drop(&loader);
        rc = cli_report("reading the witness", &err);
        if (err.code == CUZK_ERR_FORMAT && looks_like_json(wtns_path))
            fprintf(stderr, "cuzk: %s looks like circom input JSON: make the witness with 'cuzk wtns calculate "
                            "circuit.wasm %s witness.wtns', or prove from the input in one step with 'cuzk groth16 "
                            "fullprove %s circuit.wasm circuit.zkey proof.json public.json'\n",
                    wtns_path, wtns_path, wtns_path);
        return rc;
    }
    return prove_witness(&o, common.threads, &loader, wtns_path, cuzk_now_s() - t0, &w, argv[first + 2],
                         argv[first + 3]);
}

static int fullprove_opt(int opt, const char *arg, void *ctx)
{
    prove_opts *o = ctx;
    int rc = cli_wtns_opt(opt, arg, &o->wasm_cache);
    return rc > 0 ? prove_opt(opt, arg, ctx) : rc;
}

static int run_fullprove(int argc, char **argv)
{
    static const struct option opts[] = {PROVE_OPTIONS, CLI_WASM_CACHE_OPTION, {0, 0, 0, 0}};
    prove_opts o = {.backend = "auto"};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_groth16_fullprove, opts, fullprove_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 5)
        return cli_usage_error(&cli_cmd_groth16_fullprove, "expected 5 file arguments, got %d", argc - first);
    const char *input_path = argv[first], *wasm_path = argv[first + 1];
    cli_key_beside loader;
    cli_key_beside_start(&loader, argv[first + 2]);
    cuzk_wtns w;
    const double t0 = cuzk_now_s();
    if ((rc = cli_calculate_witness(wasm_path, input_path, o.wasm_cache, &w))) {
        cli_key_beside_drop(&loader);
        return rc;
    }
    return prove_witness(&o, common.threads, &loader, input_path, cuzk_now_s() - t0, &w, argv[first + 3],
                         argv[first + 4]);
}

static int run_verify(int argc, char **argv)
{
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_groth16_verify, NULL, NULL, NULL, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 3)
        return cli_usage_error(&cli_cmd_groth16_verify, "expected 3 file arguments, got %d", argc - first);
    cuzk_error err = {0};
    rc = cuzk_verify_files(argv[first], argv[first + 1], argv[first + 2], &err);
    if (rc == CUZK_OK) {
        printf("OK!\n");
        return CLI_OK;
    }
    if (rc == CUZK_ERR_INVALID_PROOF || rc == CUZK_ERR_MISMATCH)
        fprintf(stderr, "cuzk: INVALID proof: %s\n", err.msg);
    else
        cli_report("verifying", &err);
    return CLI_FAIL;
}

const cli_command cli_cmd_groth16_prove = {
    "groth16 prove", "g16p",
    "cuzk groth16 prove [options] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "  Proves the witness with the Groth16 key, checks the proof against the key's verification key,\n"
    "  and writes proof.json and public.json as snarkjs does (both or, on a failure, neither).\n"
    "  --r1cs FILE   first check that the witness satisfies every constraint of FILE\n"
    "  --backend B   one of " CUZK_BACKEND_PROVERS " (default: auto, the GPU when one is usable)\n"
    "  --timings     print the time of each stage (on a GPU: each device phase) to stderr\n"
    "  --no-verify   skip the check of the proof against the key's verification key (a few ms;\n"
    "                by default a proof that fails it is reported and not written)\n"
    "  --threads N   worker threads (default: all CPUs)\n",
    run_prove};

const cli_command cli_cmd_groth16_fullprove = {
    "groth16 fullprove", "g16f",
    "cuzk groth16 fullprove [options] <input.json> <circuit.wasm> <circuit.zkey> <proof.json> <public.json>\n"
    "  The witness of the inputs (as cuzk wtns calculate makes it, natively), then groth16 prove of it:\n"
    "  snarkjs groth16 fullprove's arguments and files.\n"
    "  --r1cs FILE   first check that the witness satisfies every constraint of FILE\n"
    "  --backend B   one of " CUZK_BACKEND_PROVERS " (default: auto, the GPU when one is usable)\n"
    "  --timings     print the time of the witness and of each proving stage to stderr\n"
    "  --no-verify   skip the check of the proof against the key's verification key\n"
    "  " CLI_WASM_CACHE_HELP "\n"
    "  --threads N   worker threads (default: all CPUs)\n",
    run_fullprove};

const cli_command cli_cmd_groth16_verify = {
    "groth16 verify", "g16v",
    "cuzk groth16 verify <verification_key.json> <public.json> <proof.json>\n"
    "  Prints OK! and exits 0 when the proof is valid; exits 1 with the reason when not.\n",
    run_verify};
