/* The simulated backend: a device that takes gpu_ms per partition and
 * produces no real proof. It makes the pipeline's dynamics (dispatch,
 * pool reuse, budget, cancel) testable in CI without a GPU. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/backend.h"

typedef struct {
    cuzk_backend base;
    double gpu_ms;
} sim_backend;

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
    while (nanosleep(&ts, &ts))
        ;
}

static int sim_prove_start(cuzk_backend *b, int device, const backend_work *w, cuzk_msm_results *m,
                           cuzk_prove_timings *times, cuzk_error *err)
{
    (void)device;
    (void)err;
    double ms = ((sim_backend *)b)->gpu_ms;
    /* read the buffer's first and last bytes, as a device copy would */
    volatile const unsigned char *abc = w->abc;
    size_t bytes = 3 * (size_t)w->domain_size * 32;
    (void)abc[0];
    (void)abc[bytes - 1];
    sleep_ms(ms);
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
    return &b->base;
}
