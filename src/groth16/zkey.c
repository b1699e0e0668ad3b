#include "groth16/zkey.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "codec/binfile.h"
#include "codec/curve_id.h"
#include "util/err.h"
#include "util/pages.h"

enum {
    ZKEY_VERSION = 1,
    ZKEY_N8R = 32,
    COEF_BYTES = CUZK_ZKEY_COEF_BYTES,
    COEF_CHUNK = 4096,
    CS_HASH_BYTES = 64,
};

/* whether p points into the len bytes mapped at map (NULL: none) */
static int in_map(const void *map, size_t len, const void *p)
{
    const uint8_t *m = map, *q = p;
    return m && q >= m && q < m + len;
}

/* ---- checks shared by reader and writer (they return a description of the
 * first problem, or NULL) ---- */

static const char *zkey_shape_problem(const cuzk_zkey *z, char *buf, size_t cap)
{
    if ((uint64_t)z->n_vars < (uint64_t)z->n_public + 1)
        snprintf(buf, cap, "nVars %u is less than nPublic %u + 1", z->n_vars, z->n_public);
    else if (z->domain_size == 0 || (z->domain_size & (z->domain_size - 1)))
        snprintf(buf, cap, "domainSize %u is not a power of two", z->domain_size);
    else if ((uint64_t)z->domain_size < (uint64_t)z->n_public + 1)
        snprintf(buf, cap, "domainSize %u is less than nPublic %u + 1", z->domain_size, z->n_public);
    else
        return NULL;
    return buf;
}

static const char *coef_problem(const cuzk_zkey *z, const cuzk_zkey_coef *k, char *buf, size_t cap)
{
    if (k->matrix > 1)
        snprintf(buf, cap, "matrix %u (expected 0 = A or 1 = B)", k->matrix);
    else if (k->row >= z->domain_size)
        snprintf(buf, cap, "row %u >= domainSize %u", k->row, z->domain_size);
    else if (k->wire >= z->n_vars)
        snprintf(buf, cap, "wire %u >= nVars %u", k->wire, z->n_vars);
    else if (!cuzk_words_lt(k->value, cuzk_curve_r(z->curve), CUZK_R_WORDS))
        snprintf(buf, cap, "value is not below r");
    else
        return NULL;
    return buf;
}

/* ---- reader ---- */

static int read_protocol(cuzk_binfile *bf, cuzk_error *err)
{
    cuzk_bin_reader r;
    uint32_t protocol;
    int rc;
    if ((rc = cuzk_bin_begin(bf, CUZK_ZKEY_SEC_PROTOCOL, "protocol", &r, err))) return rc;
    if ((rc = cuzk_bin_expect_size(&r, 4, "one u32", err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &protocol, "protocol", err))) return rc;
    if (protocol == CUZK_ZKEY_PROTOCOL_GROTH16) return CUZK_OK;
    const char *name = protocol == CUZK_ZKEY_PROTOCOL_PLONK    ? "plonk"
                       : protocol == CUZK_ZKEY_PROTOCOL_FFLONK ? "fflonk"
                                                               : "unknown";
    return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section 1 (protocol): not a Groth16 key (protocol %u = %s)",
                     bf->path, protocol, name);
}

static int read_point(cuzk_bin_reader *r, const cuzk_zkey *z, uint64_t *dst, uint32_t coords, const char *name,
                      cuzk_error *err)
{
    uint32_t qw = z->n8q / 8;
    return cuzk_bin_read_elems(r, dst, 1, coords, qw, cuzk_curve_q(z->curve), "q", name, err);
}

static int read_header(cuzk_zkey *z, cuzk_binfile *bf, cuzk_error *err)
{
    cuzk_bin_reader r;
    cuzk_curve_id curve_r;
    int rc;
    if ((rc = cuzk_bin_begin(bf, CUZK_ZKEY_SEC_HEADER, "header", &r, err))) return rc;
    if ((rc = cuzk_bin_read_prime(&r, 1, "q", &z->n8q, &z->curve, err))) return rc;
    if ((rc = cuzk_bin_read_prime(&r, 0, "r", &z->n8r, &curve_r, err))) return rc;
    if (curve_r != z->curve)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section 2 (header): q is %s's but r is %s's", bf->path,
                         cuzk_curve_snarkjs_name(z->curve), cuzk_curve_snarkjs_name(curve_r));
    uint64_t g1 = 2ull * z->n8q, g2 = 4ull * z->n8q;
    uint64_t expected = 4 + z->n8q + 4 + z->n8r + 12 + 3 * g1 + 3 * g2;
    char why[96];
    snprintf(why, sizeof why, "primes, 3 counts, 3 G1 of %llu and 3 G2 of %llu bytes", (unsigned long long)g1,
             (unsigned long long)g2);
    if ((rc = cuzk_bin_expect_size(&r, expected, why, err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &z->n_vars, "nVars", err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &z->n_public, "nPublic", err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &z->domain_size, "domainSize", err))) return rc;
    if (zkey_shape_problem(z, why, sizeof why))
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section 2 (header): %s", bf->path, why);
    if ((rc = read_point(&r, z, z->alpha1, 2, "alpha1", err))) return rc;
    if ((rc = read_point(&r, z, z->beta1, 2, "beta1", err))) return rc;
    if ((rc = read_point(&r, z, z->beta2, 4, "beta2", err))) return rc;
    if ((rc = read_point(&r, z, z->gamma2, 4, "gamma2", err))) return rc;
    if ((rc = read_point(&r, z, z->delta1, 2, "delta1", err))) return rc;
    if ((rc = read_point(&r, z, z->delta2, 4, "delta2", err))) return rc;
    return cuzk_bin_end(&r, err);
}

/* Reads section id, which must hold exactly count points of `coords`
 * coordinates, into *out: where they lie in the file's mapping when
 * in_place and that address suits 64-bit words, else a fresh aligned
 * array. count_text says where count comes from ("nVars 50"). */
static int read_points(cuzk_zkey *z, cuzk_binfile *bf, uint32_t id, const char *what, uint64_t count,
                       uint32_t coords, const char *count_text, int in_place, uint64_t **out, cuzk_error *err)
{
    cuzk_bin_reader r;
    uint64_t point_bytes = (uint64_t)coords * z->n8q;
    char why[96];
    int rc;
    if ((rc = cuzk_bin_begin(bf, id, what, &r, err))) return rc;
    snprintf(why, sizeof why, "%s x %llu", count_text, (unsigned long long)point_bytes);
    if ((rc = cuzk_bin_expect_size(&r, count * point_bytes, why, err))) return rc;
    const uint64_t *mapped = in_place && count ? cuzk_bin_mapped_at(&r, 8) : NULL;
    if (mapped) {
        *out = (uint64_t *)(uintptr_t)mapped;
    } else {
        *out = cuzk_alloc_aligned(count * point_bytes, 0);
        if (!*out)
            return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for section %u (%s): %llu bytes", bf->path, id,
                             what, (unsigned long long)(count * point_bytes));
    }
    rc = cuzk_bin_read_elems(&r, mapped ? NULL : *out, count, coords, z->n8q / 8, cuzk_curve_q(z->curve), "q",
                             "point", err);
    if (!mapped) cuzk_bin_unneeded(bf, r.sec->offset, r.sec->size); /* copied out */
    return rc;
}

void cuzk_zkey_coef_decode(const uint8_t b[CUZK_ZKEY_COEF_BYTES], cuzk_zkey_coef *k)
{
    k->matrix = cuzk_le32(b);
    k->row = cuzk_le32(b + 4);
    k->wire = cuzk_le32(b + 8);
    memcpy(k->value, b + 12, sizeof k->value);
}

/* Decodes and checks a batch, into z->coefs when the key keeps them decoded */
static uint64_t coefs_batch(void *vjob, const uint8_t *items, uint64_t first, uint64_t count)
{
    cuzk_zkey *z = vjob;
    char why[96];
    for (uint64_t j = 0; j < count; j++) {
        cuzk_zkey_coef local, *k = z->coefs ? &z->coefs[first + j] : &local;
        cuzk_zkey_coef_decode(items + j * COEF_BYTES, k);
        if (coef_problem(z, k, why, sizeof why)) return first + j;
    }
    return UINT64_MAX;
}

/* Decoded into z->coefs, or (in_place, bf mapped) checked where they lie
 * and left there: z->coef_bytes. */
static int read_coefs(cuzk_zkey *z, cuzk_binfile *bf, int in_place, cuzk_error *err)
{
    cuzk_bin_reader r;
    char why[96];
    int rc;
    if ((rc = cuzk_bin_begin(bf, CUZK_ZKEY_SEC_COEFS, "coefficients", &r, err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &z->n_coefs, "coefficient count", err))) return rc;
    snprintf(why, sizeof why, "4 + count %u x %u", z->n_coefs, (unsigned)COEF_BYTES);
    if ((rc = cuzk_bin_expect_size(&r, 4 + (uint64_t)z->n_coefs * COEF_BYTES, why, err))) return rc;
    z->coef_bytes = in_place ? cuzk_bin_mapped_at(&r, 1) : NULL;
    if (!z->coef_bytes) {
        z->coefs = malloc(((size_t)z->n_coefs ? (size_t)z->n_coefs : 1) * sizeof *z->coefs);
        if (!z->coefs)
            return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for %u coefficients", bf->path, z->n_coefs);
    }
    uint64_t bad;
    rc = cuzk_bin_read_items(&r, z->n_coefs, COEF_BYTES, "coefficient", NULL, coefs_batch, z, &bad, err);
    if (!z->coef_bytes) cuzk_bin_unneeded(bf, r.sec->offset, r.sec->size); /* decoded into z->coefs */
    if (!rc && bad != UINT64_MAX) {
        cuzk_zkey_coef k;
        cuzk_zkey_coef_get(z, (uint32_t)bad, &k);
        coef_problem(z, &k, why, sizeof why);
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section 4 (coefficients): entry %llu: %s", bf->path,
                       (unsigned long long)bad, why);
    }
    return rc ? rc : cuzk_bin_end(&r, err);
}

/* A key from bf, opened by the caller (a file or memory), which it closes;
 * when bf is mapped the point arrays stay in the mapping where they can
 * (z then keeps the mapping) */
static int zkey_read(cuzk_zkey *z, cuzk_binfile *bf, int header_only, cuzk_error *err)
{
    char count[64];
    const int in_place = bf->map != NULL;
    int rc = read_protocol(bf, err);
    if (!rc) rc = read_header(z, bf, err);
    if (!rc) {
        snprintf(count, sizeof count, "nPublic + 1 = %llu", (unsigned long long)z->n_public + 1);
        rc = read_points(z, bf, CUZK_ZKEY_SEC_IC, "IC points", (uint64_t)z->n_public + 1, 2, count, 0, &z->ic, err);
    }
    if (!header_only) {
        if (!rc) rc = read_coefs(z, bf, in_place, err);
        snprintf(count, sizeof count, "nVars %u", z->n_vars);
        if (!rc) rc = read_points(z, bf, CUZK_ZKEY_SEC_A, "A points", z->n_vars, 2, count, in_place, &z->a, err);
        if (!rc) rc = read_points(z, bf, CUZK_ZKEY_SEC_B1, "B1 points", z->n_vars, 2, count, in_place, &z->b1, err);
        if (!rc) rc = read_points(z, bf, CUZK_ZKEY_SEC_B2, "B2 points", z->n_vars, 4, count, in_place, &z->b2, err);
        uint64_t n_c = (uint64_t)z->n_vars - z->n_public - 1;
        snprintf(count, sizeof count, "nVars - nPublic - 1 = %llu", (unsigned long long)n_c);
        if (!rc) rc = read_points(z, bf, CUZK_ZKEY_SEC_C, "C points", n_c, 2, count, in_place, &z->c, err);
        snprintf(count, sizeof count, "domainSize %u", z->domain_size);
        if (!rc) rc = read_points(z, bf, CUZK_ZKEY_SEC_H, "H points", z->domain_size, 2, count, in_place, &z->h, err);
    }
    /* a mapping that arrays lie in goes with z, whole (cuzk_zkey_free
     * unmaps it; an array that failed its checks may lie there too); else
     * cuzk_bin_close unmaps it */
    const uint64_t *arrays[] = {z->a, z->b1, z->b2, z->c, z->h};
    int used = z->coef_bytes != NULL;
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        used |= in_map(bf->map, (size_t)bf->file_size, arrays[i]);
    if (used) {
        z->map_len = (size_t)bf->file_size;
        z->map = cuzk_bin_take_map(bf);
    }
    cuzk_file_id source = bf->id;
    cuzk_bin_close(bf);
    if (rc) {
        cuzk_zkey_free(z);
    } else {
        z->serial = cuzk_zkey_new_serial();
        z->source = source;
    }
    return rc;
}

uint64_t cuzk_zkey_new_serial(void)
{
    static _Atomic uint64_t next = 1;
    return next++;
}

static int zkey_read_file(cuzk_zkey *z, const char *path, int header_only, int mapped, cuzk_error *err)
{
    cuzk_binfile bf;
    memset(z, 0, sizeof *z);
    int rc = cuzk_bin_open(&bf, path, "zkey", ZKEY_VERSION, err);
    if (!rc && mapped && (rc = cuzk_bin_map(&bf, err))) cuzk_bin_close(&bf);
    return rc ? rc : zkey_read(z, &bf, header_only, err);
}

static int zkey_read_memory(cuzk_zkey *z, const void *data, size_t len, const char *name, int header_only,
                            cuzk_error *err)
{
    cuzk_binfile bf;
    memset(z, 0, sizeof *z);
    int rc = cuzk_bin_open_memory(&bf, data, len, name, "zkey", ZKEY_VERSION, err);
    return rc ? rc : zkey_read(z, &bf, header_only, err);
}

int cuzk_zkey_read(cuzk_zkey *z, const char *path, cuzk_error *err) { return zkey_read_file(z, path, 0, 0, err); }

int cuzk_zkey_map(cuzk_zkey *z, const char *path, cuzk_error *err) { return zkey_read_file(z, path, 0, 1, err); }

int cuzk_zkey_read_header(cuzk_zkey *z, const char *path, cuzk_error *err)
{
    return zkey_read_file(z, path, 1, 0, err);
}

int cuzk_zkey_read_memory(cuzk_zkey *z, const void *data, size_t len, const char *name, cuzk_error *err)
{
    return zkey_read_memory(z, data, len, name, 0, err);
}

int cuzk_zkey_read_header_memory(cuzk_zkey *z, const void *data, size_t len, const char *name, cuzk_error *err)
{
    return zkey_read_memory(z, data, len, name, 1, err);
}

void cuzk_zkey_release_coefs(const cuzk_zkey *z)
{
    if (z->coef_bytes) cuzk_pages_release(z->coef_bytes, (size_t)z->n_coefs * COEF_BYTES);
}

size_t cuzk_zkey_point_bytes(const cuzk_zkey *z)
{
    const size_t g1 = 2 * (size_t)z->n8q, g2 = 2 * g1, n_c = (size_t)z->n_vars - z->n_public - 1;
    return (size_t)z->n_vars * (2 * g1 + g2) + (n_c + z->domain_size) * g1;
}

void cuzk_zkey_free(cuzk_zkey *z)
{
    free(z->ic);
    free(z->coefs);
    uint64_t *arrays[] = {z->a, z->b1, z->b2, z->c, z->h};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        if (!in_map(z->map, z->map_len, arrays[i])) free(arrays[i]);
    if (z->map) munmap(z->map, z->map_len);
    memset(z, 0, sizeof *z);
}

/* ---- writer ---- */

/* Index of the first of count points (coords coordinates) with a coordinate
 * >= q, or -1. */
static int64_t first_point_above_q(const cuzk_zkey *z, const uint64_t *pts, uint64_t count, uint32_t coords)
{
    uint32_t qw = z->n8q / 8;
    for (uint64_t i = 0; i < count * coords; i++)
        if (!cuzk_words_lt(pts + i * qw, cuzk_curve_q(z->curve), qw)) return (int64_t)(i / coords);
    return -1;
}

typedef struct {
    uint32_t id;
    const char *name;
    const uint64_t *pts;
    uint64_t count;
    uint32_t coords;
} point_array;

static void point_arrays(const cuzk_zkey *z, point_array out[12])
{
    uint64_t n_c = (uint64_t)z->n_vars - z->n_public - 1;
    point_array t[12] = {
        {CUZK_ZKEY_SEC_HEADER, "alpha1", z->alpha1, 1, 2},  {CUZK_ZKEY_SEC_HEADER, "beta1", z->beta1, 1, 2},
        {CUZK_ZKEY_SEC_HEADER, "beta2", z->beta2, 1, 4},    {CUZK_ZKEY_SEC_HEADER, "gamma2", z->gamma2, 1, 4},
        {CUZK_ZKEY_SEC_HEADER, "delta1", z->delta1, 1, 2},  {CUZK_ZKEY_SEC_HEADER, "delta2", z->delta2, 1, 4},
        {CUZK_ZKEY_SEC_IC, "IC", z->ic, (uint64_t)z->n_public + 1, 2},
        {CUZK_ZKEY_SEC_A, "A", z->a, z->n_vars, 2},         {CUZK_ZKEY_SEC_B1, "B1", z->b1, z->n_vars, 2},
        {CUZK_ZKEY_SEC_B2, "B2", z->b2, z->n_vars, 4},      {CUZK_ZKEY_SEC_C, "C", z->c, n_c, 2},
        {CUZK_ZKEY_SEC_H, "H", z->h, z->domain_size, 2},
    };
    memcpy(out, t, sizeof t);
}

/* The point arrays a prover reads from the mapping: A, B1, B2, C and H. */
static int prover_array(const point_array *a)
{
    return a->id != CUZK_ZKEY_SEC_HEADER && a->id != CUZK_ZKEY_SEC_IC;
}

static void release_array(const cuzk_zkey *z, const point_array *a)
{
    size_t bytes = (size_t)a->count * a->coords * z->n8q;
    if (bytes && in_map(z->map, z->map_len, a->pts)) cuzk_pages_release(a->pts, bytes);
}

void cuzk_zkey_release_points(const cuzk_zkey *z, const uint64_t *pts)
{
    point_array pa[12];
    point_arrays(z, pa);
    for (int i = 0; i < 12; i++)
        if (prover_array(&pa[i]) && pa[i].pts == pts) {
            release_array(z, &pa[i]);
            return;
        }
}

void cuzk_zkey_release_all_points(const cuzk_zkey *z)
{
    point_array pa[12];
    point_arrays(z, pa);
    for (int i = 0; i < 12; i++)
        if (prover_array(&pa[i])) release_array(z, &pa[i]);
}

/* What the reader would refuse in z's shape and coefficients, and arrays
 * missing (their points are checked as they are written: a writer may
 * still be making them) */
static int zkey_check(const cuzk_zkey *z, const char *path, cuzk_error *err)
{
    char why[96];
    if (!cuzk_curve_valid(z->curve))
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: zkey has an unknown curve (%d)", path, (int)z->curve);
    if (z->n8q != 8 * cuzk_curve_q_words(z->curve) || z->n8r != ZKEY_N8R)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: zkey n8q %u / n8r %u do not match %s", path, z->n8q, z->n8r,
                         cuzk_curve_snarkjs_name(z->curve));
    if (zkey_shape_problem(z, why, sizeof why)) return cuzk_fail(err, CUZK_ERR_ARG, "%s: zkey %s", path, why);
    if (!cuzk_zkey_has_coefs(z)) return cuzk_fail(err, CUZK_ERR_ARG, "%s: zkey has no coefficients", path);
    for (uint32_t i = 0; i < z->n_coefs; i++) {
        cuzk_zkey_coef k;
        cuzk_zkey_coef_get(z, i, &k);
        if (coef_problem(z, &k, why, sizeof why))
            return cuzk_fail(err, CUZK_ERR_ARG, "%s: zkey coefficient %u: %s", path, i, why);
    }
    point_array pa[12];
    point_arrays(z, pa);
    for (int i = 0; i < 12; i++)
        if (!pa[i].pts) return cuzk_fail(err, CUZK_ERR_ARG, "%s: zkey has no %s points", path, pa[i].name);
    return CUZK_OK;
}

/* p's points, refused (CUZK_ERR_ARG) where a coordinate is >= q */
static int write_points(cuzk_binwriter *w, const cuzk_zkey *z, const point_array *p, cuzk_error *err)
{
    int64_t bad = first_point_above_q(z, p->pts, p->count, p->coords);
    if (bad >= 0)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: zkey %s point %lld has a coordinate >= q", w->path, p->name,
                         (long long)bad);
    return cuzk_binw_write(w, p->pts, (size_t)(p->count * p->coords * z->n8q), err);
}

void cuzk_zkey_coef_encode(const cuzk_zkey_coef *k, uint8_t out[CUZK_ZKEY_COEF_BYTES])
{
    cuzk_put_le32(out, k->matrix);
    cuzk_put_le32(out + 4, k->row);
    cuzk_put_le32(out + 8, k->wire);
    memcpy(out + 12, k->value, sizeof k->value);
}

static int write_coefs(cuzk_binwriter *w, const cuzk_zkey *z, cuzk_error *err)
{
    int rc = cuzk_binw_write_u32(w, z->n_coefs, err);
    if (!rc && z->coef_bytes) /* a mapped key's records, checked when mapped: as they are */
        return cuzk_binw_write(w, z->coef_bytes, (size_t)z->n_coefs * COEF_BYTES, err);
    uint8_t *buf = malloc((size_t)COEF_CHUNK * COEF_BYTES);
    if (!rc && !buf) rc = cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for a write buffer", w->path);
    for (uint32_t done = 0; !rc && done < z->n_coefs;) {
        uint32_t n = z->n_coefs - done < COEF_CHUNK ? z->n_coefs - done : COEF_CHUNK;
        for (uint32_t j = 0; j < n; j++) {
            cuzk_zkey_coef k;
            cuzk_zkey_coef_get(z, done + j, &k);
            cuzk_zkey_coef_encode(&k, buf + (size_t)j * COEF_BYTES);
        }
        rc = cuzk_binw_write(w, buf, (size_t)n * COEF_BYTES, err);
        done += n;
    }
    free(buf);
    return rc;
}

/* snarkjs groth16 setup's order */
static const uint32_t write_order[] = {CUZK_ZKEY_SEC_PROTOCOL, CUZK_ZKEY_SEC_HEADER, CUZK_ZKEY_SEC_COEFS,
                                       CUZK_ZKEY_SEC_IC,       CUZK_ZKEY_SEC_H,      CUZK_ZKEY_SEC_C,
                                       CUZK_ZKEY_SEC_A,        CUZK_ZKEY_SEC_B1,     CUZK_ZKEY_SEC_B2,
                                       CUZK_ZKEY_SEC_CONTRIBUTIONS};
enum { WRITE_SECTIONS = sizeof write_order / sizeof write_order[0] };

/* section id whole (mpc: section 10's bytes) */
static int write_section(cuzk_binwriter *w, const cuzk_zkey *z, uint32_t id, const void *mpc, size_t mpc_len,
                         cuzk_error *err)
{
    point_array pa[12];
    point_arrays(z, pa);
    int rc = cuzk_binw_begin(w, id, err);
    if (rc) return rc;
    switch (id) {
    case CUZK_ZKEY_SEC_PROTOCOL: rc = cuzk_binw_write_u32(w, CUZK_ZKEY_PROTOCOL_GROTH16, err); break;
    case CUZK_ZKEY_SEC_HEADER:
        rc = cuzk_binw_write_prime(w, cuzk_curve_q(z->curve), z->n8q / 8, err);
        if (!rc) rc = cuzk_binw_write_prime(w, cuzk_curve_r(z->curve), CUZK_R_WORDS, err);
        if (!rc) rc = cuzk_binw_write_u32(w, z->n_vars, err);
        if (!rc) rc = cuzk_binw_write_u32(w, z->n_public, err);
        if (!rc) rc = cuzk_binw_write_u32(w, z->domain_size, err);
        for (int i = 0; !rc && i < 6; i++) rc = write_points(w, z, &pa[i], err);
        break;
    case CUZK_ZKEY_SEC_COEFS: rc = write_coefs(w, z, err); break;
    case CUZK_ZKEY_SEC_CONTRIBUTIONS: rc = cuzk_binw_write(w, mpc, mpc_len, err); break;
    default:
        for (int i = 6; i < 12; i++)
            if (pa[i].id == id) rc = write_points(w, z, &pa[i], err);
    }
    return rc ? rc : cuzk_binw_end(w, err);
}

int cuzk_zkey_writer_open(cuzk_zkey_writer *zw, const cuzk_zkey *z, const char *path, cuzk_error *err)
{
    memset(zw, 0, sizeof *zw);
    int rc = zkey_check(z, path, err);
    if (!rc) rc = cuzk_binw_open(&zw->w, path, "zkey", ZKEY_VERSION, err);
    if (!rc) zw->z = z;
    return rc;
}

uint32_t cuzk_zkey_writer_next(const cuzk_zkey_writer *zw)
{
    return zw->next < WRITE_SECTIONS ? write_order[zw->next] : 0;
}

int cuzk_zkey_writer_section(cuzk_zkey_writer *zw, cuzk_error *err)
{
    uint32_t id = cuzk_zkey_writer_next(zw);
    if (!id || id == CUZK_ZKEY_SEC_CONTRIBUTIONS)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: the sections before the contributions are all written",
                         zw->w.path);
    int rc = write_section(&zw->w, zw->z, id, NULL, 0, err);
    if (!rc) zw->next++;
    return rc;
}

int cuzk_zkey_writer_finish(cuzk_zkey_writer *zw, const void *mpc, size_t mpc_len, cuzk_error *err)
{
    int rc = CUZK_OK;
    while (!rc && cuzk_zkey_writer_next(zw) != CUZK_ZKEY_SEC_CONTRIBUTIONS) rc = cuzk_zkey_writer_section(zw, err);
    if (!rc) rc = write_section(&zw->w, zw->z, CUZK_ZKEY_SEC_CONTRIBUTIONS, mpc, mpc_len, err);
    if (rc) {
        cuzk_zkey_writer_abort(zw);
        return rc;
    }
    zw->next = WRITE_SECTIONS;
    return cuzk_binw_finish(&zw->w, err);
}

void cuzk_zkey_writer_abort(cuzk_zkey_writer *zw)
{
    if (zw->z && zw->next < WRITE_SECTIONS) cuzk_binw_abort(&zw->w);
    zw->next = WRITE_SECTIONS;
}

int cuzk_zkey_write(const cuzk_zkey *z, const char *path, cuzk_error *err)
{
    static const uint8_t no_contributions[CS_HASH_BYTES + 4]; /* a zero csHash, a u32 count 0 */
    return cuzk_zkey_write_mpc(z, no_contributions, sizeof no_contributions, path, err);
}

int cuzk_zkey_write_mpc(const cuzk_zkey *z, const void *mpc, size_t mpc_len, const char *path, cuzk_error *err)
{
    cuzk_zkey_writer zw;
    int rc = cuzk_zkey_writer_open(&zw, z, path, err);
    return rc ? rc : cuzk_zkey_writer_finish(&zw, mpc, mpc_len, err);
}
