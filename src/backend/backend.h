/* The backend interface: what the engine asks of a prover device. Three
 * implementations: cpu (cpu.c: the CPU prover), sim (sim.c:
 * configurable service times, deterministic tests of dispatch) and cuda
 * (the GPU prover). Designed for a GPU:
 *   - a, b, c arrive in a pinned host buffer from the engine's pool, the
 *     witness in host memory; the device part (prove_start) consumes them,
 *     and returns as soon as the buffer may go back to the pool
 *   - prove_finish is the CPU side (blinding, assembly) and runs after the
 *     device has been handed to the next partition
 *   - one engine worker drives one (device, slot) pair; devices are
 *     numbered 0..n_devices-1. */
#ifndef CUZK_BACKEND_BACKEND_H
#define CUZK_BACKEND_BACKEND_H

#include <stdatomic.h>

#include "synthesis/pce.h"
#include "backend/host_alloc.h"
#include "ceremony/ceremony_mul.h"
#include "groth16/bellman.h"
#include "groth16/groth16.h"
#include "synthesis/wtns_pack.h"

typedef struct cuzk_backend cuzk_backend;

/* What a backend reports of one device's memory. */
typedef struct {
    size_t used, total;            /* in use now (pools' reserve included), the card */
    unsigned long long waits;      /* proofs that waited for room so far (device_admission.h) */
} backend_device_memory;

/* What one partition hands the device. */
typedef struct {
    const cuzk_zkey *key;     /* NULL for simulated circuits */
    const cuzk_wtns *witness; /* NULL for simulated circuits */
    void *abc;                /* pinned, 3 x domain_size scalars; consumed.
                               * NULL: the backend builds them (builds_abc) */
    uint32_t domain_size;
    const cuzk_pce *pce;        /* the key's matrices compiled (the engine's), for a
                                 * backend that builds a, b, c; NULL: it compiles them */
    const atomic_int *cancel;   /* set when the proof is no longer wanted (NULL: never);
                                 * a prove_start that waits on more than the device ends
                                 * that wait when it is set (see wake) */
    const cuzk_wtns_packed *packed; /* the witness packed (synthesis/wtns_pack.h), its values
                                     * gone from witness: for a backend that builds a, b, c
                                     * (abc NULL); NULL: witness->values hold them */
} backend_work;

struct cuzk_backend {
    const char *name;
    int n_devices;
    int simulated;        /* proofs are placeholders: nothing to verify */
    int builds_abc;       /* prove_start takes abc = NULL and builds a, b, c
                           * from the key's coefficients itself */
    int msm_on_host;      /* the MSMs read the key's points in host memory
                           * (cpu): backend_prove hands a mapped key's points
                           * back before the proof (cuzk_zkey_release_all_points:
                           * the load's check left them all resident), and the
                           * prover reads each again for its MSM */
    host_allocator host;  /* how the pinned pool gets memory on this host */
    /* Device part of one proof; fills *m and the device phases of *times
     * (h2d, ntt, msm_*, total). Thread-safe: the engine runs up to
     * workers_per_device calls on one device at once. */
    int (*prove_start)(cuzk_backend *b, int device, const backend_work *w, cuzk_msm_results *m,
                       cuzk_prove_timings *times, cuzk_error *err);
    /* CPU part: blinding and assembly into a proof. */
    int (*prove_finish)(cuzk_backend *b, const backend_work *w, const cuzk_msm_results *m, cuzk_proof *proof,
                        cuzk_error *err);
    /* A development key for r with its fixed-base multiplications on device
     * 0 (cuzk_gpu_setup); with o->no_host_points its points stay there as
     * z's resident key. NULL: the CPU makes keys (backend_setup). */
    int (*setup)(cuzk_backend *b, const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z,
                 cuzk_error *err);
    /* Device memory of `device` as this backend sees the card (a memory
     * limit shrinks it); NULL: no device memory. */
    int (*device_memory)(cuzk_backend *b, int device, backend_device_memory *m);
    /* Frees what the backend keeps of a key its setup made (by the key's
     * serial) when no proof holds it: a device-only key whose registration
     * failed. NULL: setups leave nothing behind. */
    void (*key_forget)(cuzk_backend *b, uint64_t serial);
    /* Some backend_work.cancel was set: a prove_start waiting looks at its
     * flag again and, set, returns CUZK_ERR_CANCELLED. NULL: prove_start
     * waits on nothing but the device. */
    void (*wake)(cuzk_backend *b);
    /* Keys in bellman's layout (groth16/bellman.h) resident on `device`
     * (or, when they do not fit, streamed from key's arrays, which the
     * caller keeps until bellman_key_free), and the device part of a
     * proof with one: bellman's quotient, the MSMs (m: A, B1, B2, and
     * C' + H', in c or apart in c and h; packed: NULL, or w's arrays
     * packed, synthesis/wtns_pack.h). Thread-safe. NULL: none on this
     * backend (bellman's proofs run on the CPU, src/filecoin). */
    int (*bellman_key_load)(cuzk_backend *b, int device, const cuzk_bellman_key *key, void **handle,
                            cuzk_error *err);
    int (*bellman_prove)(cuzk_backend *b, void *handle, const cuzk_bellman_witness *w,
                         const cuzk_bellman_packed *packed, cuzk_msm_results *m, cuzk_prove_timings *times,
                         cuzk_error *err);
    void (*bellman_key_free)(cuzk_backend *b, void *handle);
    /* The trusted-setup ceremony's multiplications (ceremony/ceremony_mul.h)
     * on device 0, the backend's until it is destroyed; NULL, or a NULL
     * answer with err filled: the ceremony runs them on the CPU. */
    const cuzk_ceremony_mul *(*ceremony_mul)(cuzk_backend *b, cuzk_error *err);
    void (*destroy)(cuzk_backend *b);
};

struct cuzk_vclock;
typedef struct {
    int cpu_threads;   /* cpu: threads of one proof's device part */
    int sim_devices;   /* sim: how many simulated devices */
    double sim_device_ms; /* sim: device time per partition */
    struct cuzk_vclock *sim_clock; /* sim: the virtual clock gpu_ms passes on (NULL: real time) */
    const char *sim_gate; /* sim: NULL or "", or a file each partition waits for (backend_sim_create_gated) */
    int gpu_devices;   /* gpu: use the first N visible GPUs (0: all) */
    int gpu_one_shot;  /* gpu: each key serves one proof (the command line):
                        * no window tables, and a, b, c made on the host's
                        * threads (not builds_abc): the tables' build and
                        * compiling the key's rows for the device (one
                        * thread) cost more than they save on one proof */
    size_t gpu_memory_limit; /* gpu: 0, or the bytes of device memory each GPU may use */
    size_t gpu_stream_slice; /* gpu: 0, or every key's points streamed from host memory this many at a
                              * time instead of made resident (what a key too large for the card
                              * gets anyway): tests of that path */
    int gpu_keys_outlive;    /* gpu: the caller keeps every zkey it proves with alive until the backend
                              * is destroyed, so a key streamed from host memory stays registered
                              * between proofs (bench prove) instead of being dropped after each */
} backend_options;

/* The CPU prover: n_devices = 1, prove_start uses `threads` threads. */
cuzk_backend *backend_cpu_create(int threads);

/* n_devices simulated devices: prove_start takes gpu_ms and returns an
 * all-zero result; the proofs are placeholders (simulated = 1). */
cuzk_backend *backend_sim_create(int n_devices, double gpu_ms);
/* The same on a virtual clock (util/vclock.h; NULL: real time): gpu_ms
 * passes on that clock, the one the engine's configuration names. */
cuzk_backend *backend_sim_create_on(int n_devices, double gpu_ms, struct cuzk_vclock *clock);
/* The same in real time behind a gate (util/file_gate.h): each partition
 * waits, before its device time, until the file `gate` exists, or until
 * its work's cancel flag is set (then CUZK_ERR_CANCELLED): the engine's
 * cancel, cancel-all and destroy end the wait as they end every other.
 * A test holds jobs running for as long as it needs and then lets them
 * finish by creating the file. NULL with a message when gate's folder
 * cannot be watched. */
cuzk_backend *backend_sim_create_gated(int n_devices, double gpu_ms, const char *gate, cuzk_error *err);

/* The CUDA prover (backend/gpu.c) on the first o->gpu_devices visible GPUs
 * (0: all). Each device keeps the proving keys it has seen resident
 * (evicting idle ones, least recently used first, when memory runs out;
 * a key that still does not fit streams its points from host memory); the
 * pinned pool gets page-locked memory (cudaHostAlloc). Unless
 * o->gpu_one_shot it builds a, b, c on the device when given none, from
 * the key's matrices compiled by the PCE (synthesis/pce.h) and copied to the
 * device on the first such proof.
 * Resident keys get window tables when they fit unless o->gpu_one_shot
 * (cuzk_gpu_set_key_tables); o->gpu_memory_limit takes away what each
 * device has beyond it at the start (cuzk_gpu_ballast: a smaller card on a
 * larger one). NULL with a message when there is no usable GPU or CUDA in
 * this build. */
cuzk_backend *backend_gpu_create(const backend_options *o, cuzk_error *err);

/* 1 when the gpu backend can be made here (CUDA in the build and a
 * visible device): what "auto" asks. */
int backend_gpu_usable(void);

/* prove_finish of the backends whose device part ends in cuzk_msm_results:
 * cuzk_groth16_finish (blinding with fresh r, s) on the CPU. */
int backend_finish_on_cpu(cuzk_backend *b, const backend_work *w, const cuzk_msm_results *m, cuzk_proof *proof,
                          cuzk_error *err);


/* The backends a configuration may name, one row each: X(name, proves),
 * made by backend.c's make_<name>; proves is 1 for a backend whose proofs
 * are real, 0 for one whose proofs are placeholders (sim). "auto" stands
 * for gpu when one is usable, else cpu. A backend is this row, its
 * make_<name> and its file. */
#define CUZK_BACKENDS(X) X(cpu, 1) X(sim, 0) X(gpu, 1)
#define CUZK_BACKEND_CHOICE_(name, proves) "|" #name
#define CUZK_BACKEND_PROVER_(name, proves) CUZK_BACKEND_IF_##proves("|" #name)
#define CUZK_BACKEND_IF_1(text) text
#define CUZK_BACKEND_IF_0(text)
/* "auto|cpu|sim|gpu" and "auto|cpu|gpu" (those that make real proofs), string literals */
#define CUZK_BACKEND_CHOICES "auto" CUZK_BACKENDS(CUZK_BACKEND_CHOICE_)
#define CUZK_BACKEND_PROVERS "auto" CUZK_BACKENDS(CUZK_BACKEND_PROVER_)

/* 1 when name is one of CUZK_BACKEND_CHOICES (with provers_only: of
 * CUZK_BACKEND_PROVERS), else 0. */
int backend_is_choice(const char *name, int provers_only);

/* The backend a configuration names: one of CUZK_BACKEND_CHOICES. NULL,
 * with a message, for an unknown or unavailable name. */
cuzk_backend *backend_create(const char *name, const backend_options *o, cuzk_error *err);

/* One whole proof of w against z through a backend outside the engine (the
 * command line): abc synthesized from the key's coefficients into memory
 * from b->host (unless the backend builds_abc), prove_start on device 0,
 * prove_finish. On success fills
 * proof, pub (z->n_public public signals, caller-allocated, normal form)
 * and, when t is not NULL, the stage timings (abc, the device phases,
 * finish, total). CUZK_ERR_MISMATCH when the witness does not belong to
 * the key (curve, length, w[0] != 1). */
int backend_prove(cuzk_backend *b, const cuzk_zkey *z, const cuzk_wtns *w, int threads, cuzk_proof *proof,
                  uint64_t (*pub)[4], cuzk_prove_timings *t, cuzk_error *err);
/* backend_prove with w's values also given packed (synthesis/wtns_pack.h,
 * e.g. in page-locked memory), what crosses to the device (packed NULL: w's
 * values): for a backend that builds_abc, else CUZK_ERR_ARG. w is still
 * read for its checks and public signals. */
int backend_prove_packed(cuzk_backend *b, const cuzk_zkey *z, const cuzk_wtns *w, const cuzk_wtns_packed *packed,
                         int threads, cuzk_proof *proof, uint64_t (*pub)[4], cuzk_prove_timings *t, cuzk_error *err);

/* A development key for r (cuzk_groth16_setup_with) made by b: on its
 * device when it has a setup, else on the CPU (which refuses
 * o->no_host_points: the points would have nowhere to stay). */
int backend_setup(cuzk_backend *b, const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z,
                  cuzk_error *err);

#endif
