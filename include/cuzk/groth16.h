/* cuzk as a library: Groth16 proving keys, proofs and verification over
 * BN254 and BLS12-381, in snarkjs's file formats.
 *
 *   #include <cuzk/groth16.h>          cc prog.c $(pkg-config --cflags --libs cuzk)
 *
 * Every function below that returns int returns CUZK_OK (0) or one of the
 * status codes of cuzk/cuzk.h, and on failure, when err is not NULL, sets
 * err->code to the same code and err->msg to what went wrong (naming the
 * file or buffer and what was expected); err may be NULL. A NULL pointer
 * where an argument is required, or a value out of the stated range, is
 * CUZK_ERR_ARG. Nothing here aborts or exits the process on bad input.
 * Output pointers are set to NULL on failure. Strings handed out are
 * NUL-terminated and malloc'd: the caller releases them with free().
 *
 * Thread-safety: a cuzk_key never changes after it is loaded, and any
 * number of threads may prove with it at once, through one prover or
 * several; a cuzk_prover may be called from several threads at once (a GPU
 * prover runs up to 8 proofs at once on its device, each with a context of
 * its own; the CPU prover's proofs run side by side on their own threads).
 * Freeing a key or destroying a prover while a call uses it is the
 * caller's error. The verify functions share no state. The library keeps no
 * global state beyond what the CPU feature detection sets at load time.
 *
 * Proofs are checked against the key's own verification key before they
 * are handed out (a corrupt key makes proofs that fail, and those must not
 * pass as good), unless CUZK_PROVE_NO_VERIFY is given; that check costs a
 * few milliseconds.
 */
#ifndef CUZK_GROTH16_PUBLIC_H
#define CUZK_GROTH16_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- proving keys ---- */

typedef struct cuzk_key cuzk_key;

/* Loads a Groth16 proving key, a .zkey as snarkjs writes it. The file is
 * mapped, not copied, where its layout allows (as rapidsnark does): it must
 * not be truncated or rewritten in place while the key lives (the process
 * would fault); replacing it by a rename is safe.
 * On input: out is where the handle goes; path names a regular file (a
 * FIFO or device is refused without blocking).
 * On output: on CUZK_OK, *out is a new key that the caller releases with
 * cuzk_key_free; else *out is NULL.
 * Returns CUZK_OK; CUZK_ERR_ARG (out or path NULL); CUZK_ERR_IO (cannot
 * open or read); CUZK_ERR_FORMAT (truncated, corrupt, not Groth16, a curve
 * other than BN254 and BLS12-381, a coordinate >= q); CUZK_ERR_NOMEM. */
CUZK_API int cuzk_key_load_file(cuzk_key **out, const char *path, cuzk_error *err);

/* The same from len bytes of a .zkey in memory.
 * On input: data points to len readable bytes (data may be NULL only when
 * len is 0, which is then CUZK_ERR_FORMAT).
 * On output: as cuzk_key_load_file; the key holds copies of what it needs,
 * so data may be released as soon as the call returns.
 * Returns as cuzk_key_load_file, without CUZK_ERR_IO. */
CUZK_API int cuzk_key_load_memory(cuzk_key **out, const void *data, size_t len, cuzk_error *err);

/* Releases key and everything it holds; NULL is a no-op. A GPU prover that
 * proved with it keeps its device copy until it needs the room or is
 * destroyed. */
CUZK_API void cuzk_key_free(cuzk_key *key);

typedef struct {
    cuzk_curve_id curve;  /* CUZK_CURVE_BN254 (snarkjs's bn128) or CUZK_CURVE_BLS12_381 */
    uint32_t n_public;    /* public signals (outputs, then public inputs) */
    uint32_t n_vars;      /* witness length, the constant 1 included */
    uint32_t domain_size; /* constraints + public signals, rounded up to a power of two */
} cuzk_key_info;

/* On input: key is a loaded key, info writable.
 * On output: *info describes key.
 * Returns CUZK_OK, or CUZK_ERR_ARG when key or info is NULL. */
CUZK_API int cuzk_key_get_info(const cuzk_key *key, cuzk_key_info *info, cuzk_error *err);

/* The key's verification key, verification_key.json as `snarkjs zkey
 * export verificationkey` writes it.
 * On output: on CUZK_OK, *vk_json is a new string (free()); else NULL.
 * Returns CUZK_OK, CUZK_ERR_ARG or CUZK_ERR_NOMEM. */
CUZK_API int cuzk_key_vk_json(const cuzk_key *key, char **vk_json, cuzk_error *err);

/* ---- provers ---- */

typedef struct cuzk_prover cuzk_prover;

/* A prover on one backend, kept for many proofs (a GPU's contexts and the
 * keys copied to it outlive each proof).
 * On input: backend is "cpu", "gpu" (the CUDA backend, on every visible
 * GPU) or "auto" (the GPU when one is usable, else the CPU); threads is the
 * number of CPU threads a proof may use, 0 for every online CPU.
 * On output: on CUZK_OK, *out is a new prover that the caller releases
 * with cuzk_prover_destroy; else *out is NULL.
 * Returns CUZK_OK; CUZK_ERR_ARG (out or backend NULL, an unknown backend
 * name, threads < 0 or > 1024); CUZK_ERR_IO ("gpu" in a build without CUDA
 * or on a machine without a usable GPU: err says which); CUZK_ERR_NOMEM. */
CUZK_API int cuzk_prover_create(cuzk_prover **out, const char *backend, int threads, cuzk_error *err);

/* The backend p proves on: "cpu" or "gpu" (what "auto" became). The string
 * is static. NULL for a NULL p. */
CUZK_API const char *cuzk_prover_backend(const cuzk_prover *p);

/* Releases p, its threads and device memory; NULL is a no-op. */
CUZK_API void cuzk_prover_destroy(cuzk_prover *p);

/* flags of the prove functions */
enum {
    CUZK_PROVE_NO_VERIFY = 1, /* hand the proof out without checking it against the key's verification key */
};

/* Proves a witness with key on p.
 * On input: wtns points to wtns_len bytes of a .wtns file (version 2, as
 * circom's witness generators and `snarkjs wtns calculate` write it) over
 * the key's curve, of the key's n_vars values, the first being 1; flags is
 * 0 or CUZK_PROVE_NO_VERIFY; proof_json and public_json are where the texts
 * go.
 * On output: on CUZK_OK, *proof_json is proof.json and *public_json is
 * public.json, byte for byte as `snarkjs groth16 prove` lays them out
 * (one-space indentation, no final newline; the proof differs, as every
 * proof does, by its random r and s), each a new string (free()); else
 * both are NULL.
 * Returns CUZK_OK; CUZK_ERR_ARG (a NULL pointer, unknown flags);
 * CUZK_ERR_FORMAT (not a .wtns, truncated, a value >= r); CUZK_ERR_MISMATCH
 * (the witness is over the other curve, has another length, or its first
 * value is not 1); CUZK_ERR_INVALID_PROOF (the proof fails the key's own
 * verification key: the key is corrupt); CUZK_ERR_NOMEM; CUZK_ERR_IO (a
 * device's failure, from a GPU prover). */
CUZK_API int cuzk_prove_wtns_memory(cuzk_prover *p, const cuzk_key *key, const void *wtns, size_t wtns_len,
                                    unsigned flags, char **proof_json, char **public_json, cuzk_error *err);

/* The same with the witness read from the .wtns file wtns_path; also
 * CUZK_ERR_IO when it cannot be read. */
CUZK_API int cuzk_prove_wtns_file(cuzk_prover *p, const cuzk_key *key, const char *wtns_path, unsigned flags,
                                  char **proof_json, char **public_json, cuzk_error *err);

/* ---- verification ---- */

/* Checks a proof as `snarkjs groth16 verify` does (the argument order is
 * its: key, public signals, proof), with every point checked on the curve
 * and in the group, and every public signal below r.
 * On input: vk_json, public_json and proof_json are NUL-terminated texts of
 * verification_key.json, public.json and proof.json (snarkjs's or
 * rapidsnark's layout; a proof without "curve" is BN254's).
 * Returns CUZK_OK when the proof is valid; CUZK_ERR_INVALID_PROOF (with the
 * reason) when it is not; CUZK_ERR_MISMATCH when the proof is over the
 * other curve than the key; CUZK_ERR_FORMAT when a text is not what it
 * should be (err names which: "verification key", "public signals",
 * "proof"); CUZK_ERR_ARG; CUZK_ERR_NOMEM. */
CUZK_API int cuzk_verify_json(const char *vk_json, const char *public_json, const char *proof_json,
                              cuzk_error *err);

/* The same from files (messages name them); also CUZK_ERR_IO. */
CUZK_API int cuzk_verify_files(const char *vk_path, const char *public_path, const char *proof_path,
                               cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
