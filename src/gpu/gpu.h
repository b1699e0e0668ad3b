/* The CUDA backend's door for the engine (src/backend/gpu.c): plain
 * C, no CUDA types. Devices, contexts, keys kept on a device, the device
 * part of a proof, a setup's fixed-base multiplications, pinned host
 * memory. The backend's raw operations (NTTs, MSMs, window tables) and
 * tuning knobs, which only the tests and benchmarks call, are in
 * gpu_bench.h.
 *
 * Built from the .cu files of src/gpu when nvcc is found (mk/cuda.mk), else from
 * src/gpu/gpu_none.c, where cuzk_gpu_device_count() is 0 and every other
 * call fails with "built without CUDA" (gpu_bench.h's have no such stubs:
 * CUDA builds only). The data layouts are the CPU backend's, byte for
 * byte (the zkey's points, src/groth16/groth16.h; the MSM results,
 * cuzk_msm_results).
 *
 * Contexts. A cuzk_gpu owns one device, one CUDA stream and the caches that
 * make repeated calls cheap (NTT twiddle tables, kept at the largest size
 * asked for). It is used by one thread at a time.
 *
 * Errors: 0 (CUZK_OK), or a CUZK_ERR_* code with a message in *err (when err
 * is not NULL): CUZK_ERR_ARG for bad arguments (nothing is touched),
 * CUZK_ERR_NOMEM when device or pinned memory runs out, CUZK_GPU_ERR_DEVICE
 * when a CUDA call or kernel fails (the message names the CUDA error, the
 * call, file and line) or when there is no CUDA at all. After a failed call,
 * output buffers hold unspecified values. Nothing here aborts or prints. */
#ifndef CUZK_GPU_GPU_H
#define CUZK_GPU_GPU_H

#include <stddef.h>

#include "ceremony/ceremony_mul.h"
#include "cuzk/cuzk.h"
#include "groth16/bellman.h"
#include "groth16/groth16.h"
#include "synthesis/wtns_pack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CUDA call or kernel failed, or CUDA is missing. cuzk.h has no device
 * status yet; until it has one this is CUZK_ERR_IO. */
#define CUZK_GPU_ERR_DEVICE CUZK_ERR_IO

typedef struct cuzk_gpu cuzk_gpu;

/* Usable CUDA devices; 0 without a GPU, a driver, or CUDA in the build.
 * Never fails loudly. */
int cuzk_gpu_device_count(void);

/* *used, *total <- device memory of GPU `device` in use (by anyone, pools'
 * reserve included) and in all, in bytes. */
int cuzk_gpu_memory(int device, size_t *used, size_t *total, cuzk_error *err);

/* *bytes <- the device memory proofs' scratch may take on GPU `device`:
 * what is free and what the device's memory pool holds (the pool every
 * context of the device takes its transient buffers from; memory moving
 * between the two leaves the sum alone). */
int cuzk_gpu_scratch_capacity(int device, size_t *bytes, cuzk_error *err);

/* *used <- the bytes of g's device pool in use now, *high <- its high-water
 * mark; with reset the mark starts again from what is in use now. The pool
 * is shared by the device's contexts: the mark is one call's peak only
 * while that call runs alone. */
int cuzk_gpu_pool_usage(cuzk_gpu *g, int reset, size_t *used, size_t *high, cuzk_error *err);

/* Makes GPU `device` look like a card of `limit` bytes to everything else
 * in this process: *ballast <- an allocation of what is free beyond that
 * (NULL when nothing is), to give back with cuzk_gpu_ballast_free. For
 * runs that must behave as on a smaller card (a 32 GiB RTX 5090 on an
 * H200). */
int cuzk_gpu_ballast(int device, size_t limit, void **ballast, cuzk_error *err);
void cuzk_gpu_ballast_free(int device, void *ballast);

/* *out <- a context on device `device` (0-based). */
int cuzk_gpu_open(cuzk_gpu **out, int device, cuzk_error *err);

/* Frees the context and everything it cached, and gives what the device's
 * pool holds unused back to the device; NULL is a no-op. */
void cuzk_gpu_close(cuzk_gpu *g);

/* Whether keys uploaded through g (cuzk_gpu_key_upload) or kept on its
 * device by a setup (cuzk_gpu_setup) get window tables for their points
 * (gpu_bench.h, "window tables": faster MSMs, ~11 times the memory) when
 * those fit in free device memory: on (1, the default) or off (0). */
int cuzk_gpu_set_key_tables(cuzk_gpu *g, int on, cuzk_error *err);

/* ---- keys on a device (key.cu) and whole proofs (prove.cu) ---- */

/* A proving key on one device: its point arrays (A, B1, B2, C, H), either
 * resident in device memory or streamed from host memory during each
 * proof, and, once given (cuzk_gpu_key_set_rows), its A and B matrices, to
 * build a, b, c on the device. */
typedef struct cuzk_gpu_key cuzk_gpu_key;

/* A key's A and B matrices as compressed sparse rows in the encoding of
 * the engine's PCE (src/synthesis/pce.h): row i of matrix m holds terms
 * [row_start[m][i], row_start[m][i + 1]), each a wire and a code:
 * CUZK_GPU_COEF_ONE (+1), CUZK_GPU_COEF_MINUS_ONE (-1), or k >=
 * CUZK_GPU_COEF_VALUES for values[k - CUZK_GPU_COEF_VALUES] (32 bytes,
 * coef R, Montgomery form). Host memory, copied by cuzk_gpu_key_set_rows. */
enum { CUZK_GPU_COEF_ONE = 0, CUZK_GPU_COEF_MINUS_ONE = 1, CUZK_GPU_COEF_VALUES = 2 };
typedef struct {
    uint32_t n_rows; /* the domain size */
    const uint32_t *row_start[2], *wire[2], *coef[2];
    const void *values;
    uint32_t n_values;
} cuzk_gpu_rows;

/* *out <- z's points uploaded to g's device; they stay there, usable from
 * any context of that device, until cuzk_gpu_key_free. With window tables
 * (cuzk_gpu_set_key_tables) when g allows them and they fit next to a proof's scratch,
 * else as they are. CUZK_ERR_NOMEM when the points do not fit at all. */
int cuzk_gpu_key_upload(cuzk_gpu *g, const cuzk_zkey *z, cuzk_gpu_key **out, cuzk_error *err);

/* *out <- a key for z whose points stay in z's host memory (page-locked in
 * place where the driver allows) and go to the device slice_points at a
 * time (0: 2^22) in each MSM, each slice's copy overlapping the previous
 * slice's MSM: for keys whose points do not fit. z must outlive the key. */
int cuzk_gpu_key_stream(cuzk_gpu *g, const cuzk_zkey *z, size_t slice_points, cuzk_gpu_key **out,
                        cuzk_error *err);

/* 1 for a key made by cuzk_gpu_key_stream or cuzk_gpu_key_stream_bellman. */
int cuzk_gpu_key_streamed(const cuzk_gpu_key *k);

/* Copies rows (the matrices of k's zkey, n_rows = its domain size) to k's
 * device, once: the caller keeps other contexts from proving on k without
 * a, b, c meanwhile. CUZK_ERR_ARG when k has rows already or they do not
 * match, CUZK_ERR_NOMEM when they do not fit. */
int cuzk_gpu_key_set_rows(cuzk_gpu *g, cuzk_gpu_key *k, const cuzk_gpu_rows *rows, cuzk_error *err);

/* 1 once k has its rows. */
int cuzk_gpu_key_has_rows(const cuzk_gpu_key *k);
void cuzk_gpu_key_free(cuzk_gpu_key *k);

/* The device part of one proof (src/groth16/prove.inc, prove_abc) against
 * the key k (made from the same zkey on g's device). The witness (n_vars
 * Fr, normal form, host) goes to the device; a, b, c come either from abc
 * (3 x domain_size Fr, Montgomery: a, b, c; host memory, pinned for full
 * copy speed; not modified) or, when abc is NULL, are built on the device
 * from k's rows (CUZK_ERR_ARG when k has none). The coset chain makes h,
 * then the MSMs: A, B1, B2, and on a resident key C' + H' as one (m->c the
 * sum, m->h infinity; on a streamed key each). Fills *m and, when t is not
 * NULL, t's h2d, ntt, msm_* and total from CUDA events, and t->abc
 * when the device built a, b, c (the other fields are left alone). Scratch comes
 * from g's memory pool: after the first proof of a size, no allocation
 * reaches the driver. */
int cuzk_gpu_prove(cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, const void *witness, cuzk_msm_results *m,
                   cuzk_prove_timings *t, cuzk_error *err);

/* cuzk_gpu_prove with the witness packed (src/synthesis/wtns_pack.h: w->n
 * = the key's n_vars; its bytes in host memory, pinned for full copy
 * speed) and a, b, c built on the device from k's rows: the packed bytes
 * cross to the device, which restores the values. t->h2d covers both. */
int cuzk_gpu_prove_packed(cuzk_gpu *g, const cuzk_gpu_key *k, const cuzk_wtns_packed *w, cuzk_msm_results *m,
                          cuzk_prove_timings *t, cuzk_error *err);

/* A development setup (cuzk_groth16_setup_with, o's fields but mul) with
 * its fixed-base multiplications on g's device: the same key, byte for
 * byte, as the CPU makes from the same toxic waste. With key != NULL the
 * points also stay on the device as *key, a resident key of z (free with
 * cuzk_gpu_key_free): when window tables fit, made as cuzk_gpu_key_upload
 * makes it (tables, points at infinity dropped), else the points as made;
 * and with o->no_host_points z keeps no host copy of them (header, IC and
 * coefficients only: enough to finish and verify proofs). */
int cuzk_gpu_setup(cuzk_gpu *g, const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z, cuzk_gpu_key **key,
                   cuzk_error *err);

/* *out <- the key b (groth16/bellman.h) on g's device, its points
 * resident as they are (no window tables), with the index lists that
 * pick each point's scalar. CUZK_ERR_ARG for a key whose counts or
 * variables disagree, CUZK_ERR_NOMEM when it does not fit. */
int cuzk_gpu_key_upload_bellman(cuzk_gpu *g, const cuzk_bellman_key *b, cuzk_gpu_key **out, cuzk_error *err);

/* The same key with its points left in b's host arrays, which must outlive
 * it: each proof sends them slice_points at a time (0: a default) beside
 * the MSMs, for a key larger than the card. Only the index lists go up. */
int cuzk_gpu_key_stream_bellman(cuzk_gpu *g, const cuzk_bellman_key *b, size_t slice_points, cuzk_gpu_key **out,
                                cuzk_error *err);

/* The device part of one proof with a key of cuzk_gpu_key_upload_bellman
 * or _stream_bellman: w (host memory) to the device, bellman's quotient,
 * the MSMs A, B1, B2, C' and H' (a resident key's C' + H' as one: m->c the
 * sum, m->h infinity); t as cuzk_gpu_prove fills it. packed, when not
 * NULL, holds w's arrays packed (those with a base cross packed, the
 * others whole from w). */
int cuzk_gpu_prove_bellman(cuzk_gpu *g, const cuzk_gpu_key *k, const cuzk_bellman_witness *w,
                           const cuzk_bellman_packed *packed, cuzk_msm_results *m, cuzk_prove_timings *t,
                           cuzk_error *err);

/* ---- the ceremony's multiplications (ceremony.cu) ---- */

/* *mul <- combine and scale of cuzk_ceremony_mul (ceremony/ceremony_mul.h)
 * on g's device, byte for byte the CPU's, in rounds of at most `round`
 * points or terms (0: 2^22; at most 2^30) so device memory stays bounded;
 * scale's secrets are wiped from the device before its memory is freed.
 * g must outlive *mul and serve no other thread during its calls; free
 * with cuzk_gpu_ceremony_mul_free (NULL, or a zeroed table: a no-op). */
int cuzk_gpu_ceremony_mul_make(cuzk_gpu *g, size_t round, cuzk_ceremony_mul *mul, cuzk_error *err);
void cuzk_gpu_ceremony_mul_free(cuzk_ceremony_mul *mul);

/* Page-locked host memory (cudaHostAlloc) for fast, asynchronous copies;
 * NULL when it cannot be had. */
void *cuzk_gpu_host_alloc(size_t bytes);
void cuzk_gpu_host_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
