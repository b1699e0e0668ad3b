/* Groth16 .zkey proving keys (version 1) as snarkjs writes them.
 *
 *  sec  content
 *   1   u32 protocol (1 = groth16; 2 plonk and 10 fflonk are refused)
 *   2   n8q, q, n8r, r, nVars, nPublic, domainSize, alpha1, beta1, beta2,
 *       gamma2, delta1, delta2 (beta2 precedes delta1, whatever snarkjs'
 *       comment says)
 *   3   IC: nPublic + 1 G1
 *   4   u32 count, then {u32 matrix (0 = A, 1 = B), u32 row, u32 wire,
 *       value n8r bytes = coef * R^2 mod r}
 *   5   A: nVars G1      6  B1: nVars G1      7  B2: nVars G2
 *   8   C: nVars - nPublic - 1 G1 (wires nPublic + 1 ..)
 *   9   H: domainSize G1
 *  10   contributions (skipped on read)
 *
 * Points are affine with coordinates in Montgomery form, kept here exactly
 * as stored: G1 = x || y, G2 = x.c0 || x.c1 || y.c0 || y.c1, each coordinate
 * n8q / 8 words; the point at infinity is all zero. The reader checks every
 * coordinate is < q but not that points are on the curve (that is curve
 * math, done by the prover where it matters).
 */
#ifndef CUZK_GROTH16_ZKEY_H
#define CUZK_GROTH16_ZKEY_H

#include <stdint.h>

#include "cuzk/cuzk.h"
#include "codec/binfile.h"
#include "util/file.h"

enum { CUZK_ZKEY_PROTOCOL_GROTH16 = 1, CUZK_ZKEY_PROTOCOL_PLONK = 2, CUZK_ZKEY_PROTOCOL_FFLONK = 10 };

/* A Groth16 .zkey's sections */
enum {
    CUZK_ZKEY_SEC_PROTOCOL = 1,
    CUZK_ZKEY_SEC_HEADER = 2,
    CUZK_ZKEY_SEC_IC = 3,
    CUZK_ZKEY_SEC_COEFS = 4,
    CUZK_ZKEY_SEC_A = 5,
    CUZK_ZKEY_SEC_B1 = 6,
    CUZK_ZKEY_SEC_B2 = 7,
    CUZK_ZKEY_SEC_C = 8,
    CUZK_ZKEY_SEC_H = 9,
    CUZK_ZKEY_SEC_CONTRIBUTIONS = 10,
};

typedef struct {
    uint32_t matrix, row, wire; /* matrix 0 = A, 1 = B */
    uint64_t value[4];          /* as stored: coef * R^2 mod r, little-endian words */
} cuzk_zkey_coef;

typedef struct {
    cuzk_curve_id curve;
    uint32_t n8q, n8r, n_vars, n_public, domain_size, n_coefs;
    /* header points, affine, coordinates in Montgomery form exactly as
     * stored (G1 = x||y, G2 = x.c0||x.c1||y.c0||y.c1); unused words zero */
    uint64_t alpha1[12], beta1[12], delta1[12];
    uint64_t beta2[24], gamma2[24], delta2[24];
    uint64_t *ic;          /* (n_public + 1) G1 points, each 2*n8q/8 words */
    /* n_coefs coefficients: decoded in coefs, or (a mapped key, coefs NULL)
     * left where section 4 lies in the mapping, CUZK_ZKEY_COEF_BYTES each;
     * read either through cuzk_zkey_coef_get */
    cuzk_zkey_coef *coefs;
    const uint8_t *coef_bytes;
    /* n_vars G1, n_vars G1, n_vars G2 (4*n8q/8 words each),
     * n_vars - n_public - 1 G1, domain_size G1 */
    uint64_t *a, *b1, *b2, *c, *h;
    /* unique to this key in this process (never 0 for a loaded or set-up
     * key): caches of derived data (device copies) key on it, since a
     * reloaded key may land at the same address */
    uint64_t serial;
    /* the file read (device, inode, size, mtime of the descriptor read
     * from, not of whatever the path names later); zero for a key that
     * was not read from a file */
    cuzk_file_id source;
    /* cuzk_zkey_map's private mapping of the whole file, which some point
     * arrays lie in (NULL when none does); unmapped by cuzk_zkey_free */
    void *map;
    size_t map_len;
} cuzk_zkey;

/* One coefficient as section 4 stores it: u32 matrix, row, wire, then the
 * 32-byte value. */
enum { CUZK_ZKEY_COEF_BYTES = 44 };
void cuzk_zkey_coef_encode(const cuzk_zkey_coef *k, uint8_t out[CUZK_ZKEY_COEF_BYTES]);
void cuzk_zkey_coef_decode(const uint8_t in[CUZK_ZKEY_COEF_BYTES], cuzk_zkey_coef *k);

/* Whether z holds its coefficients (not a header-only read). */
static inline int cuzk_zkey_has_coefs(const cuzk_zkey *z) { return !z->n_coefs || z->coefs || z->coef_bytes; }

/* Coefficient k < z->n_coefs of a key holding them. */
static inline void cuzk_zkey_coef_get(const cuzk_zkey *z, uint32_t k, cuzk_zkey_coef *out)
{
    if (z->coefs)
        *out = z->coefs[k];
    else
        cuzk_zkey_coef_decode(z->coef_bytes + (size_t)k * CUZK_ZKEY_COEF_BYTES, out);
}

/* The row of coefficient k alone: for scans that skip most rows (a
 * mapped record is matrix, row, wire, value; the row at byte 4). */
static inline uint32_t cuzk_zkey_coef_row(const cuzk_zkey *z, uint32_t k)
{
    return z->coefs ? z->coefs[k].row : cuzk_le32(z->coef_bytes + (size_t)k * CUZK_ZKEY_COEF_BYTES + 4);
}

/* A fresh value for cuzk_zkey.serial (thread-safe). */
uint64_t cuzk_zkey_new_serial(void);

/* Reads the whole key (overwriting z; free with cuzk_zkey_free). Every point
 * array is its own 64-byte-aligned allocation, non-NULL even when empty;
 * large sections are read and checked on all CPUs.
 * Checks: magic "zkey", version 1, protocol 1, n8q/q and n8r/r of one known
 * curve, domain_size a power of two >= n_public + 1, n_vars >= n_public + 1,
 * every section size exactly what the header implies, coefficient matrix in
 * {0, 1}, row < domain_size, wire < n_vars, value < r, coordinates < q.
 * On failure z is left empty. Returns CUZK_OK, CUZK_ERR_IO, CUZK_ERR_FORMAT
 * or CUZK_ERR_NOMEM. */
int cuzk_zkey_read(cuzk_zkey *z, const char *path, cuzk_error *err);

/* The same, the file mapped instead of read: the coefficients stay in the
 * mapping (coef_bytes), and so do the arrays A, B1, B2, C and H where
 * their place there suits 64-bit words (the layout decides: snarkjs's
 * sections start at any multiple of 4); the others are copied out and
 * their pages handed back to the system;
 * no copy for most of the key, and pages the system can drop and reread
 * under memory pressure. The coordinates are checked on all CPUs either
 * way. The caller must keep the file from being truncated or rewritten in
 * place while z lives (the process faults on lost pages, as rapidsnark's
 * mapping does); a file replaced by rename is no harm. */
int cuzk_zkey_map(cuzk_zkey *z, const char *path, cuzk_error *err);

/* Reads sections 1-3 only (enough to export the verification key); coefs,
 * a, b1, b2, c, h are NULL and n_coefs is 0. Same checks on what it reads. */
int cuzk_zkey_read_header(cuzk_zkey *z, const char *path, cuzk_error *err);

/* The two above over len bytes of a .zkey in memory (read, not kept: z
 * owns copies, so data may go once they return); name stands for the file
 * in messages. z->source stays zero. */
int cuzk_zkey_read_memory(cuzk_zkey *z, const void *data, size_t len, const char *name, cuzk_error *err);
int cuzk_zkey_read_header_memory(cuzk_zkey *z, const void *data, size_t len, const char *name, cuzk_error *err);

/* Writes a fresh-key layout: sections 1, 2, 4, 3, 9, 8, 5, 6, 7, 10 (the
 * order of snarkjs groth16 setup), section 10 being an empty contribution
 * list (a 64-byte zero csHash and a u32 count 0). Refuses (CUZK_ERR_ARG)
 * anything the reader would refuse; CUZK_ERR_IO on a write error (the partial
 * file is dropped; what stood at the path is kept). */
int cuzk_zkey_write(const cuzk_zkey *z, const char *path, cuzk_error *err);

/* The same with section 10 given: mpc_len bytes at mpc (a ceremony's
 * csHash, contribution count and contributions, src/ceremony), written as
 * they are. */
int cuzk_zkey_write_mpc(const cuzk_zkey *z, const void *mpc, size_t mpc_len, const char *path, cuzk_error *err);

/* cuzk_zkey_write_mpc a section at a time, for a caller still making the
 * later sections' points (zkey new writes each as soon as it is made):
 *   open     checks what cuzk_zkey_write refuses but the points (each
 *            section's are checked as it is written) and opens the file;
 *   next     the section to write next, in cuzk_zkey_write's order:
 *            CUZK_ZKEY_SEC_CONTRIBUTIONS once all before it are written;
 *   section  writes that section (not section 10);
 *   finish   writes the sections left, section 10 from mpc, and puts the
 *            file in place; on an error, as abort;
 *   abort    drops the partial file (what stood at the path is kept).
 * z must stay alive and its written sections unchanged until finish. */
typedef struct {
    cuzk_binwriter w;
    const cuzk_zkey *z;
    unsigned next; /* sections written, in the order */
} cuzk_zkey_writer;
int cuzk_zkey_writer_open(cuzk_zkey_writer *zw, const cuzk_zkey *z, const char *path, cuzk_error *err);
uint32_t cuzk_zkey_writer_next(const cuzk_zkey_writer *zw);
int cuzk_zkey_writer_section(cuzk_zkey_writer *zw, cuzk_error *err);
int cuzk_zkey_writer_finish(cuzk_zkey_writer *zw, const void *mpc, size_t mpc_len, cuzk_error *err);
void cuzk_zkey_writer_abort(cuzk_zkey_writer *zw);

void cuzk_zkey_free(cuzk_zkey *z);

/* Hands the pages of point array pts (z->a, b1, b2, c or h: its length is
 * the key's) back to the system when it lies in z's mapping
 * (cuzk_zkey_map), so that a mapped key's points are resident only while a
 * prover reads them; they are read again from the file when next touched.
 * Nothing for an array outside the mapping, or any other pointer. */
void cuzk_zkey_release_points(const cuzk_zkey *z, const uint64_t *pts);

/* cuzk_zkey_release_points for each of A, B1, B2, C and H. */
void cuzk_zkey_release_all_points(const cuzk_zkey *z);

/* The same for the coefficients of a mapped key (coef_bytes), once a
 * prover has read them; nothing for decoded ones. */
void cuzk_zkey_release_coefs(const cuzk_zkey *z);

/* Bytes of z's point arrays A, B1, B2, C, H (affine, as in the file), from
 * its sizes alone: what a host or device copy of them takes. */
size_t cuzk_zkey_point_bytes(const cuzk_zkey *z);

#endif
