/* The backend interface: what the engine asks of a prover device. Three
 * implementations: cpu (backend_cpu.c: the CPU prover), sim (backend_sim.c:
 * configurable service times, deterministic tests of dispatch) and cuda
 * (the GPU prover). Designed for a GPU:
 *   - a, b, c arrive in a pinned host buffer from the engine's pool, the
 *     witness in host memory; the device part (prove_start) consumes them,
 *     and returns as soon as the buffer may go back to the pool
 *   - prove_finish is the CPU side (blinding, assembly) and runs after the
 *     device has been handed to the next partition
 *   - one engine worker drives one (device, slot) pair; devices are
 *     numbered 0..n_devices-1. */
#ifndef CUZK_ENGINE_BACKEND_H
#define CUZK_ENGINE_BACKEND_H

#include "engine/pinned_pool.h"
#include "groth16/groth16.h"

typedef struct cuzk_backend cuzk_backend;

/* What one partition hands the device. */
typedef struct {
    const cuzk_zkey *key;     /* NULL for simulated circuits */
    const cuzk_wtns *witness; /* NULL for simulated circuits */
    void *abc;                /* pinned, 3 x domain_size scalars; consumed */
    uint32_t domain_size;
} backend_work;

/* Seconds the device spent in each phase of one prove_start. */
typedef struct {
    double h2d, ntt, msm, d2h, total;
} backend_phase_times;

struct cuzk_backend {
    const char *name;
    int n_devices;
    int simulated;        /* proofs are placeholders: nothing to verify */
    host_allocator host;  /* how the pinned pool gets memory on this host */
    /* Device part of one proof; fills *m and *times. Thread-safe across
     * devices; the engine never runs two calls on one (device, slot). */
    int (*prove_start)(cuzk_backend *b, int device, const backend_work *w, cuzk_msm_results *m,
                       backend_phase_times *times, cuzk_error *err);
    /* CPU part: blinding and assembly into a proof. */
    int (*prove_finish)(cuzk_backend *b, const backend_work *w, const cuzk_msm_results *m, cuzk_proof *proof,
                        cuzk_error *err);
    void (*destroy)(cuzk_backend *b);
};

/* The CPU prover: n_devices = 1, prove_start uses `threads` threads. */
cuzk_backend *backend_cpu_create(int threads);

/* n_devices simulated devices: prove_start takes gpu_ms and returns an
 * all-zero result; the proofs are placeholders (simulated = 1). */
cuzk_backend *backend_sim_create(int n_devices, double gpu_ms);

typedef struct {
    int cpu_threads;   /* cpu: threads of one proof's device part */
    int sim_devices;   /* sim: how many simulated devices */
    double sim_gpu_ms; /* sim: device time per partition */
} backend_options;

/* The backend a configuration names: "cpu", "sim", "gpu" or "auto". auto is
 * the best one this build and machine have: the CPU prover until the CUDA
 * backend (src/gpu) is wired in here, which is the one place it slots in.
 * NULL, with a message, for an unknown or unavailable name. */
cuzk_backend *backend_create(const char *name, const backend_options *o, cuzk_error *err);

#endif
