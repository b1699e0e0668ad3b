/* Section 10 of a .zkey: reading and writing the contributions (mpc.h). */
#include "ceremony/mpc.h"

#include <stdlib.h>
#include <string.h>

#include "codec/binfile.h"
#include "util/err.h"

enum { PARAM_NAME = 1, PARAM_ITERATIONS = 2, PARAM_BEACON = 3, NAME_WRITTEN_MAX = 64 };

int cuzk_mpc_read_params(cuzk_bin_reader *r, cuzk_mpc_contribution *c, uint32_t index, cuzk_error *err)
{
    uint32_t len;
    int rc = cuzk_bin_read_u32(r, &len, "parameters' length", err);
    if (rc) return rc;
    if (len > cuzk_bin_left(r))
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: contribution %u's parameters (%u bytes) pass the section's end",
                         r->bf->path, index + 1, len);
    uint8_t buf[1024];
    if (len > sizeof buf)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: contribution %u's parameters are %u bytes long", r->bf->path,
                         index + 1, len);
    if ((rc = cuzk_bin_read(r, buf, len, "parameters", err))) return rc;
    unsigned last = 0;
    for (uint32_t at = 0; at < len;) {
        unsigned tag = buf[at++];
        if (tag <= last || tag > PARAM_BEACON || at >= len)
            return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: contribution %u: parameter %u %s", r->bf->path, index + 1,
                             tag, tag <= last ? "out of order" : tag > PARAM_BEACON ? "unknown" : "without its value");
        last = tag;
        unsigned v = buf[at++];
        if (tag == PARAM_ITERATIONS) {
            c->num_iterations_exp = (uint8_t)v;
            continue;
        }
        if (v > len - at)
            return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: contribution %u: parameter %u passes its end", r->bf->path,
                             index + 1, tag);
        if (tag == PARAM_NAME) {
            memcpy(c->name, buf + at, v);
            c->name[v] = 0;
            c->has_name = 1;
        } else {
            memcpy(c->beacon_hash, buf + at, v);
            c->beacon_len = (uint8_t)v;
        }
        at += v;
    }
    return CUZK_OK;
}

static int read_one(cuzk_bin_reader *r, cuzk_mpc *m, cuzk_mpc_contribution *c, uint32_t index, cuzk_error *err)
{
    int rc = cuzk_bin_read(r, c->delta_after, m->g1_bytes, "deltaAfter", err);
    if (!rc) rc = cuzk_bin_read(r, c->g1_s, m->g1_bytes, "g1_s", err);
    if (!rc) rc = cuzk_bin_read(r, c->g1_sx, m->g1_bytes, "g1_sx", err);
    if (!rc) rc = cuzk_bin_read(r, c->g2_spx, m->g2_bytes, "g2_spx", err);
    if (!rc) rc = cuzk_bin_read(r, c->transcript, sizeof c->transcript, "transcript", err);
    if (!rc) rc = cuzk_bin_read_u32(r, &c->type, "type", err);
    if (!rc && c->type > CUZK_MPC_BEACON)
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: contribution %u has type %u (0 or 1)", r->bf->path, index + 1,
                       c->type);
    if (!rc) rc = cuzk_mpc_read_params(r, c, index, err);
    return rc;
}

int cuzk_mpc_read(cuzk_mpc *m, const char *path, uint32_t n8q, cuzk_error *err)
{
    memset(m, 0, sizeof *m);
    m->g1_bytes = 2 * n8q;
    m->g2_bytes = 4 * n8q;
    cuzk_binfile bf;
    int rc = cuzk_bin_open(&bf, path, "zkey", 1, err);
    if (rc) return rc;
    cuzk_bin_reader r;
    uint32_t n = 0;
    if (!(rc = cuzk_bin_begin(&bf, 10, "contributions", &r, err)) &&
        !(rc = cuzk_bin_read(&r, m->cs_hash, sizeof m->cs_hash, "circuit hash", err)))
        rc = cuzk_bin_read_u32(&r, &n, "contribution count", err);
    /* each takes at least its points, transcript, type and length */
    uint64_t least = 3 * (uint64_t)m->g1_bytes + m->g2_bytes + 64 + 8;
    if (!rc && n > cuzk_bin_left(&r) / least)
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: %u contributions cannot fit in section 10", path, n);
    for (uint32_t i = 0; !rc && i < n; i++) {
        cuzk_mpc_contribution *c = cuzk_mpc_push(m);
        rc = c ? read_one(&r, m, c, i, err) : cuzk_fail(err, CUZK_ERR_NOMEM, "no memory for the contributions");
    }
    if (!rc) rc = cuzk_bin_end(&r, err);
    cuzk_bin_close(&bf);
    if (rc) cuzk_mpc_free(m);
    return rc;
}

cuzk_mpc_contribution *cuzk_mpc_push(cuzk_mpc *m)
{
    cuzk_mpc_contribution *c = realloc(m->c, (m->n + 1) * sizeof *c);
    if (!c) return NULL;
    m->c = c;
    memset(&c[m->n], 0, sizeof *c);
    return &c[m->n++];
}

size_t cuzk_mpc_encode_params(const cuzk_mpc_contribution *c, uint8_t *out)
{
    size_t at = 0;
    if (c->has_name && c->name[0]) {
        size_t len = strlen(c->name);
        if (len > NAME_WRITTEN_MAX) len = NAME_WRITTEN_MAX;
        out[at++] = PARAM_NAME;
        out[at++] = (uint8_t)len;
        memcpy(out + at, c->name, len);
        at += len;
    }
    if (c->type == CUZK_MPC_BEACON) {
        out[at++] = PARAM_ITERATIONS;
        out[at++] = c->num_iterations_exp;
        out[at++] = PARAM_BEACON;
        out[at++] = c->beacon_len;
        memcpy(out + at, c->beacon_hash, c->beacon_len);
        at += c->beacon_len;
    }
    return at;
}

uint8_t *cuzk_mpc_encode(const cuzk_mpc *m, size_t *len)
{
    size_t per = 3 * (size_t)m->g1_bytes + m->g2_bytes + 64 + 8 + 2 + NAME_WRITTEN_MAX + 4 + CUZK_MPC_BEACON_MAX;
    uint8_t *out = malloc(64 + 4 + m->n * per);
    if (!out) return NULL;
    size_t at = 0;
    memcpy(out, m->cs_hash, 64);
    cuzk_put_le32(out + 64, m->n);
    at = 68;
    for (uint32_t i = 0; i < m->n; i++) {
        const cuzk_mpc_contribution *c = &m->c[i];
        const uint8_t *pts[4] = {c->delta_after, c->g1_s, c->g1_sx, c->g2_spx};
        for (int k = 0; k < 4; k++) {
            size_t b = k < 3 ? m->g1_bytes : m->g2_bytes;
            memcpy(out + at, pts[k], b);
            at += b;
        }
        memcpy(out + at, c->transcript, 64);
        at += 64;
        cuzk_put_le32(out + at, c->type);
        size_t plen = cuzk_mpc_encode_params(c, out + at + 8);
        cuzk_put_le32(out + at + 4, (uint32_t)plen);
        at += 8 + plen;
    }
    *len = at;
    return out;
}

void cuzk_mpc_free(cuzk_mpc *m)
{
    free(m->c);
    memset(m, 0, sizeof *m);
}
