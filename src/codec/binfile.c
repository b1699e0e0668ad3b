#include "codec/binfile.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec/curve_id.h"
#include "codec/decimal.h"
#include "util/err.h"
#include "util/pages.h"
#include "util/threads.h"

#define BIN_HEADER_BYTES 12u       /* magic, version, section count */
#define BIN_SECTION_HEAD_BYTES 12u /* id, size */
#define BIN_STDIO_BUFFER (1u << 20)
#define BIN_WRITEBACK_BYTES ((size_t)256 << 20)
#define BIN_HUGE_PAGE ((size_t)2 << 20)

static int bin_seek(cuzk_binfile *bf, uint64_t pos, cuzk_error *err)
{
    if (bf->fpos == pos) return CUZK_OK;
    if (fseeko(bf->f, (off_t)pos, SEEK_SET) != 0)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot seek to byte %llu: %s", bf->path,
                         (unsigned long long)pos, strerror(errno));
    bf->fpos = pos;
    return CUZK_OK;
}

/* Reads n bytes at pos, which the caller has checked lie inside the file. */
static int bin_read_at(cuzk_binfile *bf, uint64_t pos, void *buf, size_t n, cuzk_error *err)
{
    if (bf->mem) {
        if (n) memcpy(buf, bf->mem + pos, n);
        return CUZK_OK;
    }
    int rc = bin_seek(bf, pos, err);
    if (rc) return rc;
    if (n && fread(buf, 1, n, bf->f) != n) {
        bf->fpos = UINT64_MAX;
        return cuzk_fail(err, CUZK_ERR_IO, "%s: read of %zu bytes at byte %llu failed (%s)", bf->path, n,
                         (unsigned long long)pos,
                         ferror(bf->f) ? strerror(errno) : "file shrank while being read");
    }
    bf->fpos = pos + n;
    return CUZK_OK;
}

static int bin_scan_table(cuzk_binfile *bf, cuzk_error *err)
{
    uint64_t pos = BIN_HEADER_BYTES;
    /* Each table entry takes at least 12 bytes: bound the count by the file
     * before allocating for it. */
    if ((uint64_t)bf->n_sections * BIN_SECTION_HEAD_BYTES > bf->file_size - pos)
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: header claims %u sections, but the file (%llu bytes) has room for at most %llu",
                         bf->path, bf->n_sections, (unsigned long long)bf->file_size,
                         (unsigned long long)((bf->file_size - pos) / BIN_SECTION_HEAD_BYTES));
    bf->sections = calloc(bf->n_sections ? bf->n_sections : 1, sizeof *bf->sections);
    if (!bf->sections)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for a table of %u sections", bf->path,
                         bf->n_sections);
    for (uint32_t i = 0; i < bf->n_sections; i++) {
        uint8_t h[BIN_SECTION_HEAD_BYTES];
        if (bf->file_size - pos < BIN_SECTION_HEAD_BYTES)
            return cuzk_fail(err, CUZK_ERR_FORMAT,
                             "%s: truncated: the file ends at byte %llu inside the header of section entry %u of %u",
                             bf->path, (unsigned long long)bf->file_size, i + 1, bf->n_sections);
        int rc = bin_read_at(bf, pos, h, sizeof h, err);
        if (rc) return rc;
        cuzk_bin_section *s = &bf->sections[i];
        s->id = cuzk_le32(h);
        s->size = cuzk_le64(h + 4);
        s->offset = pos + BIN_SECTION_HEAD_BYTES;
        uint64_t room = bf->file_size - s->offset;
        if (s->size > room)
            return cuzk_fail(err, CUZK_ERR_FORMAT,
                             "%s: section %u claims %llu bytes at byte %llu, but only %llu bytes remain in the file (truncated or corrupt)",
                             bf->path, s->id, (unsigned long long)s->size, (unsigned long long)s->offset,
                             (unsigned long long)room);
        pos = s->offset + s->size;
    }
    return CUZK_OK;
}

/* Checks the header of the stream bf->f (bf->path and bf->file_size set)
 * and builds the section table; closes bf on failure. */
static int bin_open_stream(cuzk_binfile *bf, const char magic[4], uint32_t version, cuzk_error *err)
{
    int rc;
    if (bf->file_size < BIN_HEADER_BYTES) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT,
                       "%s: %llu bytes is too short for a .%.4s file (the header alone is 12 bytes)", bf->path,
                       (unsigned long long)bf->file_size, magic);
        goto fail;
    }
    uint8_t h[BIN_HEADER_BYTES];
    if ((rc = bin_read_at(bf, 0, h, sizeof h, err))) goto fail;
    /* what the file holds is not quoted: the daemon reads paths that its
     * clients name, and its messages go back to them */
    if (memcmp(h, magic, 4) != 0) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: not a .%.4s file (its magic is not \"%.4s\")", bf->path,
                       magic, magic);
        goto fail;
    }
    bf->version = cuzk_le32(h + 4);
    if (bf->version != version) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: .%.4s version %u is not supported (expected %u)", bf->path,
                       magic, bf->version, version);
        goto fail;
    }
    bf->n_sections = cuzk_le32(h + 8);
    if ((rc = bin_scan_table(bf, err))) goto fail;
    return CUZK_OK;

fail:
    cuzk_bin_close(bf);
    return rc;
}

int cuzk_bin_open(cuzk_binfile *bf, const char *path, const char magic[4], uint32_t version,
                  cuzk_error *err)
{
    memset(bf, 0, sizeof *bf);
    if (!path) return cuzk_fail(err, CUZK_ERR_ARG, "no file name given");
    bf->path = path;
    struct stat st;
    if (!(bf->f = cuzk_fopen_regular(path, &st, err))) return err ? err->code : CUZK_ERR_IO;
    cuzk_file_id_of(&st, &bf->id);
    bf->file_size = (uint64_t)st.st_size;
    setvbuf(bf->f, NULL, _IOFBF, BIN_STDIO_BUFFER);
    return bin_open_stream(bf, magic, version, err);
}

int cuzk_bin_open_memory(cuzk_binfile *bf, const void *data, size_t len, const char *name, const char magic[4],
                         uint32_t version, cuzk_error *err)
{
    memset(bf, 0, sizeof *bf);
    bf->path = name;
    bf->file_size = len;
    /* an empty buffer is refused as too short before anything is read */
    bf->mem = data ? data : (const uint8_t *)"";
    return bin_open_stream(bf, magic, version, err);
}

int cuzk_bin_map(cuzk_binfile *bf, cuzk_error *err)
{
    if (bf->mem) return CUZK_OK;
    if (bf->file_size > SIZE_MAX)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: %llu bytes cannot be mapped here", bf->path,
                         (unsigned long long)bf->file_size);
    /* private and writable: a page someone writes to becomes a copy of its own */
    void *m = mmap(NULL, (size_t)bf->file_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fileno(bf->f), 0);
    if (m == MAP_FAILED) return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot map the file: %s", bf->path, strerror(errno));
    madvise(m, (size_t)bf->file_size, MADV_WILLNEED);
    bf->map = m;
    bf->mem = m;
    return CUZK_OK;
}

void *cuzk_bin_take_map(cuzk_binfile *bf)
{
    void *m = bf->map;
    bf->map = NULL;
    if (m && bf->mem == m) bf->mem = NULL;
    return m;
}

const void *cuzk_bin_mapped_at(const cuzk_bin_reader *r, size_t align)
{
    if (!r->bf->map) return NULL;
    const uint8_t *p = r->bf->mem + r->sec->offset + r->pos;
    return (uintptr_t)p % align ? NULL : p;
}

void cuzk_bin_unneeded(cuzk_binfile *bf, uint64_t offset, uint64_t size)
{
    if (bf->map) cuzk_pages_release((const uint8_t *)bf->map + offset, (size_t)size);
}

void cuzk_bin_close(cuzk_binfile *bf)
{
    if (bf->f) fclose(bf->f);
    if (bf->map) munmap(bf->map, (size_t)bf->file_size);
    free(bf->sections);
    memset(bf, 0, sizeof *bf);
}

uint32_t cuzk_bin_count(const cuzk_binfile *bf, uint32_t id)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < bf->n_sections; i++) n += bf->sections[i].id == id;
    return n;
}

const cuzk_bin_section *cuzk_bin_find(const cuzk_binfile *bf, uint32_t id)
{
    for (uint32_t i = 0; i < bf->n_sections; i++)
        if (bf->sections[i].id == id) return &bf->sections[i];
    return NULL;
}

int cuzk_bin_begin(cuzk_binfile *bf, uint32_t id, const char *what, cuzk_bin_reader *r,
                   cuzk_error *err)
{
    memset(r, 0, sizeof *r);
    const cuzk_bin_section *s = cuzk_bin_find(bf, id);
    if (!s) return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section %u (%s) is missing", bf->path, id, what);
    uint32_t n = cuzk_bin_count(bf, id);
    if (n > 1)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section %u (%s) appears %u times, expected once",
                         bf->path, id, what, n);
    r->bf = bf;
    r->sec = s;
    r->what = what;
    return CUZK_OK;
}

int cuzk_bin_expect_size(const cuzk_bin_reader *r, uint64_t expected, const char *why,
                         cuzk_error *err)
{
    if (r->sec->size == expected) return CUZK_OK;
    return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section %u (%s) holds %llu bytes, expected %llu%s%s%s",
                     r->bf->path, r->sec->id, r->what, (unsigned long long)r->sec->size,
                     (unsigned long long)expected, why ? " (" : "", why ? why : "", why ? ")" : "");
}

int cuzk_bin_read(cuzk_bin_reader *r, void *buf, size_t n, const char *field, cuzk_error *err)
{
    if (n > cuzk_bin_left(r))
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: section %u (%s) ends after %llu bytes, but %s needs %zu bytes from byte %llu",
                         r->bf->path, r->sec->id, r->what, (unsigned long long)r->sec->size, field, n,
                         (unsigned long long)r->pos);
    int rc = bin_read_at(r->bf, r->sec->offset + r->pos, buf, n, err);
    if (rc) return rc;
    r->pos += n;
    return CUZK_OK;
}

int cuzk_bin_read_u32(cuzk_bin_reader *r, uint32_t *v, const char *field, cuzk_error *err)
{
    uint8_t b[4];
    int rc = cuzk_bin_read(r, b, sizeof b, field, err);
    if (rc) return rc;
    *v = cuzk_le32(b);
    return CUZK_OK;
}

int cuzk_bin_read_u64(cuzk_bin_reader *r, uint64_t *v, const char *field, cuzk_error *err)
{
    uint8_t b[8];
    int rc = cuzk_bin_read(r, b, sizeof b, field, err);
    if (rc) return rc;
    *v = cuzk_le64(b);
    return CUZK_OK;
}

int cuzk_bin_end(const cuzk_bin_reader *r, cuzk_error *err)
{
    if (r->pos == r->sec->size) return CUZK_OK;
    return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section %u (%s) holds %llu bytes, but its content ends after %llu",
                     r->bf->path, r->sec->id, r->what, (unsigned long long)r->sec->size,
                     (unsigned long long)r->pos);
}

int cuzk_bin_read_section(cuzk_binfile *bf, uint32_t id, const char *what, void *buf, uint64_t size,
                          cuzk_error *err)
{
    cuzk_bin_reader r;
    int rc = cuzk_bin_begin(bf, id, what, &r, err);
    if (!rc) rc = cuzk_bin_expect_size(&r, size, NULL, err);
    if (!rc && size > SIZE_MAX) rc = cuzk_fail(err, CUZK_ERR_NOMEM, "%s: section %u (%s) is too large", bf->path, id, what);
    if (!rc) rc = cuzk_bin_read(&r, buf, (size_t)size, what, err);
    return rc;
}

/* ---- helpers shared by the format readers ---- */

int cuzk_bin_read_prime(cuzk_bin_reader *r, int is_base_field, const char *field, uint32_t *n8,
                        cuzk_curve_id *curve, cuzk_error *err)
{
    char name[64];
    uint8_t prime[8 * CUZK_MAX_Q_WORDS];
    snprintf(name, sizeof name, "%s width (n8)", field);
    int rc = cuzk_bin_read_u32(r, n8, name, err);
    if (rc) return rc;
    if (*n8 != 32 && *n8 != 48)
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: section %u (%s): %s is %u bytes; bn128 and bls12-381 use 32 or 48",
                         r->bf->path, r->sec->id, r->what, name, *n8);
    if ((rc = cuzk_bin_read(r, prime, *n8, field, err))) return rc;
    if (cuzk_curve_from_prime(prime, *n8, is_base_field, curve) == CUZK_OK) return CUZK_OK;

    uint64_t words[CUZK_MAX_Q_WORDS] = {0};
    char dec[CUZK_DEC_CAP(CUZK_MAX_Q_WORDS)];
    memcpy(words, prime, *n8);
    cuzk_dec_format(words, (int)(*n8 / 8), dec, sizeof dec);
    return cuzk_fail(err, CUZK_ERR_FORMAT,
                     "%s: section %u (%s): %s %s is not the %s of bn128 or bls12-381", r->bf->path,
                     r->sec->id, r->what, field, dec,
                     is_base_field ? "base field prime q" : "scalar field prime r");
}

/* ---- arrays of items on all threads ---- */

enum {
    ITEMS_PARALLEL_BYTES = 4 << 20, /* fewer bytes are not worth a thread */
    ITEMS_BATCH_BYTES = 1 << 20,    /* what a thread reads at once into its own buffer */
};

typedef struct {
    cuzk_binfile *bf;
    uint64_t pos; /* file offset of item 0 */
    size_t item_bytes;
    uint8_t *landing;
    cuzk_bin_items_fn fn;
    void *ctx;
    _Atomic uint64_t first_bad;
    _Atomic int failed_errno; /* 0, an errno, or -1: the file ended early */
    _Atomic int no_memory;
} items_job;

static void lower_to(_Atomic uint64_t *v, uint64_t x)
{
    uint64_t cur = atomic_load(v);
    while (x < cur && !atomic_compare_exchange_weak(v, &cur, x)) {
    }
}

/* n bytes at file offset pos into buf by pread (which leaves the stream's
 * position alone); 0, an errno, or -1 when the file ends first */
static int pread_all(int fd, uint8_t *buf, size_t n, uint64_t pos)
{
    while (n) {
        ssize_t got = pread(fd, buf, n, (off_t)pos);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno ? errno : EIO;
        if (got == 0) return -1;
        buf += got;
        pos += (uint64_t)got;
        n -= (size_t)got;
    }
    return 0;
}

static void items_range(void *vjob, size_t begin, size_t end, int tid)
{
    (void)tid;
    items_job *j = vjob;
    const size_t per_batch = ITEMS_BATCH_BYTES / j->item_bytes ? ITEMS_BATCH_BYTES / j->item_bytes : 1;
    uint8_t *own = NULL;
    if (!j->bf->mem && !j->landing && !(own = malloc(per_batch * j->item_bytes))) {
        atomic_store(&j->no_memory, 1);
        return;
    }
    for (size_t at = begin; at < end && !atomic_load(&j->failed_errno);) {
        size_t count = end - at < per_batch ? end - at : per_batch;
        uint64_t pos = j->pos + (uint64_t)at * j->item_bytes;
        const uint8_t *items;
        if (j->bf->mem) {
            items = j->bf->mem + pos;
        } else {
            uint8_t *to = j->landing ? j->landing + (size_t)at * j->item_bytes : own;
            int e = pread_all(fileno(j->bf->f), to, count * j->item_bytes, pos);
            if (e) {
                atomic_store(&j->failed_errno, e);
                break;
            }
            items = to;
        }
        uint64_t bad = j->fn(j->ctx, items, at, count);
        /* copied out of a mapping: its pages go now, not with the section,
         * so a copy and its source are not both resident */
        if (j->bf->map && j->landing) cuzk_pages_release(items, count * j->item_bytes);
        if (bad != UINT64_MAX) {
            lower_to(&j->first_bad, bad);
            break; /* later batches of this range cannot hold a lower index */
        }
        at += count;
    }
    free(own);
}

int cuzk_bin_read_items(cuzk_bin_reader *r, uint64_t n_items, size_t item_bytes, const char *item_name,
                        void *landing, cuzk_bin_items_fn fn, void *ctx, uint64_t *first_bad, cuzk_error *err)
{
    *first_bad = UINT64_MAX;
    if (item_bytes == 0 || n_items > cuzk_bin_left(r) / item_bytes)
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: section %u (%s) ends after %llu bytes, but %llu %ss of %zu bytes need %llu bytes more from byte %llu",
                         r->bf->path, r->sec->id, r->what, (unsigned long long)r->sec->size,
                         (unsigned long long)n_items, item_name, item_bytes, (unsigned long long)(n_items * item_bytes),
                         (unsigned long long)r->pos);
    if (n_items == 0) return CUZK_OK;
    if (n_items > SIZE_MAX) return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: section %u (%s) is too large", r->bf->path, r->sec->id, r->what);
    items_job j = {.bf = r->bf, .pos = r->sec->offset + r->pos, .item_bytes = item_bytes, .landing = landing,
                   .fn = fn, .ctx = ctx, .first_bad = UINT64_MAX};
    int threads = n_items * item_bytes < ITEMS_PARALLEL_BYTES ? 1 : cuzk_cpu_count();
    cuzk_parallel_for(threads, (size_t)n_items, items_range, &j);
    int e = atomic_load(&j.failed_errno);
    if (e)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: read of section %u (%s) failed (%s)", r->bf->path, r->sec->id, r->what,
                         e < 0 ? "file shrank while being read" : strerror(e));
    if (atomic_load(&j.no_memory))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for a read buffer", r->bf->path);
    *first_bad = atomic_load(&j.first_bad);
    r->pos += n_items * item_bytes;
    return CUZK_OK;
}

typedef struct {
    uint64_t *dst; /* NULL: checked in place */
    size_t item_words;
    uint32_t elems_per_item, words_per_elem;
    const uint64_t *bound;
} elems_job;

/* the first element of item v (item_words words) not below bound, or -1 */
static int first_elem_out_of_bound(const elems_job *j, const uint64_t *v)
{
    const uint32_t w = j->words_per_elem;
    for (uint32_t e = 0; e < j->elems_per_item; e++, v += w)
        /* the top words decide for all but a 2^-64 share of values */
        if (!(v[w - 1] < j->bound[w - 1] || cuzk_words_lt(v, j->bound, w))) return (int)e;
    return -1;
}

static uint64_t elems_batch(void *vjob, const uint8_t *items, uint64_t first, uint64_t count)
{
    const elems_job *j = vjob;
    const size_t bytes = (size_t)count * j->item_words * 8;
    uint64_t *v = j->dst ? j->dst + first * j->item_words : (uint64_t *)(uintptr_t)items;
    if (j->dst && (const uint8_t *)v != items) memcpy(v, items, bytes);
    if (!j->bound || !j->words_per_elem) return UINT64_MAX;
    for (uint64_t i = 0; i < count; i++, v += j->item_words)
        if (first_elem_out_of_bound(j, v) >= 0) return first + i;
    return UINT64_MAX;
}

int cuzk_bin_read_elems(cuzk_bin_reader *r, uint64_t *dst, uint64_t n_items, uint32_t elems_per_item,
                        uint32_t words_per_elem, const uint64_t *bound, const char *bound_name,
                        const char *item_name, cuzk_error *err)
{
    elems_job j = {dst, (size_t)elems_per_item * words_per_elem, elems_per_item, words_per_elem, bound};
    const uint64_t *at = dst ? NULL : cuzk_bin_mapped_at(r, 8);
    if (!dst && !at) return cuzk_fail(err, CUZK_ERR_ARG, "%s: section %u (%s) is not mapped", r->bf->path, r->sec->id, r->what);
    if (j.item_words == 0) return CUZK_OK;
    uint64_t bad;
    int rc = cuzk_bin_read_items(r, n_items, j.item_words * 8, item_name, dst, elems_batch, &j, &bad, err);
    if (rc || bad == UINT64_MAX) return rc;
    const uint64_t *v = (dst ? dst : at) + bad * j.item_words;
    int e = first_elem_out_of_bound(&j, v);
    if (elems_per_item == 1)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section %u (%s): %s %llu is not below %s", r->bf->path,
                         r->sec->id, r->what, item_name, (unsigned long long)bad, bound_name);
    return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section %u (%s): %s %llu: coordinate %d of %u is not below %s",
                     r->bf->path, r->sec->id, r->what, item_name, (unsigned long long)bad, e + 1, elems_per_item,
                     bound_name);
}

void *cuzk_alloc_aligned(uint64_t bytes, int zero)
{
    if (bytes > SIZE_MAX - BIN_HUGE_PAGE) return NULL;
    size_t n = bytes ? ((size_t)bytes + 63) & ~(size_t)63 : 64, align = 64;
    if (n >= BIN_HUGE_PAGE) {
        align = BIN_HUGE_PAGE;
        n = (n + BIN_HUGE_PAGE - 1) & ~(size_t)(BIN_HUGE_PAGE - 1);
    }
    void *p = aligned_alloc(align, n);
    if (p && align == BIN_HUGE_PAGE) (void)madvise(p, n, MADV_HUGEPAGE); /* a hint: the kernel may decline */
    if (p && zero) memset(p, 0, n);
    return p;
}

/* ---- writer ---- */

static int binw_io_fail(cuzk_binwriter *w, cuzk_error *err)
{
    return cuzk_fail(err, CUZK_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
}

static int binw_patch(cuzk_binwriter *w, uint64_t at, const uint8_t *b, size_t n, cuzk_error *err)
{
    if (fseeko(w->f, (off_t)at, SEEK_SET) != 0 || fwrite(b, 1, n, w->f) != n ||
        fseeko(w->f, (off_t)w->pos, SEEK_SET) != 0)
        return binw_io_fail(w, err);
    return CUZK_OK;
}

int cuzk_binw_open(cuzk_binwriter *w, const char *path, const char magic[4], uint32_t version,
                   cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    if (!path) return cuzk_fail(err, CUZK_ERR_ARG, "no file name given");
    w->path = path;
    int rc = cuzk_outfile_open(&w->out, path, err);
    if (rc) return rc;
    w->f = w->out.f;
    setvbuf(w->f, NULL, _IOFBF, BIN_STDIO_BUFFER);
    uint8_t h[BIN_HEADER_BYTES];
    memcpy(h, magic, 4);
    cuzk_put_le32(h + 4, version);
    cuzk_put_le32(h + 8, 0);
    rc = cuzk_binw_write(w, h, sizeof h, err);
    if (rc) cuzk_binw_abort(w);
    return rc;
}

int cuzk_binw_begin(cuzk_binwriter *w, uint32_t id, cuzk_error *err)
{
    if (w->in_section) return cuzk_fail(err, CUZK_ERR_ARG, "%s: section %u begun inside another", w->path, id);
    uint8_t h[BIN_SECTION_HEAD_BYTES];
    cuzk_put_le32(h, id);
    cuzk_put_le64(h + 4, 0);
    uint64_t size_pos = w->pos + 4;
    int rc = cuzk_binw_write(w, h, sizeof h, err);
    if (rc) return rc;
    w->in_section = 1;
    w->size_pos = size_pos;
    return CUZK_OK;
}

/* Large outputs go to the disk while they are written, BIN_WRITEBACK_BYTES
 * at a time, rather than all in the fsync at finish. */
int cuzk_binw_write(cuzk_binwriter *w, const void *buf, size_t n, cuzk_error *err)
{
    const uint8_t *b = buf;
    while (n) {
        size_t len = n < BIN_WRITEBACK_BYTES ? n : BIN_WRITEBACK_BYTES;
        if (fwrite(b, 1, len, w->f) != len) return binw_io_fail(w, err);
        w->pos += len;
        b += len;
        n -= len;
        if (w->pos - w->out.written_back >= BIN_WRITEBACK_BYTES) cuzk_outfile_start_writeback(&w->out, w->pos);
    }
    return CUZK_OK;
}

int cuzk_binw_write_u32(cuzk_binwriter *w, uint32_t v, cuzk_error *err)
{
    uint8_t b[4];
    cuzk_put_le32(b, v);
    return cuzk_binw_write(w, b, sizeof b, err);
}

int cuzk_binw_write_u64(cuzk_binwriter *w, uint64_t v, cuzk_error *err)
{
    uint8_t b[8];
    cuzk_put_le64(b, v);
    return cuzk_binw_write(w, b, sizeof b, err);
}

int cuzk_binw_write_prime(cuzk_binwriter *w, const uint64_t *m, uint32_t words, cuzk_error *err)
{
    int rc = cuzk_binw_write_u32(w, 8 * words, err);
    for (uint32_t i = 0; !rc && i < words; i++) rc = cuzk_binw_write_u64(w, m[i], err);
    return rc;
}

int cuzk_binw_end(cuzk_binwriter *w, cuzk_error *err)
{
    if (!w->in_section) return cuzk_fail(err, CUZK_ERR_ARG, "%s: no section to end", w->path);
    uint8_t b[8];
    cuzk_put_le64(b, w->pos - w->size_pos - 8);
    int rc = binw_patch(w, w->size_pos, b, sizeof b, err);
    if (rc) return rc;
    w->in_section = 0;
    w->n_sections++;
    return CUZK_OK;
}

int cuzk_binw_finish(cuzk_binwriter *w, cuzk_error *err)
{
    int rc = CUZK_OK;
    if (w->in_section) rc = cuzk_fail(err, CUZK_ERR_ARG, "%s: finished inside a section", w->path);
    uint8_t b[4];
    cuzk_put_le32(b, w->n_sections);
    if (!rc) rc = binw_patch(w, 8, b, sizeof b, err);
    if (rc) {
        cuzk_binw_abort(w);
        return rc;
    }
    w->f = NULL;
    return cuzk_outfile_commit(&w->out, err);
}

void cuzk_binw_abort(cuzk_binwriter *w)
{
    w->f = NULL;
    cuzk_outfile_abort(&w->out);
}
