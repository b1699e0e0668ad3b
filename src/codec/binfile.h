/* The iden3 binary container shared by .r1cs, .wtns, .zkey and .ptau:
 *
 *   magic[4] | u32 version | u32 nSections | { u32 id | u64 size | payload }*
 *
 * all little-endian. Sections may come in any order; the reader builds a
 * table of them and checks every section against the real file size before
 * anything is read, so a header that claims 2^40 bytes in a 100-byte file
 * is rejected up front. Bytes after the last section are ignored (snarkjs
 * ignores them too).
 *
 * Error messages name the file (as the caller spelled its path), the section
 * id with a short description and what was expected, e.g.
 *   "c.zkey: section 5 (A points) holds 1000 bytes, expected 3200 (nVars 50 x 64)".
 *
 * The reader streams through stdio with a large buffer, or reads a file in
 * memory (a caller's buffer, or the file mapped by cuzk_bin_map); a section
 * can be read in pieces through cuzk_bin_reader, which refuses to step past
 * the end of the section, and large arrays of items on all threads
 * (cuzk_bin_read_items, cuzk_bin_read_elems). The writer patches each section's size and the section count
 * in place when they are known.
 */
#ifndef CUZK_CODEC_BINFILE_H
#define CUZK_CODEC_BINFILE_H

#include <stdint.h>
#include <stdio.h>

#include "cuzk/cuzk.h"
#include "util/file.h"

typedef struct {
    uint32_t id;
    uint64_t offset; /* of the payload, from the start of the file */
    uint64_t size;   /* of the payload */
} cuzk_bin_section;

typedef struct {
    FILE *f;           /* NULL when the file is in memory */
    const uint8_t *mem; /* the whole file, when it is in memory: a caller's buffer or map */
    void *map;          /* our private mapping of the file (cuzk_bin_map), unmapped by close */
    const char *path; /* the caller's string; must outlive the handle */
    uint64_t file_size;
    uint32_t version;
    uint32_t n_sections;
    cuzk_bin_section *sections;
    uint64_t fpos; /* where the stream stands, to skip needless seeks */
    cuzk_file_id id; /* of the file opened (zero for memory) */
} cuzk_binfile;

/* A cursor over one section's payload. */
typedef struct {
    cuzk_binfile *bf;
    const cuzk_bin_section *sec;
    const char *what; /* "header", "A points", ... for messages */
    uint64_t pos;     /* bytes consumed so far */
} cuzk_bin_reader;

/* Opens path (a regular file only: a FIFO or a device is refused before
 * anything is read, and never blocks the open), checks the 4-byte magic and that the version equals version,
 * and builds the section table with every section inside the file.
 * On success bf owns an open file (release with cuzk_bin_close). On failure
 * bf holds nothing and the return is CUZK_ERR_IO (cannot open / read),
 * CUZK_ERR_FORMAT (bad magic, version or table) or CUZK_ERR_NOMEM. */
int cuzk_bin_open(cuzk_binfile *bf, const char *path, const char magic[4], uint32_t version,
                  cuzk_error *err);
/* The same over len bytes in memory (which must outlive the handle); name
 * stands for the file in messages. */
int cuzk_bin_open_memory(cuzk_binfile *bf, const void *data, size_t len, const char *name, const char magic[4],
                         uint32_t version, cuzk_error *err);

/* Closes the file and frees the table; safe on a zeroed or closed handle. */
void cuzk_bin_close(cuzk_binfile *bf);

/* Number of sections with this id in the table. */
uint32_t cuzk_bin_count(const cuzk_binfile *bf, uint32_t id);

/* The section with this id, or NULL when it is absent. When it occurs more
 * than once the first is returned; cuzk_bin_begin refuses duplicates. */
const cuzk_bin_section *cuzk_bin_find(const cuzk_binfile *bf, uint32_t id);

/* Starts reading section id (what describes it in messages). Fails with
 * CUZK_ERR_FORMAT when the section is missing or duplicated. */
int cuzk_bin_begin(cuzk_binfile *bf, uint32_t id, const char *what, cuzk_bin_reader *r,
                   cuzk_error *err);

/* Fails with CUZK_ERR_FORMAT unless the section holds exactly `expected`
 * bytes; `why` (may be NULL) explains the expectation, e.g. "nVars 50 x 64". */
int cuzk_bin_expect_size(const cuzk_bin_reader *r, uint64_t expected, const char *why,
                         cuzk_error *err);

/* Bytes of the section not yet consumed. */
static inline uint64_t cuzk_bin_left(const cuzk_bin_reader *r) { return r->sec->size - r->pos; }

/* Reads n bytes at the cursor into buf and advances. Fails with
 * CUZK_ERR_FORMAT, naming `field`, when fewer than n bytes are left in the
 * section, and with CUZK_ERR_IO when the file read fails. */
int cuzk_bin_read(cuzk_bin_reader *r, void *buf, size_t n, const char *field, cuzk_error *err);
int cuzk_bin_read_u32(cuzk_bin_reader *r, uint32_t *v, const char *field, cuzk_error *err);
int cuzk_bin_read_u64(cuzk_bin_reader *r, uint64_t *v, const char *field, cuzk_error *err);

/* Fails with CUZK_ERR_FORMAT unless the whole section has been consumed. */
int cuzk_bin_end(const cuzk_bin_reader *r, cuzk_error *err);

/* The whole payload of section id, which must hold exactly size bytes, into
 * buf (begin + expect_size + read in one call). */
int cuzk_bin_read_section(cuzk_binfile *bf, uint32_t id, const char *what, void *buf, uint64_t size,
                          cuzk_error *err);

/* Maps the open file bf (cuzk_bin_open) privately into memory: later reads
 * copy from the mapping, and cuzk_bin_mapped_at gives pointers into it. A
 * file truncated while mapped makes the process fault (SIGBUS) when it
 * touches the lost pages: map only files nobody rewrites in place.
 * CUZK_ERR_IO when the system refuses. */
int cuzk_bin_map(cuzk_binfile *bf, cuzk_error *err);

/* The mapping of bf, handed to the caller (who munmaps file_size bytes at
 * it), or NULL when bf is not mapped; bf reads no more from it. */
void *cuzk_bin_take_map(cuzk_binfile *bf);

/* A pointer to r's position inside bf's own mapping when that address is a
 * multiple of align, else NULL (not mapped, or misaligned). */
const void *cuzk_bin_mapped_at(const cuzk_bin_reader *r, size_t align);

/* Lets the system drop the pages of bf's mapping that lie wholly inside
 * [offset, offset + size) (data copied out that will not be read again);
 * nothing when bf is not mapped. */
void cuzk_bin_unneeded(cuzk_binfile *bf, uint64_t offset, uint64_t size);

/* A batch of `count` consecutive items, the first of index `first` (from 0
 * at the reader's position), at `items`. Returns UINT64_MAX when every item
 * is good, else the index of the first bad one. */
typedef uint64_t (*cuzk_bin_items_fn)(void *ctx, const uint8_t *items, uint64_t first, uint64_t count);

/* Hands the next n_items items of item_bytes bytes each to fn in batches,
 * on all CPUs when there are many (fn must be thread-safe; batches come in
 * no particular order), then steps past them. The bytes are the file's own
 * when it is in memory; else they are read into landing (n_items x
 * item_bytes bytes, each batch at its place) when landing is non-NULL, or
 * into a buffer of the thread's. *first_bad: the lowest index fn reported,
 * UINT64_MAX when none. CUZK_ERR_FORMAT when the section is too short
 * (naming item_name),
 * CUZK_ERR_IO when a read fails, CUZK_ERR_NOMEM. */
int cuzk_bin_read_items(cuzk_bin_reader *r, uint64_t n_items, size_t item_bytes, const char *item_name,
                        void *landing, cuzk_bin_items_fn fn, void *ctx, uint64_t *first_bad, cuzk_error *err);

/* ---- helpers shared by the format readers ---- */

/* Reads `n8 u32, prime (n8 bytes LE)` and identifies the curve whose r
 * (is_base_field = 0) or q (is_base_field = 1) it is. field names the pair in
 * messages ("prime"). n8 must be 32 or 48 and equal the prime's width. */
int cuzk_bin_read_prime(cuzk_bin_reader *r, int is_base_field, const char *field, uint32_t *n8,
                        cuzk_curve_id *curve, cuzk_error *err);

/* Reads n_items items of elems_per_item field elements of words_per_elem
 * words each into dst (host words), then, when bound is non-NULL, checks
 * every element is < bound (named bound_name), naming the item (item_name,
 * index) of the first that is not; on all CPUs for large arrays. dst NULL:
 * the items are checked where they lie, at cuzk_bin_mapped_at(r, 8), which
 * must be non-NULL. */
int cuzk_bin_read_elems(cuzk_bin_reader *r, uint64_t *dst, uint64_t n_items, uint32_t elems_per_item,
                        uint32_t words_per_elem, const uint64_t *bound, const char *bound_name,
                        const char *item_name, cuzk_error *err);

/* A 64-byte-aligned allocation of at least max(bytes, 1) bytes (rounded up
 * to 64), zero-filled when zero is set; NULL when it cannot be had. Release
 * with free(). From 2 MiB on it is aligned to 2 MiB and asks the kernel for
 * huge pages: a large buffer's first touch then takes 512 times fewer page
 * faults (which dominate filling a fresh multi-gigabyte array on a virtual
 * machine). */
void *cuzk_alloc_aligned(uint64_t bytes, int zero);

/* Writer. */
typedef struct {
    cuzk_outfile out; /* a temporary file renamed over path at finish */
    FILE *f;          /* out.f */
    const char *path;
    uint32_t n_sections;
    int in_section;
    uint64_t size_pos; /* file offset of the open section's size field */
    uint64_t pos;      /* current end of file */
} cuzk_binwriter;

/* Starts path (a temporary file beside it, util/file.h: what stands at path
 * is untouched until finish) and writes magic, version and a section count
 * patched by cuzk_binw_finish. */
int cuzk_binw_open(cuzk_binwriter *w, const char *path, const char magic[4], uint32_t version,
                   cuzk_error *err);
int cuzk_binw_begin(cuzk_binwriter *w, uint32_t id, cuzk_error *err);
int cuzk_binw_write(cuzk_binwriter *w, const void *buf, size_t n, cuzk_error *err);
int cuzk_binw_write_u32(cuzk_binwriter *w, uint32_t v, cuzk_error *err);
int cuzk_binw_write_u64(cuzk_binwriter *w, uint64_t v, cuzk_error *err);
/* Writes n8 = 8 * words as u32, then the modulus m as n8 bytes LE. */
int cuzk_binw_write_prime(cuzk_binwriter *w, const uint64_t *m, uint32_t words, cuzk_error *err);
/* Patches the open section's size. */
int cuzk_binw_end(cuzk_binwriter *w, cuzk_error *err);
/* Patches the section count, flushes, fsyncs and renames the file into
 * place. On failure the temporary file is removed and path keeps what it
 * held. */
int cuzk_binw_finish(cuzk_binwriter *w, cuzk_error *err);
/* Drops the partly written file (after an error); path keeps what it held. */
void cuzk_binw_abort(cuzk_binwriter *w);

/* Little-endian helpers for the fixed-width fields. */
static inline uint32_t cuzk_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t cuzk_le64(const uint8_t *p)
{
    return (uint64_t)cuzk_le32(p) | (uint64_t)cuzk_le32(p + 4) << 32;
}
static inline void cuzk_put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void cuzk_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Bulk arrays of words are read and written as host memory. */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cuzk's file readers assume a little-endian host"
#endif

#endif
