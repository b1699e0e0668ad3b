/* The CPU backend: the device part of a proof is the CPU prover's
 * prove_abc (NTTs and MSMs on `threads` threads). */
#include <stdlib.h>
#include <string.h>

#include "engine/backend.h"
#include "util/timer.h"

typedef struct {
    cuzk_backend base;
    int threads;
} cpu_backend;

static int cpu_prove_start(cuzk_backend *b, int device, const backend_work *w, cuzk_msm_results *m,
                           backend_phase_times *times, cuzk_error *err)
{
    (void)device;
    cuzk_prove_timings t;
    memset(&t, 0, sizeof t);
    double t0 = cuzk_now_s();
    int rc = cuzk_groth16_prove_abc(w->key, w->witness, w->abc, ((cpu_backend *)b)->threads, m, &t, err);
    *times = (backend_phase_times){0, t.ntt, t.msm_a + t.msm_b1 + t.msm_b2 + t.msm_c + t.msm_h, 0,
                                   cuzk_now_s() - t0};
    return rc;
}

static int cpu_prove_finish(cuzk_backend *b, const backend_work *w, const cuzk_msm_results *m, cuzk_proof *proof,
                            cuzk_error *err)
{
    (void)b;
    return cuzk_groth16_finish(w->key, m, proof, err);
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
    b->base = (cuzk_backend){"cpu", 1, 0, host_allocator_pageable(), cpu_prove_start, cpu_prove_finish, cpu_destroy};
    b->threads = threads > 0 ? threads : 1;
    return &b->base;
}
