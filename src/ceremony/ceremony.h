/* The trusted-setup ceremony as snarkjs runs it, byte-compatible: phase 2
 * of a circuit from a powers-of-tau file (zkey new, contribute, beacon,
 * verify) over BN254 and BLS12-381.
 *
 * The heavy arithmetic (the multiplications of points: contributions,
 * zkey new, prepare phase2) goes through one table, cuzk_ceremony_mul
 * (ceremony_mul.h): NULL runs it on the CPU's threads; a device backend
 * fills the same functions. */
#ifndef CUZK_CEREMONY_CEREMONY_H
#define CUZK_CEREMONY_CEREMONY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ceremony/ceremony_mul.h"
#include "ceremony/chacha.h"
#include "ceremony/mpc.h"
#include "ceremony/ptau.h"
#include "cuzk/cuzk.h"
#include "groth16/r1cs.h"
#include "groth16/zkey.h"

typedef struct {
    int nthreads;                 /* < 1: one */
    const cuzk_ceremony_mul *mul; /* NULL: the CPU */
    /* NULL, or told what the long steps do: "stage" lines, and done of
     * total for steps that count */
    void (*progress)(void *ctx, const char *stage, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* zkey new's outputs of at least this many terms are each one MSM,
     * the rest summed term by term; 0: CUZK_CEREMONY_MSM_MIN_TERMS_DEVICE
     * when mul has an msm, else _CPU (a device's MSM is a dozen launches:
     * worth it for longer outputs only) */
    uint64_t msm_min_terms;
} cuzk_ceremony_options;

enum { CUZK_CEREMONY_MSM_MIN_TERMS_CPU = 1 << 12, CUZK_CEREMONY_MSM_MIN_TERMS_DEVICE = 1 << 16 };

enum { CUZK_CEREMONY_HASH_BYTES = 64 };

/* *m <- the CPU's multiplications on nthreads threads (< 1: one), what a
 * NULL options.mul runs: to check a device's against. */
void cuzk_ceremony_cpu_mul(cuzk_ceremony_mul *m, int nthreads);

/* snarkjs `zkey new`: the initial key of circuit r from the prepared
 * powers of tau p, into z (free with cuzk_zkey_free), and its circuit
 * hash (csHash). Errors: CUZK_ERR_MISMATCH (curves differ), CUZK_ERR_ARG
 * (p too small, not prepared), CUZK_ERR_FORMAT (a point of p off its
 * curve), CUZK_ERR_NOMEM. */
int cuzk_ceremony_zkey_new(const cuzk_r1cs *r, const cuzk_ptau *p, const cuzk_ceremony_options *o, cuzk_zkey *z,
                           uint8_t cs_hash[CUZK_CEREMONY_HASH_BYTES], cuzk_error *err);

/* The same, the key also written to path (the fresh key's file, section
 * 10 its circuit hash and no contribution: snarkjs's bytes) by a thread
 * of its own, each section as soon as it is made; CUZK_ERR_IO when the
 * file cannot be written (nothing is left at path then; what stood there
 * is kept), CUZK_ERR_ARG for a path that cannot be opened. */
int cuzk_ceremony_zkey_new_write(const cuzk_r1cs *r, const cuzk_ptau *p, const cuzk_ceremony_options *o,
                                 const char *path, cuzk_zkey *z, uint8_t cs_hash[CUZK_CEREMONY_HASH_BYTES],
                                 cuzk_error *err);

/* The stream a contribution's secrets come from: BLAKE2b of 64 bytes of
 * getrandom and the entropy text (NULL: none), its first 32 bytes the
 * seed, as snarkjs's getRandomRng. CUZK_ERR_IO when getrandom fails. */
int cuzk_ceremony_entropy_rng(cuzk_chacha *rng, const char *entropy, cuzk_error *err);

/* A beacon's stream (snarkjs's rngFromBeaconParams): SHA-256 applied
 * 2^exp times to the beacon hash, the result's 32 bytes the seed. exp in
 * 10..63 as snarkjs requires (CUZK_ERR_ARG otherwise); o's progress (o may
 * be NULL) hears of long runs. */
int cuzk_ceremony_beacon_rng(cuzk_chacha *rng, const uint8_t *hash, size_t len, unsigned exp,
                             const cuzk_ceremony_options *o, cuzk_error *err);

/* snarkjs `zkey contribute` / `zkey beacon` on a key read whole (z, its
 * section 10 in m): draws the secret from rng, multiplies delta by it and
 * C and H by its inverse in place, and appends the contribution to m,
 * info giving its type, name and beacon parameters; the new
 * contribution's hash is m->c[m->n - 1].contribution_hash. The secret is
 * wiped; the multiplications by it are constant time on the CPU. */
int cuzk_ceremony_zkey_contribute(cuzk_zkey *z, cuzk_mpc *m, cuzk_chacha *rng, const cuzk_mpc_contribution *info,
                                  const cuzk_ceremony_options *o, cuzk_error *err);

/* snarkjs `zkey verify`: CUZK_OK when z (section 10 in m) is the key of
 * circuit r from powers of tau p after m's contributions, each checked;
 * fills each contribution's hash. CUZK_ERR_INVALID_PROOF with
 * "INVALID...: why" when it is not; the errors of zkey new. */
int cuzk_ceremony_zkey_verify(const cuzk_r1cs *r, const cuzk_ptau *p, const cuzk_zkey *z, cuzk_mpc *m,
                              const cuzk_ceremony_options *o, cuzk_error *err);

/* ---- phase 1 (ptau.h's files) ---- */

/* snarkjs `powersoftau new`: a file of 2^power at the generators (power 1
 * to the curve's two-adicity - 1), no contribution. */
int cuzk_ceremony_ptau_new(cuzk_curve_id curve, unsigned power, const char *path, cuzk_error *err);

/* `powersoftau contribute` / `beacon`: p's powers times fresh secrets from
 * rng (wiped; constant-time multiplications on the CPU), written to out
 * with the contribution appended (info: type, name, beacon); the phase-2
 * sections are not carried (prepare again). response_hash: the
 * contribution's hash, as snarkjs prints it. */
int cuzk_ceremony_ptau_contribute(cuzk_ptau *p, const char *out, cuzk_chacha *rng, const cuzk_mpc_contribution *info,
                                  const cuzk_ceremony_options *o, uint8_t response_hash[64], cuzk_error *err);

/* `powersoftau prepare phase2`: p with sections 12..15 into out, byte for
 * byte snarkjs's. */
int cuzk_ceremony_ptau_prepare(cuzk_ptau *p, const char *out, const cuzk_ceremony_options *o, cuzk_error *err);

/* `powersoftau verify`: every contribution follows the one before (keys,
 * beacons, ratios), the sections are the last one's powers (random
 * combinations), hash to its next challenge, and a prepared file's bases
 * are those of its powers. response_hashes (NULL, or room for every
 * contribution) gets each contribution's hash. CUZK_ERR_INVALID_PROOF
 * "INVALID...: why". */
int cuzk_ceremony_ptau_verify(cuzk_ptau *p, const cuzk_ceremony_options *o, uint8_t (*response_hashes)[64],
                              cuzk_error *err);

#endif
