/* POST /v1/jobs, GET /v1/jobs/{id}?wait_ms=N, DELETE /v1/jobs/{id}.
 *
 * A job request:
 *   {"circuit": "porep", "priority": "normal", "request_id": "sector-42",
 *    "partitions": [{"witness": "/abs/path.wtns"} | {"witness_b64": "..."} |
 *                   {"input": {"a": "3", ...}}]}
 * priority (critical, high, normal, low) and request_id are optional; a
 * request_id makes the submit idempotent (the engine's rule). */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/routes.h"
#include "codec/json_io.h"
#include "groth16/wtns.h"

enum { ROUTES_MAX_PARTITIONS = 10000, ROUTES_MAX_REQUEST_ID = 256 };

/* What a job request decodes to; the engine copies what it keeps. */
typedef struct {
    cuzk_job_request req;
    cuzk_partition_input *parts;
    cuzk_wtns *inline_witnesses; /* one per partition, used where witness_b64 was given */
    char **inputs;               /* one per partition: the input's JSON text where input was given */
} submission;

static void submission_free(submission *s)
{
    for (uint32_t i = 0; s->inline_witnesses && i < s->req.n_partitions; i++)
        cuzk_wtns_free(&s->inline_witnesses[i]);
    for (uint32_t i = 0; s->inputs && i < s->req.n_partitions; i++)
        free(s->inputs[i]);
    free(s->inputs);
    free(s->inline_witnesses);
    free(s->parts);
}

/* Standard base64 (with padding) into a fresh buffer; -1 when it is not. */
static int base64_decode(const char *text, size_t len, unsigned char **out, size_t *out_len)
{
    if (!len || len % 4 || len > (size_t)INT32_MAX)
        return -1;
    unsigned char *buf = malloc(len / 4 * 3);
    if (!buf)
        return -1;
    int n = EVP_DecodeBlock(buf, (const unsigned char *)text, (int)len);
    if (n < 0) {
        free(buf);
        return -1;
    }
    /* EVP_DecodeBlock counts the padding as zero bytes */
    size_t pad = (text[len - 1] == '=') + (text[len - 2] == '=');
    *out = buf;
    *out_len = (size_t)n - pad;
    return 0;
}

static int parse_inline_witness(const json_t *b64, uint32_t index, cuzk_wtns *w, http_response *rs)
{
    unsigned char *bytes;
    size_t n;
    if (base64_decode(json_string_value(b64), json_string_length(b64), &bytes, &n)) {
        http_respond_error(rs, 400, "partition %u: witness_b64 is not base64 (RFC 4648, padded)", index);
        return -1;
    }
    char name[64];
    snprintf(name, sizeof name, "partition %u: witness_b64", index);
    cuzk_error err = {0};
    int rc = cuzk_wtns_read_memory(w, bytes, n, name, &err);
    free(bytes);
    if (rc)
        http_respond_error(rs, http_status_for(rc), "%s", err.msg);
    return rc ? -1 : 0;
}

/* The circuit's input, handed to the engine as JSON text. */
static int parse_input(const json_t *input, uint32_t i, submission *s, http_response *rs)
{
    if (!json_is_object(input)) {
        http_respond_error(rs, 400, "partition %u: input must be an object of the circuit's input signals", i);
        return -1;
    }
    if (!(s->inputs[i] = json_dumps(input, JSON_COMPACT))) {
        http_respond_error(rs, 503, "out of memory");
        return -1;
    }
    s->parts[i].input_json = s->inputs[i];
    return 0;
}

static int parse_partition(const json_t *p, uint32_t i, submission *s, http_response *rs)
{
    const json_t *path = json_object_get(p, "witness"), *b64 = json_object_get(p, "witness_b64"),
                 *input = json_object_get(p, "input");
    if (!json_is_object(p) || (path != NULL) + (b64 != NULL) + (input != NULL) != 1) {
        http_respond_error(rs, 400,
                           "partition %u must be an object with one of \"witness\", \"witness_b64\" or \"input\"", i);
        return -1;
    }
    if (input)
        return parse_input(input, i, s, rs);
    if (b64) {
        if (!json_is_string(b64)) {
            http_respond_error(rs, 400, "partition %u: witness_b64 must be a string", i);
            return -1;
        }
        s->parts[i].witness = &s->inline_witnesses[i];
        return parse_inline_witness(b64, i, &s->inline_witnesses[i], rs);
    }
    if (!json_is_string(path) || json_string_value(path)[0] != '/') {
        http_respond_error(rs, 400,
                           "partition %u: witness must be an absolute path (the daemon does not share the "
                           "client's working directory)",
                           i);
        return -1;
    }
    s->parts[i].witness_path = json_string_value(path);
    return 0;
}

/* Fills s from the request body (whose strings s points into). */
static int parse_submission(const json_t *root, submission *s, http_response *rs)
{
    const json_t *circuit = json_object_get(root, "circuit"), *priority = json_object_get(root, "priority"),
                 *request_id = json_object_get(root, "request_id"), *parts = json_object_get(root, "partitions");
    memset(s, 0, sizeof *s);
    s->req.priority = CUZK_PRIORITY_NORMAL;
    if (!json_is_string(circuit) || !json_string_length(circuit))
        return http_respond_error(rs, 400, "\"circuit\" must be the id of a registered circuit"), -1;
    s->req.circuit = json_string_value(circuit);
    if (priority && (!json_is_string(priority) || cuzk_priority_parse(json_string_value(priority), &s->req.priority)))
        return http_respond_error(rs, 400, "\"priority\" must be one of critical, high, normal, low"), -1;
    if (request_id && (!json_is_string(request_id) || !json_string_length(request_id) ||
                       json_string_length(request_id) > ROUTES_MAX_REQUEST_ID))
        return http_respond_error(rs, 400, "\"request_id\" must be a string of 1 to %d bytes", ROUTES_MAX_REQUEST_ID),
               -1;
    s->req.request_id = request_id ? json_string_value(request_id) : NULL;
    size_t n = json_array_size(parts);
    if (!json_is_array(parts) || n == 0 || n > ROUTES_MAX_PARTITIONS)
        return http_respond_error(rs, 400, "\"partitions\" must be an array of 1 to %d partitions",
                                  ROUTES_MAX_PARTITIONS),
               -1;
    s->req.n_partitions = (uint32_t)n;
    s->parts = calloc(n, sizeof *s->parts);
    s->inline_witnesses = calloc(n, sizeof *s->inline_witnesses);
    s->inputs = calloc(n, sizeof *s->inputs);
    if (!s->parts || !s->inline_witnesses || !s->inputs)
        return http_respond_error(rs, 503, "out of memory"), -1;
    s->req.partitions = s->parts;
    for (uint32_t i = 0; i < n; i++)
        if (parse_partition(json_array_get(parts, i), i, s, rs))
            return -1;
    return 0;
}

static void submit(routes_context *a, const submission *s, http_response *rs)
{
    cuzk_circuit_info info;
    if (cuzk_engine_circuit_info(a->engine, s->req.circuit, &info)) {
        http_respond_error(rs, 404, "unknown circuit '%s' (register it with POST /v1/circuits)", s->req.circuit);
        return;
    }
    uint64_t id;
    cuzk_error err = {0};
    int rc = atomic_load(&a->accepting) ? a->jobs->ops->submit(a->jobs, &s->req, &id, &err) : CUZK_ERR_CANCELLED;
    if (rc == CUZK_ERR_CANCELLED && !atomic_load(&a->accepting))
        http_respond_error(rs, 503, "the daemon is shutting down: it takes no new jobs");
    else if (rc)
        http_respond_error(rs, http_status_for(rc), "%s", err.msg);
    else
        http_respond_json(rs, 202,
                          json_pack("{s:I, s:s, s:s, s:i, s:s}", "job_id", (json_int_t)id, "state", "queued",
                                    "circuit", s->req.circuit, "partitions", (int)s->req.n_partitions, "priority",
                                    cuzk_priority_name(s->req.priority)));
}

void route_submit_job(routes_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    (void)arg;
    json_t *root = routes_body_object(rq, rs);
    if (!root)
        return;
    submission s;
    if (!parse_submission(root, &s, rs))
        submit(a, &s, rs);
    submission_free(&s);
    json_decref(root);
}

/* A value of json_io's snarkjs writers, as a JSON value. */
static json_t *snarkjs_json(char *text)
{
    json_t *v = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return v;
}

/* The proofs and public signals of a finished job (of a failed one: null
 * for each partition that was not proved); -1 when one cannot be written
 * (the proof is then not what it should be). */
static int add_proofs(json_t *o, const cuzk_job_result *r)
{
    json_t *proofs = json_array(), *publics = json_array();
    json_object_set_new(o, "proofs", proofs);
    json_object_set_new(o, "public_signals", publics);
    for (uint32_t i = 0; i < r->n_partitions; i++) {
        if (!r->proved[i]) {
            if (json_array_append_new(proofs, json_null()) | json_array_append_new(publics, json_null()))
                return -1;
            continue;
        }
        cuzk_error err = {0};
        json_t *proof = snarkjs_json(cuzk_proof_to_json(&r->proofs[i], &err));
        json_t *pub = snarkjs_json(cuzk_public_to_json(
            (const uint64_t(*)[4])r->publics + (size_t)i * r->n_public, r->n_public, &err));
        if (json_array_append_new(proofs, proof) | json_array_append_new(publics, pub))
            return -1;
    }
    return 0;
}

static json_t *job_json(const cuzk_job_result *r)
{
    json_t *o = json_pack("{s:I, s:s, s:i, s:i, s:b, s:{s:f, s:f, s:f, s:f, s:f}}", "job_id", (json_int_t)r->id,
                          "state", cuzk_job_state_name(r->state), "partitions", (int)r->n_partitions,
                          "partitions_done", (int)r->partitions_done, "verified", r->verified, "timings", "queue_s",
                          r->queue_s, "synthesis_s", r->synth_s, "witness_s", r->witness_s, "gpu_s", r->device_s,
                          "total_s", r->total_s);
    if (o && r->error[0])
        json_object_set_new(o, "error", json_string(r->error));
    /* a failed job's proofs where the job API kept them (the cluster's does not) */
    int has_proofs = r->state == CUZK_JOB_DONE || (r->state == CUZK_JOB_FAILED && r->proofs);
    if (o && has_proofs && (!r->proofs || !r->publics || !r->proved || add_proofs(o, r))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int parse_job_id(const char *arg, uint64_t *id, http_response *rs)
{
    char *end;
    errno = 0;
    unsigned long long v = arg && *arg != '-' ? strtoull(arg, &end, 10) : 0;
    if (!arg || *arg == '-' || *end || errno || !v) {
        http_respond_error(rs, 400, "a job id is a positive whole number, not '%s'", arg ? arg : "");
        return -1;
    }
    *id = v;
    return 0;
}

/* Responds with the job's state after waiting up to wait_s. */
static void respond_job(routes_context *a, uint64_t id, double wait_s, http_response *rs)
{
    cuzk_job_result r;
    cuzk_error err = {0};
    int rc = a->jobs->ops->wait(a->jobs, id, wait_s, &r, &err);
    if (rc == CUZK_ERR_ARG) {
        http_respond_error(rs, 404, "unknown job %llu (never submitted, or its result has expired)",
                           (unsigned long long)id);
        return;
    }
    if (rc) {
        http_respond_error(rs, http_status_for(rc), "job %llu: %s", (unsigned long long)id, err.msg);
        return;
    }
    json_t *o = job_json(&r);
    cuzk_job_result_free(&r);
    if (o)
        http_respond_json(rs, 200, o);
    else
        http_respond_error(rs, 500, "job %llu: its proofs could not be written as JSON", (unsigned long long)id);
}

void route_get_job(routes_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    uint64_t id;
    if (parse_job_id(arg, &id, rs))
        return;
    const char *wait = http_query(rq, "wait_ms");
    double wait_ms = 0;
    if (wait) {
        char *end;
        wait_ms = strtod(wait, &end);
        if (!*wait || *end || !(wait_ms >= 0)) {
            http_respond_error(rs, 400, "wait_ms must be a number of milliseconds, not '%s'", wait);
            return;
        }
    }
    double wait_s = wait_ms / 1000 < a->max_wait_s ? wait_ms / 1000 : a->max_wait_s;
    respond_job(a, id, wait_s, rs);
}

void route_cancel_job(routes_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    (void)rq;
    uint64_t id;
    if (parse_job_id(arg, &id, rs))
        return;
    cuzk_error err = {0};
    int rc = a->jobs->ops->cancel(a->jobs, id, &err);
    if (rc) {
        http_respond_error(rs, rc == CUZK_ERR_ARG ? 404 : http_status_for(rc), "%s", err.msg);
        return;
    }
    respond_job(a, id, 0, rs);
}
