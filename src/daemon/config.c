#include "daemon/config.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "daemon/http_server.h"
#include "util/err.h"
#include "util/file.h"

/* CFG_ENUM: one of the choices, stored as its index (an enum);
 * CFG_GIB: GiB in the file, bytes (uint64_t) in the struct;
 * CFG_U32: a whole number stored as uint32_t. */
typedef enum { CFG_TEXT, CFG_CHOICE, CFG_ENUM, CFG_BOOL, CFG_INT, CFG_U32, CFG_REAL, CFG_GIB, CFG_LIST } config_type;

typedef struct {
    const char *section, *name;
    config_type type;
    size_t offset;
    const char *def;     /* the default, as it would be written in the file;
                          * NULL: the engine's (cuzk_engine_config_default) */
    double min, max;     /* CFG_INT, CFG_REAL */
    const char *choices; /* CFG_CHOICE: "a|b|c" */
    const char *help;    /* lines separated by \n */
} config_key;

#define AT(field) offsetof(daemon_config, field)
#define ENGINE(field) offsetof(daemon_config, engine.field)

static const struct {
    const char *name, *help;
} config_sections[] = {
    {"daemon", "The API: where it listens, who may call it, request limits, shutdown."},
    {"memory", "One memory budget covers keys, compiled circuits, pinned buffers and partitions."},
    {"devices", "The proving backend and its devices (formerly [gpus], still read)."},
    {"scheduler", "How partitions are released from the queue to synthesis (see docs/ARCHITECTURE.md)."},
    {"synthesis", "CPU workers that read witnesses and compute a, b, c into pinned buffers."},
    {"pipeline", "What happens to finished partitions and jobs."},
    {"keys", "Proving keys and circuits."},
    {"cluster", "Daemons sharing one job queue in PostgreSQL (README.md, \"Running a cluster\").\n"
                "Without a database this daemon works alone (the default)."},
    {"logging", "One line per event, key=value fields (`cuzk diag pool` reads them)."},
};

static const config_key config_keys[] = {
    {"daemon", "listen", CFG_LIST, AT(listen), "unix:/run/cuzk/cuzk.sock", 0, 0, NULL,
     "Where the API listens: unix:PATH (a socket of mode 0660) or tcp:HOST:PORT\n"
     "(tcp:PORT means 127.0.0.1; a TCP listener requires token_file).\n"
     "Repeat the key to listen in several places."},
    {"daemon", "token_file", CFG_TEXT, AT(token_file), "", 0, 0, NULL,
     "A file holding the bearer token TCP clients must send (Authorization: Bearer\n"
     "TOKEN; surrounding white space is ignored). Unix sockets rely on their mode."},
    {"daemon", "max_body_mib", CFG_INT, AT(max_body_mib), "64", 1, 4096, NULL,
     "Largest request body, in MiB; a larger one is refused with 413."},
    {"daemon", "max_wait_s", CFG_REAL, AT(max_wait_s), "60", 0, 3600, NULL,
     "Longest that GET /v1/jobs/ID?wait_ms=N holds a request before answering."},
    {"daemon", "max_connections", CFG_INT, AT(max_connections), "64", 1, 10000, NULL,
     "Connections served at once (one thread each); more are closed at once.\n"
     "Requests that wait for a job (?wait_ms) take at most three quarters of\n"
     "them (the rest answer at once), so status, metrics and submits always\n"
     "find one; a waiting request whose client hangs up ends within 0.25 s."},
    {"daemon", "unauthenticated_per_address", CFG_INT, AT(unauthenticated_per_address), "4", 1,
     HTTP_MAX_UNAUTHENTICATED, NULL,
     "TCP connections without the token from one address (IPv6: one /64) at a\n"
     "time. A newcomer beyond it closes that address's oldest, so one address\n"
     "cannot push out the others' (16 such connections at most, all together;\n"
     "those that have shown the token and unix sockets are not counted)."},
    {"daemon", "unauthenticated_timeout_s", CFG_INT, AT(unauthenticated_timeout_s), "10", 1, 3600, NULL,
     "Seconds a TCP connection has to send a request with the token before it\n"
     "is closed; then it may stay idle for max_wait_s + 60."},
    {"daemon", "drain_timeout_s", CFG_REAL, AT(drain_timeout_s), "1500", 0, 1e9, NULL,
     "On SIGTERM the daemon takes no new jobs and waits for the running ones;\n"
     "after this many seconds it cancels what is left (0: wait for all of them;\n"
     "the default ends the drain before config/cuzk.service's TimeoutStopSec).\n"
     "A second SIGTERM or SIGINT cancels at once."},
    {"daemon", "state_dir", CFG_TEXT, AT(state_dir), "/var/lib/cuzk", 0, 0, NULL,
     "Where jobs are kept (jobs.sqlite, README.md \"The job store\"): queued and\n"
     "running partitions are proved again after a restart, kill -9 or power cut,\n"
     "and results stay readable. One daemon a folder. Empty: memory only (every\n"
     "job is lost when the daemon stops). Not used with a [cluster] database."},
    {"daemon", "retain_s", CFG_REAL, AT(retain_s), "86400", 0, 1e10, NULL,
     "Ended jobs are deleted from the job store this many seconds after they\n"
     "ended (0: never)."},
    {"daemon", "state_inline_max_mib", CFG_INT, AT(state_inline_max_mib), "64", 1, 4096, NULL,
     "Largest inline witness or input JSON of one partition the job store keeps,\n"
     "in MiB; a larger one is refused (send a witness file's path instead)."},

    {"memory", "budget_gib", CFG_GIB, ENGINE(budget_bytes), NULL, 0.001, 1e6, NULL,
     "The memory budget in GiB: keys, PCE, pinned buffers and partition working\n"
     "sets together never exceed it."},
    {"memory", "pool_idle_timeout_s", CFG_REAL, ENGINE(pool_idle_timeout_s), NULL, 0, 1e9, NULL,
     "Pinned buffers idle for longer than this are freed."},
    {"memory", "prewarm_buffers", CFG_INT, ENGINE(prewarm_buffers), NULL, -1, 1024, NULL,
     "Pinned buffers allocated for each circuit when it is registered\n"
     "(-1: max_device_queue_depth)."},

    {"devices", "backend", CFG_CHOICE, AT(backend), "auto", 0, 0, CUZK_BACKEND_CHOICES,
     "auto: the best this build and machine have; cpu: the CPU prover; sim: a\n"
     "simulated device (placeholder proofs, for tests); gpu: the CUDA backend."},
    {"devices", "devices", CFG_INT, AT(gpu_devices), "0", 0, CUZK_MAX_DEVICES, NULL,
     "GPUs the gpu backend uses: the first N visible ones (0: all; narrow\n"
     "further with CUDA_VISIBLE_DEVICES)."},
    {"devices", "workers_per_device", CFG_INT, ENGINE(workers_per_device), NULL, 1, 16, NULL,
     "Partitions proved at once on each device, as far as its memory lets:\n"
     "a key's first proof runs alone, and proofs whose measured peaks do not\n"
     "fit side by side wait for room instead of running out of memory."},
    {"devices", "cpu_threads", CFG_INT, AT(cpu_threads), "0", 0, 1024, NULL,
     "Threads of the cpu backend's prover (0: one per CPU)."},
    {"devices", "sim_devices", CFG_INT, AT(sim_devices), "1", 1, CUZK_MAX_DEVICES, NULL,
     "Devices of the sim backend."},
    {"devices", "sim_device_ms", CFG_REAL, AT(sim_device_ms), "50", 0, 1e7, NULL,
     "Device time per partition of the sim backend, in milliseconds."},
    {"devices", "sim_gate", CFG_TEXT, AT(sim_gate), "", 0, 0, NULL,
     "A file the sim backend's partitions wait for before their device time\n"
     "(none when empty): jobs stay running until it exists or they are cancelled,\n"
     "so tests release them when they choose. Its folder must exist."},

    {"scheduler", "policy", CFG_ENUM, ENGINE(policy), NULL, 0, 0, CUZK_DISPATCH_CHOICES, CUZK_DISPATCH_HELP},
    {"scheduler", "max_device_queue_depth", CFG_INT, ENGINE(max_device_queue_depth), NULL, 1, 1024, NULL,
     "Partitions synthesized or waiting for a device at once (the permits)."},
    {"scheduler", "poll_ms", CFG_REAL, ENGINE(poll_ms), NULL, 1, 1e6, NULL, "The poll policy's period."},
    {"scheduler", "pacer_kp", CFG_REAL, ENGINE(pacer_kp), NULL, 0, 100, NULL, "The pacer's proportional gain."},
    {"scheduler", "pacer_ki", CFG_REAL, ENGINE(pacer_ki), NULL, 0, 100, NULL, "The pacer's integral gain."},
    {"scheduler", "pacer_target_depth", CFG_REAL, ENGINE(pacer_target_depth), NULL, 0, 1024, NULL,
     "The device queue depth the pacer holds."},

    {"synthesis", "workers", CFG_INT, AT(synthesis_workers), "0", 0, 1024, NULL,
     "Synthesis worker threads (0: one per CPU)."},
    {"synthesis", "threads", CFG_INT, ENGINE(synthesis_threads), NULL, 1, 1024, NULL,
     "Threads inside one synthesis."},
    {"synthesis", "witness_timeout_s", CFG_REAL, ENGINE(witness_timeout_s), NULL, 0, 1e9, NULL,
     "A witness calculated from input JSON by the circuit's wasm is stopped after\n"
     "this many seconds and its job fails, saying so (0: no limit). Cancel, a\n"
     "drain's timeout and a second stop signal stop one at any time."},

    {"pipeline", "verify_proofs", CFG_BOOL, ENGINE(verify_proofs), NULL, 0, 0, NULL,
     "Verify every proof before its job is reported done."},
    {"pipeline", "timeline", CFG_TEXT, AT(timeline), "", 0, 0, NULL,
     "A JSONL file of partition events for `cuzk diag timeline` (empty: off).\n"
     "Rewritten at each start; it grows by a few lines per partition."},
    {"pipeline", "results_max", CFG_U32, ENGINE(results_max), NULL, 1, 10000000, NULL,
     "Finished jobs kept for clients to fetch, newest first."},
    {"pipeline", "results_ttl_s", CFG_REAL, ENGINE(results_ttl_s), NULL, 1, 1e9, NULL,
     "And for how long after they finish."},

    {"keys", "pce_cache_dir", CFG_TEXT, AT(pce_cache_dir), "", 0, 0, NULL,
     "Where compiled circuits (PCE) are cached on disk (empty: memory only)."},
    {"keys", "wasm_cache_dir", CFG_TEXT, AT(wasm_cache_dir), "", 0, 0, NULL,
     "Where circom circuits compiled to native code are cached (empty:\n"
     "$CUZK_WASM_CACHE, else $XDG_CACHE_HOME/cuzk/wasm, else ~/.cache/cuzk/wasm)."},
    {"keys", "circuit", CFG_LIST, AT(circuits), "", 0, 0, NULL,
     "A circuit registered at start: ID, ZKEY[, R1CS][, WASM] (comma-separated,\n"
     "absolute paths; the WASM, circom's witness calculator, by its .wasm name,\n"
     "lets jobs give input JSON); repeat the key for more. Clients may also POST\n"
     "/v1/circuits. Example: circuit = porep, /var/lib/cuzk/porep.zkey"},

    {"cluster", "database", CFG_TEXT, AT(cluster.database), "", 0, 0, NULL,
     "The queue's database as a libpq connection string, e.g.\n"
     "host=db.example port=5432 dbname=cuzk user=cuzk (a password in ~/.pgpass);\n"
     "empty: no cluster. The daemon creates and migrates its tables (cuzk_*)."},
    {"cluster", "node", CFG_TEXT, AT(cluster.node), "", 0, 0, NULL,
     "This daemon's name in the cluster, unique among its daemons (empty: the\n"
     "host name). A daemon restarted under its name takes back its claims."},
    {"cluster", "lease_s", CFG_REAL, AT(cluster.lease_s), "30", 0.5, 86400, NULL,
     "A node without a heartbeat for this long loses its claimed partitions to\n"
     "the queue (any live node returns them)."},
    {"cluster", "claim_max_s", CFG_REAL, AT(cluster.claim_max_s), "3600", 0, 1e9, NULL,
     "A partition claimed this long goes back to the queue, its node live or not\n"
     "(a worker stuck while the heartbeat goes on); the attempt counts and a late\n"
     "result is discarded. Longer than a partition's slowest proof; 0: no bound."},
    {"cluster", "retain_s", CFG_REAL, AT(cluster.retain_s), "604800", 0, 1e10, NULL,
     "Jobs done, failed or cancelled this long ago are deleted from the database\n"
     "with their partitions and results, by whichever node's heartbeat comes\n"
     "first (a week by default); 0: kept until deleted by hand."},
    {"cluster", "heartbeat_s", CFG_REAL, AT(cluster.heartbeat_s), "5", 0.05, 3600, NULL,
     "How often a node beats its heartbeat, reclaims from silent nodes and looks\n"
     "for cancels it missed; less than lease_s."},
    {"cluster", "poll_s", CFG_REAL, AT(cluster.poll_s), "30", 0.05, 3600, NULL,
     "Claimers are woken by NOTIFY; this slow poll is the fallback."},
    {"cluster", "max_attempts", CFG_INT, AT(cluster.max_attempts), "3", 1, 1000, NULL,
     "Attempts of a partition (a failure, or its node falling silent) before its\n"
     "job fails with the last error."},
    {"cluster", "retry_backoff_s", CFG_REAL, AT(cluster.retry_backoff_s), "1", 0, 3600, NULL,
     "Wait before a failed partition is claimed again: this, doubled per attempt\n"
     "(at most a minute)."},
    {"cluster", "inline_witness_max_kib", CFG_INT, AT(cluster.inline_witness_max_kib), "1024", 0, 1048576, NULL,
     "Largest inline witness (witness_b64) stored in the database, in KiB; a larger\n"
     "one must be a path on storage every node reads (checked at submit, and\n"
     "again by the node that proves it)."},
    {"cluster", "connections", CFG_INT, AT(cluster.connections), "4", 1, 256, NULL,
     "Database connections for API requests (the node's threads have their own)."},

    {"logging", "file", CFG_TEXT, AT(log_file), "", 0, 0, NULL,
     "The log file, appended to and reopened on SIGHUP (empty: standard error)."},
    {"logging", "level", CFG_CHOICE, AT(log_level), "info", 0, 0, CUZK_LOG_LEVEL_CHOICES,
     "The least important events written."},
};

enum { N_CONFIG_KEYS = sizeof config_keys / sizeof config_keys[0] };

static void *field(daemon_config *c, const config_key *k) { return (char *)c + k->offset; }
static const void *cfield(const daemon_config *c, const config_key *k) { return (const char *)c + k->offset; }

/* Names the configuration had before the engine said "device" for any
 * prover device: still read, as the new names (a NULL name: every key of
 * the section). */
static const struct {
    const char *section, *name, *new_section, *new_name;
} config_aliases[] = {
    {"gpus", NULL, "devices", NULL},
    {"devices", "gpu_workers_per_device", "devices", "workers_per_device"},
    {"devices", "sim_gpu_ms", "devices", "sim_device_ms"},
    {"scheduler", "max_gpu_queue_depth", "scheduler", "max_device_queue_depth"},
};

static const config_key *find_key(const char *section, const char *name)
{
    for (size_t a = 0; a < sizeof config_aliases / sizeof config_aliases[0]; a++) {
        if (strcmp(section, config_aliases[a].section))
            continue;
        if (!config_aliases[a].name)
            section = config_aliases[a].new_section;
        else if (!strcmp(name, config_aliases[a].name))
            section = config_aliases[a].new_section, name = config_aliases[a].new_name;
    }
    for (int i = 0; i < N_CONFIG_KEYS; i++)
        if (!strcmp(config_keys[i].section, section) && !strcmp(config_keys[i].name, name))
            return &config_keys[i];
    return NULL;
}

/* The index of v among "a|b|c", or -1. */
static int choice_index(const char *choices, const char *v)
{
    size_t n = strlen(v);
    int i = 0;
    for (const char *p = choices; *p; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (n && len == n && !strncmp(p, v, n))
            return i;
        p += len + (bar != NULL);
    }
    return -1;
}

/* Choice i of "a|b|c" into out ("" when there is none). */
static void choice_name(const char *choices, int i, char *out, size_t cap)
{
    const char *p = choices;
    for (; i > 0 && p; i--)
        if ((p = strchr(p, '|')))
            p++;
    snprintf(out, cap, "%.*s", p ? (int)strcspn(p, "|") : 0, p ? p : "");
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i]))
            return *out = 1, 0;
        if (!strcasecmp(v, no[i]))
            return *out = 0, 0;
    }
    return -1;
}

static int parse_real(const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (!*v || *end || errno || !isfinite(d) || d < lo || d > hi)
        return -1;
    *out = d;
    return 0;
}

static int replace_text(char **slot, const char *v)
{
    char *copy = strdup(v);
    if (!copy)
        return -1;
    free(*slot);
    *slot = copy;
    return 0;
}

static void list_clear(config_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

static int list_add(config_list *l, const char *v, int source)
{
    if (l->source != source) {
        list_clear(l);
        l->source = source;
    }
    char **grown = realloc(l->items, (size_t)(l->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    l->items = grown;
    if (!(l->items[l->n] = strdup(v)))
        return -1;
    l->n++;
    return 0;
}

static int set_value(daemon_config *c, const config_key *k, const char *v, int source, cuzk_error *err)
{
    void *f = field(c, k);
    double d;
    switch (k->type) {
    case CFG_TEXT:
        return replace_text(f, v) ? cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory") : CUZK_OK;
    case CFG_CHOICE:
    case CFG_ENUM: {
        int i = choice_index(k->choices, v);
        if (i < 0)
            return cuzk_fail(err, CUZK_ERR_ARG, "[%s] %s: '%s' is not one of %s", k->section, k->name, v,
                             k->choices);
        if (k->type == CFG_ENUM)
            return *(int *)f = i, CUZK_OK;
        return replace_text(f, v) ? cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory") : CUZK_OK;
    }
    case CFG_BOOL:
        if (parse_bool(v, f))
            return cuzk_fail(err, CUZK_ERR_ARG, "[%s] %s: '%s' is not true or false", k->section, k->name, v);
        return CUZK_OK;
    case CFG_INT:
    case CFG_U32:
        if (parse_real(v, k->min, k->max, &d) || d != floor(d))
            return cuzk_fail(err, CUZK_ERR_ARG, "[%s] %s: '%s' is not a whole number from %g to %g", k->section,
                             k->name, v, k->min, k->max);
        if (k->type == CFG_U32)
            *(uint32_t *)f = (uint32_t)d;
        else
            *(int *)f = (int)d;
        return CUZK_OK;
    case CFG_REAL:
    case CFG_GIB:
        if (parse_real(v, k->min, k->max, &d))
            return cuzk_fail(err, CUZK_ERR_ARG, "[%s] %s: '%s' is not a number from %g to %g", k->section,
                             k->name, v, k->min, k->max);
        if (k->type == CFG_GIB)
            *(uint64_t *)f = (uint64_t)(d * (double)(1ULL << 30));
        else
            *(double *)f = d;
        return CUZK_OK;
    case CFG_LIST:
        return list_add(f, v, source) ? cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory") : CUZK_OK;
    }
    return cuzk_fail(err, CUZK_ERR_ARG, "[%s] %s: unknown type", k->section, k->name);
}

int daemon_config_set(daemon_config *c, const char *section, const char *key, const char *value, int source,
                      cuzk_error *err)
{
    const config_key *k = find_key(section, key);
    if (!k)
        return cuzk_fail(err, CUZK_ERR_ARG, "[%s] %s: no such key (`cuzk daemon --print-config` lists them)",
                         section, key);
    return set_value(c, k, value, source, err);
}

int daemon_config_set_dotted(daemon_config *c, const char *assignment, cuzk_error *err)
{
    const char *dot = strchr(assignment, '.'), *eq = strchr(assignment, '=');
    if (!dot || !eq || dot > eq || dot == assignment || eq == dot + 1)
        return cuzk_fail(err, CUZK_ERR_ARG, "'%s' is not section.key=value", assignment);
    char section[64], key[64];
    if ((size_t)(dot - assignment) >= sizeof section || (size_t)(eq - dot - 1) >= sizeof key)
        return cuzk_fail(err, CUZK_ERR_ARG, "'%s': no section or key is that long", assignment);
    snprintf(section, sizeof section, "%.*s", (int)(dot - assignment), assignment);
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    return daemon_config_set(c, section, key, eq + 1, CONFIG_COMMAND_LINE, err);
}

int daemon_config_init(daemon_config *c, cuzk_error *err)
{
    memset(c, 0, sizeof *c);
    cuzk_engine_config_default(&c->engine);
    for (int i = 0; i < N_CONFIG_KEYS; i++) {
        const config_key *k = &config_keys[i];
        if (!k->def || (k->type == CFG_LIST && !*k->def))
            continue;
        int rc = set_value(c, k, k->def, CONFIG_DEFAULT, err);
        if (rc) {
            daemon_config_free(c);
            return rc;
        }
    }
    return CUZK_OK;
}

void daemon_config_free(daemon_config *c)
{
    for (int i = 0; i < N_CONFIG_KEYS; i++) {
        const config_key *k = &config_keys[i];
        if (k->type == CFG_LIST)
            list_clear(field(c, k));
        else if (k->type == CFG_TEXT || k->type == CFG_CHOICE)
            free(*(char **)field(c, k));
    }
    memset(c, 0, sizeof *c);
}

typedef struct {
    daemon_config *c;
    cuzk_error why; /* the first bad key's message; inih gives its line */
} load_ctx;

static int on_ini_key(void *user, const char *section, const char *name, const char *value)
{
    load_ctx *ctx = user;
    cuzk_error e = {0};
    if (daemon_config_set(ctx->c, section, name, value, CONFIG_FILE, &e) == CUZK_OK)
        return 1;
    if (!ctx->why.code)
        ctx->why = e;
    return 0;
}

int daemon_config_load(daemon_config *c, const char *path, cuzk_error *err)
{
    load_ctx ctx = {c, {0}};
    /* a directory would read as an empty file, a FIFO would block */
    FILE *f = cuzk_fopen_regular(path, NULL, err);
    if (!f)
        return err ? err->code : CUZK_ERR_IO;
    int line = ini_parse_file(f, on_ini_key, &ctx);
    fclose(f);
    if (line == -2)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    if (line > 0 && ctx.why.code)
        return cuzk_fail(err, ctx.why.code, "%s:%d: %s", path, line, ctx.why.msg);
    if (line > 0)
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s:%d: neither [section] nor key = value (or longer than 200 characters)", path, line);
    return CUZK_OK;
}

static void print_comment(FILE *f, const char *text)
{
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        fprintf(f, "# %.*s\n", (int)len, p);
        p += len + (p[len] == '\n');
    }
}

/* The value at v as the file spells it (lists: nothing). */
static void format_value(const config_key *k, const void *v, char *out, size_t cap)
{
    *out = 0;
    switch (k->type) {
    case CFG_TEXT:
    case CFG_CHOICE:
        snprintf(out, cap, "%s", *(char *const *)v);
        break;
    case CFG_ENUM:
        choice_name(k->choices, *(const int *)v, out, cap);
        break;
    case CFG_BOOL:
        snprintf(out, cap, "%s", *(const int *)v ? "true" : "false");
        break;
    case CFG_INT:
        snprintf(out, cap, "%d", *(const int *)v);
        break;
    case CFG_U32:
        snprintf(out, cap, "%u", *(const uint32_t *)v);
        break;
    case CFG_REAL:
        snprintf(out, cap, "%g", *(const double *)v);
        break;
    case CFG_GIB:
        snprintf(out, cap, "%g", (double)*(const uint64_t *)v / (double)(1ULL << 30));
        break;
    case CFG_LIST:
        break;
    }
}

/* k's default as the file spells it: the table's, or the engine's. */
static void format_default(const config_key *k, char *out, size_t cap)
{
    if (k->def) {
        snprintf(out, cap, "%s", *k->def ? k->def : "none");
        return;
    }
    daemon_config d;
    cuzk_engine_config_default(&d.engine);
    format_value(k, cfield(&d, k), out, cap);
}

static void print_key(const daemon_config *c, const config_key *k, FILE *f)
{
    const void *v = cfield(c, k);
    char text[512];
    print_comment(f, k->help);
    if (k->type == CFG_CHOICE || k->type == CFG_ENUM)
        fprintf(f, "# One of %s.", k->choices);
    else
        fprintf(f, "#");
    format_default(k, text, sizeof text);
    fprintf(f, " Default: %s.\n", text);
    if (k->type == CFG_LIST) {
        for (int i = 0; i < ((const config_list *)v)->n; i++)
            fprintf(f, "%s = %s\n", k->name, ((const config_list *)v)->items[i]);
        return;
    }
    format_value(k, v, text, sizeof text);
    fprintf(f, "%s =%s%s\n", k->name, *text ? " " : "", text);
}

void daemon_config_print(const daemon_config *c, FILE *f)
{
    fprintf(f, "# cuzk daemon configuration: `cuzk daemon --config FILE`.\n"
               "# Every key is listed with its meaning and default. Command-line flags\n"
               "# override the file: --listen, --token-file, --backend, --log-file and\n"
               "# --set section.key=value for any key. Comments start with # or ;.\n"
               "# Generated by `cuzk daemon --print-config`.\n");
    for (size_t s = 0; s < sizeof config_sections / sizeof config_sections[0]; s++) {
        fprintf(f, "\n[%s]\n", config_sections[s].name);
        print_comment(f, config_sections[s].help);
        for (int i = 0; i < N_CONFIG_KEYS; i++)
            if (!strcmp(config_keys[i].section, config_sections[s].name)) {
                fputc('\n', f);
                print_key(c, &config_keys[i], f);
            }
    }
}

void daemon_config_engine(const daemon_config *c, cuzk_engine_config *o)
{
    *o = c->engine;
    if (c->synthesis_workers > 0)
        o->synthesis_workers = c->synthesis_workers;
    o->pce_cache_dir = *c->pce_cache_dir ? c->pce_cache_dir : NULL;
    o->wasm_cache_dir = *c->wasm_cache_dir ? c->wasm_cache_dir : NULL;
    o->timeline_path = *c->timeline ? c->timeline : NULL;
}
