#include "cluster/queue.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/proof_words.h"
#include "util/err.h"

/* A partition's proof and public signals in the results table: codec/proof_words.h. */

static char *u64_text(char buf[24], uint64_t v)
{
    snprintf(buf, 24, "%" PRIu64, v);
    return buf;
}

static char *int_text(char buf[24], long long v)
{
    snprintf(buf, 24, "%lld", v);
    return buf;
}

/* ---------- submit ---------- */

static int insert_partition(pg_conn *c, const char *job, uint32_t i, const cuzk_job_request *req, const char *key_hash,
                            cuzk_error *err)
{
    char idx[24], prio[24], curve[24];
    const cuzk_partition_input *in = &req->partitions[i];
    const char *v[] = {job,
                       int_text(idx, i),
                       req->circuit,
                       int_text(prio, req->priority),
                       in->witness_path,
                       in->witness ? (const char *)in->witness->values : NULL,
                       in->witness ? int_text(curve, in->witness->curve) : NULL,
                       in->input_json,
                       key_hash};
    int len[] = {0, 0, 0, 0, 0, in->witness ? (int)in->witness->n_witness * 32 : 0, 0, 0, 0};
    int bin[] = {0, 0, 0, 0, 0, 1, 0, 0, 0};
    return pg_exec(c,
                   "INSERT INTO cuzk_partitions (job_id, idx, circuit, priority, witness_path, witness, witness_curve,"
                   " input_json, key_hash) VALUES ($1::bigint, $2::int, $3, $4::smallint, $5, $6::bytea, $7::smallint,"
                   " $8, $9)",
                   9, v, len, bin, NULL, err);
}

/* Inside the submit's transaction: the new job's id, or 0 when its
 * request_id is taken (*job_id then the holder's, or a conflict). */
static int insert_job(pg_conn *c, const cuzk_job_request *req, const char *node, const char *key_hash,
                      uint64_t *job_id, cuzk_error *err)
{
    char hash[24], prio[24], n[24];
    int64_t signed_hash = (int64_t)cuzk_job_request_hash(req); /* bigint holds the bits */
    const char *v[] = {req->request_id, int_text(hash, signed_hash), req->circuit, int_text(prio, req->priority),
                       int_text(n, req->n_partitions), node, key_hash};
    long long id = 0;
    int rc = pg_exec_int(c,
                         "INSERT INTO cuzk_jobs (request_id, payload_hash, circuit, priority, n_partitions, submitted_by,"
                         " key_hash) VALUES ($1, $2::bigint, $3, $4::smallint, $5::int, $6, $7)"
                         " ON CONFLICT (request_id) DO NOTHING RETURNING id",
                         7, v, &id, err);
    if (rc)
        return rc;
    *job_id = (uint64_t)id;
    PGresult *r;
    if (*job_id)
        return CUZK_OK;
    /* the request id's job (committed: the insert waited for it) */
    rc = pg_exec(c, "SELECT id, payload_hash FROM cuzk_jobs WHERE request_id = $1", 1, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    if (!cuzk_pq.PQntuples(r))
        rc = cuzk_fail(err, CUZK_ERR_IO, "request id '%s': neither inserted nor found", req->request_id);
    else if (strtoll(cuzk_pq.PQgetvalue(r, 0, 1), NULL, 10) != signed_hash)
        rc = cuzk_fail(err, CUZK_ERR_CONFLICT, "request id '%s' was already used for a different job (%s)",
                       req->request_id, cuzk_pq.PQgetvalue(r, 0, 0));
    else
        *job_id = strtoull(cuzk_pq.PQgetvalue(r, 0, 0), NULL, 10);
    cuzk_pq.PQclear(r);
    return rc ? rc : -1; /* -1: an earlier job, nothing to add */
}

static int submit_in_tx(pg_conn *c, const cuzk_job_request *req, const char *node, const char *key_hash,
                        uint64_t *job_id, cuzk_error *err)
{
    int rc = insert_job(c, req, node, key_hash, job_id, err);
    if (rc)
        return rc;
    char job[24];
    u64_text(job, *job_id);
    for (uint32_t i = 0; i < req->n_partitions && !rc; i++)
        rc = insert_partition(c, job, i, req, key_hash, err);
    if (!rc)
        rc = pg_exec(c, "SELECT pg_notify('cuzk_work', $1)", 1, (const char *[]){job}, NULL, NULL, NULL, err);
    return rc;
}

int queue_submit(pg_conn *c, const cuzk_job_request *req, const char *node, const char *key_hash, uint64_t *job_id,
                 cuzk_error *err)
{
    int rc = pg_script(c, "BEGIN", err);
    if (rc)
        return rc;
    rc = submit_in_tx(c, req, node, key_hash, job_id, err);
    cuzk_error ignored = {0};
    if (rc) {
        pg_script(c, "ROLLBACK", &ignored);
        return rc == -1 ? CUZK_OK : rc;
    }
    return pg_script(c, "COMMIT", err);
}

/* ---------- claims ---------- */

void claimed_partition_free(claimed_partition *p)
{
    free(p->witness_path);
    free(p->input_json);
    if (p->has_witness)
        cuzk_wtns_free(&p->witness);
    memset(p, 0, sizeof *p);
}

char *queue_circuit_array(const char *const *ids, size_t n)
{
    static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-/";
    size_t cap = 3;
    for (size_t i = 0; i < n; i++)
        cap += strlen(ids[i]) + 3;
    char *out = malloc(cap), *at = out;
    if (!out)
        return NULL;
    *at++ = '{';
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(ids[i]);
        if (!len || strspn(ids[i], ok) != len)
            continue;
        at += sprintf(at, "%s\"%s\"", at[-1] == '{' ? "" : ",", ids[i]);
    }
    strcpy(at, "}");
    return out;
}

/* Row i of a claim's answer into p. */
static int take_claimed(const PGresult *r, int i, claimed_partition *p, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    p->ref.job_id = strtoull(cuzk_pq.PQgetvalue(r, i, 0), NULL, 10);
    p->ref.idx = (uint32_t)atoi(cuzk_pq.PQgetvalue(r, i, 1));
    p->ref.attempt = atoi(cuzk_pq.PQgetvalue(r, i, 2));
    snprintf(p->circuit, sizeof p->circuit, "%s", cuzk_pq.PQgetvalue(r, i, 3));
    p->priority = (cuzk_priority)atoi(cuzk_pq.PQgetvalue(r, i, 4));
    p->latency_s = atof(cuzk_pq.PQgetvalue(r, i, 8));
    if (!cuzk_pq.PQgetisnull(r, i, 9))
        return (p->input_json = strdup(cuzk_pq.PQgetvalue(r, i, 9))) ? CUZK_OK : cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    if (!cuzk_pq.PQgetisnull(r, i, 5))
        return (p->witness_path = strdup(cuzk_pq.PQgetvalue(r, i, 5))) ? CUZK_OK : cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    size_t len;
    unsigned char *bytes = pg_bytea(r, i, 6, &len);
    if (!bytes)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    /* the engine's witnesses are 64-byte aligned */
    p->witness.values = aligned_alloc(64, (len + 63) / 64 * 64);
    if (p->witness.values)
        memcpy(p->witness.values, bytes, len);
    free(bytes);
    if (!p->witness.values)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    p->witness.curve = (cuzk_curve_id)atoi(cuzk_pq.PQgetvalue(r, i, 7));
    p->witness.n_witness = (uint32_t)(len / 32);
    p->has_witness = 1;
    return CUZK_OK;
}

int queue_claim(pg_conn *c, const char *node, const char *circuits, int max, double claim_max_s,
                claimed_partition *out, int *n, cuzk_error *err)
{
    char limit[24], deadline[32];
    snprintf(deadline, sizeof deadline, "%.6f", claim_max_s);
    const char *v[] = {node, circuits, int_text(limit, max), deadline};
    PGresult *r;
    *n = 0;
    int rc = pg_exec(c,
                     "WITH c AS ("
                     "  SELECT job_id, idx FROM cuzk_partitions"
                     "  WHERE state = 'queued' AND not_before <= now() AND " QUEUE_CIRCUIT_KEY " = ANY($2::text[])"
                     "  ORDER BY priority, job_id, idx LIMIT $3::int FOR UPDATE SKIP LOCKED),"
                     " u AS ("
                     "  UPDATE cuzk_partitions p SET state = 'claimed', owner = $1, attempts = p.attempts + 1,"
                     "    claimed_at = now(), claim_deadline = CASE WHEN $4::float8 > 0"
                     "      THEN now() + $4::float8 * interval '1 second' END"
                     "  FROM c WHERE p.job_id = c.job_id AND p.idx = c.idx"
                     "  RETURNING p.job_id, p.idx, p.attempts, p.circuit, p.priority, p.witness_path, p.witness,"
                     "    p.witness_curve, extract(epoch FROM now() - greatest(p.queued_at, p.not_before)) AS latency,"
                     "    p.input_json),"
                     " j AS ("
                     "  UPDATE cuzk_jobs SET first_claim_at = now()"
                     "  WHERE id IN (SELECT job_id FROM u) AND first_claim_at IS NULL RETURNING id)"
                     "SELECT u.*, (SELECT count(*) FROM j) FROM u ORDER BY u.priority, u.job_id, u.idx",
                     4, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    int rows = cuzk_pq.PQntuples(r);
    for (int i = 0; i < rows && i < max; i++) {
        if ((rc = take_claimed(r, i, &out[*n], err)))
            break;
        (*n)++;
    }
    cuzk_pq.PQclear(r);
    return rc;
}

int queue_next_due(pg_conn *c, const char *circuits, double *in_s, cuzk_error *err)
{
    PGresult *r;
    const char *v[] = {circuits};
    int rc = pg_exec(c,
                     "SELECT extract(epoch FROM min(not_before) - now()) FROM cuzk_partitions"
                     " WHERE state = 'queued' AND " QUEUE_CIRCUIT_KEY " = ANY($1::text[])",
                     1, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    *in_s = cuzk_pq.PQgetisnull(r, 0, 0) ? -1 : atof(cuzk_pq.PQgetvalue(r, 0, 0));
    if (*in_s < 0 && !cuzk_pq.PQgetisnull(r, 0, 0))
        *in_s = 0;
    cuzk_pq.PQclear(r);
    return CUZK_OK;
}

/* ---------- results ---------- */

/* The fence's three parameters, $1 job, $2 idx, $3 owner, $4 attempt. */
typedef struct {
    char job[24], idx[24], attempt[24];
} fence_text;

static void fence_fill(fence_text *f, const claim_ref *ref)
{
    u64_text(f->job, ref->job_id);
    int_text(f->idx, ref->idx);
    int_text(f->attempt, ref->attempt);
}

int queue_record_proof(pg_conn *c, const char *node, const claim_ref *ref, const partition_result *res,
                       int *recorded, int *job_done, cuzk_error *err)
{
    unsigned char proof[CUZK_PROOF_BYTES];
    cuzk_proof_to_words(res->proof, proof);
    size_t npub = (size_t)res->n_public * 4;
    unsigned char *pub = malloc(npub * 8 + 1);
    if (!pub)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    cuzk_words_to_bytes((const uint64_t *)res->publics, npub, pub);
    fence_text f;
    fence_fill(&f, ref);
    char synth[32], gpu[32];
    snprintf(synth, sizeof synth, "%.9g", res->synth_s);
    snprintf(gpu, sizeof gpu, "%.9g", res->device_s);
    const char *v[] = {f.job, f.idx, node, f.attempt, (const char *)proof, (const char *)pub, synth, gpu,
                       res->verified ? "true" : "false"};
    int len[] = {0, 0, 0, 0, CUZK_PROOF_BYTES, (int)npub * 8, 0, 0, 0};
    int bin[] = {0, 0, 0, 0, 1, 1, 0, 0, 0};
    PGresult *r;
    int rc = pg_exec(c,
                     "WITH p AS ("
                     "  UPDATE cuzk_partitions SET state = 'done', owner = NULL"
                     "  WHERE job_id = $1::bigint AND idx = $2::int AND owner = $3 AND attempts = $4::int"
                     "    AND state = 'claimed' RETURNING job_id, idx),"
                     " r AS ("
                     "  INSERT INTO cuzk_results (job_id, idx, proof, publics, node, attempt, synth_s, gpu_s, verified)"
                     "  SELECT job_id, idx, $5::bytea, $6::bytea, $3, $4::int, $7::float8, $8::float8, $9::boolean"
                     "  FROM p RETURNING job_id),"
                     " j AS ("
                     "  UPDATE cuzk_jobs SET parts_done = parts_done + 1,"
                     "    state = CASE WHEN state = 'queued' AND parts_done + 1 = n_partitions THEN 'done' ELSE state END,"
                     "    ended_at = CASE WHEN state = 'queued' AND parts_done + 1 = n_partitions THEN now()"
                     "      ELSE ended_at END"
                     "  WHERE id IN (SELECT job_id FROM r) RETURNING state, ended_at = now() AS ended)"
                     "SELECT (SELECT count(*) FROM r), coalesce((SELECT ended FROM j), false)",
                     9, v, len, bin, &r, err);
    free(pub);
    if (rc)
        return rc;
    *recorded = atoi(cuzk_pq.PQgetvalue(r, 0, 0)) > 0;
    *job_done = cuzk_pq.PQgetvalue(r, 0, 1)[0] == 't';
    cuzk_pq.PQclear(r);
    return *job_done ? queue_notify(c, "cuzk_job_end", ref->job_id, err) : CUZK_OK;
}

int queue_notify(pg_conn *c, const char *channel, uint64_t job_id, cuzk_error *err)
{
    char job[24];
    const char *v[] = {channel, u64_text(job, job_id)};
    return pg_exec(c, "SELECT pg_notify($1, $2)", 2, v, NULL, NULL, NULL, err);
}

/* Runs a fenced update of one claim (sql: $1-$4 the fence, then extra
 * parameters); *state (may be NULL) gets the partition's new state, ""
 * when the claim no longer held. */
static int fenced(pg_conn *c, const char *sql, const char *node, const claim_ref *ref, int n_extra,
                  const char *const *extra, char state[16], cuzk_error *err)
{
    fence_text f;
    fence_fill(&f, ref);
    const char *v[8] = {f.job, f.idx, node, f.attempt};
    for (int i = 0; i < n_extra; i++)
        v[4 + i] = extra[i];
    PGresult *r;
    int rc = pg_exec(c, sql, 4 + n_extra, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    if (state)
        snprintf(state, 16, "%s", cuzk_pq.PQntuples(r) ? cuzk_pq.PQgetvalue(r, 0, 0) : "");
    cuzk_pq.PQclear(r);
    return CUZK_OK;
}

#define FENCE " WHERE job_id = $1::bigint AND idx = $2::int AND owner = $3 AND attempts = $4::int AND state = 'claimed'"

int queue_record_failure(pg_conn *c, const char *node, const claim_ref *ref, const char *error, int max_attempts,
                         double backoff_s, int *recorded, int *job_failed, cuzk_error *err)
{
    char max[24], backoff[32], state[16];
    snprintf(backoff, sizeof backoff, "%.6g", backoff_s);
    const char *extra[] = {int_text(max, max_attempts), error, backoff};
    *job_failed = 0;
    int rc = fenced(c,
                    "UPDATE cuzk_partitions SET state = CASE WHEN attempts >= $5::int THEN 'failed' ELSE 'queued' END,"
                    "  owner = NULL, last_error = $6, queued_at = now(),"
                    "  not_before = now() + least($7::float8 * 2 ^ (attempts - 1), 60) * interval '1 second'" FENCE
                    " RETURNING state",
                    node, ref, 3, extra, state, err);
    if (rc)
        return rc;
    *recorded = state[0] != 0;
    if (strcmp(state, "failed"))
        return CUZK_OK;
    char why[600];
    snprintf(why, sizeof why, "partition %u: %.480s (attempt %d of %d)", ref->idx, error, ref->attempt, max_attempts);
    return queue_end_job(c, ref->job_id, "failed", why, job_failed, err);
}

int queue_record_cancelled(pg_conn *c, const char *node, const claim_ref *ref, cuzk_error *err)
{
    return fenced(c, "UPDATE cuzk_partitions SET state = 'cancelled', owner = NULL" FENCE, node, ref, 0, NULL, NULL,
                  err);
}

int queue_release(pg_conn *c, const char *node, const claim_ref *ref, cuzk_error *err)
{
    return fenced(c,
                  "UPDATE cuzk_partitions SET state = 'queued', owner = NULL, attempts = attempts - 1,"
                  "  queued_at = now()" FENCE,
                  node, ref, 0, NULL, NULL, err);
}

int queue_end_job(pg_conn *c, uint64_t job_id, const char *state, const char *error, int *ended, cuzk_error *err)
{
    char job[24];
    const char *v[] = {u64_text(job, job_id), state, error};
    PGresult *r;
    int rc = pg_exec(c,
                     "WITH s AS (UPDATE cuzk_partitions SET state = 'cancelled'"
                     "  WHERE job_id = $1::bigint AND state = 'queued' RETURNING 1),"
                     " j AS (UPDATE cuzk_jobs SET state = $2, error = $3, ended_at = now()"
                     "  WHERE id = $1::bigint AND state = 'queued' RETURNING id)"
                     "SELECT (SELECT count(*) FROM cuzk_jobs WHERE id = $1::bigint), (SELECT count(*) FROM j),"
                     " (SELECT count(*) FROM s)",
                     3, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    int known = atoi(cuzk_pq.PQgetvalue(r, 0, 0)) > 0;
    *ended = atoi(cuzk_pq.PQgetvalue(r, 0, 1)) > 0;
    cuzk_pq.PQclear(r);
    if (!known)
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown job %s", job);
    if (*ended && !(rc = queue_notify(c, "cuzk_cancel", job_id, err)))
        rc = queue_notify(c, "cuzk_job_end", job_id, err);
    return rc;
}

/* ---------- reading a job ---------- */

static cuzk_job_state state_from(const char *s, int claimed)
{
    if (!strcmp(s, "done"))
        return CUZK_JOB_DONE;
    if (!strcmp(s, "failed"))
        return CUZK_JOB_FAILED;
    if (!strcmp(s, "cancelled"))
        return CUZK_JOB_CANCELLED;
    return claimed ? CUZK_JOB_RUNNING : CUZK_JOB_QUEUED;
}

/* The results' proofs and public signals into out (a done job). */
static int take_proofs(const PGresult *r, cuzk_job_result *out, cuzk_error *err)
{
    int rows = cuzk_pq.PQntuples(r);
    if ((uint32_t)rows != out->n_partitions)
        return cuzk_fail(err, CUZK_ERR_IO, "job %llu is done but has %d of %u results", (unsigned long long)out->id,
                         rows, out->n_partitions);
    out->proofs = calloc(out->n_partitions, sizeof *out->proofs);
    if ((out->proved = malloc(out->n_partitions)))
        memset(out->proved, 1, out->n_partitions);
    size_t pub_len = 0;
    for (int i = 0; i < rows && out->proofs; i++) {
        size_t len;
        unsigned char *proof = pg_bytea(r, i, 1, &len), *pub = pg_bytea(r, i, 2, &pub_len);
        if (proof && len == CUZK_PROOF_BYTES)
            cuzk_proof_from_words(&out->proofs[i], proof);
        out->n_public = (uint32_t)(pub_len / 32);
        if (!i)
            out->publics = calloc((size_t)out->n_partitions * (out->n_public ? out->n_public : 1), sizeof *out->publics);
        if (out->publics && pub)
            cuzk_words_from_bytes(out->publics[(size_t)i * out->n_public], (size_t)out->n_public * 4, pub);
        int ok = proof && len == CUZK_PROOF_BYTES && pub && out->publics;
        free(proof);
        free(pub);
        if (!ok)
            return cuzk_fail(err, CUZK_ERR_IO, "job %llu: partition %d's result is damaged", (unsigned long long)out->id, i);
    }
    return out->proofs && out->proved ? CUZK_OK : cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
}

int queue_read_job(pg_conn *c, uint64_t job_id, cuzk_job_result *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    char job[24];
    const char *v[] = {u64_text(job, job_id)};
    PGresult *r;
    int rc = pg_exec(c,
                     "SELECT state, n_partitions, parts_done, error, first_claim_at IS NOT NULL,"
                     " extract(epoch FROM coalesce(first_claim_at, now()) - submitted_at),"
                     " extract(epoch FROM coalesce(ended_at, now()) - submitted_at)"
                     " FROM cuzk_jobs WHERE id = $1::bigint",
                     1, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    if (!cuzk_pq.PQntuples(r)) {
        cuzk_pq.PQclear(r);
        snprintf(out->error, sizeof out->error, "unknown job %s", job);
        return CUZK_ERR_ARG;
    }
    out->id = job_id;
    out->state = state_from(cuzk_pq.PQgetvalue(r, 0, 0), cuzk_pq.PQgetvalue(r, 0, 4)[0] == 't');
    out->n_partitions = (uint32_t)atoi(cuzk_pq.PQgetvalue(r, 0, 1));
    out->partitions_done = (uint32_t)atoi(cuzk_pq.PQgetvalue(r, 0, 2));
    snprintf(out->error, sizeof out->error, "%s", cuzk_pq.PQgetvalue(r, 0, 3));
    out->queue_s = atof(cuzk_pq.PQgetvalue(r, 0, 5));
    out->total_s = atof(cuzk_pq.PQgetvalue(r, 0, 6));
    cuzk_pq.PQclear(r);
    rc = pg_exec(c,
                 "SELECT idx, proof, publics, synth_s, gpu_s, verified FROM cuzk_results WHERE job_id = $1::bigint"
                 " ORDER BY idx",
                 1, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    int rows = cuzk_pq.PQntuples(r);
    out->verified = out->state == CUZK_JOB_DONE && rows > 0;
    for (int i = 0; i < rows; i++) {
        out->synth_s += atof(cuzk_pq.PQgetvalue(r, i, 3));
        out->device_s += atof(cuzk_pq.PQgetvalue(r, i, 4));
        out->verified &= cuzk_pq.PQgetvalue(r, i, 5)[0] == 't';
    }
    if (out->state == CUZK_JOB_DONE)
        rc = take_proofs(r, out, err);
    cuzk_pq.PQclear(r);
    if (rc)
        cuzk_job_result_free(out);
    return rc;
}

/* The jobs the sweep takes: ended before the transaction's cutoff, oldest
 * first; both statements see the same now(). */
#define SWEPT_JOBS                                                                                                     \
    "SELECT id FROM cuzk_jobs WHERE ended_at < now() - $1::float8 * interval '1 second'"                               \
    " ORDER BY ended_at LIMIT $2::int"

typedef struct {
    const char *values[2];
    int deleted;
} sweep;

static int delete_ended_locked(pg_conn *c, void *ctx, cuzk_error *err)
{
    sweep *s = ctx;
    int rc = pg_exec(c, "DELETE FROM cuzk_partitions WHERE job_id IN (" SWEPT_JOBS ")", 2, s->values, NULL, NULL,
                     NULL, err);
    PGresult *r;
    if (rc || (rc = pg_exec(c, "DELETE FROM cuzk_jobs WHERE id IN (" SWEPT_JOBS ")", 2, s->values, NULL, NULL, &r,
                            err)))
        return rc;
    s->deleted = atoi(cuzk_pq.PQcmdTuples(r));
    cuzk_pq.PQclear(r);
    return CUZK_OK;
}

int queue_delete_ended(pg_conn *c, double retain_s, int *n, cuzk_error *err)
{
    char retain[32], max[24];
    snprintf(retain, sizeof retain, "%.6f", retain_s);
    sweep s = {{retain, int_text(max, QUEUE_SWEEP_MAX)}, 0};
    int rc = pg_transaction(c, delete_ended_locked, &s, err);
    *n = rc ? 0 : s.deleted;
    return rc;
}
