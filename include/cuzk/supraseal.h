/* supraseal-c2's C ABI (crates.io supraseal-c2 0.1.x, upstream
 * supranational/supra_seal c2/), as libcuzk exports it: a Filecoin build
 * whose bellperson (feature cuda-supraseal) linked supraseal-c2 can link
 * libcuzk instead. The names are supraseal-c2's own, unprefixed, and the
 * layouts are its, byte for byte; what differs is that every bad input is
 * a returned error, never an abort.
 *
 *   SRS             a handle on a parameter file (bellperson's .params,
 *                   src/filecoin/params.h), every count and point checked
 *                   when it is read (flags, canonical, on the curve; with
 *                   CUZK_SUPRASEAL_CHECK=full in the prime-order subgroup
 *                   too, a scalar multiplication a point: minutes for a
 *                   32 GiB sector's file, which filecoin-proofs checks by
 *                   its digest; a point outside could only make proofs
 *                   that verifiers refuse); reference-counted
 *   Assignment      one synthesized circuit: density bitmaps (bit b of u64
 *                   word k is variable 64 k + b), a, b, c (constraints and
 *                   bellperson's input rows, unpadded), input and aux
 *                   assignments; scalars blst_fr (Montgomery, 4 LE words)
 *   groth16_proof   a, b, c in blst's affine layout (Fp 6 LE Montgomery
 *                   words; Fp2 c0 then c1), what bellperson casts to Proof
 *
 * Errors: { code, message }, code 0 for success, else an errno value
 * (EINVAL a bad argument or an assignment that disagrees with the SRS,
 * EIO / EBADMSG a missing or bad file, ENOMEM); message malloc'd (the
 * caller frees it; supraseal-c2's Rust side does), NULL on success.
 *
 * Where proofs are made: CUZK_SUPRASEAL_BACKEND=auto (or unset) proves on
 * GPU 0 when this build has CUDA and a GPU is visible, else on the CPU;
 * =gpu insists on the GPU (every call fails with ENODEV when there is
 * none), =cpu stays on the CPU. The proofs are the same bytes either way.
 * On the GPU the SRS's points go to device memory on the first proof and
 * stay there with the SRS (made again when a batch brings another
 * circuit's densities); an SRS too large for the card stays in host
 * memory and its points are sent beside each proof's MSMs
 * (CUZK_SUPRASEAL_GPU_GIB=M: the GPU behaves as a card of M GiB). In a
 * batch, each circuit's a, b, c and aux are packed for the trip (0 and 1
 * as two bits) while the circuit before it is proved.
 * CUZK_SUPRASEAL_VERBOSE=1 writes a line a circuit to stderr: where its
 * time went on the device.
 *
 * Thread safety: any call from any thread; generate_groth16_proofs_c calls
 * run one at a time (as supraseal-c2's do). create_SRS with cache = true
 * keeps the SRS in a process-wide cache of the four most recently used
 * paths (supraseal-c2's design), until evict_SRS or the cache's turnover. */
#ifndef CUZK_SUPRASEAL_H
#define CUZK_SUPRASEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int code;
    char *message;
} cuzk_rust_error;

/* supraseal-c2's SRS: one pointer, NULL when empty. */
typedef struct {
    void *ptr;
} cuzk_srs;

/* blst_fr: a BLS12-381 scalar, Montgomery form, 4 little-endian words */
typedef struct {
    uint64_t l[4];
} cuzk_blst_fr;

typedef struct {
    uint64_t x[6], y[6];
} cuzk_blst_p1_affine;

typedef struct {
    uint64_t x[2][6], y[2][6]; /* [0] = c0, [1] = c1 */
} cuzk_blst_p2_affine;

typedef struct {
    cuzk_blst_p1_affine a;
    cuzk_blst_p2_affine b;
    cuzk_blst_p1_affine c;
} cuzk_groth16_proof;

typedef struct {
    const uint64_t *a_aux_density;
    size_t a_aux_bit_len, a_aux_popcount;
    const uint64_t *b_inp_density;
    size_t b_inp_bit_len, b_inp_popcount;
    const uint64_t *b_aux_density;
    size_t b_aux_bit_len, b_aux_popcount;
    const cuzk_blst_fr *a, *b, *c;
    size_t abc_size;
    const cuzk_blst_fr *inp_assignment_data;
    size_t inp_assignment_size;
    const cuzk_blst_fr *aux_assignment_data;
    size_t aux_assignment_size;
} cuzk_assignment;

/* *ret <- a handle on the parameter file at path (read and checked now;
 * with cache, the cached one when path was read before). On error *ret is
 * empty. */
CUZK_API cuzk_rust_error create_SRS(cuzk_srs *ret, const char *path, bool cache);
/* Drops path's entry from the cache (handles keep theirs). */
CUZK_API void evict_SRS(const cuzk_srs *srs);
/* Releases the handle (the SRS goes with its last one); empty after. */
CUZK_API void drop_SRS(cuzk_srs *srs);
/* Another handle on the same SRS. */
CUZK_API cuzk_srs clone_SRS(const cuzk_srs *srs);
/* proofs[i] <- the proof of provers[i] with blinding r_s[i], s_s[i] (zero:
 * the deterministic proof) for i < num_circuits. Every assignment is
 * checked against the SRS before any proof is made. */
CUZK_API cuzk_rust_error generate_groth16_proofs_c(const cuzk_assignment provers[], size_t num_circuits,
                                                   const cuzk_blst_fr r_s[], const cuzk_blst_fr s_s[],
                                                   cuzk_groth16_proof proofs[], cuzk_srs *srs);

#ifdef __cplusplus
}
#endif

#endif
