/* The engine's worker threads: synthesis, device, finalizer and the
 * maintainer (idle buffers, old results). */
#include "engine/engine_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "synthesis/pce.h"
#include "engine/timeline.h"
#include "util/crash_point.h"
#include "util/err.h"
#include "util/timer.h"

/* Under e->lock: waits for the next partition of q (cv: its condition)
 * and takes it; NULL once the engine stops, at once or, with drain, when q
 * is empty (what has reached a device still finishes). */
static partition *take_next(cuzk_engine *e, part_queue *q, pthread_cond_t *cv, int drain)
{
    while (!e->stopping && !q->head)
        engine_wait(e, cv, -1);
    if (e->stopping && (!drain || !q->head))
        return NULL;
    return engine_queue_pop(q);
}

/* ---------- synthesis ---------- */

/* The witness stage: the partition's witness read from its file straight
 * into the staging buffer (staged), or calculated from its input by the
 * circuit's wasm (the input is done with then), unless it came in memory. */
static int obtain_witness(cuzk_engine *e, partition *p, uint64_t *staged, cuzk_error *err)
{
    job *j = p->job;
    p->t_witness_start = engine_now(e);
    timeline_emit(e->tl, TL_WITNESS_START, j->id, p->index, -1, p->t_witness_start);
    int rc = CUZK_OK;
    if (p->form == WITNESS_INPUT) {
        /* stopped by the job's cancel (a user's, a drain's timeout, a second
         * signal) or its time limit, however long the circuit would run */
        double limit = e->cfg.witness_timeout_s;
        cuzk_circom_stop stop = {&j->cancelled, limit > 0 ? cuzk_now_s() + limit : 0, limit};
        rc = cuzk_circom_calculate_until(j->circ->wasm, &p->input, &stop, &p->witness, err);
        witness_input_free(&p->input);
        p->form = rc ? WITNESS_NONE : WITNESS_OWNED;
    } else if (p->form == WITNESS_FILE) {
        rc = cuzk_wtns_read_into(&p->staged, p->witness_path, staged, j->circ->n_vars, err);
        if (!rc)
            p->form = WITNESS_STAGED;
    }
    p->t_witness_end = engine_now(e);
    timeline_emit(e->tl, TL_WITNESS_END, j->id, p->index, -1, p->t_witness_end);
    return rc;
}

/* The witness into the staging buffer, checked: a calculated or given one
 * copied there (a calculated one is freed then, and only charged to the
 * budget meanwhile), a file's read there. When the device builds a, b, c
 * the witness alone crosses to it, packed where that pays (~30x fewer
 * bytes on the link for a bit-heavy one): a given one packed straight into
 * the buffer, a file's in place. The packing's scratch is charged to the
 * budget while it lives; when it does not fit now (or cannot be had) the
 * witness crosses as it is. */
static int stage_witness(cuzk_engine *e, partition *p, uint64_t *staged, cuzk_error *err)
{
    job *j = p->job;
    const int pack = j->circ->abc_on_device, threads = e->cfg.synthesis_threads;
    memset(&p->packed, 0, sizeof p->packed);
    int rc = obtain_witness(e, p, staged, err);
    if (rc)
        return rc;
    /* a given witness was charged at submit; a calculated one now, in
     * place of its input's charge (the input is gone) */
    const int in_memory = p->form == WITNESS_OWNED || p->form == WITNESS_LENT;
    const uint64_t need = p->form == WITNESS_OWNED ? (uint64_t)p->witness.n_witness * 32 : 0;
    if (need > p->ws_bytes) {
        if (budget_acquire(e->budget, BUDGET_PARTITIONS, BUDGET_CLASS_ADMITTED, need - p->ws_bytes, &j->cancelled))
            return cuzk_fail(err, CUZK_ERR_NOMEM, "the witness does not fit in the memory budget");
        p->ws_bytes = need;
    }
    const cuzk_wtns *w = in_memory ? &p->witness : &p->staged;
    if ((rc = cuzk_groth16_check_inputs(j->key, w, err)))
        return rc;
    if (j->circ->has_r1cs && (rc = cuzk_r1cs_check_witness(&j->circ->r1cs, w, err)))
        return rc;
    /* the finalizer needs them after the buffer has gone back to the pool */
    cuzk_groth16_public_signals(j->key, w, j->publics + (size_t)p->index * j->circ->n_public);
    const uint64_t scratch = cuzk_wtns_pack_scratch_bytes(w->n_witness);
    if (pack && budget_try_acquire(e->budget, BUDGET_PARTITIONS, BUDGET_CLASS_ADMITTED, scratch) == 0) {
        (void)cuzk_wtns_pack(w->values, w->n_witness, staged, threads, &p->packed);
        budget_release(e->budget, BUDGET_PARTITIONS, scratch);
    }
    if (in_memory) {
        if (!p->packed.base)
            memcpy(staged, p->witness.values, (size_t)p->witness.n_witness * 32);
        p->staged = p->witness;
        p->staged.values = staged;
        engine_partition_drop_witness(e, p);
    }
    p->form = p->packed.base ? WITNESS_PACKED : WITNESS_STAGED;
    return CUZK_OK;
}

/* Outside the lock: buffer, witness, a/b/c. */
static int synthesize(cuzk_engine *e, partition *p, cuzk_error *err)
{
    job *j = p->job;
    circuit *c = j->circ;
    size_t bytes = engine_staging_bytes(c);
    budget_class turn = atomic_load(&j->admitted) ? BUDGET_CLASS_ADMITTED : BUDGET_CLASS_NEW;
    p->abc = pool_checkout(e->pool, bytes, turn, j->id, p->index, &j->cancelled);
    if (!p->abc)
        return j->cancelled ? CUZK_OK : cuzk_fail(err, CUZK_ERR_NOMEM, "no pinned buffer of %zu bytes", bytes);
    atomic_store(&j->admitted, 1);
    cuzk_crash_point("engine:synthesizing"); /* the kill tests' (util/crash_point.h) */
    if (!c->key) {
        engine_sleep(e, e->cfg.sim_synth_ms / 1000);
        return CUZK_OK;
    }
    uint64_t *staged = (uint64_t *)((uint8_t *)p->abc + engine_abc_bytes(c));
    int rc = stage_witness(e, p, staged, err);
    if (rc)
        return rc;
    return c->abc_on_device ? CUZK_OK : cuzk_pce_synthesize(&c->pce, staged, p->abc, e->cfg.synthesis_threads);
}

void *engine_synth_worker_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    for (partition *p; (p = take_next(e, &e->synth_q, &e->synth_cv, 0));) {
        job *j = p->job;
        p->state = P_SYNTH;
        e->synthesizing++;
        p->t_synth_start = engine_now(e);
        if (!j->t_first_synth)
            j->t_first_synth = p->t_synth_start;
        if (j->state == CUZK_JOB_QUEUED)
            j->state = CUZK_JOB_RUNNING;
        pthread_mutex_unlock(&e->lock);

        timeline_emit(e->tl, TL_SYNTH_START, j->id, p->index, -1, p->t_synth_start);
        cuzk_error err = {0};
        int rc = j->cancelled ? CUZK_OK : synthesize(e, p, &err);
        /* a failure after a cancel is the cancel's doing (a wait for memory
         * or a witness calculation it ended): the partition is dropped */
        if (rc && atomic_load(&j->cancelled))
            rc = CUZK_OK;
        p->t_synth_end = engine_now(e);
        timeline_emit(e->tl, TL_SYNTH_END, j->id, p->index, -1, p->t_synth_end);

        pthread_mutex_lock(&e->lock);
        e->synthesizing--;
        j->synth_s += p->t_synth_end - p->t_synth_start;
        j->witness_s += p->t_witness_end - p->t_witness_start;
        if (rc || j->cancelled) {
            if (p->abc) {
                pool_checkin(e->pool, p->abc, j->id, p->index);
                p->abc = NULL;
            }
            if (rc)
                engine_fail_partition(e, p, &err);
            else {
                engine_give_back_permit(e, p);
                engine_partition_retire(e, p, P_DROPPED);
            }
            continue;
        }
        p->state = P_DEVICE_QUEUED;
        engine_queue_push(&e->device_q, p);
        timeline_emit(e->tl, TL_GPU_QUEUE, j->id, p->index, -1, engine_now(e));
        engine_wake(e, &e->device_cv, 0);
    }
    pthread_mutex_unlock(&e->lock);
    engine_thread_end(e);
    return NULL;
}


/* ---------- device workers ---------- */

void *engine_device_worker_main(void *varg)
{
    device_worker_arg *arg = varg;
    cuzk_engine *e = arg->e;
    int device = arg->device;
    pthread_mutex_lock(&e->lock);
    for (partition *p; (p = take_next(e, &e->device_q, &e->device_cv, 1));) {
        job *j = p->job;
        if (j->cancelled) {
            pool_checkin(e->pool, p->abc, j->id, p->index);
            p->abc = NULL;
            engine_give_back_permit(e, p);
            engine_partition_retire(e, p, P_DROPPED);
            continue;
        }
        p->state = P_DEVICE;
        p->device = device;
        e->on_device++;
        pthread_mutex_unlock(&e->lock);

        p->t_device_start = engine_now(e);
        timeline_emit(e->tl, TL_GPU_START, j->id, p->index, device, p->t_device_start);
        backend_work w = {j->key, j->circ->key ? &p->staged : NULL, j->circ->abc_on_device ? NULL : p->abc,
                          j->circ->domain_size, j->circ->has_pce ? &j->circ->pce : NULL, &j->cancelled,
                          p->form == WITNESS_PACKED ? &p->packed : NULL};
        cuzk_prove_timings times = {0};
        cuzk_error err = {0};
        cuzk_crash_point("engine:proving");
        int rc = e->backend->prove_start(e->backend, device, &w, &p->msm, &times, &err);
        p->t_device_end = engine_now(e);
        if (times.total == 0)
            times.total = p->t_device_end - p->t_device_start;
        timeline_emit(e->tl, TL_GPU_END, j->id, p->index, device, p->t_device_end);
        CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "partition proved",
                 "backend=%s job_id=%llu partition=%u device=%d h2d=%.4f ntt=%.4f msm_a=%.4f msm_b1=%.4f "
                 "msm_b2=%.4f msm_c=%.4f msm_h=%.4f total=%.4f witness_packed=%d",
                 e->backend->name, (unsigned long long)j->id, p->index, device, times.h2d, times.ntt, times.msm_a, times.msm_b1,
                 times.msm_b2, times.msm_c, times.msm_h, times.total, p->form == WITNESS_PACKED);
        pool_checkin(e->pool, p->abc, j->id, p->index);
        p->abc = NULL;

        pthread_mutex_lock(&e->lock);
        e->on_device--;
        double busy = p->t_device_end - p->t_device_start;
        e->device_busy_s[device] += busy;
        e->device_clock_s[device] += times.total < busy ? times.total : busy;
        if (e->device_first_start[device] == 0 || p->t_device_start < e->device_first_start[device])
            e->device_first_start[device] = p->t_device_start;
        if (p->t_device_end > e->device_last_end[device])
            e->device_last_end[device] = p->t_device_end;
        engine_sample_device_memory(e, device);
        j->device_s += busy;
        const dispatch_policy *policy = engine_dispatch_policy(e->cfg.policy);
        if (policy->on_service_time)
            policy->on_service_time(e, busy);
        engine_give_back_permit(e, p);
        if (rc) {
            engine_fail_partition(e, p, &err);
            continue;
        }
        p->state = P_FINISH;
        engine_queue_push(&e->finish_q, p);
        engine_wake(e, &e->finish_cv, 0);
    }
    pthread_mutex_unlock(&e->lock);
    free(arg);
    engine_thread_end(e);
    return NULL;
}


/* ---------- finalizers ---------- */

static int verify_partition(job *j, partition *p, cuzk_error *err)
{
    return cuzk_groth16_verify_own(&j->circ->vk,
                                   (const uint64_t(*)[4])j->publics + (size_t)p->index * j->circ->n_public,
                                   j->circ->n_public, &j->proofs[p->index], j->circ->has_r1cs, err);
}

void *engine_finisher_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    for (partition *p; (p = take_next(e, &e->finish_q, &e->finish_cv, 1));) {
        job *j = p->job;
        pthread_mutex_unlock(&e->lock);

        /* the witness has gone with the staging buffer: its public signals were kept at synthesis */
        backend_work w = {j->key, NULL, NULL, j->circ->domain_size, NULL, &j->cancelled, NULL};
        cuzk_error err = {0};
        int rc = e->backend->prove_finish(e->backend, &w, &p->msm, &j->proofs[p->index], &err);
        int verified = 0;
        if (!rc && j->circ->key && e->cfg.verify_proofs && !e->backend->simulated) {
            rc = verify_partition(j, p, &err);
            verified = !rc;
        }
        p->t_done = engine_now(e);
        timeline_emit(e->tl, TL_DONE, j->id, p->index, p->device, p->t_done);

        pthread_mutex_lock(&e->lock);
        if (rc) {
            engine_fail_partition(e, p, &err);
            continue;
        }
        e->proofs_verified += (uint64_t)verified;
        if (!verified)
            j->verified_all = 0;
        engine_partition_retire(e, p, P_DONE);
    }
    pthread_mutex_unlock(&e->lock);
    engine_thread_end(e);
    return NULL;
}


/* ---------- maintenance: idle buffers, old results ---------- */

void *engine_maintainer_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping) {
        engine_wait(e, &e->job_cv, engine_now(e) + 1.0);
        double now = engine_now(e);
        engine_prune_results(e, now);
        pthread_mutex_unlock(&e->lock);
        pool_trim_idle(e->pool, now);
        pthread_mutex_lock(&e->lock);
    }
    pthread_mutex_unlock(&e->lock);
    engine_thread_end(e);
    return NULL;
}
