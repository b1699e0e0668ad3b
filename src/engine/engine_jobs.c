/* Jobs: queues of partitions, bookkeeping as partitions end, submit,
 * wait, cancel, drain, and the retention of finished results. */
#include "engine/engine_internal.h"

#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "codec/curve_id.h"
#include "util/err.h"

/* ---------- queues (under e->lock) ---------- */

void engine_queue_push(part_queue *q, partition *p)
{
    p->next = NULL;
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    q->len++;
}

partition *engine_queue_pop(part_queue *q)
{
    partition *p = q->head;
    if (!p)
        return NULL;
    q->head = p->next;
    if (!q->head)
        q->tail = NULL;
    q->len--;
    p->next = NULL;
    return p;
}

/* Removes every partition of job j from q; returns how many. */
uint32_t engine_queue_remove_job(part_queue *q, job *j, part_queue *removed)
{
    uint32_t n = 0;
    partition **at = &q->head, *last = NULL;
    while (*at) {
        partition *p = *at;
        if (p->job == j) {
            *at = p->next;
            q->len--;
            engine_queue_push(removed, p);
            n++;
        } else {
            last = p;
            at = &p->next;
        }
    }
    q->tail = last;
    return n;
}

uint32_t engine_pending_count(const cuzk_engine *e)
{
    uint32_t n = 0;
    for (int i = 0; i < CUZK_N_PRIORITIES; i++)
        n += e->pending[i].len;
    return n;
}

partition *engine_pop_pending(cuzk_engine *e)
{
    for (int i = 0; i < CUZK_N_PRIORITIES; i++)
        if (e->pending[i].head)
            return engine_queue_pop(&e->pending[i]);
    return NULL;
}


/* ---------- job bookkeeping (under e->lock) ---------- */

static void job_end(cuzk_engine *e, job *j, cuzk_job_state state)
{
    if (j->state >= CUZK_JOB_DONE)
        return;
    j->state = state;
    j->t_end = engine_now(e);
    e->jobs_active--;
    if (state == CUZK_JOB_DONE)
        e->jobs_done++;
    else if (state == CUZK_JOB_FAILED)
        e->jobs_failed++;
    else
        e->jobs_cancelled++;
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "job finished", "job_id=%llu state=%s partitions=%u seconds=%.3f",
             (unsigned long long)j->id, cuzk_job_state_name(state), j->n_partitions, j->t_end - j->t_submit);
    engine_wake(e, &e->job_cv, 1);
    if (e->cfg.on_job_end)
        e->cfg.on_job_end(e->cfg.on_job_end_ctx, j->id);
}

void engine_partition_drop_witness(cuzk_engine *e, partition *p)
{
    if (p->has_witness && !p->witness_lent)
        cuzk_wtns_free(&p->witness);
    p->has_witness = p->witness_lent = 0;
    if (p->ws_bytes) {
        budget_release(e->budget, BUDGET_PARTITIONS, p->ws_bytes);
        p->ws_bytes = 0;
    }
}

/* A partition leaves the pipeline (done or dropped): release what it held. */
void engine_partition_retire(cuzk_engine *e, partition *p, part_state how)
{
    job *j = p->job;
    p->state = how;
    engine_partition_drop_witness(e, p);
    if (p->has_input) {
        witness_input_free(&p->input);
        p->has_input = 0;
    }
    j->in_flight--;
    if (how == P_DONE) {
        j->proved[p->index] = 1;
        j->done++;
        e->partitions_done++;
        engine_add_sample(e, p);
    }
    /* a job cancelled after a partition failed stays "failed" */
    if (j->in_flight == 0 && j->state < CUZK_JOB_DONE) {
        if (j->error[0])
            job_end(e, j, CUZK_JOB_FAILED);
        else if (j->cancelled)
            job_end(e, j, CUZK_JOB_CANCELLED);
        else if (j->done == j->n_partitions)
            job_end(e, j, CUZK_JOB_DONE);
    }
    if (j->in_flight == 0 && j->key) {
        keycache_release(e->keys, j->circ->key);
        j->key = NULL;
    }
}

void engine_give_back_permit(cuzk_engine *e, partition *p)
{
    if (!p->holds_permit)
        return;
    p->holds_permit = 0;
    e->permits_free++;
    engine_wake(e, &e->dispatch_cv, 1);
}

void engine_fail_partition(cuzk_engine *e, partition *p, const cuzk_error *err)
{
    job *j = p->job;
    /* after a cancel, a partition's failure is the cancel's doing (its wait
     * for memory ended): the job stays "cancelled" */
    if (!j->error[0] && !j->cancel_asked)
        snprintf(j->error, sizeof j->error, "partition %u: %.480s", p->index, err->msg);
    CUZK_LOG(e->cfg.log, CUZK_LOG_ERROR, "partition failed", "job_id=%llu partition=%u error=\"%s\"",
             (unsigned long long)j->id, p->index, err->msg);
    /* the other partitions go on: their proofs stay the job's */
    engine_give_back_permit(e, p);
    engine_partition_retire(e, p, P_DROPPED);
}


/* ---------- waits before a job exists ---------- */

int engine_refuse_closed(const char *what, cuzk_error *err)
{
    return cuzk_fail(err, CUZK_ERR_CANCELLED, "%s: the engine takes no new jobs (it is draining or stopping)", what);
}

int engine_waiter_add(cuzk_engine *e, engine_waiter *w, const char *what, cuzk_error *err)
{
    atomic_init(&w->cancel, 0);
    pthread_mutex_lock(&e->lock);
    int closed = e->closed;
    if (!closed) {
        w->next = e->waiters;
        e->waiters = w;
    }
    pthread_mutex_unlock(&e->lock);
    return closed ? engine_refuse_closed(what, err) : CUZK_OK;
}

void engine_waiter_remove(cuzk_engine *e, engine_waiter *w)
{
    pthread_mutex_lock(&e->lock);
    for (engine_waiter **at = &e->waiters; *at; at = &(*at)->next)
        if (*at == w) {
            *at = w->next;
            break;
        }
    pthread_mutex_unlock(&e->lock);
}

int engine_closed(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    int closed = e->closed;
    pthread_mutex_unlock(&e->lock);
    return closed;
}

void engine_cancel_waiters(cuzk_engine *e)
{
    for (engine_waiter *w = e->waiters; w; w = w->next)
        atomic_store(&w->cancel, 1);
}

void engine_wake_blocked(cuzk_engine *e)
{
    budget_wake_all(e->budget);
    if (e->backend->wake)
        e->backend->wake(e->backend);
}


/* ---------- retention of finished jobs ---------- */

void engine_free_job(job *j)
{
    for (uint32_t i = 0; i < j->n_partitions; i++) {
        free(j->parts[i].witness_path);
        if (j->parts[i].has_witness)
            cuzk_wtns_free(&j->parts[i].witness);
        if (j->parts[i].has_input)
            witness_input_free(&j->parts[i].input);
    }
    free(j->parts);
    free(j->proofs);
    free(j->proved);
    free(j->publics);
    free(j->request_id);
    free(j);
}

/* Drops finished jobs beyond results_max (oldest first) or past their TTL. */
void engine_prune_results(cuzk_engine *e, double now)
{
    uint32_t finished = 0;
    for (job *j = e->jobs; j; j = j->next)
        finished += j->state >= CUZK_JOB_DONE;
    /* the list is newest first: walk it and drop from the old end */
    uint32_t seen = 0;
    for (job **at = &e->jobs; *at;) {
        job *j = *at;
        if (j->state >= CUZK_JOB_DONE) {
            seen++;
            int too_many = finished > e->cfg.results_max && seen > e->cfg.results_max;
            if (too_many || now - j->t_end > e->cfg.results_ttl_s) {
                *at = j->next;
                engine_free_job(j);
                continue;
            }
        }
        at = &j->next;
    }
}


/* ---------- jobs ---------- */

/* FNV-1a over the request's meaning: circuit, priority, partitions. */
static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

uint64_t cuzk_job_request_hash(const cuzk_job_request *req)
{
    if (!req->request_id)
        return 0; /* nothing to bind; and FNV over a 2^27 inline witness costs ~6 s a partition */
    uint64_t h = fnv(0xcbf29ce484222325ULL, req->circuit, strlen(req->circuit) + 1);
    h = fnv(h, &req->priority, sizeof req->priority);
    h = fnv(h, &req->n_partitions, sizeof req->n_partitions);
    for (uint32_t i = 0; req->partitions && i < req->n_partitions; i++) {
        const cuzk_partition_input *in = &req->partitions[i];
        if (in->witness_path)
            h = fnv(h, in->witness_path, strlen(in->witness_path) + 1);
        else if (in->witness)
            h = fnv(h, in->witness->values, (size_t)in->witness->n_witness * 32);
        else if (in->input_json)
            h = fnv(h, in->input_json, strlen(in->input_json) + 1);
    }
    return h;
}

static job *find_job(cuzk_engine *e, uint64_t id)
{
    for (job *j = e->jobs; j; j = j->next)
        if (j->id == id)
            return j;
    return NULL;
}

static int copy_wtns(cuzk_wtns *dst, const cuzk_wtns *src)
{
    *dst = *src;
    size_t bytes = (size_t)src->n_witness * 32;
    dst->values = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!dst->values)
        return -1;
    memcpy(dst->values, src->values, bytes);
    return 0;
}

/* A partition's witness as the request gives it: a path, one in memory
 * (copied, or lent), or the input read (values mod the circuit's prime). */
static int take_partition_input(const circuit *c, partition *p, const cuzk_partition_input *in, cuzk_error *err)
{
    int given = (in->witness_path != NULL) + (in->witness != NULL) + (in->input_json != NULL);
    if (given != 1)
        return cuzk_fail(err, CUZK_ERR_ARG, "partition %u: give one of a witness file, a witness or an input",
                         p->index);
    if (in->witness_path)
        return (p->witness_path = strdup(in->witness_path)) ? CUZK_OK : cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    if (in->witness) {
        if (in->lend_witness)
            p->witness = *in->witness;
        else if (copy_wtns(&p->witness, in->witness))
            return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
        p->has_witness = 1;
        p->witness_lent = in->lend_witness;
        return CUZK_OK;
    }
    if (!c->wasm)
        return cuzk_fail(err, CUZK_ERR_ARG,
                         "partition %u: circuit '%s' was registered without its wasm: give a .wtns witness, or "
                         "register the circuit with its wasm to prove from input JSON",
                         p->index, c->id);
    char name[32];
    snprintf(name, sizeof name, "partition %u: input", p->index);
    int rc = witness_input_parse(&p->input, in->input_json, strlen(in->input_json), name, cuzk_curve_r(c->curve), err);
    p->has_input = !rc;
    return rc;
}

static job *build_job(circuit *c, const cuzk_job_request *req, cuzk_error *err)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    j->circ = c;
    j->priority = req->priority;
    j->n_partitions = req->n_partitions;
    j->parts = calloc(req->n_partitions, sizeof *j->parts);
    j->proofs = calloc(req->n_partitions, sizeof *j->proofs);
    j->publics = calloc((size_t)req->n_partitions * (c->n_public ? c->n_public : 1), sizeof *j->publics);
    j->proved = calloc(req->n_partitions, 1);
    j->request_id = req->request_id ? strdup(req->request_id) : NULL;
    int rc = j->parts && j->proofs && j->publics && j->proved && (!req->request_id || j->request_id)
                 ? CUZK_OK
                 : cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; !rc && i < req->n_partitions; i++) {
        partition *p = &j->parts[i];
        p->job = j;
        p->index = i;
        p->device = -1;
        if (c->key)
            rc = take_partition_input(c, p, &req->partitions[i], err);
    }
    if (rc) {
        engine_free_job(j);
        return NULL;
    }
    j->verified_all = 1;
    return j;
}

/* Witnesses are checked against the key at submit (of a file, its header:
 * the values are read at synthesis; of an input, its signals against the
 * circuit's), so a caller learns of a missing file, a wrong length or
 * curve or an input of another circuit at once rather than from a failed
 * job. */
static int check_witnesses(const job *j, cuzk_error *err)
{
    for (uint32_t i = 0; i < j->n_partitions; i++) {
        const partition *p = &j->parts[i];
        cuzk_wtns header;
        cuzk_error why = {0};
        const cuzk_wtns *w = &p->witness;
        if (p->has_input) {
            if (cuzk_circom_check_input(j->circ->wasm, &p->input, &why))
                return cuzk_fail(err, why.code, "partition %u: %.480s", i, why.msg);
            continue;
        }
        if (!p->has_witness) {
            if (cuzk_wtns_read_header(&header, p->witness_path, &why))
                return cuzk_fail(err, why.code, "partition %u: %.480s", i, why.msg);
            w = &header;
        }
        if (cuzk_groth16_check_inputs(j->key, w, &why))
            return cuzk_fail(err, why.code, "partition %u: %.480s", i, why.msg);
    }
    return CUZK_OK;
}

/* Under e->lock: the job of an earlier submit with req's request id, or
 * NULL; fails with CUZK_ERR_CONFLICT when that job's payload differs. */
static job *find_request_locked(cuzk_engine *e, const cuzk_job_request *req, uint64_t hash, int *rc,
                                cuzk_error *err)
{
    *rc = CUZK_OK;
    if (!req->request_id)
        return NULL;
    for (job *j = e->jobs; j; j = j->next)
        if (j->request_id && !strcmp(j->request_id, req->request_id)) {
            if (j->payload_hash != hash)
                *rc = cuzk_fail(err, CUZK_ERR_CONFLICT, "request id '%s' was already used for a different job (%llu)",
                                req->request_id, (unsigned long long)j->id);
            return j;
        }
    return NULL;
}

/* Builds the job and takes its key (a wait that w can end), outside the lock. */
static int prepare_job(cuzk_engine *e, circuit *c, const cuzk_job_request *req, engine_waiter *w, job **out,
                       cuzk_error *err)
{
    if (c->key && !req->partitions)
        return cuzk_fail(err, CUZK_ERR_ARG, "circuit '%s' needs a witness per partition", req->circuit);
    job *j = build_job(c, req, err);
    if (!j)
        return err->code ? err->code : CUZK_ERR_NOMEM;
    if (c->key) {
        int rc = keycache_acquire(e->keys, c->key, &j->key, &w->cancel, err);
        if (!rc)
            rc = check_witnesses(j, err);
        if (rc) {
            if (j->key)
                keycache_release(e->keys, c->key);
            engine_free_job(j);
            return rc;
        }
    }
    *out = j;
    return CUZK_OK;
}

static int request_ok(const cuzk_job_request *req, cuzk_error *err)
{
    if (!req->circuit || req->n_partitions == 0 || (unsigned)req->priority >= CUZK_N_PRIORITIES)
        return cuzk_fail(err, CUZK_ERR_ARG, "a job needs a circuit, a priority and at least one partition");
    return CUZK_OK;
}

int cuzk_engine_check_request(cuzk_engine *e, const cuzk_job_request *req, cuzk_error *err)
{
    engine_waiter w;
    int rc = request_ok(req, err);
    if (rc || (rc = engine_waiter_add(e, &w, "submit", err)))
        return rc;
    pthread_mutex_lock(&e->lock);
    circuit *c = engine_find_circuit(e, req->circuit);
    rc = c ? engine_check_fits(e, c, 0, err) : cuzk_fail(err, CUZK_ERR_ARG, "unknown circuit '%s'", req->circuit);
    pthread_mutex_unlock(&e->lock);
    job *j = NULL;
    if (!rc)
        rc = prepare_job(e, c, req, &w, &j, err);
    engine_waiter_remove(e, &w);
    if (j) {
        if (j->key)
            keycache_release(e->keys, c->key);
        engine_free_job(j);
    }
    return rc;
}

int cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, uint64_t *job_id, cuzk_error *err)
{
    int rc0 = request_ok(req, err);
    if (rc0)
        return rc0;
    uint64_t hash = cuzk_job_request_hash(req);
    engine_waiter w;
    int rc = engine_waiter_add(e, &w, "submit", err);
    if (rc)
        return rc;
    pthread_mutex_lock(&e->lock);
    circuit *c = engine_find_circuit(e, req->circuit);
    job *seen = find_request_locked(e, req, hash, &rc, err);
    if (!c)
        rc = cuzk_fail(err, CUZK_ERR_ARG, "unknown circuit '%s'", req->circuit);
    else if (!rc && !seen)
        rc = engine_check_fits(e, c, 0, err);
    if (seen)
        *job_id = seen->id;
    pthread_mutex_unlock(&e->lock);
    job *j = NULL;
    if (!rc && !seen)
        rc = prepare_job(e, c, req, &w, &j, err);
    engine_waiter_remove(e, &w);
    if (rc == CUZK_ERR_CANCELLED && engine_closed(e))
        rc = engine_refuse_closed("submit", err);
    if (rc || seen)
        return rc;

    pthread_mutex_lock(&e->lock);
    /* again: while the lock was dropped a submit of the same request id
     * may have added its job (or a drain begun) */
    if ((seen = find_request_locked(e, req, hash, &rc, err)))
        *job_id = seen->id;
    else if (e->closed)
        rc = engine_refuse_closed("submit", err);
    if (rc || seen) {
        pthread_mutex_unlock(&e->lock);
        if (j->key)
            keycache_release(e->keys, c->key);
        engine_free_job(j);
        return rc;
    }
    j->payload_hash = hash;
    j->id = e->next_job_id++;
    e->jobs_active++;
    j->t_submit = engine_now(e);
    j->in_flight = j->n_partitions;
    j->next = e->jobs;
    e->jobs = j;
    for (uint32_t i = 0; i < j->n_partitions; i++)
        engine_queue_push(&e->pending[j->priority], &j->parts[i]);
    engine_wake(e, &e->dispatch_cv, 1);
    *job_id = j->id;
    pthread_mutex_unlock(&e->lock);
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "job submitted", "job_id=%llu circuit=%s partitions=%u priority=%s",
             (unsigned long long)j->id, c->id, j->n_partitions, cuzk_priority_name(j->priority));
    return CUZK_OK;
}

static void copy_result(const cuzk_engine *e, const job *j, cuzk_job_result *out)
{
    memset(out, 0, sizeof *out);
    out->id = j->id;
    out->state = j->state;
    out->n_partitions = j->n_partitions;
    out->partitions_done = j->done;
    out->n_public = j->circ->n_public;
    out->verified = j->state == CUZK_JOB_DONE && j->verified_all;
    out->queue_s = (j->t_first_synth ? j->t_first_synth : engine_now(e)) - j->t_submit;
    out->synth_s = j->synth_s;
    out->witness_s = j->witness_s;
    out->device_s = j->device_s;
    out->total_s = (j->t_end ? j->t_end : engine_now(e)) - j->t_submit;
    snprintf(out->error, sizeof out->error, "%s", j->error);
    if (j->state != CUZK_JOB_DONE && j->state != CUZK_JOB_FAILED)
        return;
    out->proofs = malloc(j->n_partitions * sizeof *out->proofs);
    size_t npub = (size_t)j->n_partitions * out->n_public;
    out->publics = malloc((npub ? npub : 1) * sizeof *out->publics);
    out->proved = malloc(j->n_partitions);
    if (out->proofs)
        memcpy(out->proofs, j->proofs, j->n_partitions * sizeof *out->proofs);
    if (out->publics)
        memcpy(out->publics, j->publics, npub * sizeof *out->publics);
    if (out->proved)
        memcpy(out->proved, j->proved, j->n_partitions);
}

int cuzk_engine_wait(cuzk_engine *e, uint64_t job_id, double timeout_s, cuzk_job_result *out)
{
    double deadline = engine_now(e) + timeout_s;
    pthread_mutex_lock(&e->lock);
    job *j;
    while ((j = find_job(e, job_id)) && j->state < CUZK_JOB_DONE && !e->stopping) {
        if (timeout_s < 0)
            engine_wait(e, &e->job_cv, -1);
        else if (engine_now(e) < deadline)
            engine_wait(e, &e->job_cv, deadline);
        else
            break;
    }
    if (!j) {
        pthread_mutex_unlock(&e->lock);
        memset(out, 0, sizeof *out);
        snprintf(out->error, sizeof out->error, "unknown job %llu", (unsigned long long)job_id);
        return CUZK_ERR_ARG;
    }
    copy_result(e, j, out);
    pthread_mutex_unlock(&e->lock);
    return CUZK_OK;
}

void cuzk_job_result_free(cuzk_job_result *r)
{
    free(r->proofs);
    free(r->publics);
    free(r->proved);
    r->proofs = NULL;
    r->publics = NULL;
    r->proved = NULL;
}

static void cancel_locked(cuzk_engine *e, job *j)
{
    if (j->state >= CUZK_JOB_DONE || j->cancel_asked)
        return;
    j->cancel_asked = 1;
    j->cancelled = 1;
    part_queue dropped = {0};
    engine_queue_remove_job(&e->pending[j->priority], j, &dropped);
    engine_queue_remove_job(&e->synth_q, j, &dropped);
    for (partition *p; (p = engine_queue_pop(&dropped));) {
        engine_give_back_permit(e, p);
        engine_partition_retire(e, p, P_DROPPED);
    }
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "job cancelled", "job_id=%llu", (unsigned long long)j->id);
    engine_wake(e, &e->dispatch_cv, 1);
}

int cuzk_engine_cancel(cuzk_engine *e, uint64_t job_id)
{
    pthread_mutex_lock(&e->lock);
    job *j = find_job(e, job_id);
    if (j)
        cancel_locked(e, j);
    pthread_mutex_unlock(&e->lock);
    if (!j)
        return CUZK_ERR_ARG;
    engine_wake_blocked(e); /* a synthesis waiting for memory for this job, or its proof
                             * waiting in the backend, gives up */
    return CUZK_OK;
}

void cuzk_engine_cancel_all(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    for (job *j = e->jobs; j; j = j->next)
        cancel_locked(e, j);
    engine_cancel_waiters(e);
    pthread_mutex_unlock(&e->lock);
    engine_wake_blocked(e);
}

void cuzk_engine_stop_accepting(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    e->closed = 1;
    engine_cancel_waiters(e);
    pthread_mutex_unlock(&e->lock);
    engine_wake_blocked(e);
}

int cuzk_engine_drain(cuzk_engine *e, double timeout_s)
{
    double deadline = engine_now(e) + timeout_s;
    pthread_mutex_lock(&e->lock);
    while (e->jobs_active && (timeout_s < 0 || engine_now(e) < deadline)) {
        if (timeout_s < 0)
            engine_wait(e, &e->job_cv, -1);
        else
            engine_wait(e, &e->job_cv, deadline);
    }
    int left = e->jobs_active != 0;
    pthread_mutex_unlock(&e->lock);
    return left ? -1 : 0;
}
