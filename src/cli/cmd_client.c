/* cuzk client: the daemon's API from the command line. Each subcommand is
 * one or two HTTP requests; replies are printed as indented JSON (metrics
 * as Prometheus text). Exit status 1 for an error reply or a job that did
 * not end done. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "daemon/http_client.h"
#include "daemon/token.h"
#include "codec/json_io.h"
#include "util/err.h"
#include "util/file.h"
#include "util/timer.h"

#define DEFAULT_DAEMON "unix:/run/cuzk/cuzk.sock"

/* Registering or preloading a key reads and parses it before the reply: a
 * PoRep key takes minutes. */
enum { AWAIT_POLL_S = 30, REPLY_GRACE_S = 30, KEY_LOAD_S = 3600, MAX_WITNESS_BYTES = 1 << 30 };

typedef struct {
    const char *connect, *token_file;
    const char *circuit, *priority, *request_id, *out_dir;
    const char *wasm; /* register: the circuit's circom wasm */
    int inline_witness, drop;
    int development_setup, device_only; /* register: a key made by the daemon */
    int quiet; /* submit: the job id alone */
    double timeout_s; /* await: 0 = no limit */
} client_opts;

/* A parsed command line and its connection to the daemon. */
typedef struct {
    client_opts o;
    endpoint ep;
    char *token;
    char **args; /* the positional arguments */
    int n_args;
} client_session;

static int client_opt(int opt, const char *arg, void *ctx)
{
    client_opts *o = ctx;
    char *end;
    switch (opt) {
    case 'C':
        o->connect = arg;
        return 0;
    case 'K':
        o->token_file = arg;
        return 0;
    case 'c':
        o->circuit = arg;
        return 0;
    case 'p':
        o->priority = arg;
        return 0;
    case 'r':
        o->request_id = arg;
        return 0;
    case 'o':
        o->out_dir = arg;
        return 0;
    case 'w':
        o->wasm = arg;
        return 0;
    case 'q':
        o->quiet = 1;
        return 0;
    case 'i':
        o->inline_witness = 1;
        return 0;
    case 'd':
        o->drop = 1;
        return 0;
    case 'S':
        o->development_setup = 1;
        return 0;
    case 'O':
        o->device_only = 1;
        return 0;
    case 'T':
        o->timeout_s = strtod(arg, &end);
        return *arg && !*end && o->timeout_s >= 0 ? 0 : -1;
    }
    return -1;
}

#define CLIENT_CONNECTION_OPTS {"connect", required_argument, NULL, 'C'}, {"token-file", required_argument, NULL, 'K'}
#define CLIENT_USAGE_CONNECTION                                                                                  \
    "  --connect unix:PATH|tcp:HOST:PORT  the daemon (default: $CUZK_CONNECT, else " DEFAULT_DAEMON ")\n"     \
    "  --token-file FILE                  the bearer token for TCP (default: $CUZK_TOKEN_FILE)\n"

/* Parses the command line (min_args to max_args positional arguments) and
 * prepares the connection. Returns -1 to go on, else the exit status. */
static int client_start(int argc, char **argv, const cli_command *cmd, const struct option *opts, int min_args,
                        int max_args, client_session *s)
{
    memset(s, 0, sizeof *s);
    s->o.connect = getenv("CUZK_CONNECT") ? getenv("CUZK_CONNECT") : DEFAULT_DAEMON;
    s->o.token_file = getenv("CUZK_TOKEN_FILE");
    cli_common common;
    int first, rc = cli_parse(argc, argv, cmd, opts, client_opt, &s->o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    s->args = argv + first;
    s->n_args = argc - first;
    if (s->n_args < min_args || s->n_args > max_args)
        return cli_usage_error(cmd, "expected %d to %d arguments, got %d", min_args, max_args, s->n_args);
    cuzk_error err = {0};
    if (endpoint_parse(s->o.connect, &s->ep, &err) ||
        (s->o.token_file && token_load(s->o.token_file, &s->token, &err)))
        return cli_report("client", &err);
    return -1;
}

static void client_end(client_session *s)
{
    free(s->token);
}

/* One request; an error reply is reported (its "error" text) and fails. */
static int client_call(const client_session *s, const char *method, const char *path, const char *body,
                       double wait_s, http_reply *r)
{
    cuzk_error err = {0};
    if (http_call(&s->ep, s->token, method, path, body, body ? strlen(body) : 0, wait_s + REPLY_GRACE_S, r, &err))
        return cli_report("client", &err);
    if (r->status < 400)
        return CLI_OK;
    json_t *j = json_loads(r->body, 0, NULL);
    const char *msg = json_string_value(json_object_get(j, "error"));
    fprintf(stderr, "cuzk client: %s %s: HTTP %d: %s\n", method, path, r->status, msg ? msg : r->body);
    json_decref(j);
    http_reply_free(r);
    return CLI_FAIL;
}

static void print_json(const json_t *j)
{
    json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    putchar('\n');
}

/* One request whose reply is printed as it is (JSON indented); the daemon
 * may take wait_s to answer. */
static int client_show(const client_session *s, const char *method, const char *path, const char *body,
                       double wait_s)
{
    http_reply r;
    int rc = client_call(s, method, path, body, wait_s, &r);
    if (rc)
        return rc;
    json_t *j = json_loads(r.body, 0, NULL);
    if (j)
        print_json(j);
    else
        fputs(r.body, stdout);
    json_decref(j);
    http_reply_free(&r);
    return CLI_OK;
}

/* A JSON body, serialised. */
static char *body_text(json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text)
        fprintf(stderr, "cuzk client: out of memory\n");
    return text;
}

/* A file's bytes as base64 (malloc'd), or NULL with a message. */
static char *file_base64(const char *path)
{
    cuzk_error err = {0};
    FILE *f = cuzk_fopen_regular(path, NULL, &err);
    if (!f) {
        fprintf(stderr, "cuzk client: %s\n", err.msg);
        return NULL;
    }
    long n = -1;
    if (!fseek(f, 0, SEEK_END))
        n = ftell(f);
    unsigned char *bytes = n >= 0 && n <= MAX_WITNESS_BYTES ? malloc((size_t)n + 1) : NULL;
    char *text = bytes ? malloc((size_t)(n + 2) / 3 * 4 + 1) : NULL;
    rewind(f);
    if (text && fread(bytes, 1, (size_t)n, f) == (size_t)n)
        EVP_EncodeBlock((unsigned char *)text, bytes, (int)n);
    else {
        fprintf(stderr, "cuzk client: %s: cannot read the witness (at most %d bytes inline)\n", path,
                MAX_WITNESS_BYTES);
        free(text);
        text = NULL;
    }
    free(bytes);
    fclose(f);
    return text;
}

/* 1 when the file at path begins as a .wtns does, 0 when not, -1 (said)
 * when it cannot be read. */
static int is_wtns(const char *path)
{
    cuzk_error err = {0};
    FILE *f = cuzk_fopen_regular(path, NULL, &err);
    if (!f) {
        fprintf(stderr, "cuzk client: %s\n", err.msg);
        return -1;
    }
    char magic[4];
    int yes = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "wtns", 4);
    fclose(f);
    return yes;
}

/* {"input": the file's JSON object}: the circuit's input, sent as it is
 * (the daemon reads its values). */
static json_t *input_json(const char *path)
{
    json_error_t jerr;
    json_t *input = json_load_file(path, 0, &jerr);
    if (!json_is_object(input)) {
        fprintf(stderr, "cuzk client: %s: neither a .wtns witness nor input JSON (an object of input signals)%s%s\n",
                path, input ? "" : ": ", input ? "" : jerr.text);
        json_decref(input);
        return NULL;
    }
    return json_pack("{s:o}", "input", input);
}

/* {"witness": absolute path}, {"witness_b64": contents}, or for input JSON
 * {"input": {...}}. */
static json_t *partition_json(const client_session *s, const char *path)
{
    int wtns = is_wtns(path);
    if (wtns <= 0)
        return wtns ? NULL : input_json(path);
    if (s->o.inline_witness) {
        char *b64 = file_base64(path);
        json_t *p = b64 ? json_pack("{s:s}", "witness_b64", b64) : NULL;
        free(b64);
        return p;
    }
    char abs[PATH_MAX];
    if (!realpath(path, abs)) {
        fprintf(stderr, "cuzk client: %s: no such witness file\n", path);
        return NULL;
    }
    return json_pack("{s:s}", "witness", abs);
}

static char *job_request(const client_session *s)
{
    json_t *parts = json_array();
    for (int i = 0; parts && i < s->n_args; i++) {
        json_t *p = partition_json(s, s->args[i]);
        if (!p || json_array_append_new(parts, p)) {
            json_decref(parts);
            return NULL;
        }
    }
    json_t *j = json_pack("{s:s, s:o}", "circuit", s->o.circuit, "partitions", parts);
    if (j && s->o.priority)
        json_object_set_new(j, "priority", json_string(s->o.priority));
    if (j && s->o.request_id)
        json_object_set_new(j, "request_id", json_string(s->o.request_id));
    return body_text(j);
}

/* Submits the job; *job_id gets its id. */
static int submit(const client_session *s, json_int_t *job_id, int print)
{
    if (!s->o.circuit) {
        fprintf(stderr, "cuzk client: --circuit is required\n");
        return CLI_USAGE;
    }
    char *body = job_request(s);
    if (!body)
        return CLI_FAIL;
    http_reply r;
    int rc = client_call(s, "POST", "/v1/jobs", body, 0, &r);
    free(body);
    if (rc)
        return rc;
    json_t *j = json_loads(r.body, 0, NULL);
    *job_id = json_integer_value(json_object_get(j, "job_id"));
    if (print && j && s->o.quiet && *job_id > 0)
        printf("%lld\n", (long long)*job_id);
    else if (print && j)
        print_json(j);
    json_decref(j);
    http_reply_free(&r);
    return *job_id > 0 ? CLI_OK : CLI_FAIL;
}

/* Writes one JSON value of the job into the output o (started at path). */
static int dump_value(const json_t *v, cuzk_outfile *o, const char *path, cuzk_error *err)
{
    int rc = cuzk_outfile_open(o, path, err);
    char *text = rc ? NULL : json_dumps(v, JSON_PRESERVE_ORDER);
    if (!rc && !text)
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    if (!rc)
        rc = cuzk_json_dump_like_snarkjs(text, o->f, err);
    free(text);
    return rc;
}

/* DIR/proof_<i>.json and DIR/public_<i>.json, laid out as snarkjs writes
 * them: all of them, or (a write failed) none. */
static int write_outputs(const char *dir, const json_t *job)
{
    const char *names[2] = {"proof", "public"};
    const json_t *arrays[2] = {json_object_get(job, "proofs"), json_object_get(job, "public_signals")};
    size_t n = json_array_size(arrays[0]);
    cuzk_outfile *out = calloc(2 * n + 1, sizeof *out);
    char(*paths)[PATH_MAX] = calloc(2 * n + 1, sizeof *paths);
    cuzk_error err = {0};
    int rc = out && paths ? CUZK_OK : cuzk_fail(&err, CUZK_ERR_NOMEM, "out of memory");
    int opened = 0;
    for (size_t i = 0; !rc && i < 2 * n; i++, opened++) {
        snprintf(paths[i], PATH_MAX, "%s/%s_%zu.json", dir, names[i % 2], i / 2);
        rc = dump_value(json_array_get(arrays[i % 2], i / 2), &out[i], paths[i], &err);
    }
    rc = rc ? rc : cuzk_outfile_commit_all(out, opened, &err);
    for (int i = 0; rc && i < opened; i++)
        cuzk_outfile_abort(&out[i]);
    free(out);
    free(paths);
    return rc ? cli_report("writing the proofs", &err) : CLI_OK;
}

static int job_ended(const json_t *job)
{
    const char *state = json_string_value(json_object_get(job, "state"));
    return state && (!strcmp(state, "done") || !strcmp(state, "failed") || !strcmp(state, "cancelled"));
}

/* Waits for the job to end (or --timeout), prints it, writes --out files. */
static int await_job(const client_session *s, json_int_t id)
{
    double deadline = cuzk_now_s() + s->o.timeout_s;
    json_t *job = NULL;
    for (;;) {
        double left = s->o.timeout_s > 0 ? deadline - cuzk_now_s() : AWAIT_POLL_S;
        double wait = left < 0 ? 0 : left < AWAIT_POLL_S ? left : AWAIT_POLL_S;
        char path[96];
        snprintf(path, sizeof path, "/v1/jobs/%lld?wait_ms=%.0f", (long long)id, wait * 1000);
        http_reply r;
        int rc = client_call(s, "GET", path, NULL, wait, &r);
        if (rc)
            return rc;
        json_decref(job);
        job = json_loads(r.body, 0, NULL);
        http_reply_free(&r);
        if (!job || job_ended(job) || (s->o.timeout_s > 0 && cuzk_now_s() >= deadline))
            break;
    }
    const char *state = json_string_value(json_object_get(job, "state"));
    int rc = state && !strcmp(state, "done") ? CLI_OK : CLI_FAIL;
    if (!rc && s->o.out_dir)
        rc = write_outputs(s->o.out_dir, job);
    if (job)
        print_json(job);
    if (!job_ended(job))
        fprintf(stderr, "cuzk client: job %lld has not ended after %g s\n", (long long)id, s->o.timeout_s);
    json_decref(job);
    return rc;
}

static json_int_t parse_job_id(const char *text)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    return *text && !*end && v > 0 ? (json_int_t)v : 0;
}

/* ---------- the subcommands ---------- */

static const struct option connection_opts[] = {CLIENT_CONNECTION_OPTS, {0, 0, 0, 0}};

/* The body of POST /v1/circuits: {"id", "zkey", "r1cs"?, "wasm"?} from ID
 * ZKEY [R1CS] [--wasm WASM], or with --development-setup {"id", "r1cs", "setup",
 * "device_only"} from ID R1CS; NULL (reported) when a file is missing. */
static json_t *register_body(const client_session *s)
{
    const int dev = s->o.development_setup;
    char path[2][PATH_MAX];
    for (int i = 1; i < s->n_args; i++)
        if (!realpath(s->args[i], path[i - 1])) {
            fprintf(stderr, "cuzk client: %s: no such file\n", s->args[i]);
            return NULL;
        }
    if (dev)
        return json_pack("{s:s, s:s, s:s, s:b}", "id", s->args[0], "r1cs", path[0], "setup", "development",
                         "device_only", s->o.device_only);
    char wasm[PATH_MAX];
    if (s->o.wasm && !realpath(s->o.wasm, wasm)) {
        fprintf(stderr, "cuzk client: %s: no such file\n", s->o.wasm);
        return NULL;
    }
    json_t *j = json_pack("{s:s, s:s}", "id", s->args[0], "zkey", path[0]);
    if (j && s->n_args == 3)
        json_object_set_new(j, "r1cs", json_string(path[1]));
    if (j && s->o.wasm)
        json_object_set_new(j, "wasm", json_string(wasm));
    return j;
}

static int run_register(int argc, char **argv)
{
    static const struct option opts[] = {CLIENT_CONNECTION_OPTS, {"development-setup", no_argument, NULL, 'S'},
                                         {"device-only", no_argument, NULL, 'O'}, {"wasm", required_argument, NULL, 'w'},
                                         {0, 0, 0, 0}};
    client_session s;
    int rc = client_start(argc, argv, &cli_cmd_client_register, opts, 2, 3, &s);
    if (rc >= 0)
        return rc;
    if (s.o.development_setup ? s.n_args != 2 || s.o.wasm : s.o.device_only) {
        client_end(&s);
        return cli_usage_error(&cli_cmd_client_register, !s.o.development_setup ? "--device-only goes with --development-setup"
                                                         : s.o.wasm           ? "--wasm goes with a ZKEY, not a development setup"
                                                                              : "a development setup takes ID R1CS");
    }
    json_t *j = register_body(&s);
    if (!j) {
        client_end(&s);
        return CLI_FAIL;
    }
    char *body = body_text(j);
    rc = body ? client_show(&s, "POST", "/v1/circuits", body, KEY_LOAD_S) : CLI_FAIL;
    free(body);
    client_end(&s);
    return rc;
}

#define CLIENT_JOB_OPTS                                                                                          \
    {"circuit", required_argument, NULL, 'c'}, {"priority", required_argument, NULL, 'p'},                     \
        {"request-id", required_argument, NULL, 'r'}, {"inline", no_argument, NULL, 'i'}
#define CLIENT_AWAIT_OPTS {"timeout", required_argument, NULL, 'T'}, {"out", required_argument, NULL, 'o'}

/* submit, and with and_await (prove) wait for the job too. */
static int run_job(int argc, char **argv, const cli_command *cmd, const struct option *opts, int and_await)
{
    client_session s;
    int rc = client_start(argc, argv, cmd, opts, 1, INT_MAX, &s);
    if (rc >= 0)
        return rc;
    json_int_t id;
    rc = submit(&s, &id, !and_await);
    if (!rc && and_await)
        rc = await_job(&s, id);
    client_end(&s);
    return rc;
}

static int run_submit(int argc, char **argv)
{
    static const struct option opts[] = {CLIENT_CONNECTION_OPTS, CLIENT_JOB_OPTS, {"quiet", no_argument, NULL, 'q'},
                                         {0, 0, 0, 0}};
    return run_job(argc, argv, &cli_cmd_client_submit, opts, 0);
}

static int run_prove(int argc, char **argv)
{
    static const struct option opts[] = {CLIENT_CONNECTION_OPTS, CLIENT_JOB_OPTS, CLIENT_AWAIT_OPTS, {0, 0, 0, 0}};
    return run_job(argc, argv, &cli_cmd_client_prove, opts, 1);
}

static int run_await(int argc, char **argv)
{
    static const struct option opts[] = {CLIENT_CONNECTION_OPTS, CLIENT_AWAIT_OPTS, {0, 0, 0, 0}};
    client_session s;
    int rc = client_start(argc, argv, &cli_cmd_client_await, opts, 1, 1, &s);
    if (rc >= 0)
        return rc;
    json_int_t id = parse_job_id(s.args[0]);
    rc = id ? await_job(&s, id) : cli_usage_error(&cli_cmd_client_await, "'%s' is not a job id", s.args[0]);
    client_end(&s);
    return rc;
}

/* A subcommand that is one request: method on path, with the positional
 * argument (if any) in place of %s, answered within wait_s. */
static int run_simple(int argc, char **argv, const cli_command *cmd, const struct option *opts, const char *method,
                      const char *path_fmt, double wait_s)
{
    int n_args = strstr(path_fmt, "%s") ? 1 : 0;
    client_session s;
    int rc = client_start(argc, argv, cmd, opts, n_args, n_args, &s);
    if (rc >= 0)
        return rc;
    char path[512];
    snprintf(path, sizeof path, path_fmt, n_args ? s.args[0] : "");
    if (s.o.drop)
        strncat(path, "?drop=true", sizeof path - strlen(path) - 1);
    rc = client_show(&s, method, path, NULL, wait_s);
    client_end(&s);
    return rc;
}

static int run_status(int argc, char **argv)
{
    return run_simple(argc, argv, &cli_cmd_client_status, connection_opts, "GET", "/v1/status", 0);
}

static int run_cancel(int argc, char **argv)
{
    return run_simple(argc, argv, &cli_cmd_client_cancel, connection_opts, "DELETE", "/v1/jobs/%s", 0);
}

static int run_metrics(int argc, char **argv)
{
    return run_simple(argc, argv, &cli_cmd_client_metrics, connection_opts, "GET", "/metrics", 0);
}

static int run_verification_key(int argc, char **argv)
{
    return run_simple(argc, argv, &cli_cmd_client_verification_key, connection_opts, "GET",
                      "/v1/circuits/%s/verification_key", 0);
}

static int run_preload(int argc, char **argv)
{
    return run_simple(argc, argv, &cli_cmd_client_preload, connection_opts, "POST", "/v1/keys/%s/preload", KEY_LOAD_S);
}

static int run_evict(int argc, char **argv)
{
    static const struct option opts[] = {CLIENT_CONNECTION_OPTS, {"drop", no_argument, NULL, 'd'}, {0, 0, 0, 0}};
    return run_simple(argc, argv, &cli_cmd_client_evict, opts, "DELETE", "/v1/keys/%s", 0);
}

#define JOB_OPTIONS                                                                                              \
    "  --circuit ID        the registered circuit (required)\n"                                                 \
    "  --priority P        critical, high, normal (default) or low\n"                                            \
    "  --request-id R      makes the submit idempotent: the same request returns the same job\n"               \
    "  --inline            send the witnesses' contents (base64) instead of their paths\n"                 \
    "  A WITNESS is a .wtns file, or the circuit's input JSON (a circuit registered with --wasm):\n"          \
    "  the daemon then calculates the witness.\n"

#define AWAIT_OPTIONS                                                                                            \
    "  --timeout S         give up waiting after S seconds (default: wait until the job ends)\n"                 \
    "  --out DIR           write DIR/proof_<i>.json and DIR/public_<i>.json (snarkjs layout) per partition\n"

const cli_command cli_cmd_client_register = {
    "client register", NULL,
    "cuzk client register [connection] [--wasm WASM] ID ZKEY [R1CS]\n"
    "cuzk client register [connection] --development-setup [--device-only] ID R1CS\n"
    "  Registers a circuit from its proving key (and r1cs, to check witnesses), or\n"
    "  has the daemon make a development key for the r1cs in memory (NOT for\n"
    "  production: the toxic waste is random and wiped, no ceremony; for tests and\n"
    "  benchmarks of circuits whose zkey would not fit the disk).\n"
    "  --wasm WASM          circom's witness calculator (circuit_js/circuit.wasm): jobs may then give\n"
    "                       input JSON instead of witnesses; compiled once, cached by the daemon\n"
    "  --development-setup  make the key in the daemon, on its GPU when it has one\n"
    "  --device-only        keep the key's points on the GPU only (no host copy)\n" CLIENT_USAGE_CONNECTION,
    run_register};
const cli_command cli_cmd_client_submit = {
    "client submit", NULL,
    "cuzk client submit [connection] --circuit ID [--priority P] [--request-id R] [--inline] [--quiet]\n"
    "                   WITNESS...\n"
    "  Queues a job of one partition per witness or input file; prints the daemon's answer (JSON: job_id,\n"
    "  state, ...), or with --quiet the job id alone: cuzk client await $(cuzk client submit --quiet ...)\n"
    JOB_OPTIONS "  --quiet             print the job id alone\n" CLIENT_USAGE_CONNECTION,
    run_submit};
const cli_command cli_cmd_client_await = {
    "client await", NULL,
    "cuzk client await [connection] [--timeout S] [--out DIR] JOB_ID\n"
    "  Waits for the job to end and prints it: state, timings, proofs, public signals. Exit 1 unless\n"
    "  it is done.\n" AWAIT_OPTIONS CLIENT_USAGE_CONNECTION,
    run_await};
const cli_command cli_cmd_client_prove = {
    "client prove", NULL,
    "cuzk client prove [connection] --circuit ID [job options] [--timeout S] [--out DIR] WITNESS...\n"
    "  submit, then await.\n" JOB_OPTIONS AWAIT_OPTIONS CLIENT_USAGE_CONNECTION,
    run_prove};
const cli_command cli_cmd_client_status = {
    "client status", NULL,
    "cuzk client status [connection]\n"
    "  Devices, circuits and their keys' tiers, queues, jobs, pinned pool, budget by category;\n"
    "  job_store: where the jobs live ([daemon] state_dir) and what survives a restart.\n"
    CLIENT_USAGE_CONNECTION,
    run_status};
const cli_command cli_cmd_client_cancel = {
    "client cancel", NULL,
    "cuzk client cancel [connection] JOB_ID\n"
    "  Cancels a job: partitions not yet on a device are dropped.\n" CLIENT_USAGE_CONNECTION,
    run_cancel};
const cli_command cli_cmd_client_metrics = {
    "client metrics", NULL,
    "cuzk client metrics [connection]\n  Prints the Prometheus metrics.\n" CLIENT_USAGE_CONNECTION, run_metrics};
const cli_command cli_cmd_client_verification_key = {
    "client verificationkey", NULL,
    "cuzk client verificationkey [connection] CIRCUIT\n"
    "  Prints the circuit's verification key (snarkjs's JSON), e.g. of a key the daemon\n"
    "  made with --development-setup.\n" CLIENT_USAGE_CONNECTION,
    run_verification_key};
const cli_command cli_cmd_client_preload = {
    "client preload", NULL,
    "cuzk client preload [connection] CIRCUIT\n"
    "  Loads the circuit's proving key into memory now (the hot tier).\n" CLIENT_USAGE_CONNECTION,
    run_preload};
const cli_command cli_cmd_client_evict = {
    "client evict", NULL,
    "cuzk client evict [connection] [--drop] CIRCUIT\n"
    "  Frees the circuit's parsed key (warm: the file stays mapped; --drop: cold, unmapped too).\n"
    CLIENT_USAGE_CONNECTION,
    run_evict};
