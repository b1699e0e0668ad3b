/* Filecoin's Groth16 parameter files, as bellperson writes them
 * (groth16/params.rs; FILECOIN.md, FORMATS.md s9), BLS12-381 only:
 *
 *   .vk      alpha_g1, beta_g1 (G1), beta_g2, gamma_g2 (G2), delta_g1 (G1),
 *            delta_g2 (G2), u32 count, ic (G1 x count)
 *   .params  the .vk block, then h, l, a, b_g1 (G1) and b_g2 (G2), each a
 *            u32 count and its points
 *
 * Counts are u32 big-endian; points are zcash's uncompressed encoding
 * (zcash.h), never infinity. What the sections hold, for a circuit of
 * `inputs` public inputs (the first of them ONE) and `aux` private
 * variables, on a domain of n points:
 *   ic    inputs points, (beta u_j + alpha v_j + w_j)/gamma
 *   h     n - 1 points, tau^i Z(tau)/delta (the quotient's coefficients)
 *   l     aux points, (beta u_j + alpha v_j + w_j)/delta
 *   a     u_j(tau) for every input, then for the aux variables of a
 *         non-zero A column (a_aux density)
 *   b_g1, b_g2  v_j(tau) for the inputs, then the aux variables, of a
 *         non-zero B column (b_inp and b_aux densities)
 *
 * In memory the points are ec.h's affine points (Montgomery form: what the
 * MSMs take, and blst's layout). */
#ifndef CUZK_FILECOIN_PARAMS_H
#define CUZK_FILECOIN_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "ec/ec.h"
#include "filecoin/zcash.h"

typedef struct {
    bls12_381_g1_affine alpha_g1, beta_g1, delta_g1;
    bls12_381_g2_affine beta_g2, gamma_g2, delta_g2;
    uint32_t n_ic;
    bls12_381_g1_affine *ic; /* n_ic points, malloc'd */
} fil_vk;

typedef struct {
    fil_vk vk;
    uint32_t n_h, n_l, n_a, n_b_g1, n_b_g2;
    bls12_381_g1_affine *h, *l, *a, *b_g1; /* each its own 64-byte-aligned allocation, non-NULL */
    bls12_381_g2_affine *b_g2;
} fil_params;

/* Bytes of the .vk block of n_ic inputs, and of a whole .params. */
enum { FIL_VK_FIXED_BYTES = 3 * 96 + 3 * 192 }; /* before ic's count */
uint64_t fil_vk_file_bytes(uint32_t n_ic);
uint64_t fil_params_file_bytes(const fil_params *p);

/* What a read tells as it goes (large files take minutes): done of total
 * points decoded and checked; called on the reading thread. check: what
 * the point sections' points go through (zcash.h; FIL_CHECK_ALL, 0, the
 * default); the verifying key's always go through everything. */
typedef struct {
    int nthreads; /* < 1: one */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    fil_check check;
} fil_read_options;

/* Reads a .params file (mapped, decoded and checked on o->nthreads
 * threads; o may be NULL) into p, which it overwrites (free with
 * fil_params_free). Every count is checked against the bytes there are
 * before anything is allocated, the file must end where the last section
 * does, and the counts must agree with each other (h + 1 a power of two,
 * inputs <= a <= inputs + l, b_g1 = b_g2 <= inputs + l, at least one
 * input); every point is checked (zcash.h: flags, canonical, on the
 * curve, in the subgroup unless o->check is FIL_CHECK_CURVE) and a bad
 * one named by section and index.
 * Returns CUZK_OK, CUZK_ERR_IO, CUZK_ERR_FORMAT or CUZK_ERR_NOMEM; on
 * failure p is left empty. */
int fil_params_read(fil_params *p, const char *path, const fil_read_options *o, cuzk_error *err);
/* The same over len bytes in memory; name stands for the file in messages. */
int fil_params_read_memory(fil_params *p, const void *data, size_t len, const char *name,
                           const fil_read_options *o, cuzk_error *err);

/* The counts alone (and the vk's six header points, checked): what
 * fil_params_read checks of the layout, no point array read; p's arrays
 * stay NULL (nothing to free). For a look at a large file. */
int fil_params_counts(fil_params *p, const char *path, cuzk_error *err);
int fil_params_counts_memory(fil_params *p, const void *data, size_t len, const char *name, cuzk_error *err);

/* A .vk file (the block alone, nothing after it), or the .vk block at the
 * start of a .params when prefix is set (the rest not read). */
int fil_vk_read(fil_vk *vk, const char *path, int prefix, cuzk_error *err);
int fil_vk_read_memory(fil_vk *vk, const void *data, size_t len, const char *name, int prefix, cuzk_error *err);

/* Writes p (a .params) or vk (a .vk) through a temporary file renamed into
 * place. Refuses (CUZK_ERR_ARG) what the reader would refuse in the
 * counts, and any point at infinity; CUZK_ERR_IO on a write error (what
 * stood at the path is kept). */
int fil_params_write(const fil_params *p, const char *path, cuzk_error *err);

/* out <- the zcash encodings of count points (G2 when g2, else G1) of
 * pts: pts[pick[i]] (pick NULL: pts[i]), on nthreads threads; 1 when one
 * of them is the point at infinity (encoded as the flag), else 0. */
int fil_points_encode(uint8_t *out, const void *pts, const uint32_t *pick, size_t count, int g2, int nthreads);
int fil_vk_write(const fil_vk *vk, const char *path, cuzk_error *err);

void fil_vk_free(fil_vk *vk);
void fil_params_free(fil_params *p);

#endif
