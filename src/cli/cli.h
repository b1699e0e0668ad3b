/* Shared pieces of the cuzk command: the command table, option helpers and
 * error reporting. Each cmd_*.c holds one family of subcommands. */
#ifndef CUZK_CLI_CLI_H
#define CUZK_CLI_CLI_H

#include <pthread.h>

#include "cuzk/cuzk.h"
#include "cuzk/groth16.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

/* Exit codes: 0 success, 1 failure (invalid proof, bad input), 2 usage. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

typedef struct {
    const char *name;  /* e.g. "groth16 prove" */
    const char *alias; /* snarkjs short name (g16p) or NULL */
    const char *usage; /* the text --help prints */
    int (*run)(int argc, char **argv);
} cli_command;

/* Common options every command takes. */
typedef struct {
    int threads;
    int help;
} cli_common;

/* Parses the options of one command with getopt_long: the common ones
 * (--threads N, --help) plus the extra ones in long_opts/short_opts, for
 * which handle(opt, optarg, ctx) is called (returns 0 or -1 for an error).
 * On success the positional arguments are argv[*first .. argc). */
typedef int (*cli_opt_fn)(int opt, const char *arg, void *ctx);
int cli_parse(int argc, char **argv, const cli_command *cmd, const void *long_opts, cli_opt_fn handle, void *ctx,
              cli_common *common, int *first);

/* cli_parse with short options as well (getopt letters such as "o:", whose
 * values the long options share), which may also follow the positional
 * arguments: `cuzk diag timeline t.jsonl -o t.svg`. */
int cli_parse_anywhere(int argc, char **argv, const cli_command *cmd, const void *long_opts, const char *short_opts,
                       cli_opt_fn handle, void *ctx, cli_common *common, int *first);

/* Prints "cuzk: <what>: <message>" to stderr; returns CLI_FAIL. */
int cli_report(const char *what, const cuzk_error *err);
int cli_usage_error(const cli_command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The synthetic-circuit options shared by `circuit synth` and `bench prove`. */
typedef struct {
    cuzk_synth_params p;
    int have_curve, have_constraints;
} cli_synth_opts;

/* --curve (c), --constraints (n), --public (p), --shape (CLI_OPT_SHAPE):
 * 0 when taken, -1 for a bad value, 1 when opt is none of these. */
enum { CLI_OPT_SHAPE = 0x100 };
#define CLI_SHAPE_OPTION {"shape", required_argument, NULL, CLI_OPT_SHAPE}
int cli_synth_opt(cli_synth_opts *o, int opt, const char *arg);

/* --wasm-cache DIR (wtns calculate, groth16 fullprove): where compiled
 * circuits are kept. cli_wtns_opt: 0 when taken, 1 when opt is not it. */
enum { CLI_OPT_WASM_CACHE = 0x101 };
#define CLI_WASM_CACHE_OPTION {"wasm-cache", required_argument, NULL, CLI_OPT_WASM_CACHE}
#define CLI_WASM_CACHE_HELP                                                                                    \
    "--wasm-cache DIR  where compiled circuits are kept (default: $CUZK_WASM_CACHE, else\n"                    \
    "                    $XDG_CACHE_HOME/cuzk/wasm, else ~/.cache/cuzk/wasm)"
int cli_wtns_opt(int opt, const char *arg, const char **cache_dir);

/* The witness of the circom circuit wasm_path for input_path's inputs
 * (src/witness/circom.h) into w: the one-time compile's progress goes to
 * stderr, the circuit's log() lines to stdout. CLI_OK, or CLI_FAIL after
 * reporting (w then holds nothing). */
int cli_calculate_witness(const char *wasm_path, const char *input_path, const char *cache_dir, cuzk_wtns *w);

/* The proving key at path loaded on a thread beside the witness's reading
 * or calculation (key_beside.c). start, then exactly one of: finish, which
 * waits for it and gives the key (the caller frees it) and the load's
 * seconds, CLI_OK, or CLI_FAIL after reporting; drop, which waits for it
 * and frees what was loaded, for a command that failed first. */
typedef struct {
    const char *path;
    pthread_t thread;
    int started, rc;
    cuzk_key *key;
    cuzk_error err;
    double seconds;
} cli_key_beside;
void cli_key_beside_start(cli_key_beside *k, const char *path);
int cli_key_beside_finish(cli_key_beside *k, cuzk_key **key, double *seconds);
void cli_key_beside_drop(cli_key_beside *k);

/* Prints "<who>: witness mix: ..." (the shares of zeros, ones, small and
 * full-size values) to stderr. */
void cli_print_witness_mix(const char *who, const cuzk_wtns *w);

/* Where cli_make_circuit_files writes; a NULL path is not written. */
typedef struct {
    const char *r1cs, *wtns, *zkey;
} cli_circuit_paths;

/* Synthesizes the circuit p and writes it, its witness and (with a zkey
 * path) a development key made with `threads` threads on the backend named
 * setup_backend (NULL: the CPU; a GPU's is much faster at large sizes):
 * NOT FOR PRODUCTION.
 * With keep != NULL the witness is also kept there (free with
 * cuzk_wtns_free; untouched on failure). With who != NULL progress lines
 * "<who>: ..." go to stderr. CLI_OK, or CLI_FAIL after reporting. */
int cli_make_circuit_files(const char *who, const cuzk_synth_params *p, int threads, const char *setup_backend,
                           const cli_circuit_paths *to, cuzk_wtns *keep);

/* A development key for r made by backend b (backend_setup) with
 * `threads` CPU threads. r is freed (cuzk_r1cs_free) as soon as the setup
 * has read it, so that a large circuit and the key's points never take
 * memory together, and in any case by the time this returns; with who != NULL each stage is reported as
 * "<who>: <stage> (<seconds> s into the setup)" on stderr. */
struct cuzk_backend;
int cli_setup_key(const char *who, struct cuzk_backend *b, cuzk_r1cs *r, int threads, int no_host_points,
                  cuzk_zkey *z, cuzk_error *err);

/* CLI_OK when b can keep a key on a device (--device-key), else CLI_USAGE
 * after saying so on stderr. */
int cli_device_key_usable(const struct cuzk_backend *b);

/* cuzk setup --format params: a development key for the BLS12-381 r1cs at
 * r1cs_path in bellperson's layout, its fixed-base multiplications on the
 * backend named (backend_create: cpu, gpu, auto), written to params_path
 * and its .vk beside it (KEY.params -> KEY.vk). CLI_OK, or CLI_FAIL after
 * reporting. */
int cli_setup_params(const char *r1cs_path, const char *params_path, const char *backend, int threads);

/* Parses a whole positive number within [lo, hi]; -1 on junk. */
int cli_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out);

extern const cli_command cli_cmd_wtns_calculate, cli_cmd_groth16_fullprove, cli_cmd_wtns_export_json, cli_cmd_r1cs_info;
extern const cli_command cli_cmd_groth16_prove, cli_cmd_groth16_verify, cli_cmd_zkey_export_vk, cli_cmd_setup,
    cli_cmd_circuit_synth, cli_cmd_bench_prove, cli_cmd_bench_pipeline;
extern const cli_command cli_cmd_zkey_export_solidityverifier, cli_cmd_zkey_export_soliditycalldata;
extern const cli_command cli_cmd_zkey_new, cli_cmd_groth16_setup, cli_cmd_zkey_contribute, cli_cmd_zkey_beacon,
    cli_cmd_zkey_verify, cli_cmd_ptau_new, cli_cmd_ptau_contribute, cli_cmd_ptau_beacon, cli_cmd_ptau_prepare,
    cli_cmd_ptau_verify;
extern const cli_command cli_cmd_params_info, cli_cmd_params_prove, cli_cmd_params_verify, cli_cmd_params_synth;
extern const cli_command cli_cmd_daemon, cli_cmd_client_register, cli_cmd_client_submit, cli_cmd_client_await,
    cli_cmd_client_prove, cli_cmd_client_status, cli_cmd_client_cancel, cli_cmd_client_metrics,
    cli_cmd_client_preload, cli_cmd_client_evict, cli_cmd_client_verification_key, cli_cmd_diag_pool,
    cli_cmd_diag_timeline;

#endif
