/* The .ptau reader: header and section table (ptau.h). */
#include "ceremony/ptau.h"

#include <stdlib.h>
#include <string.h>

#include "codec/curve_id.h"
#include "util/err.h"

/* The largest power a file of 2^64 bytes could hold; larger claims are
 * refused before any size is computed from them. */
enum { PTAU_MAX_POWER = 40 };

static int read_header(cuzk_ptau *p, cuzk_error *err)
{
    cuzk_bin_reader r;
    int rc = cuzk_bin_begin(&p->bf, PTAU_SEC_HEADER, "header", &r, err);
    if (!rc) rc = cuzk_bin_read_prime(&r, 1, "q", &p->n8q, &p->curve, err);
    if (!rc) rc = cuzk_bin_read_u32(&r, &p->power, "power", err);
    if (!rc) rc = cuzk_bin_read_u32(&r, &p->ceremony_power, "ceremonyPower", err);
    if (!rc) rc = cuzk_bin_end(&r, err);
    if (rc) return rc;
    if (p->power < 1 || p->power > PTAU_MAX_POWER)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: power %u out of range 1..%d", p->bf.path, p->power,
                         PTAU_MAX_POWER);
    p->g1_bytes = 2 * p->n8q;
    p->g2_bytes = 4 * p->n8q;
    return CUZK_OK;
}

/* Section id must be there once with exactly count points of bytes each. */
static int expect_points(cuzk_ptau *p, uint32_t id, const char *what, uint64_t count, uint32_t bytes,
                         cuzk_error *err)
{
    cuzk_bin_reader r;
    int rc = cuzk_bin_begin(&p->bf, id, what, &r, err);
    if (rc) return rc;
    char why[96];
    snprintf(why, sizeof why, "%llu points of %u bytes, power %u", (unsigned long long)count, bytes, p->power);
    if ((rc = cuzk_bin_expect_size(&r, count * bytes, why, err))) return rc;
    p->sec[id] = cuzk_bin_mapped_at(&r, 1);
    return CUZK_OK;
}

static int check_sections(cuzk_ptau *p, cuzk_error *err)
{
    uint64_t n = (uint64_t)1 << p->power;
    uint32_t g1 = p->g1_bytes, g2 = p->g2_bytes;
    int rc = expect_points(p, PTAU_SEC_TAU_G1, "tau G1", 2 * n - 1, g1, err);
    if (!rc) rc = expect_points(p, PTAU_SEC_TAU_G2, "tau G2", n, g2, err);
    if (!rc) rc = expect_points(p, PTAU_SEC_ALPHA_TAU_G1, "alpha tau G1", n, g1, err);
    if (!rc) rc = expect_points(p, PTAU_SEC_BETA_TAU_G1, "beta tau G1", n, g1, err);
    if (!rc) rc = expect_points(p, PTAU_SEC_BETA_G2, "beta G2", 1, g2, err);
    if (rc) return rc;
    cuzk_bin_reader r;
    if ((rc = cuzk_bin_begin(&p->bf, PTAU_SEC_CONTRIBUTIONS, "contributions", &r, err))) return rc;
    p->sec[PTAU_SEC_CONTRIBUTIONS] = cuzk_bin_mapped_at(&r, 1);
    p->prepared = cuzk_bin_count(&p->bf, PTAU_SEC_LAGRANGE_TAU_G1) > 0;
    if (!p->prepared) return CUZK_OK;
    uint64_t all = 2 * n - 1; /* 2^k points for each k = 0..power, and tau G1's for power + 1 too */
    rc = expect_points(p, PTAU_SEC_LAGRANGE_TAU_G1, "Lagrange tau G1", 2 * all + 1, g1, err);
    if (!rc) rc = expect_points(p, PTAU_SEC_LAGRANGE_TAU_G2, "Lagrange tau G2", all, g2, err);
    if (!rc) rc = expect_points(p, PTAU_SEC_LAGRANGE_ALPHA_G1, "Lagrange alpha tau G1", all, g1, err);
    if (!rc) rc = expect_points(p, PTAU_SEC_LAGRANGE_BETA_G1, "Lagrange beta tau G1", all, g1, err);
    return rc;
}

int cuzk_ptau_open(cuzk_ptau *p, const char *path, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    int rc = cuzk_bin_open(&p->bf, path, "ptau", 1, err);
    if (rc) return rc;
    if ((rc = cuzk_bin_map(&p->bf, err)) || (rc = read_header(p, err)) || (rc = check_sections(p, err)))
        cuzk_ptau_close(p);
    return rc;
}

void cuzk_ptau_close(cuzk_ptau *p)
{
    cuzk_bin_close(&p->bf);
    memset(p, 0, sizeof *p);
}

/* the fields of one contribution in file order: where each lies and its size */
static void contribution_fields(cuzk_ptau_contribution *c, uint32_t g1, uint32_t g2, uint8_t *field[], uint32_t size[])
{
    uint8_t *f[] = {c->tau_g1,    c->tau_g2,    c->alpha_g1,  c->beta_g1,   c->beta_g2,   c->key_g1[0], c->key_g1[1],
                    c->key_g1[2], c->key_g1[3], c->key_g1[4], c->key_g1[5], c->key_g2[0], c->key_g2[1], c->key_g2[2],
                    c->partial_hash, c->next_challenge};
    uint32_t s[] = {g1, g2, g1, g1, g2, g1, g1, g1, g1, g1, g1, g2, g2, g2, 216, 64};
    memcpy(field, f, sizeof f);
    memcpy(size, s, sizeof s);
}
enum { CONTRIBUTION_FIELDS = 16 };

int cuzk_ptau_read_contributions(cuzk_ptau *p, cuzk_ptau_contribution **out, uint32_t *n, cuzk_error *err)
{
    *out = NULL;
    *n = 0;
    cuzk_bin_reader r;
    uint32_t count;
    int rc = cuzk_bin_begin(&p->bf, PTAU_SEC_CONTRIBUTIONS, "contributions", &r, err);
    if (!rc) rc = cuzk_bin_read_u32(&r, &count, "contribution count", err);
    if (rc) return rc;
    uint64_t least = 8 * (uint64_t)p->g1_bytes + 5 * (uint64_t)p->g2_bytes + 216 + 64 + 8;
    if (count > cuzk_bin_left(&r) / least)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: %u contributions cannot fit in section 7", p->bf.path, count);
    cuzk_ptau_contribution *c = calloc(count ? count : 1, sizeof *c);
    if (!c) return cuzk_fail(err, CUZK_ERR_NOMEM, "no memory for %u contributions", count);
    for (uint32_t i = 0; !rc && i < count; i++) {
        uint8_t *field[CONTRIBUTION_FIELDS];
        uint32_t size[CONTRIBUTION_FIELDS];
        contribution_fields(&c[i], p->g1_bytes, p->g2_bytes, field, size);
        for (int f = 0; !rc && f < CONTRIBUTION_FIELDS; f++) rc = cuzk_bin_read(&r, field[f], size[f], "contribution", err);
        if (!rc) rc = cuzk_bin_read_u32(&r, &c[i].info.type, "type", err);
        if (!rc) rc = cuzk_mpc_read_params(&r, &c[i].info, i, err);
    }
    if (!rc) rc = cuzk_bin_end(&r, err);
    if (rc) {
        free(c);
        return rc;
    }
    *out = c;
    *n = count;
    return CUZK_OK;
}

uint8_t *cuzk_ptau_encode_contributions(const cuzk_ptau_contribution *c, uint32_t n, uint32_t n8q, size_t *len)
{
    uint32_t g1 = 2 * n8q, g2 = 4 * n8q;
    size_t per = 8 * (size_t)g1 + 5 * (size_t)g2 + 216 + 64 + 8 + CUZK_MPC_PARAMS_MAX;
    uint8_t *out = malloc(4 + n * per), *at = out;
    if (!out) return NULL;
    cuzk_put_le32(at, n);
    at += 4;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *field[CONTRIBUTION_FIELDS];
        uint32_t size[CONTRIBUTION_FIELDS];
        contribution_fields((cuzk_ptau_contribution *)&c[i], g1, g2, field, size);
        for (int f = 0; f < CONTRIBUTION_FIELDS; f++) {
            memcpy(at, field[f], size[f]);
            at += size[f];
        }
        cuzk_put_le32(at, c[i].info.type);
        size_t plen = cuzk_mpc_encode_params(&c[i].info, at + 8);
        cuzk_put_le32(at + 4, (uint32_t)plen);
        at += 8 + plen;
    }
    *len = (size_t)(at - out);
    return out;
}
