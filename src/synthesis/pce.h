/* The PCE (pre-compiled constraint evaluator): a proving key's A and B
 * coefficient lists (zkey section 4) compiled once per circuit into compact
 * CSR matrices, so that each proof's synthesis is a pair of row-parallel
 * sparse mat-vecs
 *     a = A.w,  b = B.w,  c = a o b
 * written straight into a caller-supplied buffer: the engine passes a
 * pinned pool buffer, so the GPU reads a/b/c without a pageable copy.
 *
 * Semantics are exactly those of the reference prover (prove.inc's
 * build_abc, docs/FORMATS.md s5): a[row] = sum coef * w[wire] over the key's
 * matrix-0 entries of that row, b likewise for matrix 1, results in
 * Montgomery form; rows without terms are zero.
 *
 * Compaction: each term is a u32 wire and a u32 coefficient code: 0 = +1,
 * 1 = -1 (these need no multiplication), k >= 2 = values[k - 2], the
 * deduplicated table of every other coefficient (Montgomery form coef*R).
 * Terms with coefficient 0 are dropped. Within a row, terms keep the key's
 * order. Memory: 8 bytes per term + 8 bytes per row + 32 per distinct value.
 *
 * Disk cache: <cache_dir>/<sha256 of the key's circuit, hex>.pce, a small
 * binary format (magic "CUZKPCE\0", version, curve, the key hash, sizes,
 * the arrays, a 64-bit checksum), written to a temporary file and renamed.
 * Every size is checked against the file before anything is allocated and
 * every index is checked against its bound after loading: a truncated,
 * corrupt or foreign cache file is refused with an error, never a crash. */
#ifndef CUZK_SYNTHESIS_PCE_H
#define CUZK_SYNTHESIS_PCE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "groth16/zkey.h"

enum { CUZK_PCE_COEF_ONE = 0, CUZK_PCE_COEF_MINUS_ONE = 1, CUZK_PCE_COEF_VALUES = 2 };

typedef struct {
    cuzk_curve_id curve;
    uint32_t n_rows /* = domain_size */, n_vars;
    uint32_t *row_start[2]; /* A, B: n_rows + 1 offsets each */
    uint32_t *wire[2];      /* row_start[m][n_rows] terms each */
    uint32_t *coef[2];      /* per term: 0 = +1, 1 = -1, k >= 2: values[k - 2] */
    uint64_t (*values)[4];  /* distinct other coefficients, Montgomery form (coef*R) */
    uint32_t n_values;
    uint64_t bytes;         /* memory held, for the budget */
    uint8_t key_hash[32];
} cuzk_pce;

/* Compiles z's coefficient section (z must hold coefs: a full read, not a
 * header-only one). Checks every entry (matrix in {0, 1}, row <
 * domain_size, wire < n_vars, value < r). On failure out is left empty.
 * CUZK_OK, CUZK_ERR_ARG (an inconsistent key) or CUZK_ERR_NOMEM. */
int cuzk_pce_compile(const cuzk_zkey *z, cuzk_pce *out, cuzk_error *err);

/* SHA-256 over "cuzk-pce-key-v1", curve, n_vars, n_public, domain_size,
 * n_coefs (u32 LE each) and every coefficient entry (matrix, row, wire as
 * u32 LE, value as 32 bytes LE): everything the PCE depends on, nothing it
 * does not (the points). CUZK_OK, CUZK_ERR_ARG or CUZK_ERR_NOMEM. */
int cuzk_pce_key_hash(const cuzk_zkey *z, uint8_t out[32]);

/* Writes p to path through a temporary file in the same directory (util/
 * file.h: nameless where the file system allows, so a killed save leaves
 * nothing), fsynced and renamed over path once complete (readers never see
 * a partial file). CUZK_OK, CUZK_ERR_ARG or CUZK_ERR_IO (the temporary file
 * is removed). */
int cuzk_pce_save(const cuzk_pce *p, const char *path, cuzk_error *err);

/* Reads a file written by cuzk_pce_save into p (overwritten; on failure left
 * empty). When expect_hash is non-NULL the file must be for that key.
 * CUZK_ERR_IO (cannot open/read), CUZK_ERR_FORMAT (not a PCE file, wrong
 * version, sizes that disagree with the file's length, bad checksum,
 * out-of-range index or value), CUZK_ERR_MISMATCH (another key's hash),
 * CUZK_ERR_NOMEM. */
int cuzk_pce_load(cuzk_pce *p, const char *path, const uint8_t expect_hash[32], cuzk_error *err);

/* The PCE of z: with a cache_dir (created if missing, one level), loads
 * <cache_dir>/<hex key hash>.pce when present and valid (*from_disk = 1);
 * otherwise compiles (*from_disk = 0) and, with a cache_dir, saves. A cache
 * file that is refused, or a save that fails, does not fail the call: the
 * PCE is compiled all the same, and the reason is left in err->msg with
 * err->code CUZK_OK (err untouched when nothing went wrong). from_disk may
 * be NULL. Fails only as cuzk_pce_compile does. */
int cuzk_pce_get(const cuzk_zkey *z, const char *cache_dir, cuzk_pce *out, int *from_disk, cuzk_error *err);

/* Bytes of the transient scratch cuzk_pce_synthesize allocates per call (the
 * witness in Montgomery form): n_vars * 32. */
size_t cuzk_pce_scratch_bytes(const cuzk_pce *p);

/* a = A.w, b = B.w, c = a o b into abc = a[n_rows] || b[n_rows] || c[n_rows],
 * 32 bytes per element, Montgomery form, every element written (rows
 * without terms are zero). witness: n_vars x 4 words, normal form, each < r.
 * abc must be 8-byte aligned (pool buffers are 64-byte aligned). Rows are
 * split across nthreads by term count. The witness is lifted to Montgomery
 * form once, into a scratch array (cuzk_pce_scratch_bytes) allocated here.
 * CUZK_OK, CUZK_ERR_ARG or CUZK_ERR_NOMEM. */
int cuzk_pce_synthesize(const cuzk_pce *p, const uint64_t *witness, void *abc, int nthreads);

/* The same with caller-provided scratch (cuzk_pce_scratch_bytes bytes,
 * 8-byte aligned), so the engine can account for it; scratch NULL allocates. */
int cuzk_pce_synthesize_scratch(const cuzk_pce *p, const uint64_t *witness, void *abc, void *scratch,
                                int nthreads);

void cuzk_pce_free(cuzk_pce *p);

#endif
