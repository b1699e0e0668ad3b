/* What the backends share: the CPU-side finish, choosing a backend by name,
 * and one proof through a backend outside the engine. */
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "gpu/gpu.h"
#include "util/err.h"
#include "util/timer.h"

int backend_finish_on_cpu(cuzk_backend *b, const backend_work *w, const cuzk_msm_results *m, cuzk_proof *proof,
                          cuzk_error *err)
{
    (void)b;
    return cuzk_groth16_finish(w->key, m, proof, err);
}

static cuzk_backend *make_cpu(const backend_options *o, cuzk_error *err)
{
    (void)err;
    return backend_cpu_create(o->cpu_threads);
}

static cuzk_backend *make_sim(const backend_options *o, cuzk_error *err)
{
    if (!o->sim_gate || !*o->sim_gate)
        return backend_sim_create_on(o->sim_devices, o->sim_device_ms, o->sim_clock);
    /* a waiter at the gate is outside the clock's view: it would stop time */
    if (o->sim_clock)
        return cuzk_fail(err, CUZK_ERR_ARG, "sim backend: a gate works in real time only, not on a virtual clock"), NULL;
    return backend_sim_create_gated(o->sim_devices, o->sim_device_ms, o->sim_gate, err);
}

static cuzk_backend *make_gpu(const backend_options *o, cuzk_error *err)
{
    return backend_gpu_create(o, err);
}

#define BACKEND_ROW_(name, proves) {#name, proves, make_##name},
static const struct {
    const char *name;
    int proves; /* its proofs are real (CUZK_BACKENDS) */
    /* NULL: err says why, or (err untouched) out of memory */
    cuzk_backend *(*make)(const backend_options *o, cuzk_error *err);
} backends[] = {CUZK_BACKENDS(BACKEND_ROW_)};
enum { N_BACKENDS = sizeof backends / sizeof backends[0] };

int backend_is_choice(const char *name, int provers_only)
{
    if (!strcmp(name, "auto"))
        return 1;
    for (int i = 0; i < N_BACKENDS; i++)
        if (!strcmp(name, backends[i].name))
            return backends[i].proves || !provers_only;
    return 0;
}

/* "auto, cpu, sim or gpu" */
static void backend_list(char *out, size_t cap)
{
    int n = snprintf(out, cap, "auto");
    for (int i = 0; i < N_BACKENDS && n >= 0 && (size_t)n < cap; i++)
        n += snprintf(out + n, cap - (size_t)n, "%s%s", i == N_BACKENDS - 1 ? " or " : ", ", backends[i].name);
}

cuzk_backend *backend_create(const char *name, const backend_options *o, cuzk_error *err)
{
    if (!strcmp(name, "auto"))
        name = cuzk_gpu_device_count() > 0 ? "gpu" : "cpu";
    for (int i = 0; i < N_BACKENDS; i++) {
        if (strcmp(name, backends[i].name))
            continue;
        cuzk_error why = {0};
        cuzk_backend *b = backends[i].make(o, &why);
        if (b)
            return b;
        if (why.code)
            return *err = why, NULL;
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory creating the %s backend", name), NULL;
    }
    char list[128];
    backend_list(list, sizeof list);
    return cuzk_fail(err, CUZK_ERR_ARG, "unknown backend '%s' (%s)", name, list), NULL;
}

int backend_prove(cuzk_backend *b, const cuzk_zkey *z, const cuzk_wtns *w, int threads, cuzk_proof *proof,
                  uint64_t (*pub)[4], cuzk_prove_timings *t, cuzk_error *err)
{
    return backend_prove_packed(b, z, w, NULL, threads, proof, pub, t, err);
}

int backend_prove_packed(cuzk_backend *b, const cuzk_zkey *z, const cuzk_wtns *w, const cuzk_wtns_packed *packed,
                         int threads, cuzk_proof *proof, uint64_t (*pub)[4], cuzk_prove_timings *t, cuzk_error *err)
{
    if (packed && !b->builds_abc)
        return cuzk_fail(err, CUZK_ERR_ARG, "the %s backend takes no packed witness", b->name);
    if (b->simulated)
        return cuzk_fail(err, CUZK_ERR_ARG,
                         "the %s backend makes placeholder proofs: prove with one of " CUZK_BACKEND_PROVERS, b->name);
    int rc = cuzk_groth16_check_inputs(z, w, err);
    if (rc)
        return rc;
    cuzk_prove_timings local;
    if (!t)
        t = &local;
    memset(t, 0, sizeof *t);
    threads = threads < 1 ? 1 : threads;
    double start = cuzk_now_s();
    size_t bytes = cuzk_groth16_abc_bytes(z);
    void *abc = NULL;
    if (b->msm_on_host)
        cuzk_zkey_release_all_points(z);
    if (!b->builds_abc) {
        if (!(abc = b->host.alloc(b->host.ctx, bytes)))
            return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a, b, c (%zu bytes)", bytes);
        cuzk_groth16_synthesize_abc(z, w, abc, threads);
        t->abc = cuzk_now_s() - start;
    }
    backend_work work = {z, w, abc, z->domain_size, NULL, NULL, packed};
    cuzk_msm_results m;
    rc = b->prove_start(b, 0, &work, &m, t, err);
    if (abc)
        b->host.free(b->host.ctx, abc, bytes);
    if (rc)
        return rc;
    double t0 = cuzk_now_s();
    if ((rc = b->prove_finish(b, &work, &m, proof, err)))
        return rc;
    t->finish = cuzk_now_s() - t0;
    t->total = cuzk_now_s() - start;
    cuzk_groth16_public_signals(z, w, pub);
    return CUZK_OK;
}

int backend_setup(cuzk_backend *b, const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z,
                  cuzk_error *err)
{
    if (b->setup)
        return b->setup(b, r, o, z, err);
    if (o->no_host_points)
        return cuzk_fail(err, CUZK_ERR_ARG, "the %s backend keeps no key on a device: setups there need host points",
                         b->name);
    return cuzk_groth16_setup_with(r, o, z, err);
}
