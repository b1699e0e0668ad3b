/* The simulated backend: a device that takes gpu_ms per partition and
 * produces no real proof. It makes the pipeline's dynamics (dispatch,
 * pool reuse, budget, cancel) testable in CI without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "engine/backend.h"
#include "util/timer.h"
#include "util/vclock.h"

typedef struct {
    cuzk_backend base;
    double gpu_ms;
    cuzk_vclock *clock; /* NULL: real time */
} sim_backend;

static int sim_prove_start(cuzk_backend *b, int device, const backend_work *w, cuzk_msm_results *m,
                           cuzk_prove_timings *times, cuzk_error *err)
{
    (void)device;
    (void)err;
    sim_backend *sim = (sim_backend *)b;
    double ms = sim->gpu_ms;
    /* read the buffer's first and last bytes, as a device copy would */
    volatile const unsigned char *abc = w->abc;
    size_t bytes = 3 * (size_t)w->domain_size * 32;
    (void)abc[0];
    (void)abc[bytes - 1];
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

static void sim_destroy(cuzk_backend *b)
{
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
                             .destroy = sim_destroy};
    b->gpu_ms = gpu_ms;
    b->clock = clock;
    return &b->base;
}
