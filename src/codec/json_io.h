/* proof.json, public.json and verification_key.json exactly as snarkjs 0.7.6
 * writes them: JSON.stringify(x, null, 1) (one-space indentation, no final
 * newline), keys in snarkjs' order, every field element a decimal string of
 * its canonical (normal-form) value.
 *
 *   G1 [x, y, "1"]          infinity ["0", "1", "0"]
 *   G2 [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]
 *                           infinity [["0", "0"], ["1", "0"], ["0", "0"]]
 *
 * Readers accept what snarkjs accepts where it is unambiguous: decimal or
 * "0x" hexadecimal strings, two-element (affine) points, any projective z of
 * zero as infinity; they refuse values >= the field modulus, a projective z
 * other than 0 or 1 (normalising it would need field inversions), a
 * protocol other than "groth16" and unknown curve names. Messages name the
 * file and the offending key, e.g. "proof.json: pi_b[1][0]: ... is not below
 * q of bn128".
 *
 * Writers exist for a path, a FILE* (stdout) and a malloc'd string (free());
 * readers for a path and for NUL-terminated text in memory (the _text
 * variants, whose name stands for the text in messages).
 */
#ifndef CUZK_CODEC_JSON_IO_H
#define CUZK_CODEC_JSON_IO_H

#include <stdint.h>
#include <stdio.h>

#include "cuzk/cuzk.h"

/* jansson's message (its json_error_t's text, cut in place) without the
 * text it quotes from the input ("... near 'root:x:0:0'"): what was wrong,
 * not what the file holds, for messages that may go back to a daemon's
 * clients about files they name. */
struct json_error_t;
const char *cuzk_json_error_quoting_nothing(struct json_error_t *je);

/* Coordinates: as many words as the curve's q (4 or 6), the rest zero.
 * When infinity is set the coordinates are ignored on write and zero on
 * read. */
typedef struct {
    uint64_t x[6], y[6];
    int infinity;
} cuzk_g1_plain;

typedef struct {
    uint64_t x[2][6], y[2][6]; /* [0] = c0, [1] = c1 */
    int infinity;
} cuzk_g2_plain;

typedef struct {
    cuzk_curve_id curve;
    cuzk_g1_plain a;
    cuzk_g2_plain b;
    cuzk_g1_plain c;
} cuzk_proof;

typedef struct {
    cuzk_curve_id curve;
    uint32_t n_public;
    cuzk_g1_plain alpha1;
    cuzk_g2_plain beta2, gamma2, delta2;
    uint64_t alphabeta[2][3][2][6]; /* e(alpha, beta) in Fp12 = Fp6[w], Fp6 = Fp2[v], canonical */
    cuzk_g1_plain *ic;              /* n_public + 1, malloc'd; cuzk_vk_free releases it */
    int has_alphabeta;              /* set by the reader: vk_alphabeta_12 was present (writers ignore it) */
} cuzk_vk;

/* proof.json: pi_a, pi_b, pi_c, protocol, curve. The writers fail with
 * CUZK_ERR_ARG on an unknown curve or a coordinate >= q, CUZK_ERR_IO on a
 * write error. */
int cuzk_proof_write_json(const cuzk_proof *p, const char *path, cuzk_error *err);
int cuzk_proof_dump_json(const cuzk_proof *p, FILE *f, cuzk_error *err);
char *cuzk_proof_to_json(const cuzk_proof *p, cuzk_error *err);

/* Reads a proof. A missing "curve" key (rapidsnark omits it; snarkjs ignores
 * it) means bn128. Returns CUZK_OK, CUZK_ERR_IO or CUZK_ERR_FORMAT. */
int cuzk_proof_read_json(cuzk_proof *p, const char *path, cuzk_error *err);
int cuzk_proof_read_json_text(cuzk_proof *p, const char *text, const char *name, cuzk_error *err);

/* public.json: an array of n decimal strings. */
int cuzk_public_write_json(const uint64_t (*signals)[4], uint32_t n, const char *path, cuzk_error *err);
int cuzk_public_dump_json(const uint64_t (*signals)[4], uint32_t n, FILE *f, cuzk_error *err);
char *cuzk_public_to_json(const uint64_t (*signals)[4], uint32_t n, cuzk_error *err);

/* Reads public signals into a fresh malloc'd array *signals of *n entries
 * (free()); each must be < r of curve, as snarkjs requires. On failure
 * *signals is NULL and *n is 0. */
int cuzk_public_read_json(uint64_t (**signals)[4], uint32_t *n, cuzk_curve_id curve, const char *path,
                          cuzk_error *err);
int cuzk_public_read_json_text(uint64_t (**signals)[4], uint32_t *n, cuzk_curve_id curve, const char *text,
                               const char *name, cuzk_error *err);

/* verification_key.json: protocol, curve, nPublic, vk_alpha_1, vk_beta_2,
 * vk_gamma_2, vk_delta_2, vk_alphabeta_12, IC (n_public + 1 points). */
int cuzk_vk_write_json(const cuzk_vk *vk, const char *path, cuzk_error *err);
char *cuzk_vk_to_json(const cuzk_vk *vk, cuzk_error *err);

/* Reads a verification key (overwriting vk; release with cuzk_vk_free).
 * vk_alphabeta_12 is optional (has_alphabeta says whether it was there);
 * IC must hold nPublic + 1 points. */
int cuzk_vk_read_json(cuzk_vk *vk, const char *path, cuzk_error *err);
int cuzk_vk_read_json_text(cuzk_vk *vk, const char *text, const char *name, cuzk_error *err);
void cuzk_vk_free(cuzk_vk *vk);

/* Writes any JSON text to f laid out as snarkjs lays out its files (a
 * proof or public signals received from the daemon, for example). Fails
 * with CUZK_ERR_FORMAT when text is not JSON, CUZK_ERR_IO on a write error. */
int cuzk_json_dump_like_snarkjs(const char *text, FILE *f, cuzk_error *err);

#endif
