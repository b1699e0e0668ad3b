/* Circuits: registration (key, PCE, r1cs, verification key), listing,
 * and their keys preloaded or evicted on request. */
#include "engine/engine_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "synthesis/pce.h"
#include "codec/curve_id.h"
#include "codec/json_io.h"
#include "util/err.h"
#include "util/threads.h"
#include "util/timer.h"

circuit *engine_find_circuit(cuzk_engine *e, const char *id)
{
    for (circuit *c = e->circuits; c; c = c->next)
        if (!strcmp(c->id, id))
            return c;
    return NULL;
}

static int add_circuit(cuzk_engine *e, circuit *c, cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    if (engine_find_circuit(e, c->id)) {
        pthread_mutex_unlock(&e->lock);
        return cuzk_fail(err, CUZK_ERR_ARG, "circuit '%s' is already registered", c->id);
    }
    c->next = e->circuits;
    e->circuits = c;
    for (int d = 0; d < e->backend->n_devices; d++)
        engine_sample_device_memory(e, d); /* a key made on a device is there now */
    pthread_mutex_unlock(&e->lock);
    int added = pool_prewarm(e->pool, engine_staging_bytes(c), e->cfg.prewarm_buffers);
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "circuit registered",
             "circuit=%s domain=%u abc=%s staging_mib=%.1f prewarmed_buffers=%d", c->id, c->domain_size,
             c->abc_on_device ? "device" : "host", engine_staging_bytes(c) / 1048576.0, added);
    return CUZK_OK;
}

void engine_free_circuit(cuzk_engine *e, circuit *c)
{
    if (c->key)
        keycache_remove(e->keys, c->key);
    if (c->pce_charged)
        budget_release(e->budget, BUDGET_PCE, c->pce.bytes);
    if (c->has_pce)
        cuzk_pce_free(&c->pce);
    if (c->has_r1cs)
        cuzk_r1cs_free(&c->r1cs);
    if (c->has_vk)
        cuzk_vk_free(&c->vk);
    cuzk_circom_free(c->wasm);
    free(c->id);
    free(c);
}

static uint64_t pce_total_locked(const cuzk_engine *e)
{
    uint64_t total = 0;
    for (const circuit *c = e->circuits; c; c = c->next)
        total += c->pce_charged ? c->pce.bytes : 0;
    return total;
}

int engine_check_fits(cuzk_engine *e, const circuit *c, uint64_t extra_pce, cuzk_error *err)
{
    key_info k = {0};
    if (c->key)
        keycache_info(e->keys, c->key, &k);
    uint64_t staging = engine_staging_bytes(c), witness = c->key ? (uint64_t)c->n_vars * 32 : 0;
    uint64_t pce = pce_total_locked(e) + extra_pce, limit = e->cfg.budget_bytes;
    uint64_t need = pce + k.bytes + staging + witness;
    if (need <= limit)
        return CUZK_OK;
    return cuzk_fail(err, CUZK_ERR_NOMEM,
                     "circuit '%s' can never run in the memory budget of %llu bytes: a job needs %llu bytes at "
                     "once (key %llu + one partition's pinned buffer %llu + its witness %llu) beside the PCEs of "
                     "the circuits (%llu); raise [memory] budget_gib",
                     c->id, (unsigned long long)limit, (unsigned long long)need, (unsigned long long)k.bytes,
                     (unsigned long long)staging, (unsigned long long)witness, (unsigned long long)pce);
}

/* c's description, PCE (compiled or read from the cache, charged to the
 * budget once the circuit is known to fit it) and verification key, from
 * its key entry c->key; waits end when w is cancelled. */
static int describe_circuit(cuzk_engine *e, circuit *c, engine_waiter *w, cuzk_error *err)
{
    c->abc_on_device = e->backend->builds_abc;
    const cuzk_zkey *z;
    int rc = keycache_acquire(e->keys, c->key, &z, &w->cancel, err);
    if (rc)
        return rc;
    c->domain_size = z->domain_size;
    c->n_vars = z->n_vars;
    c->n_public = z->n_public;
    c->curve = z->curve;
    int from_disk = 0;
    rc = cuzk_pce_get(z, e->cfg.pce_cache_dir, &c->pce, &from_disk, err);
    if (!rc) {
        c->has_pce = 1;
        rc = cuzk_groth16_export_vk(z, &c->vk, err);
        c->has_vk = !rc;
    }
    keycache_release(e->keys, c->key);
    if (rc)
        return rc;
    pthread_mutex_lock(&e->lock);
    rc = engine_check_fits(e, c, c->pce.bytes, err);
    pthread_mutex_unlock(&e->lock);
    if (rc)
        return rc;
    if (budget_acquire(e->budget, BUDGET_PCE, BUDGET_CLASS_NEW, c->pce.bytes, &w->cancel))
        return cuzk_fail(err, CUZK_ERR_CANCELLED, "circuit '%s': cancelled while waiting for memory for its PCE",
                         c->id);
    c->pce_charged = 1;
    CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "pce ready", "circuit=%s source=%s size_gib=%.3f", c->id,
             from_disk ? "disk" : "compiled", (double)c->pce.bytes / (1 << 30));
    return CUZK_OK;
}

typedef struct {
    cuzk_engine *e;
    const char *id;
} wasm_log;

static void log_wasm_step(void *ctx, const char *line)
{
    const wasm_log *l = ctx;
    CUZK_LOG(l->e->cfg.log, CUZK_LOG_INFO, "wasm compile", "circuit=%s step=\"%s\"", l->id, line);
}

/* The circuit's witness calculator (compiled now when its cache has none),
 * which must make the key's witnesses. */
static int load_wasm(cuzk_engine *e, circuit *c, const char *wasm_path, const char *zkey_path, cuzk_error *err)
{
    wasm_log l = {e, c->id};
    cuzk_circom_options o = {.cache_dir = e->cfg.wasm_cache_dir, .progress = log_wasm_step, .ctx = &l};
    int rc = cuzk_circom_load(&c->wasm, wasm_path, &o, err);
    if (rc)
        return rc;
    cuzk_curve_id curve = cuzk_circom_curve(c->wasm);
    uint32_t n = cuzk_circom_witness_size(c->wasm);
    if (curve != c->curve || n != c->n_vars)
        return cuzk_fail(err, CUZK_ERR_MISMATCH,
                         "%s does not belong to %s: its witnesses are %u values of %s, the key's %u of %s", wasm_path,
                         zkey_path, n, cuzk_curve_snarkjs_name(curve), c->n_vars, cuzk_curve_snarkjs_name(c->curve));
    return CUZK_OK;
}

/* Loads the key, then describe_circuit, then the r1cs and the wasm if given. */
static int prepare_circuit(cuzk_engine *e, circuit *c, const char *zkey_path, const char *r1cs_path,
                           const char *wasm_path, engine_waiter *w, cuzk_error *err)
{
    if (!(c->key = keycache_add(e->keys, zkey_path, err)))
        return err->code;
    int rc = describe_circuit(e, c, w, err);
    if (rc)
        return rc;
    if (r1cs_path) {
        if ((rc = cuzk_r1cs_read(&c->r1cs, r1cs_path, err)))
            return rc;
        c->has_r1cs = 1;
        if (c->r1cs.n_wires != c->n_vars || c->r1cs.curve != c->curve)
            return cuzk_fail(err, CUZK_ERR_MISMATCH, "%s does not belong to %s (wires %u, key nVars %u)", r1cs_path,
                             zkey_path, c->r1cs.n_wires, c->n_vars);
    }
    return wasm_path ? load_wasm(e, c, wasm_path, zkey_path, err) : CUZK_OK;
}

static circuit *new_circuit(const char *id, cuzk_error *err)
{
    circuit *c = calloc(1, sizeof *c);
    if (!c || !(c->id = strdup(id))) {
        free(c);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    }
    return c;
}

/* prepare(e, c, ctx, w, err) with w, a waiter that cancel-all, the drain
 * and shutdown end, registered for its duration */
static int with_waiter(cuzk_engine *e, circuit *c, int (*prepare)(cuzk_engine *, circuit *, void *, engine_waiter *,
                                                                   cuzk_error *),
                       void *ctx, cuzk_error *err)
{
    engine_waiter w;
    int rc = engine_waiter_add(e, &w, c->id, err);
    if (!rc)
        rc = prepare(e, c, ctx, &w, err);
    engine_waiter_remove(e, &w);
    return rc;
}

typedef struct {
    const char *zkey_path, *r1cs_path, *wasm_path;
} file_circuit;

static int prepare_file_circuit(cuzk_engine *e, circuit *c, void *ctx, engine_waiter *w, cuzk_error *err)
{
    const file_circuit *f = ctx;
    return prepare_circuit(e, c, f->zkey_path, f->r1cs_path, f->wasm_path, w, err);
}

int cuzk_engine_register_circuit(cuzk_engine *e, const char *id, const char *zkey_path, const char *r1cs_path,
                                 const char *wasm_path, cuzk_error *err)
{
    circuit *c = new_circuit(id, err);
    if (!c)
        return err->code;
    int rc = with_waiter(e, c, prepare_file_circuit, &(file_circuit){zkey_path, r1cs_path, wasm_path}, err);
    if (!rc)
        rc = add_circuit(e, c, err);
    if (rc)
        engine_free_circuit(e, c);
    return rc;
}

typedef struct {
    cuzk_engine *e;
    const char *id;
    double t0;
} setup_log;

static void log_setup_stage(void *ctx, const char *stage)
{
    const setup_log *l = ctx;
    CUZK_LOG(l->e->cfg.log, CUZK_LOG_INFO, "setup stage", "circuit=%s stage=\"%s\" seconds=%.2f", l->id, stage,
             cuzk_now_s() - l->t0);
}

typedef struct {
    cuzk_zkey *z;
    const char *label;
    int taken; /* the key cache has z (or freed it) */
} made_circuit;

static int prepare_made_circuit(cuzk_engine *e, circuit *c, void *ctx, engine_waiter *w, cuzk_error *err)
{
    made_circuit *m = ctx;
    m->taken = 1;
    if (!(c->key = keycache_adopt(e->keys, m->label, m->z, &w->cancel, err)))
        return err->code;
    return describe_circuit(e, c, w, err);
}

int cuzk_engine_register_setup(cuzk_engine *e, const char *id, cuzk_r1cs *r, int device_only, cuzk_error *err)
{
    circuit *c = device_only && !e->backend->setup
                     ? (cuzk_fail(err, CUZK_ERR_ARG, "a key kept only on a device needs a backend with one, not %s",
                                  e->backend->name),
                        NULL)
                     : new_circuit(id, err);
    if (!c) {
        cuzk_r1cs_free(r);
        return err->code;
    }
    setup_log l = {e, id, cuzk_now_s()};
    const cuzk_setup_options o = {.nthreads = cuzk_cpu_count(), .no_host_points = device_only,
                                  .progress = log_setup_stage, .progress_ctx = &l,
                                  .r1cs_read = cuzk_r1cs_free_ctx, .r1cs_read_ctx = r};
    cuzk_zkey z;
    int rc = backend_setup(e->backend, r, &o, &z, err);
    cuzk_r1cs_free(r); /* when the setup failed before reading it all */
    if (!rc) {
        CUZK_LOG(e->cfg.log, CUZK_LOG_INFO, "development key made", "circuit=%s backend=%s device_only=%d seconds=%.2f",
                 id, e->backend->name, device_only, cuzk_now_s() - l.t0);
        char label[256];
        snprintf(label, sizeof label, "(made in memory: circuit %s)", id);
        made_circuit m = {&z, label, 0};
        const uint64_t serial = z.serial;
        rc = with_waiter(e, c, prepare_made_circuit, &m, err);
        if (!m.taken)
            cuzk_zkey_free(&z); /* the engine refused it before the key cache saw it */
        if (rc && e->backend->key_forget)
            e->backend->key_forget(e->backend, serial); /* its device copy, which nothing else frees */
    }
    if (!rc)
        rc = add_circuit(e, c, err);
    if (rc)
        engine_free_circuit(e, c);
    return rc;
}

int cuzk_engine_register_sim_circuit(cuzk_engine *e, const char *id, uint32_t domain_size, cuzk_error *err)
{
    if (!domain_size || (domain_size & (domain_size - 1)))
        return cuzk_fail(err, CUZK_ERR_ARG, "a domain size must be a power of two, not %u", domain_size);
    circuit *c = new_circuit(id, err);
    if (!c)
        return err->code;
    c->domain_size = domain_size;
    int rc = add_circuit(e, c, err);
    if (rc)
        engine_free_circuit(e, c);
    return rc;
}

static void fill_circuit_info(cuzk_engine *e, const circuit *c, cuzk_circuit_info *out)
{
    *out = (cuzk_circuit_info){c->id,        c->curve, c->domain_size, c->n_vars, c->n_public,
                               !c->key,      c->has_r1cs, c->wasm != NULL, {0}};
    if (c->key)
        keycache_info(e->keys, c->key, &out->key);
}

int cuzk_engine_circuit_info(cuzk_engine *e, const char *id, cuzk_circuit_info *out)
{
    pthread_mutex_lock(&e->lock);
    circuit *c = engine_find_circuit(e, id);
    if (c)
        fill_circuit_info(e, c, out);
    pthread_mutex_unlock(&e->lock);
    return c ? CUZK_OK : CUZK_ERR_ARG;
}

size_t cuzk_engine_list_circuits(cuzk_engine *e, cuzk_circuit_info *out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&e->lock);
    for (circuit *c = e->circuits; c; c = c->next, n++)
        if (n < cap)
            fill_circuit_info(e, c, &out[n]);
    pthread_mutex_unlock(&e->lock);
    return n;
}

/* Registered circuit id when it has a key (not simulated), else NULL with
 * CUZK_ERR_ARG; e->lock held. */
static circuit *keyed_circuit(cuzk_engine *e, const char *id, cuzk_error *err)
{
    circuit *c = engine_find_circuit(e, id);
    if (!c)
        cuzk_fail(err, CUZK_ERR_ARG, "unknown circuit '%s'", id);
    else if (!c->key)
        cuzk_fail(err, CUZK_ERR_ARG, "circuit '%s' is simulated: it has no key", id);
    return c && c->key ? c : NULL;
}

/* The key of a registered, non-simulated circuit (key entries live as long
 * as the engine, so the pointer stays valid after the lock is dropped). */
static key_entry *circuit_key(cuzk_engine *e, const char *id, cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    circuit *c = keyed_circuit(e, id, err);
    pthread_mutex_unlock(&e->lock);
    return c ? c->key : NULL;
}

char *cuzk_engine_circuit_vk_json(cuzk_engine *e, const char *id, cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    circuit *c = keyed_circuit(e, id, err);
    char *json = c ? cuzk_vk_to_json(&c->vk, err) : NULL;
    pthread_mutex_unlock(&e->lock);
    return json;
}

int cuzk_engine_preload_key(cuzk_engine *e, const char *circuit_id, cuzk_error *err)
{
    key_entry *k = circuit_key(e, circuit_id, err);
    if (!k)
        return CUZK_ERR_ARG;
    engine_waiter w;
    int rc = engine_waiter_add(e, &w, circuit_id, err);
    if (!rc)
        rc = keycache_preload(e->keys, k, &w.cancel, err);
    engine_waiter_remove(e, &w);
    return rc;
}

int cuzk_engine_evict_key(cuzk_engine *e, const char *circuit_id, int drop, cuzk_error *err)
{
    key_entry *k = circuit_key(e, circuit_id, err);
    if (!k)
        return CUZK_ERR_ARG;
    if (keycache_evict(e->keys, k, drop)) {
        key_info info;
        keycache_info(e->keys, k, &info);
        return cuzk_fail(err, CUZK_ERR_ARG,
                         info.made ? "the key of circuit '%s' was made in memory: there is no file to reload it from"
                                   : "the key of circuit '%s' is in use by jobs",
                         circuit_id);
    }
    return CUZK_OK;
}
