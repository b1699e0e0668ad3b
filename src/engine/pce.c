#include "synthesis/pce.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ff/field.h"
#include "ff/fr_any.h"
#include "codec/binfile.h"
#include "codec/curve_id.h"
#include "util/err.h"
#include "util/file.h"
#include "util/threads.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the PCE cache format and the key hash assume a little-endian host"
#endif

#define PCE_MAGIC "CUZKPCE"  /* 8 bytes with its NUL */
#define PCE_VERSION 1u
#define PCE_HEADER_BYTES 80u /* magic 8, version 4, curve 4, hash 32, n_rows, n_vars, n_values, 0, nnz[2] */

/* ---------------- synthesis: one monomorphic kernel per curve ---------------- */

typedef struct {
    const cuzk_pce *p;
    const uint64_t *w; /* normal form */
    uint64_t *wm;      /* Montgomery form (scratch) */
    uint64_t *abc;
    const uint32_t *bounds; /* part k = rows [bounds[k], bounds[k + 1]) */
} pce_synth_ctx;

/* How far ahead (in terms) the witness gather is prefetched. */
#define PCE_PREFETCH 16

/* Each kernel: the witness lift (to Montgomery form) and the row pass. A
 * row's sum stays in registers; +1 / -1 terms are an addition/subtraction,
 * the others one Montgomery product (coef R * w R / R = coef w R). */
#define PCE_DEFINE_CURVE(F)                                                                                 \
    static void F##_pce_lift(void *vctx, size_t begin, size_t end, int tid)                                \
    {                                                                                                      \
        (void)tid;                                                                                         \
        const pce_synth_ctx *x = vctx;                                                                     \
        const F *w = (const F *)x->w;                                                                      \
        F *wm = (F *)x->wm;                                                                                \
        for (size_t i = begin; i < end; i++)                                                               \
            F##_to_mont(&wm[i], &w[i]);                                                                    \
    }                                                                                                      \
                                                                                                           \
    MONT_INLINE void F##_pce_row(F *out, const uint32_t *wire, const uint32_t *coef, uint32_t k0,           \
                                 uint32_t k1, uint32_t nnz, const F *wm, const F *vals)                     \
    {                                                                                                      \
        F s;                                                                                               \
        F##_set_zero(&s);                                                                                  \
        for (uint32_t k = k0; k < k1; k++) {                                                               \
            if (k + PCE_PREFETCH < nnz)                                                                    \
                __builtin_prefetch(&wm[wire[k + PCE_PREFETCH]]);                                           \
            const F *v = &wm[wire[k]];                                                                     \
            uint32_t c = coef[k];                                                                          \
            if (c == CUZK_PCE_COEF_ONE) {                                                                  \
                F##_add(&s, &s, v);                                                                        \
            } else if (c == CUZK_PCE_COEF_MINUS_ONE) {                                                     \
                F##_sub(&s, &s, v);                                                                        \
            } else {                                                                                       \
                F t;                                                                                       \
                F##_mul(&t, &vals[c - CUZK_PCE_COEF_VALUES], v);                                           \
                F##_add(&s, &s, &t);                                                                       \
            }                                                                                              \
        }                                                                                                  \
        *out = s;                                                                                          \
    }                                                                                                      \
                                                                                                           \
    static void F##_pce_rows(void *vctx, size_t begin, size_t end, int tid)                                \
    {                                                                                                      \
        (void)tid;                                                                                         \
        const pce_synth_ctx *x = vctx;                                                                     \
        const cuzk_pce *p = x->p;                                                                          \
        const F *wm = (const F *)x->wm, *vals = (const F *)p->values;                                      \
        F *a = (F *)x->abc, *b = a + p->n_rows, *c = b + p->n_rows;                                        \
        const uint32_t *rs0 = p->row_start[0], *rs1 = p->row_start[1];                                     \
        uint32_t nnz0 = rs0[p->n_rows], nnz1 = rs1[p->n_rows];                                             \
        for (size_t part = begin; part < end; part++)                                                      \
            for (uint32_t i = x->bounds[part]; i < x->bounds[part + 1]; i++) {                             \
                F sa, sb;                                                                                  \
                F##_pce_row(&sa, p->wire[0], p->coef[0], rs0[i], rs0[i + 1], nnz0, wm, vals);             \
                F##_pce_row(&sb, p->wire[1], p->coef[1], rs1[i], rs1[i + 1], nnz1, wm, vals);             \
                a[i] = sa;                                                                                 \
                b[i] = sb;                                                                                 \
                if (rs0[i] == rs0[i + 1] || rs1[i] == rs1[i + 1])                                          \
                    F##_set_zero(&c[i]); /* padding rows, public-input rows */                             \
                else                                                                                       \
                    F##_mul(&c[i], &sa, &sb);                                                              \
            }                                                                                              \
    }

#define PCE_STAMP_(prefix, PREFIX, snarkjs) PCE_DEFINE_CURVE(prefix##_fr)
CUZK_CURVES(PCE_STAMP_)

/* Each curve's two passes, by curve id. */
#define PCE_PASSES_(prefix, PREFIX, snarkjs) [CUZK_CURVE_##PREFIX] = {prefix##_fr_pce_lift, prefix##_fr_pce_rows},
static const struct {
    cuzk_range_fn lift, rows;
} pce_passes[CUZK_N_CURVES] = {CUZK_CURVES(PCE_PASSES_)};

size_t cuzk_pce_scratch_bytes(const cuzk_pce *p)
{
    return (size_t)p->n_vars * 32;
}

/* Splits the rows into nparts ranges of about equal work (terms of A and B
 * plus one unit per row for the product c = a b). */
static void split_rows(const cuzk_pce *p, uint32_t *bounds, uint32_t nparts)
{
    const uint32_t *r0 = p->row_start[0], *r1 = p->row_start[1];
    uint64_t n = p->n_rows, total = (uint64_t)r0[n] + r1[n] + n;
    bounds[0] = 0;
    for (uint32_t k = 1; k < nparts; k++) {
        uint64_t target = total * k / nparts;
        uint64_t lo = bounds[k - 1], hi = n; /* first row i with cost(i) >= target */
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if ((uint64_t)r0[mid] + r1[mid] + mid < target)
                lo = mid + 1;
            else
                hi = mid;
        }
        bounds[k] = (uint32_t)lo;
    }
    bounds[nparts] = (uint32_t)n;
}

int cuzk_pce_synthesize_scratch(const cuzk_pce *p, const uint64_t *witness, void *abc, void *scratch,
                                int nthreads)
{
    if (!p || !p->row_start[0] || !p->row_start[1] || !witness || !abc || ((uintptr_t)abc & 7) ||
        ((uintptr_t)scratch & 7) || !cuzk_curve_valid(p->curve))
        return CUZK_ERR_ARG;
    if (nthreads < 1)
        nthreads = 1;
    if ((uint32_t)nthreads > p->n_rows)
        nthreads = (int)p->n_rows;
    uint64_t *wm = scratch;
    if (!wm) {
        wm = malloc(cuzk_pce_scratch_bytes(p) ? cuzk_pce_scratch_bytes(p) : 1);
        if (!wm)
            return CUZK_ERR_NOMEM;
    }
    uint32_t bounds_small[65], *bounds = bounds_small;
    if (nthreads > 64) {
        bounds = malloc(((size_t)nthreads + 1) * sizeof *bounds);
        if (!bounds) {
            if (wm != scratch)
                free(wm);
            return CUZK_ERR_NOMEM;
        }
    }
    split_rows(p, bounds, (uint32_t)nthreads);
    pce_synth_ctx ctx = {p, witness, wm, abc, bounds};
    cuzk_parallel_for(nthreads, p->n_vars, pce_passes[p->curve].lift, &ctx);
    cuzk_parallel_for(nthreads, (size_t)nthreads, pce_passes[p->curve].rows, &ctx);
    if (bounds != bounds_small)
        free(bounds);
    if (wm != scratch)
        free(wm);
    return CUZK_OK;
}

int cuzk_pce_synthesize(const cuzk_pce *p, const uint64_t *witness, void *abc, int nthreads)
{
    return cuzk_pce_synthesize_scratch(p, witness, abc, NULL, nthreads);
}

/* ---------------- compile ---------------- */

void cuzk_pce_free(cuzk_pce *p)
{
    if (!p)
        return;
    for (int m = 0; m < 2; m++) {
        free(p->row_start[m]);
        free(p->wire[m]);
        free(p->coef[m]);
    }
    free(p->values);
    memset(p, 0, sizeof *p);
}

static uint64_t pce_bytes(const cuzk_pce *p)
{
    uint64_t nnz = (uint64_t)p->row_start[0][p->n_rows] + p->row_start[1][p->n_rows];
    return 2 * ((uint64_t)p->n_rows + 1) * 4 + nnz * 8 + (uint64_t)p->n_values * 32;
}

/* Open-addressing table from a raw (coef R^2) value to its index in raw[]. */
typedef struct {
    uint32_t *slot; /* UINT32_MAX = empty */
    uint32_t log_cap;
    uint64_t (*raw)[4];
    uint32_t n, cap_raw;
} value_table;

static uint32_t value_hash(const uint64_t v[4], uint32_t log_cap)
{
    uint64_t h = v[0] ^ ((v[1] << 17) | (v[1] >> 47)) ^ ((v[2] << 31) | (v[2] >> 33)) ^ ((v[3] << 47) | (v[3] >> 17));
    h *= 0x9e3779b97f4a7c15ULL;
    return (uint32_t)(h >> (64 - log_cap));
}

static int table_grow(value_table *t)
{
    uint32_t log_cap = t->log_cap + 1;
    uint32_t *slot = malloc(((size_t)1 << log_cap) * sizeof *slot);
    if (!slot)
        return -1;
    memset(slot, 0xff, ((size_t)1 << log_cap) * sizeof *slot);
    size_t mask = ((size_t)1 << log_cap) - 1;
    for (uint32_t i = 0; i < t->n; i++) {
        size_t h = value_hash(t->raw[i], log_cap);
        while (slot[h] != UINT32_MAX)
            h = (h + 1) & mask;
        slot[h] = i;
    }
    free(t->slot);
    t->slot = slot;
    t->log_cap = log_cap;
    return 0;
}

/* The index of v in the table, inserting it when new; -1 out of memory. */
static int64_t table_find_or_add(value_table *t, const uint64_t v[4])
{
    size_t mask = ((size_t)1 << t->log_cap) - 1, h = value_hash(v, t->log_cap);
    for (; t->slot[h] != UINT32_MAX; h = (h + 1) & mask)
        if (memcmp(t->raw[t->slot[h]], v, 32) == 0)
            return t->slot[h];
    if (t->n == t->cap_raw) {
        uint32_t cap = t->cap_raw ? t->cap_raw * 2 : 256;
        void *raw = realloc(t->raw, (size_t)cap * 32);
        if (!raw)
            return -1;
        t->raw = raw;
        t->cap_raw = cap;
    }
    memcpy(t->raw[t->n], v, 32);
    t->slot[h] = t->n;
    uint32_t idx = t->n++;
    if ((uint64_t)t->n * 2 > ((uint64_t)1 << t->log_cap) && table_grow(t))
        return -1;
    return idx;
}

static int compile_with_hash(const cuzk_zkey *z, cuzk_pce *out, const uint8_t hash[32], cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (!z || !cuzk_curve_valid(z->curve))
        return cuzk_fail(err, CUZK_ERR_ARG, "pce: the key's curve is unknown");
    if (z->domain_size == 0 || z->domain_size == UINT32_MAX || z->n_vars == 0)
        return cuzk_fail(err, CUZK_ERR_ARG, "pce: the key has domain size %u and %u variables", z->domain_size,
                         z->n_vars);
    if (!cuzk_zkey_has_coefs(z))
        return cuzk_fail(err, CUZK_ERR_ARG, "pce: the key holds no coefficients (a header-only read?)");
    fr_any f = fr_any_of(z->curve);
    uint32_t n = z->domain_size;
    uint64_t minus_one_raw[4]; /* -1 R^2 */
    mont_neg(minus_one_raw, f.r2, f.modulus, 4);

    for (uint32_t k = 0; k < z->n_coefs; k++) {
        cuzk_zkey_coef e;
        cuzk_zkey_coef_get(z, k, &e);
        if (e.matrix > 1 || e.row >= n || e.wire >= z->n_vars || mont_geq(e.value, f.modulus, 4))
            return cuzk_fail(err, CUZK_ERR_ARG,
                             "pce: coefficient %u is out of range (matrix %u, row %u of %u, wire %u of %u, or "
                             "value >= r)",
                             k, e.matrix, e.row, n, e.wire, z->n_vars);
    }

    out->curve = z->curve;
    out->n_rows = n;
    out->n_vars = z->n_vars;
    uint32_t *cursor = malloc((size_t)n * sizeof *cursor);
    value_table t = {0};
    t.log_cap = 9;
    t.slot = malloc(((size_t)1 << t.log_cap) * sizeof *t.slot);
    for (int m = 0; m < 2; m++)
        out->row_start[m] = calloc((size_t)n + 1, sizeof(uint32_t));
    if (!cursor || !t.slot || !out->row_start[0] || !out->row_start[1])
        goto nomem;
    memset(t.slot, 0xff, ((size_t)1 << t.log_cap) * sizeof *t.slot);

    for (uint32_t k = 0; k < z->n_coefs; k++) {
        cuzk_zkey_coef e;
        cuzk_zkey_coef_get(z, k, &e);
        if (!mont_is_zero(e.value, 4))
            out->row_start[e.matrix][e.row + 1]++;
    }
    for (int m = 0; m < 2; m++) {
        uint32_t *rs = out->row_start[m];
        for (uint32_t i = 0; i < n; i++)
            rs[i + 1] += rs[i];
        out->wire[m] = malloc(((size_t)rs[n] + 1) * sizeof(uint32_t));
        out->coef[m] = malloc(((size_t)rs[n] + 1) * sizeof(uint32_t));
        if (!out->wire[m] || !out->coef[m])
            goto nomem;
    }
    /* Per matrix, so one cursor array does: terms land in key order. */
    for (uint32_t m = 0; m < 2; m++) {
        memcpy(cursor, out->row_start[m], (size_t)n * sizeof *cursor);
        for (uint32_t k = 0; k < z->n_coefs; k++) {
            cuzk_zkey_coef e;
            cuzk_zkey_coef_get(z, k, &e);
            if (e.matrix != m || mont_is_zero(e.value, 4))
                continue;
            uint32_t code;
            if (memcmp(e.value, f.r2, 32) == 0) {
                code = CUZK_PCE_COEF_ONE;
            } else if (memcmp(e.value, minus_one_raw, 32) == 0) {
                code = CUZK_PCE_COEF_MINUS_ONE;
            } else {
                int64_t idx = table_find_or_add(&t, e.value);
                if (idx < 0)
                    goto nomem;
                if (idx > (int64_t)UINT32_MAX - CUZK_PCE_COEF_VALUES)
                    goto nomem; /* 2^32 distinct values: beyond any real key */
                code = (uint32_t)idx + CUZK_PCE_COEF_VALUES;
            }
            uint32_t at = cursor[e.row]++;
            out->wire[m][at] = e.wire;
            out->coef[m][at] = code;
        }
    }
    /* The table's raw values coef R^2 -> Montgomery form coef R. */
    out->n_values = t.n;
    out->values = malloc(((size_t)t.n + 1) * 32);
    if (!out->values)
        goto nomem;
    static const uint64_t one_raw[4] = {1, 0, 0, 0};
    for (uint32_t i = 0; i < t.n; i++)
        mont_mul(out->values[i], t.raw[i], one_raw, f.modulus, f.inv, 4);
    free(t.raw);
    free(t.slot);
    free(cursor);
    out->bytes = pce_bytes(out);
    if (hash)
        memcpy(out->key_hash, hash, 32);
    else if (cuzk_pce_key_hash(z, out->key_hash)) {
        cuzk_pce_free(out);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "pce: hashing the key failed");
    }
    return CUZK_OK;

nomem:
    free(t.raw);
    free(t.slot);
    free(cursor);
    cuzk_pce_free(out);
    return cuzk_fail(err, CUZK_ERR_NOMEM, "pce: out of memory compiling %u coefficients over %u rows", z->n_coefs,
                     n);
}

int cuzk_pce_compile(const cuzk_zkey *z, cuzk_pce *out, cuzk_error *err)
{
    return compile_with_hash(z, out, NULL, err);
}

/* ---------------- key hash ---------------- */

int cuzk_pce_key_hash(const cuzk_zkey *z, uint8_t out[32])
{
    if (!z || !cuzk_zkey_has_coefs(z))
        return CUZK_ERR_ARG;
    enum { ENTRY = CUZK_ZKEY_COEF_BYTES, BATCH = 1024 };
    uint8_t *buf = malloc((size_t)ENTRY * BATCH);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = buf && ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    if (ok) {
        static const char tag[] = "cuzk-pce-key-v1";
        uint8_t head[20];
        cuzk_put_le32(head, (uint32_t)z->curve);
        cuzk_put_le32(head + 4, z->n_vars);
        cuzk_put_le32(head + 8, z->n_public);
        cuzk_put_le32(head + 12, z->domain_size);
        cuzk_put_le32(head + 16, z->n_coefs);
        ok = EVP_DigestUpdate(ctx, tag, sizeof tag) && EVP_DigestUpdate(ctx, head, sizeof head);
    }
    for (uint32_t k = 0; ok && k < z->n_coefs; k += BATCH) {
        uint32_t cnt = z->n_coefs - k < BATCH ? z->n_coefs - k : BATCH;
        for (uint32_t i = 0; i < cnt; i++) {
            cuzk_zkey_coef c;
            cuzk_zkey_coef_get(z, k + i, &c);
            cuzk_zkey_coef_encode(&c, buf + (size_t)i * ENTRY);
        }
        ok = EVP_DigestUpdate(ctx, buf, (size_t)cnt * ENTRY);
    }
    unsigned int len = 0;
    ok = ok && EVP_DigestFinal_ex(ctx, out, &len) && len == 32;
    EVP_MD_CTX_free(ctx);
    free(buf);
    return ok ? CUZK_OK : CUZK_ERR_NOMEM;
}

/* ---------------- cache file ---------------- */

/* A fast 64-bit checksum (not cryptographic: it guards against torn and
 * corrupted files, the hash in the header guards against foreign ones):
 * four multiply-rotate lanes over 32-byte blocks. */
typedef struct {
    uint64_t lane[4];
    uint8_t tail[32];
    size_t tail_len;
    uint64_t total;
} checksum;

static uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static void checksum_block(checksum *c, const uint8_t *p)
{
    for (int i = 0; i < 4; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        c->lane[i] = rotl64((c->lane[i] ^ w) * 0x9e3779b97f4a7c15ULL, 29);
    }
}

static void checksum_init(checksum *c)
{
    static const uint64_t iv[4] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL,
                                   0x082efa98ec4e6c89ULL};
    memset(c, 0, sizeof *c);
    memcpy(c->lane, iv, sizeof iv);
}

static void checksum_update(checksum *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    c->total += len;
    if (c->tail_len) {
        size_t take = 32 - c->tail_len < len ? 32 - c->tail_len : len;
        memcpy(c->tail + c->tail_len, p, take);
        c->tail_len += take;
        p += take;
        len -= take;
        if (c->tail_len < 32)
            return;
        checksum_block(c, c->tail);
        c->tail_len = 0;
    }
    for (; len >= 32; p += 32, len -= 32)
        checksum_block(c, p);
    memcpy(c->tail, p, len);
    c->tail_len = len;
}

static uint64_t checksum_final(checksum *c)
{
    if (c->tail_len) {
        memset(c->tail + c->tail_len, 0, 32 - c->tail_len);
        checksum_block(c, c->tail);
    }
    uint64_t h = c->total;
    for (int i = 0; i < 4; i++)
        h = rotl64((h ^ c->lane[i]) * 0xbf58476d1ce4e5b9ULL, 31);
    h ^= h >> 33;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 29);
}

static int write_all(FILE *fp, checksum *c, const void *data, size_t len)
{
    if (c)
        checksum_update(c, data, len);
    return len == 0 || fwrite(data, 1, len, fp) == len;
}

static void encode_header(uint8_t h[PCE_HEADER_BYTES], const cuzk_pce *p)
{
    memset(h, 0, PCE_HEADER_BYTES);
    memcpy(h, PCE_MAGIC, 8);
    cuzk_put_le32(h + 8, PCE_VERSION);
    cuzk_put_le32(h + 12, (uint32_t)p->curve);
    memcpy(h + 16, p->key_hash, 32);
    cuzk_put_le32(h + 48, p->n_rows);
    cuzk_put_le32(h + 52, p->n_vars);
    cuzk_put_le32(h + 56, p->n_values);
    /* h + 60: reserved, zero */
    uint64_t nnz[2] = {p->row_start[0][p->n_rows], p->row_start[1][p->n_rows]};
    memcpy(h + 64, nnz, 16);
}

int cuzk_pce_save(const cuzk_pce *p, const char *path, cuzk_error *err)
{
    if (!p || !path || !cuzk_curve_valid(p->curve) || !p->row_start[0] || !p->row_start[1] || !p->values)
        return cuzk_fail(err, CUZK_ERR_ARG, "pce: nothing to save");
    /* nameless until complete (O_TMPFILE): a kill leaves nothing behind;
     * fsynced before the rename, so a crash leaves the old file or the new */
    cuzk_outfile out;
    cuzk_error why = {0};
    if (cuzk_outfile_open(&out, path, &why))
        return cuzk_fail(err, why.code, "pce: %s", why.msg);
    FILE *fp = out.f;
    setvbuf(fp, NULL, _IOFBF, 1 << 20);
    checksum c;
    checksum_init(&c);
    uint8_t head[PCE_HEADER_BYTES];
    encode_header(head, p);
    int ok = write_all(fp, &c, head, sizeof head);
    for (int m = 0; m < 2 && ok; m++) {
        size_t nnz = p->row_start[m][p->n_rows];
        ok = write_all(fp, &c, p->row_start[m], ((size_t)p->n_rows + 1) * 4) &&
             write_all(fp, &c, p->wire[m], nnz * 4) && write_all(fp, &c, p->coef[m], nnz * 4);
    }
    ok = ok && write_all(fp, &c, p->values, (size_t)p->n_values * 32);
    uint64_t sum = checksum_final(&c);
    ok = ok && write_all(fp, NULL, &sum, 8);
    if (!ok) {
        int e = errno;
        cuzk_outfile_abort(&out);
        return cuzk_fail(err, CUZK_ERR_IO, "pce: writing %s failed: %s", path, strerror(e));
    }
    if (cuzk_outfile_commit(&out, &why))
        return cuzk_fail(err, why.code, "pce: %s", why.msg);
    return CUZK_OK;
}

static int read_all(FILE *fp, checksum *c, void *data, size_t len)
{
    if (len && fread(data, 1, len, fp) != len)
        return 0;
    if (c)
        checksum_update(c, data, len);
    return 1;
}

int cuzk_pce_load(cuzk_pce *p, const char *path, const uint8_t expect_hash[32], cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    struct stat st;
    cuzk_error why = {0};
    FILE *fp = cuzk_fopen_regular(path, &st, &why);
    if (!fp)
        return cuzk_fail(err, why.code, "pce: %s", why.msg);
    setvbuf(fp, NULL, _IOFBF, 1 << 20);
    uint8_t h[PCE_HEADER_BYTES];
    checksum c;
    checksum_init(&c);
    int rc = CUZK_OK;
    if (!read_all(fp, &c, h, sizeof h)) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "pce: %s is shorter than a PCE header (%jd bytes)", path,
                       (intmax_t)st.st_size);
        goto out;
    }
    uint32_t version = cuzk_le32(h + 8), curve = cuzk_le32(h + 12), n_rows = cuzk_le32(h + 48),
             n_vars = cuzk_le32(h + 52), n_values = cuzk_le32(h + 56), reserved = cuzk_le32(h + 60);
    uint64_t nnz[2];
    memcpy(nnz, h + 64, 16);
    if (memcmp(h, PCE_MAGIC, 8) != 0) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "pce: %s is not a PCE cache file (bad magic)", path);
        goto out;
    }
    if (version != PCE_VERSION) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "pce: %s has format version %u, expected %u", path, version,
                       PCE_VERSION);
        goto out;
    }
    if (!cuzk_curve_valid((cuzk_curve_id)curve) || n_rows == 0 || n_rows == UINT32_MAX || n_vars == 0 || reserved ||
        nnz[0] > UINT32_MAX || nnz[1] > UINT32_MAX || n_values > UINT32_MAX - CUZK_PCE_COEF_VALUES) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT,
                       "pce: %s has an invalid header (curve %u, %u rows, %u vars, %u values, %llu + %llu terms)",
                       path, curve, n_rows, n_vars, n_values, (unsigned long long)nnz[0],
                       (unsigned long long)nnz[1]);
        goto out;
    }
    if (expect_hash && memcmp(h + 16, expect_hash, 32) != 0) {
        rc = cuzk_fail(err, CUZK_ERR_MISMATCH, "pce: %s was compiled for another key (key hash differs)", path);
        goto out;
    }
    uint64_t want = PCE_HEADER_BYTES + 2 * ((uint64_t)n_rows + 1) * 4 + (nnz[0] + nnz[1]) * 8 +
                    (uint64_t)n_values * 32 + 8;
    if (st.st_size < 0 || (uint64_t)st.st_size != want) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "pce: %s is %jd bytes, its header implies %llu (truncated?)", path,
                       (intmax_t)st.st_size, (unsigned long long)want);
        goto out;
    }
    p->curve = (cuzk_curve_id)curve;
    p->n_rows = n_rows;
    p->n_vars = n_vars;
    p->n_values = n_values;
    memcpy(p->key_hash, h + 16, 32);
    for (int m = 0; m < 2; m++) {
        p->row_start[m] = malloc(((size_t)n_rows + 1) * 4);
        p->wire[m] = malloc((nnz[m] + 1) * 4);
        p->coef[m] = malloc((nnz[m] + 1) * 4);
    }
    p->values = malloc(((size_t)n_values + 1) * 32);
    if (!p->row_start[0] || !p->row_start[1] || !p->wire[0] || !p->wire[1] || !p->coef[0] || !p->coef[1] ||
        !p->values) {
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "pce: out of memory loading %s (%llu bytes)", path,
                       (unsigned long long)want);
        goto out;
    }
    int ok = 1;
    for (int m = 0; m < 2 && ok; m++)
        ok = read_all(fp, &c, p->row_start[m], ((size_t)n_rows + 1) * 4) &&
             read_all(fp, &c, p->wire[m], nnz[m] * 4) && read_all(fp, &c, p->coef[m], nnz[m] * 4);
    ok = ok && read_all(fp, &c, p->values, (size_t)n_values * 32);
    uint64_t sum = 0;
    ok = ok && read_all(fp, NULL, &sum, 8);
    if (!ok) {
        rc = cuzk_fail(err, CUZK_ERR_IO, "pce: reading %s failed", path);
        goto out;
    }
    if (sum != checksum_final(&c)) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "pce: %s is corrupt (checksum mismatch)", path);
        goto out;
    }
    /* Every index the synthesis follows is checked, whatever the checksum says. */
    for (int m = 0; m < 2; m++) {
        const uint32_t *rs = p->row_start[m];
        if (rs[0] != 0 || rs[n_rows] != nnz[m]) {
            rc = cuzk_fail(err, CUZK_ERR_FORMAT, "pce: %s: matrix %d's row offsets do not span its %llu terms",
                           path, m, (unsigned long long)nnz[m]);
            goto out;
        }
        for (uint32_t i = 0; i < n_rows; i++)
            if (rs[i + 1] < rs[i]) {
                rc = cuzk_fail(err, CUZK_ERR_FORMAT, "pce: %s: matrix %d's row offsets decrease at row %u", path,
                               m, i);
                goto out;
            }
        for (uint64_t k = 0; k < nnz[m]; k++)
            if (p->wire[m][k] >= n_vars || p->coef[m][k] >= (uint64_t)n_values + CUZK_PCE_COEF_VALUES) {
                rc = cuzk_fail(err, CUZK_ERR_FORMAT, "pce: %s: matrix %d term %llu is out of range (wire %u, code %u)",
                               path, m, (unsigned long long)k, p->wire[m][k], p->coef[m][k]);
                goto out;
            }
    }
    fr_any f = fr_any_of(p->curve);
    for (uint32_t i = 0; i < n_values; i++)
        if (mont_geq(p->values[i], f.modulus, 4)) {
            rc = cuzk_fail(err, CUZK_ERR_FORMAT, "pce: %s: coefficient value %u is not below r", path, i);
            goto out;
        }
    p->bytes = pce_bytes(p);
out:
    fclose(fp);
    if (rc)
        cuzk_pce_free(p);
    return rc;
}

/* Appends a formatted reason to note ("; " between reasons), truncating. */
static void note_add(char *note, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note_add(char *note, size_t cap, const char *fmt, ...)
{
    size_t used = strlen(note);
    if (used && used + 2 < cap) {
        memcpy(note + used, "; ", 3);
        used += 2;
    }
    if (used + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note + used, cap - used, fmt, ap);
    va_end(ap);
}

int cuzk_pce_get(const cuzk_zkey *z, const char *cache_dir, cuzk_pce *out, int *from_disk, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (from_disk)
        *from_disk = 0;
    uint8_t hash[32];
    if (!z || cuzk_pce_key_hash(z, hash))
        return cuzk_fail(err, CUZK_ERR_ARG, "pce: cannot hash the key (no coefficients?)");
    char path[PATH_MAX];
    char note[sizeof err->msg] = "";
    int have_path = 0;
    if (cache_dir) {
        char hex[65];
        for (int i = 0; i < 32; i++)
            snprintf(hex + 2 * i, 3, "%02x", hash[i]);
        int len = snprintf(path, sizeof path, "%s/%s.pce", cache_dir, hex);
        have_path = len > 0 && (size_t)len < sizeof path;
        if (!have_path)
            note_add(note, sizeof note, "pce: cache directory path too long; not cached");
    }
    struct stat st;
    if (have_path && stat(path, &st) == 0) {
        cuzk_error le = {0};
        if (cuzk_pce_load(out, path, hash, &le) == CUZK_OK) {
            if (out->curve == z->curve && out->n_rows == z->domain_size && out->n_vars == z->n_vars) {
                if (from_disk)
                    *from_disk = 1;
                return CUZK_OK;
            }
            cuzk_pce_free(out);
            note_add(note, sizeof note, "pce: %s does not match the key's sizes", path);
        } else {
            note_add(note, sizeof note, "%s", le.msg);
        }
        note_add(note, sizeof note, "recompiled");
    }
    int rc = compile_with_hash(z, out, hash, err);
    if (rc)
        return rc;
    if (have_path) {
        if (mkdir(cache_dir, 0755) != 0 && errno != EEXIST) {
            note_add(note, sizeof note, "pce: cannot create cache directory %s: %s", cache_dir, strerror(errno));
        } else {
            cuzk_error se = {0};
            if (cuzk_pce_save(out, path, &se) != CUZK_OK)
                note_add(note, sizeof note, "%s", se.msg);
        }
    }
    if (note[0] && err) {
        err->code = CUZK_OK;
        memcpy(err->msg, note, sizeof err->msg);
    }
    return CUZK_OK;
}
