#include "groth16/wtns.h"

#include <stdlib.h>
#include <string.h>

#include "codec/binfile.h"
#include "codec/curve_id.h"
#include "util/err.h"

enum { WTNS_VERSION = 2, WTNS_SEC_HEADER = 1, WTNS_SEC_VALUES = 2 };

/* The header section, and the values section's size checked against it;
 * *values is left at the start of the values. */
static int wtns_read_layout(cuzk_wtns *w, cuzk_binfile *bf, cuzk_bin_reader *values, uint32_t *n8,
                            cuzk_error *err)
{
    cuzk_bin_reader r;
    int rc;
    if ((rc = cuzk_bin_begin(bf, WTNS_SEC_HEADER, "header", &r, err))) return rc;
    if ((rc = cuzk_bin_read_prime(&r, 0, "prime", n8, &w->curve, err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &w->n_witness, "nWitness", err))) return rc;
    if ((rc = cuzk_bin_end(&r, err))) return rc;

    char why[96];
    if ((rc = cuzk_bin_begin(bf, WTNS_SEC_VALUES, "witness values", values, err))) return rc;
    snprintf(why, sizeof why, "nWitness %u x %u", w->n_witness, *n8);
    return cuzk_bin_expect_size(values, (uint64_t)w->n_witness * *n8, why, err);
}

/* The values of an opened container into dest (capacity values), or into
 * a fresh allocation when dest is NULL. */
static int wtns_read_open(cuzk_wtns *w, cuzk_binfile *bf, uint64_t *dest, uint64_t capacity, cuzk_error *err)
{
    cuzk_bin_reader r;
    uint32_t n8;
    int rc = wtns_read_layout(w, bf, &r, &n8, err);
    if (rc) return rc;
    if (dest && w->n_witness > capacity)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "%s: %u witness values, room for %llu", bf->path, w->n_witness,
                         (unsigned long long)capacity);
    w->values = dest ? dest : cuzk_alloc_aligned((uint64_t)w->n_witness * n8, 0);
    if (!w->values)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for %u witness values", bf->path, w->n_witness);
    return cuzk_bin_read_elems(&r, w->values, w->n_witness, 1, CUZK_R_WORDS, cuzk_curve_r(w->curve), "r",
                               "witness value", err);
}

/* Reads the witness of an opened container, then closes it. */
static int wtns_read_close(cuzk_wtns *w, cuzk_binfile *bf, cuzk_error *err)
{
    int rc = wtns_read_open(w, bf, NULL, 0, err);
    cuzk_bin_close(bf);
    if (rc) cuzk_wtns_free(w);
    return rc;
}

int cuzk_wtns_read(cuzk_wtns *w, const char *path, cuzk_error *err)
{
    cuzk_binfile bf;
    memset(w, 0, sizeof *w);
    int rc = cuzk_bin_open(&bf, path, "wtns", WTNS_VERSION, err);
    return rc ? rc : wtns_read_close(w, &bf, err);
}

int cuzk_wtns_read_into(cuzk_wtns *w, const char *path, uint64_t *values, uint64_t capacity, cuzk_error *err)
{
    cuzk_binfile bf;
    memset(w, 0, sizeof *w);
    int rc = cuzk_bin_open(&bf, path, "wtns", WTNS_VERSION, err);
    if (rc) return rc;
    rc = wtns_read_open(w, &bf, values, capacity, err);
    cuzk_bin_close(&bf);
    if (rc) memset(w, 0, sizeof *w);
    return rc;
}

int cuzk_wtns_read_header(cuzk_wtns *w, const char *path, cuzk_error *err)
{
    cuzk_binfile bf;
    cuzk_bin_reader values;
    uint32_t n8;
    memset(w, 0, sizeof *w);
    int rc = cuzk_bin_open(&bf, path, "wtns", WTNS_VERSION, err);
    if (rc) return rc;
    rc = wtns_read_layout(w, &bf, &values, &n8, err);
    cuzk_bin_close(&bf);
    return rc;
}

int cuzk_wtns_read_memory(cuzk_wtns *w, const void *data, size_t len, const char *name, cuzk_error *err)
{
    cuzk_binfile bf;
    memset(w, 0, sizeof *w);
    int rc = cuzk_bin_open_memory(&bf, data, len, name, "wtns", WTNS_VERSION, err);
    return rc ? rc : wtns_read_close(w, &bf, err);
}

int cuzk_wtns_write(const cuzk_wtns *w, const char *path, cuzk_error *err)
{
    const uint64_t *r = cuzk_curve_r(w->curve);
    if (!r) return cuzk_fail(err, CUZK_ERR_ARG, "%s: witness has an unknown curve (%d)", path, (int)w->curve);
    if (w->n_witness && !w->values) return cuzk_fail(err, CUZK_ERR_ARG, "%s: witness has no values", path);
    for (uint32_t i = 0; i < w->n_witness; i++)
        if (!cuzk_words_lt(w->values + (size_t)i * CUZK_R_WORDS, r, CUZK_R_WORDS))
            return cuzk_fail(err, CUZK_ERR_ARG, "%s: witness value %u is not below r", path, i);

    cuzk_binwriter bw;
    int rc = cuzk_binw_open(&bw, path, "wtns", WTNS_VERSION, err);
    if (rc) return rc;
    rc = cuzk_binw_begin(&bw, WTNS_SEC_HEADER, err);
    if (!rc) rc = cuzk_binw_write_prime(&bw, r, CUZK_R_WORDS, err);
    if (!rc) rc = cuzk_binw_write_u32(&bw, w->n_witness, err);
    if (!rc) rc = cuzk_binw_end(&bw, err);
    if (!rc) rc = cuzk_binw_begin(&bw, WTNS_SEC_VALUES, err);
    if (!rc) rc = cuzk_binw_write(&bw, w->values, (size_t)w->n_witness * CUZK_R_WORDS * 8, err);
    if (!rc) rc = cuzk_binw_end(&bw, err);
    if (rc) {
        cuzk_binw_abort(&bw);
        return rc;
    }
    return cuzk_binw_finish(&bw, err);
}

void cuzk_wtns_free(cuzk_wtns *w)
{
    free(w->values);
    memset(w, 0, sizeof *w);
}
