/* .wtns witness files (version 2), as circom's generators and snarkjs write
 * them: section 1 = n8 u32, prime (n8 bytes), nWitness u32; section 2 =
 * nWitness values of n8 bytes, little-endian, normal form. */
#ifndef CUZK_GROTH16_WTNS_H
#define CUZK_GROTH16_WTNS_H

#include <stdint.h>

#include "cuzk/cuzk.h"

typedef struct {
    cuzk_curve_id curve;
    uint32_t n_witness;
    uint64_t *values; /* n_witness x 4 words, normal form, each < r; 64-byte aligned */
} cuzk_wtns;

/* Reads path into w (which it overwrites; free with cuzk_wtns_free). Checks
 * magic "wtns", version 2, n8 = 32, a prime that is r of a known curve, both
 * section sizes exactly, and every value < r. On failure w is left empty.
 * Returns CUZK_OK, CUZK_ERR_IO, CUZK_ERR_FORMAT or CUZK_ERR_NOMEM. */
int cuzk_wtns_read(cuzk_wtns *w, const char *path, cuzk_error *err);
/* cuzk_wtns_read with the values read straight into values (room for
 * capacity of them, 4 words each; e.g. a pinned staging buffer, sparing a
 * fresh allocation and a copy): w->values points there, so w is not to be
 * freed. More values than capacity fail with CUZK_ERR_MISMATCH. */
int cuzk_wtns_read_into(cuzk_wtns *w, const char *path, uint64_t *values, uint64_t capacity, cuzk_error *err);
/* Only the header: curve and n_witness, values NULL (nothing to free), the
 * values section's size checked but its contents not read. */
int cuzk_wtns_read_header(cuzk_wtns *w, const char *path, cuzk_error *err);
/* cuzk_wtns_read from len bytes of a .wtns file in memory; name stands for the
 * file in messages. */
int cuzk_wtns_read_memory(cuzk_wtns *w, const void *data, size_t len, const char *name, cuzk_error *err);

/* Writes w as a version-2 .wtns (sections 1, 2). Fails with CUZK_ERR_ARG on
 * an unknown curve or a value >= r, CUZK_ERR_IO on a write error (the partial
 * file is dropped; what stood at the path is kept). */
int cuzk_wtns_write(const cuzk_wtns *w, const char *path, cuzk_error *err);

void cuzk_wtns_free(cuzk_wtns *w);

#endif
