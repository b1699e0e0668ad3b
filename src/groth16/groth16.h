/* Groth16 over BN254 and BLS12-381, snarkjs-compatible: prove, verify,
 * verification-key export, development setup, witness checking.
 * Every entry point picks the curve from its inputs and dispatches to the
 * per-curve code stamped out from the *.inc templates (groth16_<curve>.c). */
#ifndef CUZK_GROTH16_GROTH16_H
#define CUZK_GROTH16_GROTH16_H

/* the setup's cancel flag; the CUDA code (C++) includes this header too */
#ifdef __cplusplus
extern "C++" { /* this header may be included inside extern "C" */
#include <atomic>
using std::atomic_int;
}
#else
#include <stdatomic.h>
#endif

#include "cuzk/cuzk.h"
#include "codec/json_io.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"

/* Seconds spent in each stage of one proof (on a GPU: its phases, from
 * CUDA events; h2d stays 0 on the CPU; each MSM brings its own result back,
 * inside its time). */
typedef struct {
    double key;     /* a device's copy of the key made for this proof (points, rows for a, b, c): its first there */
    double abc;     /* a = A.w, b = B.w, c = a o b from the key's coefficients */
    double h2d;     /* a, b, c and the witness to the device */
    double ntt;     /* the three iNTT -> coset shift -> NTT chains and h */
    double msm_a, msm_b1, msm_b2, msm_c, msm_h;
    double finish;  /* blinding with r, s and the affine conversion */
    double device;  /* a device's part, first copy to last result, by its own clock (0 on the CPU) */
    double total;
} cuzk_prove_timings;

/* The MSM results of one proof before blinding, as raw Jacobian points in
 * the curve's layout (G1: x, y, z of up to 6 words each; G2: Fp2 coords):
 * what the device part of a proof produces. c and h are used only as their
 * sum C' + H': a backend may put the sum in c and infinity (all zero) in h,
 * as the GPU's resident keys do (one MSM instead of two). */
typedef struct {
    cuzk_curve_id curve;
    uint64_t a[18], b1[18], c[18], h[18];
    uint64_t b2[36];
} cuzk_msm_results;

/* A proof in three stages (a whole proof: backend_prove in
 * src/backend/backend.h, on the CPU or a GPU):
 *   synthesize_abc: a = A.w, b = B.w, c = a o b into abc (3 x domain_size
 *     scalars, Montgomery form) from the key's coefficients (reference
 *     path; the engine's PCE produces the same bytes faster)
 *   prove_abc: h and the MSMs from abc (overwritten) and w (the device part)
 *   finish: blinding with fresh r, s (the CPU part, after the device is free)
 * Inputs must already match (cuzk_groth16_check_inputs: curve, length and
 * the constant wire; of a header only (values NULL, cuzk_wtns_read_header)
 * the curve and length). */
int cuzk_groth16_check_inputs(const cuzk_zkey *z, const cuzk_wtns *w, cuzk_error *err);
void cuzk_groth16_synthesize_abc(const cuzk_zkey *z, const cuzk_wtns *w, void *abc, int nthreads);
int cuzk_groth16_prove_abc(const cuzk_zkey *z, const cuzk_wtns *w, void *abc, int nthreads, cuzk_msm_results *m,
                           cuzk_prove_timings *t, cuzk_error *err);
int cuzk_groth16_finish(const cuzk_zkey *z, const cuzk_msm_results *m, cuzk_proof *proof, cuzk_error *err);
/* pub[i] = w[1 + i] for the key's n_public signals (outputs first). */
void cuzk_groth16_public_signals(const cuzk_zkey *z, const cuzk_wtns *w, uint64_t (*pub)[4]);
static inline size_t cuzk_groth16_abc_bytes(const cuzk_zkey *z) { return 3 * (size_t)z->domain_size * 32; }

/* CUZK_OK when the proof is valid for vk and pub; CUZK_ERR_INVALID_PROOF
 * (with the reason in err) when it is not: points off the curve or outside
 * the subgroup, public values >= r, a wrong count, a failed pairing check. */
int cuzk_groth16_verify(const cuzk_vk *vk, const uint64_t (*pub)[4], uint32_t n_pub, const cuzk_proof *proof,
                        cuzk_error *err);

/* A proof checked against the key it was made with (vk: that key's):
 * cuzk_groth16_verify, and when the proof fails, a message that says what
 * that means. Such a proof fails when the witness does not satisfy the
 * circuit or the proving key is corrupt; witness_checked says the witness
 * was checked against the circuit's r1cs (then the key is to blame), else
 * the message says how to tell the two apart (check it against the
 * r1cs: --r1cs, or a circuit registered with its r1cs). */
int cuzk_groth16_verify_own(const cuzk_vk *vk, const uint64_t (*pub)[4], uint32_t n_pub, const cuzk_proof *proof,
                            int witness_checked, cuzk_error *err);

/* The verification key of z, vk_alphabeta_12 computed as snarkjs does.
 * Release with cuzk_vk_free. */
int cuzk_groth16_export_vk(const cuzk_zkey *z, cuzk_vk *vk, cuzk_error *err);

/* The same without vk_alphabeta_12 (left zero: a pairing and a power, ~1.5
 * ms, that cuzk_groth16_verify does not read): the key a prover checks its
 * proofs with. Not for export. */
int cuzk_groth16_verifying_key(const cuzk_zkey *z, cuzk_vk *vk, cuzk_error *err);

/* A development proving key for r from fresh random toxic waste (getrandom),
 * wiped before returning. NOT for production: whoever ran it could forge
 * proofs. Release with cuzk_zkey_free. */
int cuzk_groth16_setup(const cuzk_r1cs *r, int nthreads, cuzk_zkey *z, cuzk_error *err);

/* The point arrays of a key, as a setup makes them. */
typedef enum { CUZK_SETUP_A, CUZK_SETUP_B1, CUZK_SETUP_B2, CUZK_SETUP_C, CUZK_SETUP_H, CUZK_SETUP_ARRAYS } cuzk_setup_array;

/* The fixed-base table a setup multiplies from: entry [j][d - 1] = d 2^(8j) G
 * for j < CUZK_SETUP_WINDOWS, 1 <= d <= CUZK_SETUP_DIGITS, affine. */
#define CUZK_SETUP_WINDOW 8
#define CUZK_SETUP_WINDOWS (256 / CUZK_SETUP_WINDOW)
#define CUZK_SETUP_DIGITS ((1 << CUZK_SETUP_WINDOW) - 1)

/* A setup's fixed-base multiplications done elsewhere (a device): mul sets
 * out[i] = scalars[i] G for i < n, G the generator of G1 (of G2 for
 * CUZK_SETUP_B2), scalars Fr in Montgomery form (4 words each), out affine
 * points (all-zero = infinity) in host memory, or NULL when the caller
 * keeps no host copy (cuzk_setup_options.no_host_points); table as above.
 * Returns CUZK_OK or a code with err filled; the setup then fails with it. */
typedef struct {
    void *ctx;
    int (*mul)(void *ctx, cuzk_curve_id curve, cuzk_setup_array which, void *out, const void *table,
               const void *scalars, size_t n, cuzk_error *err);
} cuzk_setup_mul;

typedef struct {
    int nthreads;              /* CPU threads (< 1: one) */
    const cuzk_setup_mul *mul; /* NULL: the CPU multiplies */
    int no_host_points;        /* with mul: z's A, B1, B2, C, H stay NULL (the points live where mul put them) */
    const uint64_t (*toxic)[4]; /* NULL: fresh from getrandom; else tau, alpha, beta, gamma, delta in normal
                                   form, each in [1, r): for tests that compare two setups */
    void (*progress)(void *ctx, const char *stage); /* NULL, or told as each stage begins */
    void *progress_ctx;
    /* NULL, or called once the setup has read all it needs of the r1cs
     * (before the multiplications): the caller may free it then, so that a
     * large circuit and the key's points are never in memory together */
    void (*r1cs_read)(void *ctx);
    void *r1cs_read_ctx;
    /* NULL, or a flag that ends the setup with CUZK_ERR_CANCELLED once set
     * (checked between stages and every few hundred points on the CPU) */
    const atomic_int *cancel;
    /* a device's mul: points made per round when they go back to the host
     * only (0: the device's own choice, 2^24); tests make it small to take
     * several rounds */
    size_t device_round;
    /* 0: snarkjs's domain and H (a zkey); 1: bellman's, for Filecoin's
     * .params (groth16_ops.h: cuzk_setup_domain {7, h_monomial}) */
    int bellman_domain;
    /* NULL, or each array's points handed over as they are made, in
     * rounds of emit_round points (0: 2^22) in order: points[i] is point
     * first + i of array `which` (host memory, valid during the call).
     * z's A, B1, B2, C, H and its coefficients then stay NULL (a key too
     * large to hold streams to a file); a non-zero return ends the setup
     * with it (err filled) */
    int (*emit)(void *ctx, cuzk_setup_array which, size_t first, const void *points, size_t count, cuzk_error *err);
    void *emit_ctx;
    size_t emit_round;
} cuzk_setup_options;

/* cuzk_groth16_setup with options: the same key, byte for byte, for the
 * same toxic waste whoever multiplies and however many threads run. */
int cuzk_groth16_setup_with(const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z, cuzk_error *err);

/* CUZK_OK when w satisfies every constraint of r, else CUZK_ERR_UNSATISFIED
 * naming the first failing constraint (or CUZK_ERR_MISMATCH on a wrong
 * curve or length). */
int cuzk_r1cs_check_witness(const cuzk_r1cs *r, const cuzk_wtns *w, cuzk_error *err);

#endif
