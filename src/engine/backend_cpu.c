/* The CPU backend: the device part of a proof is the CPU prover's
 * prove_abc (NTTs and MSMs on `threads` threads). */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "util/timer.h"

typedef struct {
    cuzk_backend base;
    int threads;
} cpu_backend;

static int cpu_prove_start(cuzk_backend *b, int device, const backend_work *w, cuzk_msm_results *m,
                           cuzk_prove_timings *times, cuzk_error *err)
{
    (void)device;
    return cuzk_groth16_prove_abc(w->key, w->witness, w->abc, ((cpu_backend *)b)->threads, m, times, err);
}

static void cpu_destroy(cuzk_backend *b)
{
    free(b);
}

cuzk_backend *backend_cpu_create(int threads)
{
    cpu_backend *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->base = (cuzk_backend){.name = "cpu",
                             .n_devices = 1,
                             .msm_on_host = 1,
                             .host = host_allocator_pageable(),
                             .prove_start = cpu_prove_start,
                             .prove_finish = backend_finish_on_cpu,
                             .destroy = cpu_destroy};
    b->threads = threads > 0 ? threads : 1;
    return &b->base;
}
