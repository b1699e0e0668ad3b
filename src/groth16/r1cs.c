#include "groth16/r1cs.h"

#include <stdlib.h>
#include <string.h>

#include "codec/binfile.h"
#include "codec/curve_id.h"
#include "util/err.h"

enum {
    R1CS_VERSION = 1,
    R1CS_SEC_HEADER = 1,
    R1CS_SEC_CONSTRAINTS = 2,
    R1CS_SEC_LABELS = 3,
    R1CS_SEC_CUSTOM_GATES_LIST = 4,
    R1CS_SEC_CUSTOM_GATES_USES = 5,
    R1CS_N8 = 32,
    R1CS_TERM_BYTES = 4 + R1CS_N8,
    R1CS_CHUNK_TERMS = 4096,
};

static const char *const matrix_name[3] = {"A", "B", "C"};

static int r1cs_read_header(cuzk_r1cs *c, cuzk_binfile *bf, cuzk_error *err)
{
    cuzk_bin_reader r;
    uint32_t n8;
    int rc;
    if ((rc = cuzk_bin_begin(bf, R1CS_SEC_HEADER, "header", &r, err))) return rc;
    if ((rc = cuzk_bin_read_prime(&r, 0, "prime", &n8, &c->curve, err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &c->n_wires, "nWires", err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &c->n_pub_out, "nPubOut", err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &c->n_pub_in, "nPubIn", err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &c->n_prv_in, "nPrvIn", err))) return rc;
    if ((rc = cuzk_bin_read_u64(&r, &c->n_labels, "nLabels", err))) return rc;
    if ((rc = cuzk_bin_read_u32(&r, &c->n_constraints, "nConstraints", err))) return rc;
    if ((rc = cuzk_bin_end(&r, err))) return rc;
    uint64_t inputs = (uint64_t)c->n_pub_out + c->n_pub_in + c->n_prv_in;
    if (c->n_wires == 0 || inputs >= c->n_wires)
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: section 1 (header): nWires %u must exceed nPubOut %u + nPubIn %u + nPrvIn %u (wire 0 is the constant 1)",
                         bf->path, c->n_wires, c->n_pub_out, c->n_pub_in, c->n_prv_in);
    return CUZK_OK;
}

/* Makes room for `need` terms in matrix m, growing geometrically but never
 * past what the rest of the section could hold. */
static int r1cs_reserve(cuzk_r1cs *c, int m, uint64_t *cap, uint64_t need, uint64_t max_more,
                        const char *path, cuzk_error *err)
{
    if (need <= *cap) return CUZK_OK;
    uint64_t want = *cap * 2 > need ? *cap * 2 : need;
    if (want > need + max_more) want = need + max_more;
    if (want < 16) want = 16;
    void *p = want <= SIZE_MAX / sizeof(cuzk_r1cs_term) ? realloc(c->terms[m], (size_t)want * sizeof(cuzk_r1cs_term))
                                                        : NULL;
    if (!p)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for %llu terms of matrix %s", path,
                         (unsigned long long)want, matrix_name[m]);
    c->terms[m] = p;
    *cap = want;
    return CUZK_OK;
}

/* Reads n terms of constraint row into matrix m at index at. */
static int r1cs_read_terms(cuzk_r1cs *c, cuzk_bin_reader *r, int m, uint32_t row, uint64_t at, uint32_t n,
                           uint8_t *buf, cuzk_error *err)
{
    const uint64_t *prime = cuzk_curve_r(c->curve);
    for (uint32_t done = 0; done < n;) {
        uint32_t k = n - done < R1CS_CHUNK_TERMS ? n - done : R1CS_CHUNK_TERMS;
        int rc = cuzk_bin_read(r, buf, (size_t)k * R1CS_TERM_BYTES, "terms", err);
        if (rc) return rc;
        for (uint32_t j = 0; j < k; j++) {
            cuzk_r1cs_term *t = &c->terms[m][at + done + j];
            const uint8_t *b = buf + (size_t)j * R1CS_TERM_BYTES;
            t->wire = cuzk_le32(b);
            t->pad = 0;
            memcpy(t->coef, b + 4, sizeof t->coef);
            if (t->wire >= c->n_wires)
                return cuzk_fail(err, CUZK_ERR_FORMAT,
                                 "%s: section 2 (constraints): constraint %u, %s term %u: wire %u >= nWires %u",
                                 r->bf->path, row, matrix_name[m], done + j, t->wire, c->n_wires);
            if (!cuzk_words_lt(t->coef, prime, 4))
                return cuzk_fail(err, CUZK_ERR_FORMAT,
                                 "%s: section 2 (constraints): constraint %u, %s term %u: coefficient is not below r",
                                 r->bf->path, row, matrix_name[m], done + j);
        }
        done += k;
    }
    return CUZK_OK;
}

static int r1cs_read_constraints(cuzk_r1cs *c, cuzk_binfile *bf, cuzk_error *err)
{
    cuzk_bin_reader r;
    int rc;
    if ((rc = cuzk_bin_begin(bf, R1CS_SEC_CONSTRAINTS, "constraints", &r, err))) return rc;
    /* Every constraint takes at least three term counts. */
    if ((uint64_t)c->n_constraints * 12 > r.sec->size)
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: section 2 (constraints) holds %llu bytes, too few for nConstraints %u (at least 12 bytes each)",
                         bf->path, (unsigned long long)r.sec->size, c->n_constraints);
    for (int m = 0; m < 3; m++) {
        c->row_start[m] = malloc(((size_t)c->n_constraints + 1) * sizeof(uint32_t));
        if (!c->row_start[m])
            return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for %u constraints", bf->path, c->n_constraints);
        c->row_start[m][0] = 0;
    }
    uint8_t *buf = malloc((size_t)R1CS_CHUNK_TERMS * R1CS_TERM_BYTES);
    if (!buf) return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for a read buffer", bf->path);
    uint64_t cap[3] = {0, 0, 0}, used[3] = {0, 0, 0};
    for (uint32_t i = 0; i < c->n_constraints && !rc; i++) {
        for (int m = 0; m < 3 && !rc; m++) {
            uint32_t n;
            if ((rc = cuzk_bin_read_u32(&r, &n, "term count", err))) break;
            uint64_t left = cuzk_bin_left(&r);
            if ((uint64_t)n * R1CS_TERM_BYTES > left) {
                rc = cuzk_fail(err, CUZK_ERR_FORMAT,
                               "%s: section 2 (constraints): constraint %u, %s has %u terms (%llu bytes) but only %llu bytes remain",
                               bf->path, i, matrix_name[m], n, (unsigned long long)n * R1CS_TERM_BYTES,
                               (unsigned long long)left);
                break;
            }
            if (used[m] + n > UINT32_MAX) {
                rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: section 2 (constraints): matrix %s has more than 2^32 - 1 terms",
                               bf->path, matrix_name[m]);
                break;
            }
            if ((rc = r1cs_reserve(c, m, &cap[m], used[m] + n, left / R1CS_TERM_BYTES - n, bf->path, err))) break;
            if ((rc = r1cs_read_terms(c, &r, m, i, used[m], n, buf, err))) break;
            used[m] += n;
            c->row_start[m][i + 1] = (uint32_t)used[m];
        }
    }
    free(buf);
    if (rc) return rc;
    for (int m = 0; m < 3; m++) {
        if (!c->terms[m] && !(c->terms[m] = malloc(sizeof(cuzk_r1cs_term))))
            return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: out of memory", bf->path);
    }
    return cuzk_bin_end(&r, err);
}

static int r1cs_read_labels(cuzk_r1cs *c, cuzk_binfile *bf, cuzk_error *err)
{
    cuzk_bin_reader r;
    char why[64];
    int rc;
    if (!cuzk_bin_find(bf, R1CS_SEC_LABELS)) return CUZK_OK;
    if ((rc = cuzk_bin_begin(bf, R1CS_SEC_LABELS, "wire to label map", &r, err))) return rc;
    snprintf(why, sizeof why, "nWires %u x 8", c->n_wires);
    if ((rc = cuzk_bin_expect_size(&r, (uint64_t)c->n_wires * 8, why, err))) return rc;
    c->wire_to_label = malloc((size_t)c->n_wires * 8);
    if (!c->wire_to_label) return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for %u labels", bf->path, c->n_wires);
    return cuzk_bin_read_elems(&r, c->wire_to_label, c->n_wires, 1, 1, NULL, NULL, "label", err);
}

int cuzk_r1cs_read(cuzk_r1cs *c, const char *path, cuzk_error *err)
{
    cuzk_binfile bf;
    memset(c, 0, sizeof *c);
    int rc = cuzk_bin_open(&bf, path, "r1cs", R1CS_VERSION, err);
    if (rc) return rc;
    if (cuzk_bin_find(&bf, R1CS_SEC_CUSTOM_GATES_LIST) || cuzk_bin_find(&bf, R1CS_SEC_CUSTOM_GATES_USES))
        rc = cuzk_fail(err, CUZK_ERR_FORMAT,
                       "%s: sections 4/5 (custom gates) are present; they are PLONK-only and Groth16 cannot prove this circuit",
                       path);
    if (!rc) rc = r1cs_read_header(c, &bf, err);
    if (!rc) rc = r1cs_read_constraints(c, &bf, err);
    if (!rc) rc = r1cs_read_labels(c, &bf, err);
    cuzk_bin_close(&bf);
    if (rc) cuzk_r1cs_free(c);
    return rc;
}

static int r1cs_check(const cuzk_r1cs *c, const char *path, cuzk_error *err)
{
    const uint64_t *prime = cuzk_curve_r(c->curve);
    if (!prime) return cuzk_fail(err, CUZK_ERR_ARG, "%s: r1cs has an unknown curve (%d)", path, (int)c->curve);
    if ((uint64_t)c->n_pub_out + c->n_pub_in + c->n_prv_in >= c->n_wires)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: r1cs nWires %u too small for its inputs", path, c->n_wires);
    for (int m = 0; m < 3; m++) {
        if (!c->row_start[m] || !c->terms[m])
            return cuzk_fail(err, CUZK_ERR_ARG, "%s: r1cs matrix %s is missing", path, matrix_name[m]);
        if (c->row_start[m][0] != 0)
            return cuzk_fail(err, CUZK_ERR_ARG, "%s: r1cs matrix %s does not start at term 0", path, matrix_name[m]);
        for (uint32_t i = 0; i < c->n_constraints; i++) {
            if (c->row_start[m][i + 1] < c->row_start[m][i])
                return cuzk_fail(err, CUZK_ERR_ARG, "%s: r1cs matrix %s: row %u ends before it starts", path,
                                 matrix_name[m], i);
            for (uint32_t k = c->row_start[m][i]; k < c->row_start[m][i + 1]; k++) {
                const cuzk_r1cs_term *t = &c->terms[m][k];
                if (t->wire >= c->n_wires || !cuzk_words_lt(t->coef, prime, 4))
                    return cuzk_fail(err, CUZK_ERR_ARG,
                                     "%s: r1cs matrix %s, constraint %u: a term has wire >= nWires or coefficient >= r",
                                     path, matrix_name[m], i);
            }
        }
    }
    return CUZK_OK;
}

static int r1cs_write_body(const cuzk_r1cs *c, cuzk_binwriter *bw, uint8_t *buf, cuzk_error *err)
{
    int rc;
    if ((rc = cuzk_binw_begin(bw, R1CS_SEC_HEADER, err))) return rc;
    if ((rc = cuzk_binw_write_prime(bw, cuzk_curve_r(c->curve), CUZK_R_WORDS, err))) return rc;
    if ((rc = cuzk_binw_write_u32(bw, c->n_wires, err))) return rc;
    if ((rc = cuzk_binw_write_u32(bw, c->n_pub_out, err))) return rc;
    if ((rc = cuzk_binw_write_u32(bw, c->n_pub_in, err))) return rc;
    if ((rc = cuzk_binw_write_u32(bw, c->n_prv_in, err))) return rc;
    if ((rc = cuzk_binw_write_u64(bw, c->n_labels, err))) return rc;
    if ((rc = cuzk_binw_write_u32(bw, c->n_constraints, err))) return rc;
    if ((rc = cuzk_binw_end(bw, err))) return rc;

    if ((rc = cuzk_binw_begin(bw, R1CS_SEC_CONSTRAINTS, err))) return rc;
    for (uint32_t i = 0; i < c->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            uint32_t k = c->row_start[m][i], end = c->row_start[m][i + 1];
            if ((rc = cuzk_binw_write_u32(bw, end - k, err))) return rc;
            while (k < end) {
                uint32_t n = end - k < R1CS_CHUNK_TERMS ? end - k : R1CS_CHUNK_TERMS;
                for (uint32_t j = 0; j < n; j++) {
                    uint8_t *b = buf + (size_t)j * R1CS_TERM_BYTES;
                    cuzk_put_le32(b, c->terms[m][k + j].wire);
                    memcpy(b + 4, c->terms[m][k + j].coef, R1CS_N8);
                }
                if ((rc = cuzk_binw_write(bw, buf, (size_t)n * R1CS_TERM_BYTES, err))) return rc;
                k += n;
            }
        }
    }
    if ((rc = cuzk_binw_end(bw, err))) return rc;

    if ((rc = cuzk_binw_begin(bw, R1CS_SEC_LABELS, err))) return rc;
    for (uint32_t w = 0; w < c->n_wires; w++)
        if ((rc = cuzk_binw_write_u64(bw, c->wire_to_label ? c->wire_to_label[w] : w, err))) return rc;
    return cuzk_binw_end(bw, err);
}

int cuzk_r1cs_write(const cuzk_r1cs *c, const char *path, cuzk_error *err)
{
    int rc = r1cs_check(c, path, err);
    if (rc) return rc;
    uint8_t *buf = malloc((size_t)R1CS_CHUNK_TERMS * R1CS_TERM_BYTES);
    if (!buf) return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for a write buffer", path);
    cuzk_binwriter bw;
    rc = cuzk_binw_open(&bw, path, "r1cs", R1CS_VERSION, err);
    if (!rc) {
        rc = r1cs_write_body(c, &bw, buf, err);
        if (rc)
            cuzk_binw_abort(&bw);
        else
            rc = cuzk_binw_finish(&bw, err);
    }
    free(buf);
    return rc;
}

void cuzk_r1cs_free(cuzk_r1cs *c)
{
    for (int m = 0; m < 3; m++) {
        free(c->row_start[m]);
        free(c->terms[m]);
    }
    free(c->wire_to_label);
    memset(c, 0, sizeof *c);
}

void cuzk_r1cs_free_ctx(void *c)
{
    cuzk_r1cs_free(c);
}
