/* The simulated backend: a device that takes gpu_ms per partition and
 * produces no real proof. It makes the pipeline's dynamics (dispatch,
 * pool reuse, budget, cancel) testable in CI without a GPU; behind a gate
 * (a file each partition waits for) it holds jobs running until a test
 * lets them go. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "util/err.h"
#include "util/file_gate.h"
#include "util/timer.h"
#include "util/vclock.h"

typedef struct {
    cuzk_backend base;
    double gpu_ms;
    cuzk_vclock *clock; /* NULL: real time */
    file_gate *gate;    /* NULL: none */
} sim_backend;

static int sim_prove_start(cuzk_backend *b, int device, const backend_work *w, cuzk_msm_results *m,
                           cuzk_prove_timings *times, cuzk_error *err)
{
    (void)device;
    sim_backend *sim = (sim_backend *)b;
    double ms = sim->gpu_ms;
    /* read the buffer's first and last bytes, as a device copy would */
    volatile const unsigned char *abc = w->abc;
    size_t bytes = 3 * (size_t)w->domain_size * 32;
    (void)abc[0];
    (void)abc[bytes - 1];
    if (sim->gate && file_gate_pass(sim->gate, w->cancel))
        return cuzk_fail(err, CUZK_ERR_CANCELLED, "cancelled while waiting at the sim gate");
    if (sim->clock)
        vclock_sleep(sim->clock, ms / 1000);
    else
        cuzk_sleep_s(ms / 1000);
    memset(m, 0, sizeof *m);
    times->msm_a = times->total = ms / 1000;
    return CUZK_OK;
}

static int sim_prove_finish(cuzk_backend *b, const backend_work *w, const cuzk_msm_results *m, cuzk_proof *proof,
                            cuzk_error *err)
{
    (void)b;
    (void)w;
    (void)m;
    (void)err;
    memset(proof, 0, sizeof *proof);
    proof->a.infinity = proof->b.infinity = proof->c.infinity = 1;
    return CUZK_OK;
}

static void sim_wake(cuzk_backend *b)
{
    sim_backend *sim = (sim_backend *)b;
    if (sim->gate)
        file_gate_wake(sim->gate);
}

static void sim_destroy(cuzk_backend *b)
{
    file_gate_destroy(((sim_backend *)b)->gate);
    free(b);
}

cuzk_backend *backend_sim_create(int n_devices, double gpu_ms)
{
    return backend_sim_create_on(n_devices, gpu_ms, NULL);
}

cuzk_backend *backend_sim_create_on(int n_devices, double gpu_ms, struct cuzk_vclock *clock)
{
    sim_backend *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->base = (cuzk_backend){.name = "sim",
                             .n_devices = n_devices > 0 ? n_devices : 1,
                             .simulated = 1,
                             .host = host_allocator_pageable(),
                             .prove_start = sim_prove_start,
                             .prove_finish = sim_prove_finish,
                             .wake = sim_wake,
                             .destroy = sim_destroy};
    b->gpu_ms = gpu_ms;
    b->clock = clock;
    return &b->base;
}

cuzk_backend *backend_sim_create_gated(int n_devices, double gpu_ms, const char *gate, cuzk_error *err)
{
    sim_backend *b = (sim_backend *)backend_sim_create_on(n_devices, gpu_ms, NULL);
    if (!b)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "sim backend: out of memory"), NULL;
    if (!(b->gate = file_gate_create(gate, err))) {
        free(b);
        return NULL;
    }
    return &b->base;
}
