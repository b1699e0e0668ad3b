/* Filecoin .params / .vk files (contracts in params.h). */
#include "filecoin/params.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filecoin/zcash.h"
#include "util/err.h"
#include "util/file.h"
#include "util/pages.h"
#include "util/threads.h"

/* Points decoded or encoded per round of threads: a progress report each. */
#define PARAMS_ROUND ((size_t)1 << 18)

enum { SEC_IC, SEC_H, SEC_L, SEC_A, SEC_B_G1, SEC_B_G2, SECTIONS };

/* One point array of a file: its name, group, count and points. */
typedef struct {
    const char *name;
    int g2;
    uint32_t *count;
    void **points;
} section;

static void sections_of(fil_params *p, section s[SECTIONS])
{
    s[SEC_IC] = (section){"ic", 0, &p->vk.n_ic, (void **)&p->vk.ic};
    s[SEC_H] = (section){"h", 0, &p->n_h, (void **)&p->h};
    s[SEC_L] = (section){"l", 0, &p->n_l, (void **)&p->l};
    s[SEC_A] = (section){"a", 0, &p->n_a, (void **)&p->a};
    s[SEC_B_G1] = (section){"b_g1", 0, &p->n_b_g1, (void **)&p->b_g1};
    s[SEC_B_G2] = (section){"b_g2", 1, &p->n_b_g2, (void **)&p->b_g2};
}

static size_t point_bytes(int g2) { return g2 ? FIL_G2_BYTES : FIL_G1_BYTES; }

uint64_t fil_vk_file_bytes(uint32_t n_ic) { return FIL_VK_FIXED_BYTES + 4 + (uint64_t)n_ic * FIL_G1_BYTES; }

uint64_t fil_params_file_bytes(const fil_params *p)
{
    return fil_vk_file_bytes(p->vk.n_ic) + 5 * 4 +
           ((uint64_t)p->n_h + p->n_l + p->n_a + p->n_b_g1) * FIL_G1_BYTES + (uint64_t)p->n_b_g2 * FIL_G2_BYTES;
}

/* The counts' relations (params.h); name stands for the file. */
static int check_counts(const fil_params *p, const char *name, int code, cuzk_error *err)
{
    uint64_t inputs = p->vk.n_ic, vars = inputs + p->n_l, n = (uint64_t)p->n_h + 1;
    if (inputs == 0)
        return cuzk_fail(err, code, "%s: ic holds no point (every circuit has the input ONE)", name);
    if (n & (n - 1))
        return cuzk_fail(err, code, "%s: h holds %" PRIu32 " points, not a domain's size less one", name, p->n_h);
    if (p->n_a < inputs || p->n_a > vars)
        return cuzk_fail(err, code,
                         "%s: a holds %" PRIu32 " points, expected between the %" PRIu64
                         " inputs and inputs + l = %" PRIu64,
                         name, p->n_a, inputs, vars);
    if (p->n_b_g1 != p->n_b_g2)
        return cuzk_fail(err, code, "%s: b_g1 holds %" PRIu32 " points and b_g2 %" PRIu32 ", expected as many", name,
                         p->n_b_g1, p->n_b_g2);
    if (p->n_b_g1 > vars)
        return cuzk_fail(err, code, "%s: b_g1 holds %" PRIu32 " points, more than inputs + l = %" PRIu64, name,
                         p->n_b_g1, vars);
    return CUZK_OK;
}

/* ---- decoding on threads ---- */

typedef struct {
    const uint8_t *in;
    void *out;
    int g2;
    fil_check check;
    size_t *bad_at;           /* per thread: the first bad index of its range, or SIZE_MAX */
    fil_point_status *bad_is; /* and why */
} decode_job;

static void decode_range(void *vctx, size_t begin, size_t end, int tid)
{
    const decode_job *j = vctx;
    for (size_t i = begin; i < end; i++) {
        fil_point_status s =
            j->g2 ? fil_g2_decode((bls12_381_g2_affine *)j->out + i, j->in + i * FIL_G2_BYTES, j->check)
                  : fil_g1_decode((bls12_381_g1_affine *)j->out + i, j->in + i * FIL_G1_BYTES, j->check);
        if (s != FIL_POINT_OK) {
            j->bad_at[tid] = i;
            j->bad_is[tid] = s;
            return;
        }
    }
}

typedef struct {
    const char *name;
    int nthreads;
    const fil_read_options *o;
    uint64_t done, total;
} read_state;

/* count points of a section from in to out, on threads, a round at a time */
static int decode_points(read_state *st, const section *s, const uint8_t *in, void *out, cuzk_error *err)
{
    int nt = st->nthreads;
    size_t bad_at[nt];
    fil_point_status bad_is[nt];
    size_t size = point_bytes(s->g2), count = *s->count;
    size_t out_size = s->g2 ? sizeof(bls12_381_g2_affine) : sizeof(bls12_381_g1_affine);
    for (size_t at = 0; at < count; at += PARAMS_ROUND) {
        size_t len = count - at < PARAMS_ROUND ? count - at : PARAMS_ROUND;
        for (int t = 0; t < nt; t++)
            bad_at[t] = SIZE_MAX;
        decode_job j = {in + at * size, (uint8_t *)out + at * out_size, s->g2, st->o ? st->o->check : FIL_CHECK_ALL,
                        bad_at, bad_is};
        cuzk_parallel_for(len < 64 ? 1 : nt, len, decode_range, &j);
        int worst = -1;
        for (int t = 0; t < nt; t++)
            if (bad_at[t] != SIZE_MAX && (worst < 0 || bad_at[t] < bad_at[worst]))
                worst = t;
        if (worst >= 0)
            return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: %s point %zu is %s", st->name, s->name, at + bad_at[worst],
                             fil_point_status_name(bad_is[worst]));
        st->done += len;
        if (st->o && st->o->progress)
            st->o->progress(st->o->progress_ctx, st->done, st->total);
    }
    return CUZK_OK;
}

/* ---- the byte cursor ---- */

typedef struct {
    const uint8_t *data;
    size_t len, pos;
    const char *name;
} cursor;

static int take(cursor *c, size_t n, const uint8_t **out, const char *what, cuzk_error *err)
{
    if (c->len - c->pos < n)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: truncated: %s needs %zu bytes at offset %zu, %zu left", c->name,
                         what, n, c->pos, c->len - c->pos);
    *out = c->data + c->pos;
    c->pos += n;
    return CUZK_OK;
}

static int take_count(cursor *c, uint32_t *count, const section *s, cuzk_error *err)
{
    const uint8_t *b = NULL;
    char what[64];
    snprintf(what, sizeof what, "%s's count", s->name);
    int rc = take(c, 4, &b, what, err);
    if (rc)
        return rc;
    *count = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    uint64_t need = (uint64_t)*count * point_bytes(s->g2);
    if (need > c->len - c->pos)
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: truncated or a wrong count: %s claims %" PRIu32 " points (%" PRIu64
                         " bytes), %zu bytes left at offset %zu",
                         c->name, s->name, *count, need, c->len - c->pos, c->pos);
    return CUZK_OK;
}

static void *alloc_points(size_t count, int g2)
{
    size_t bytes = count * (g2 ? sizeof(bls12_381_g2_affine) : sizeof(bls12_381_g1_affine));
    return cuzk_pages_alloc_large(bytes + 64);
}

/* The vk's six header points, in the file's order. */
static int read_vk_header(fil_vk *vk, cursor *c, cuzk_error *err)
{
    static const char *const names[6] = {"alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2"};
    void *dst[6] = {&vk->alpha_g1, &vk->beta_g1, &vk->beta_g2, &vk->gamma_g2, &vk->delta_g1, &vk->delta_g2};
    static const int g2[6] = {0, 0, 1, 1, 0, 1};
    for (int i = 0; i < 6; i++) {
        const uint8_t *b = NULL;
        int rc = take(c, point_bytes(g2[i]), &b, names[i], err);
        if (rc)
            return rc;
        fil_point_status s = g2[i] ? fil_g2_decode(dst[i], b, FIL_CHECK_ALL) : fil_g1_decode(dst[i], b, FIL_CHECK_ALL);
        if (s != FIL_POINT_OK)
            return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: %s is %s", c->name, names[i], fil_point_status_name(s));
    }
    return CUZK_OK;
}

/* The counts of sections ic..last from the cursor, each checked against
 * what is left, the offset of each one's points in at; a .params must end
 * with b_g2 and its counts agree (check_counts). */
static int walk_counts(fil_params *p, cursor *c, int last, size_t at[SECTIONS], cuzk_error *err)
{
    section s[SECTIONS];
    sections_of(p, s);
    int rc = CUZK_OK;
    for (int i = SEC_IC; i <= last && !rc; i++) {
        if ((rc = take_count(c, s[i].count, &s[i], err)))
            break;
        const uint8_t *b = NULL;
        at[i] = c->pos;
        rc = take(c, (size_t)*s[i].count * point_bytes(s[i].g2), &b, s[i].name, err);
    }
    if (rc || last != SEC_B_G2)
        return rc;
    if (c->pos != c->len)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: %zu bytes after b_g2, where the file should end", c->name,
                         c->len - c->pos);
    return check_counts(p, c->name, CUZK_ERR_FORMAT, err);
}

/* Sections ic..last: the counts (walk_counts), then the points. */
static int read_sections(fil_params *p, cursor *c, int last, const fil_read_options *o, cuzk_error *err)
{
    section s[SECTIONS];
    sections_of(p, s);
    size_t at[SECTIONS];
    int rc = walk_counts(p, c, last, at, err);
    if (rc)
        return rc;
    read_state st = {c->name, o && o->nthreads > 1 ? o->nthreads : 1, o, 0, 0};
    for (int i = SEC_IC; i <= last; i++)
        st.total += *s[i].count;
    for (int i = SEC_IC; i <= last; i++) {
        if (!(*s[i].points = alloc_points(*s[i].count, s[i].g2)))
            return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: out of memory for %" PRIu32 " points of %s", c->name,
                             *s[i].count, s[i].name);
        if ((rc = decode_points(&st, &s[i], c->data + at[i], *s[i].points, err)))
            return rc;
    }
    return CUZK_OK;
}

int fil_params_read_memory(fil_params *p, const void *data, size_t len, const char *name,
                           const fil_read_options *o, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    cursor c = {data, len, 0, name};
    int rc = read_vk_header(&p->vk, &c, err);
    rc = rc ? rc : read_sections(p, &c, SEC_B_G2, o, err);
    if (rc)
        fil_params_free(p);
    return rc;
}

int fil_vk_read_memory(fil_vk *vk, const void *data, size_t len, const char *name, int prefix, cuzk_error *err)
{
    fil_params p;
    memset(&p, 0, sizeof p);
    cursor c = {data, len, 0, name};
    int rc = read_vk_header(&p.vk, &c, err);
    rc = rc ? rc : read_sections(&p, &c, SEC_IC, NULL, err);
    if (!rc && !prefix && c.pos != c.len)
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: %zu bytes after ic, where a .vk file ends", name, c.len - c.pos);
    if (!rc && p.vk.n_ic == 0)
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: ic holds no point (every circuit has the input ONE)", name);
    if (rc)
        fil_vk_free(&p.vk);
    *vk = p.vk;
    return rc;
}

int fil_params_counts_memory(fil_params *p, const void *data, size_t len, const char *name, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    cursor c = {data, len, 0, name};
    size_t at[SECTIONS];
    int rc = read_vk_header(&p->vk, &c, err);
    rc = rc ? rc : walk_counts(p, &c, SEC_B_G2, at, err);
    if (rc)
        memset(p, 0, sizeof *p);
    return rc;
}

/* path mapped privately (read-only), len 0 for an empty file */
static int map_file(const char *path, void **map, size_t *len, cuzk_error *err)
{
    struct stat st;
    int fd = cuzk_open_regular(path, &st, err);
    if (fd < 0)
        return CUZK_ERR_IO;
    *len = (size_t)st.st_size;
    *map = NULL;
    if (*len) {
        *map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (*map == MAP_FAILED) {
            *map = NULL;
            close(fd);
            return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot map %zu bytes", path, *len);
        }
        madvise(*map, *len, MADV_SEQUENTIAL);
    }
    close(fd);
    return CUZK_OK;
}

typedef enum { READ_PARAMS, READ_COUNTS, READ_VK, READ_VK_PREFIX } read_kind;

/* the file at path mapped, then read as kind into out */
static int read_mapped(const char *path, read_kind kind, void *out, const fil_read_options *o, cuzk_error *err)
{
    void *map;
    size_t len;
    int rc = map_file(path, &map, &len, err);
    if (rc)
        return rc;
    const void *data = map ? map : "";
    switch (kind) {
    case READ_PARAMS: rc = fil_params_read_memory(out, data, len, path, o, err); break;
    case READ_COUNTS: rc = fil_params_counts_memory(out, data, len, path, err); break;
    case READ_VK: rc = fil_vk_read_memory(out, data, len, path, 0, err); break;
    case READ_VK_PREFIX: rc = fil_vk_read_memory(out, data, len, path, 1, err); break;
    }
    if (map)
        munmap(map, len);
    return rc;
}

int fil_params_read(fil_params *p, const char *path, const fil_read_options *o, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    return read_mapped(path, READ_PARAMS, p, o, err);
}

int fil_params_counts(fil_params *p, const char *path, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    return read_mapped(path, READ_COUNTS, p, NULL, err);
}

int fil_vk_read(fil_vk *vk, const char *path, int prefix, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    return read_mapped(path, prefix ? READ_VK_PREFIX : READ_VK, vk, NULL, err);
}

/* ---- writing ---- */

typedef struct {
    const void *in;
    const uint32_t *pick;
    uint8_t *out;
    int g2;
    int *infinity; /* per thread: set when a point is infinity */
} encode_job;

static void encode_range(void *vctx, size_t begin, size_t end, int tid)
{
    const encode_job *j = vctx;
    for (size_t i = begin; i < end; i++) {
        const size_t from = j->pick ? j->pick[i] : i;
        if (j->g2) {
            const bls12_381_g2_affine *q = (const bls12_381_g2_affine *)j->in + from;
            j->infinity[tid] |= bls12_381_g2_affine_is_inf(q);
            fil_g2_encode(j->out + i * FIL_G2_BYTES, q);
        } else {
            const bls12_381_g1_affine *q = (const bls12_381_g1_affine *)j->in + from;
            j->infinity[tid] |= bls12_381_g1_affine_is_inf(q);
            fil_g1_encode(j->out + i * FIL_G1_BYTES, q);
        }
    }
}

int fil_points_encode(uint8_t *out, const void *pts, const uint32_t *pick, size_t count, int g2, int nthreads)
{
    int nt = count < 1024 || nthreads < 1 ? 1 : nthreads;
    int inf[nt], any = 0;
    memset(inf, 0, sizeof inf);
    encode_job j = {pts, pick, out, g2, inf};
    cuzk_parallel_for(nt, count, encode_range, &j);
    for (int t = 0; t < nt; t++)
        any |= inf[t];
    return any;
}

static int write_points(FILE *f, const char *path, const char *what, const void *pts, size_t count, int g2,
                        uint8_t *buf, cuzk_error *err)
{
    size_t size = point_bytes(g2), in_size = g2 ? sizeof(bls12_381_g2_affine) : sizeof(bls12_381_g1_affine);
    for (size_t at = 0; at < count; at += PARAMS_ROUND) {
        size_t len = count - at < PARAMS_ROUND ? count - at : PARAMS_ROUND;
        if (fil_points_encode(buf, (const uint8_t *)pts + at * in_size, NULL, len, g2, cuzk_cpu_count()))
            return cuzk_fail(err, CUZK_ERR_ARG, "%s: %s holds the point at infinity, which the format cannot",
                             path, what);
        if (fwrite(buf, size, len, f) != len)
            return cuzk_fail(err, CUZK_ERR_IO, "%s: write error", path);
    }
    return CUZK_OK;
}

static int write_count(FILE *f, const char *path, uint32_t n, cuzk_error *err)
{
    uint8_t b[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    return fwrite(b, 1, 4, f) == 4 ? CUZK_OK : cuzk_fail(err, CUZK_ERR_IO, "%s: write error", path);
}

/* the vk block, then sections up to last */
static int write_file(const fil_params *cp, int last, const char *path, cuzk_error *err)
{
    fil_params *p = (fil_params *)cp; /* sections_of takes pointers into it; nothing is written there */
    section s[SECTIONS];
    sections_of(p, s);
    if (p->vk.n_ic == 0)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: ic holds no point (every circuit has the input ONE)", path);
    int rc = last == SEC_B_G2 ? check_counts(p, path, CUZK_ERR_ARG, err) : CUZK_OK;
    uint8_t *buf = rc ? NULL : malloc(PARAMS_ROUND * FIL_G2_BYTES);
    if (!rc && !buf)
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a write buffer");
    cuzk_outfile out;
    if (!rc && (rc = cuzk_outfile_open(&out, path, err))) {
        free(buf);
        return rc;
    }
    static const char *const names[6] = {"alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2"};
    const void *hdr[6] = {&p->vk.alpha_g1, &p->vk.beta_g1, &p->vk.beta_g2,
                          &p->vk.gamma_g2, &p->vk.delta_g1, &p->vk.delta_g2};
    static const int g2[6] = {0, 0, 1, 1, 0, 1};
    for (int i = 0; i < 6 && !rc; i++)
        rc = write_points(out.f, path, names[i], hdr[i], 1, g2[i], buf, err);
    for (int i = SEC_IC; i <= last && !rc; i++) {
        rc = write_count(out.f, path, *s[i].count, err);
        rc = rc ? rc : write_points(out.f, path, s[i].name, *s[i].points, *s[i].count, s[i].g2, buf, err);
    }
    free(buf);
    if (rc) {
        cuzk_outfile_abort(&out);
        return rc;
    }
    return cuzk_outfile_commit(&out, err);
}

int fil_params_write(const fil_params *p, const char *path, cuzk_error *err)
{
    return write_file(p, SEC_B_G2, path, err);
}

int fil_vk_write(const fil_vk *vk, const char *path, cuzk_error *err)
{
    fil_params p;
    memset(&p, 0, sizeof p);
    p.vk = *vk;
    return write_file(&p, SEC_IC, path, err);
}

void fil_vk_free(fil_vk *vk)
{
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

void fil_params_free(fil_params *p)
{
    fil_vk_free(&p->vk);
    free(p->h);
    free(p->l);
    free(p->a);
    free(p->b_g1);
    free(p->b_g2);
    memset(p, 0, sizeof *p);
}
