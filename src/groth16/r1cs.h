/* .r1cs constraint systems (version 1) as circom writes them.
 *
 * Section 1 (header): n8 u32, prime, nWires u32, nPubOut u32, nPubIn u32,
 * nPrvIn u32, nLabels u64, nConstraints u32. Section 2 (constraints): per
 * constraint the linear combinations A, B, C, each nTerms u32 then nTerms x
 * (wire u32, coef n8 bytes, normal form). Section 3 (wire -> label, nWires x
 * u64) is optional on read. Sections 4/5 (custom gates) are PLONK-only and
 * make the file unusable for Groth16: the reader refuses them.
 *
 * In memory the three matrices are CSR: the terms of constraint i in matrix
 * m are terms[m][row_start[m][i] .. row_start[m][i + 1]).
 */
#ifndef CUZK_GROTH16_R1CS_H
#define CUZK_GROTH16_R1CS_H

#include <stdint.h>

#include "cuzk/cuzk.h"

typedef struct {
    uint32_t wire;
    uint32_t pad;     /* zero */
    uint64_t coef[4]; /* normal form, < r */
} cuzk_r1cs_term;

typedef struct {
    cuzk_curve_id curve;
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    uint32_t *row_start[3];       /* A, B, C: n_constraints + 1 offsets each */
    cuzk_r1cs_term *terms[3];     /* row_start[m][n_constraints] terms each */
    uint64_t *wire_to_label;      /* n_wires labels, or NULL when the file had no section 3 */
} cuzk_r1cs;

/* Reads path into c (overwritten; free with cuzk_r1cs_free). Checks magic,
 * version 1, n8 = 32 with the r of a known curve, nPubOut + nPubIn + nPrvIn
 * < nWires, every wire < nWires, every coefficient < r, section sizes
 * exactly (term counts are checked against the bytes left before anything is
 * allocated for them). On failure c is left empty. Returns CUZK_OK,
 * CUZK_ERR_IO, CUZK_ERR_FORMAT or CUZK_ERR_NOMEM. */
int cuzk_r1cs_read(cuzk_r1cs *c, const char *path, cuzk_error *err);

/* Writes sections 1, 2, 3 (the identity wire -> label map when
 * wire_to_label is NULL). Fails with CUZK_ERR_ARG on an inconsistent c, and
 * CUZK_ERR_IO on a write error (what stood at the path is kept). */
int cuzk_r1cs_write(const cuzk_r1cs *c, const char *path, cuzk_error *err);

void cuzk_r1cs_free(cuzk_r1cs *c);
/* cuzk_r1cs_free for a callback's void * context (cuzk_setup_options.r1cs_read) */
void cuzk_r1cs_free_ctx(void *c);

#endif
