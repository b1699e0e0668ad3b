/* What the backends share: the CPU-side finish, choosing a backend by name,
 * and one proof through a backend outside the engine. */
#include <string.h>

#include "engine/backend.h"
#include "gpu/gpu.h"
#include "util/err.h"
#include "util/timer.h"

int backend_finish_on_cpu(cuzk_backend *b, const backend_work *w, const cuzk_msm_results *m, cuzk_proof *proof,
                          cuzk_error *err)
{
    (void)b;
    return cuzk_groth16_finish(w->key, m, proof, err);
}

cuzk_backend *backend_create(const char *name, int threads, cuzk_error *err)
{
    if (!strcmp(name, "cpu"))
        return backend_cpu_create(threads);
    if (!strcmp(name, "gpu"))
        return backend_gpu_create(0, err);
    if (!strcmp(name, "auto"))
        return cuzk_gpu_device_count() > 0 ? backend_gpu_create(0, err) : backend_cpu_create(threads);
    cuzk_fail(err, CUZK_ERR_ARG, "unknown backend '%s' (cpu, gpu or auto)", name);
    return NULL;
}

int backend_prove(cuzk_backend *b, const cuzk_zkey *z, const cuzk_wtns *w, int threads, cuzk_proof *proof,
                  uint64_t (*pub)[4], cuzk_prove_timings *t, cuzk_error *err)
{
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
    void *abc = b->host.alloc(b->host.ctx, bytes);
    if (!abc)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a, b, c (%zu bytes)", bytes);
    cuzk_groth16_synthesize_abc(z, w, abc, threads);
    t->abc = cuzk_now_s() - start;
    backend_work work = {z, w, abc, z->domain_size};
    cuzk_msm_results m;
    rc = b->prove_start(b, 0, &work, &m, t, err);
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
