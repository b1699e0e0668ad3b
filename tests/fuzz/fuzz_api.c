/* The daemon's request handling (routes_handle, src/daemon/routes*.c) on parsed
 * requests, without sockets, over one engine on the CPU backend that lives
 * as long as the process, with circuit "mul" (tests/fixtures/bn128)
 * registered.
 *
 * Input: a first line "METHOD /path?k=v&k=v", then the body. The daemon
 * opens whatever absolute paths a body names, which is no business of a
 * fuzzer's (a FIFO or /dev/stdin would hang it): a string "/FUZZ/name"
 * stands for tests/fixtures/name and is rewritten to its absolute path,
 * and an input naming any other absolute path, or "..", is skipped.
 *
 * Checked: every status is 100-599 and every error body is a JSON object
 * with an "error" string (api.h's promise). Jobs are drained after each
 * input, so none piles up. */
#define _GNU_SOURCE
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/routes.h"
#include "backend/backend.h"
#include "input.h"

enum { MAX_QUERY = 8 };
static const char fuzz_prefix[] = "/FUZZ/";

static cuzk_engine *engine;
static routes_context api;
static char fixtures[PATH_MAX]; /* tests/fixtures, absolute */

typedef struct {
    const char *key[MAX_QUERY], *value[MAX_QUERY];
    int n;
} query_table;

static const char *query_lookup(const void *ctx, const char *key)
{
    const query_table *q = ctx;
    for (int i = 0; i < q->n; i++)
        if (!strcmp(q->key[i], key))
            return q->value[i];
    return NULL;
}

/* Splits "k=v&k=v" in place into q. */
static void query_parse(char *s, query_table *q)
{
    q->n = 0;
    for (char *pair = strsep(&s, "&"); pair && q->n < MAX_QUERY; pair = strsep(&s, "&")) {
        char *eq = strchr(pair, '=');
        if (eq)
            *eq++ = 0;
        q->key[q->n] = pair;
        q->value[q->n++] = eq ? eq : "";
    }
}

static void respond(const char *method, const char *path, const char *body, size_t len, const query_table *q,
                    http_response *rs)
{
    http_request rq = {method, path, body, len, query_lookup, q};
    routes_handle(&api, &rq, rs);
}

static int setup(void)
{
    const char *dir = getenv("CUZK_FUZZ_FIXTURES");
    if (!realpath(dir ? dir : "tests/fixtures", fixtures))
        return -1;
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 1;
    cfg.budget_bytes = 256ULL << 20;
    cuzk_error err = {0};
    if (!(engine = cuzk_engine_create(&cfg, backend_cpu_create(1), &err)))
        return -1;
    routes_init(&api, engine, "cpu", 0.05, 64);
    char body[3 * PATH_MAX];
    snprintf(body, sizeof body, "{\"id\": \"mul\", \"zkey\": \"%s/bn128/mul.zkey\", \"r1cs\": \"%s/bn128/mul.r1cs\"}",
             fixtures, fixtures);
    query_table none = {.n = 0};
    http_response rs = {0};
    respond("POST", "/v1/circuits", body, strlen(body), &none, &rs);
    int ok = rs.status == 200 || rs.status == 201;
    http_response_free(&rs);
    return ok ? 0 : -1;
}

/* Rewrites "/FUZZ/" strings in v (recursively) to fixture paths. 1 when it
 * rewrote any, 0 when none, -1 for another absolute path or a "..". */
static int paths_rewrite(json_t *v)
{
    int any = 0, rc;
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (s[0] != '/')
            return 0;
        if (strncmp(s, fuzz_prefix, sizeof fuzz_prefix - 1) || strstr(s, ".."))
            return -1;
        char full[2 * PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", fixtures, s + sizeof fuzz_prefix - 1);
        return json_string_set(v, full) ? -1 : 1;
    }
    if (json_is_object(v)) {
        const char *k;
        json_t *item;
        json_object_foreach(v, k, item) {
            if ((rc = paths_rewrite(item)) < 0)
                return rc;
            any |= rc;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) {
            if ((rc = paths_rewrite(item)) < 0)
                return rc;
            any |= rc;
        }
    }
    return any;
}

static void response_check(const http_response *rs)
{
    if (rs->status < 100 || rs->status > 599 || !rs->body)
        abort();
    if (rs->status < 400)
        return;
    json_t *j = json_loads(rs->body, 0, NULL);
    if (!json_is_string(json_object_get(j, "error")))
        abort();
    json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!engine && setup() != 0) {
        fprintf(stderr, "fuzz_api: no engine with circuit \"mul\" (run from the repository root, "
                        "or set CUZK_FUZZ_FIXTURES)\n");
        abort();
    }
    const uint8_t *nl = memchr(data, '\n', size);
    size_t line_len = nl ? (size_t)(nl - data) : size;
    char *line = fuzz_strndup(data, line_len);
    if (!line || strlen(line) != line_len) { /* a NUL in the request line */
        free(line);
        return 0;
    }
    const char *body = nl ? (const char *)nl + 1 : "";
    size_t body_len = nl ? size - line_len - 1 : 0;
    char *rewritten = NULL;
    json_t *root = json_loadb(body, body_len, JSON_REJECT_DUPLICATES, NULL);
    int paths = root ? paths_rewrite(root) : 0;
    if (paths > 0 && (rewritten = json_dumps(root, JSON_COMPACT))) {
        body = rewritten;
        body_len = strlen(rewritten);
    }
    json_decref(root);
    if (paths >= 0 && (paths == 0 || rewritten)) {
        char *rest = line, *method = strsep(&rest, " "), *path = strsep(&rest, " ");
        char *query = path;
        path = path ? strsep(&query, "?") : "";
        query_table q = {.n = 0};
        if (query)
            query_parse(query, &q);
        http_response rs = {0};
        respond(method, path, body, body_len, &q, &rs);
        response_check(&rs);
        http_response_free(&rs);
        if (cuzk_engine_drain(engine, 30) != 0) {
            cuzk_engine_cancel_all(engine);
            (void)cuzk_engine_drain(engine, -1);
        }
    }
    free(rewritten);
    free(line);
    return 0;
}
