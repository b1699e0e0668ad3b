/* A .params written as a setup makes its points (contracts in
 * params_stream.h). */
#include "filecoin/params_stream.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/err.h"

enum { SEC_IC, SEC_H, SEC_L, SEC_A, SEC_B_G1, SEC_B_G2, SECTIONS };

static const char *const section_names[SECTIONS] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

static int write_at(fil_params_stream *s, const void *data, size_t len, uint64_t at, cuzk_error *err)
{
    const int fd = fileno(s->out.f);
    for (size_t done = 0; done < len;) {
        ssize_t n = pwrite(fd, (const uint8_t *)data + done, len - done, (off_t)(at + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return cuzk_fail(err, CUZK_ERR_IO, "%s: write error at byte %" PRIu64 ": %s", s->path, at + done,
                             n < 0 ? strerror(errno) : "nothing written");
        done += (size_t)n;
    }
    return CUZK_OK;
}

static uint64_t section_count(const fil_params_stream *s, int sec)
{
    switch (sec) {
    case SEC_IC: return s->inputs;
    case SEC_H: return s->domain - 1;
    case SEC_L: return s->a_aux->bit_len;
    case SEC_A: return s->inputs + s->a_aux->popcount;
    default: return s->b_inp->popcount + s->b_aux->popcount;
    }
}

int fil_params_stream_open(fil_params_stream *s, const char *path, size_t inputs, size_t domain,
                           const fil_density *a_aux, const fil_density *b_inp, const fil_density *b_aux,
                           size_t round, int nthreads, cuzk_error *err)
{
    memset(s, 0, sizeof *s);
    *s = (fil_params_stream){.path = path, .nthreads = nthreads, .inputs = inputs, .domain = domain,
                             .a_aux = a_aux, .b_inp = b_inp, .b_aux = b_aux, .round = round};
    for (int i = 0; i < SECTIONS; i++)
        if (section_count(s, i) > UINT32_MAX)
            return cuzk_fail(err, CUZK_ERR_ARG, "%s: %s would hold %" PRIu64 " points, more than the format's u32",
                             path, section_names[i], section_count(s, i));
    uint64_t at = FIL_VK_FIXED_BYTES + 4;
    for (int i = 0; i < SECTIONS; i++) {
        s->at[i] = at;
        at += section_count(s, i) * (i == SEC_B_G2 ? FIL_G2_BYTES : FIL_G1_BYTES) + 4;
    }
    s->buf = malloc(round * FIL_G2_BYTES);
    s->pick = malloc(round * sizeof *s->pick);
    if (!s->buf || !s->pick) {
        fil_params_stream_abort(s);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a write buffer of %zu points", round);
    }
    int rc = cuzk_outfile_open(&s->out, path, err);
    if (rc) {
        free(s->buf);
        free(s->pick);
        s->buf = NULL;
        s->pick = NULL;
    }
    return rc;
}

/* which of the round's points the section keeps: i (of the setup's array,
 * inputs then aux) when i is an input and inp says so (NULL: all inputs),
 * or an aux whose bit is set */
static size_t pick_of(uint32_t *pick, size_t first, size_t count, size_t inputs, const fil_density *inp,
                      const fil_density *aux)
{
    size_t k = 0;
    for (size_t i = first; i < first + count; i++)
        if (i < inputs ? !inp || fil_density_get(inp, i) : fil_density_get(aux, i - inputs))
            pick[k++] = (uint32_t)(i - first);
    return k;
}

int fil_params_stream_emit(void *ctx, cuzk_setup_array which, size_t first, const void *points, size_t count,
                           cuzk_error *err)
{
    fil_params_stream *s = ctx;
    if (count > s->round)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: a round of %zu points, more than the stream's %zu", s->path, count,
                         s->round);
    int sec;
    size_t kept = count;
    const uint32_t *pick = NULL;
    switch (which) {
    case CUZK_SETUP_A:
        sec = SEC_A;
        kept = pick_of(s->pick, first, count, s->inputs, NULL, s->a_aux);
        pick = s->pick;
        break;
    case CUZK_SETUP_B1:
    case CUZK_SETUP_B2:
        sec = which == CUZK_SETUP_B1 ? SEC_B_G1 : SEC_B_G2;
        kept = pick_of(s->pick, first, count, s->inputs, s->b_inp, s->b_aux);
        pick = s->pick;
        break;
    case CUZK_SETUP_C: sec = SEC_L; break;
    case CUZK_SETUP_H: sec = SEC_H; break;
    default: return cuzk_fail(err, CUZK_ERR_ARG, "%s: no section for setup array %d", s->path, (int)which);
    }
    const int g2 = sec == SEC_B_G2;
    if (s->written[sec] + kept > section_count(s, sec))
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: more points for %s than its %" PRIu64, s->path,
                         section_names[sec], section_count(s, sec));
    if (fil_points_encode(s->buf, points, pick, kept, g2, s->nthreads))
        return sec == SEC_L ? cuzk_fail(err, CUZK_ERR_ARG,
                                        "%s: a wire among aux %zu..%zu is in no constraint: its l point is the "
                                        "identity, which a .params cannot hold", s->path, first, first + count - 1)
                            : cuzk_fail(err, CUZK_ERR_ARG,
                                        "%s: a wire's terms cancel at tau (its %s point is the identity); run "
                                        "setup again", s->path, section_names[sec]);
    const size_t size = g2 ? FIL_G2_BYTES : FIL_G1_BYTES;
    int rc = write_at(s, s->buf, kept * size, s->at[sec] + s->written[sec] * size, err);
    s->written[sec] += kept;
    return rc;
}

static void be32(uint8_t b[4], uint64_t n)
{
    b[0] = (uint8_t)(n >> 24);
    b[1] = (uint8_t)(n >> 16);
    b[2] = (uint8_t)(n >> 8);
    b[3] = (uint8_t)n;
}

int fil_params_stream_finish(fil_params_stream *s, const fil_vk *vk, cuzk_error *err)
{
    int rc = CUZK_OK;
    s->written[SEC_IC] = vk->n_ic;
    for (int i = 0; i < SECTIONS && !rc; i++)
        if (s->written[i] != section_count(s, i))
            rc = cuzk_fail(err, CUZK_ERR_ARG, "%s: %s has %" PRIu64 " of its %" PRIu64 " points", s->path,
                           section_names[i], s->written[i], section_count(s, i));
    const void *hdr[6] = {&vk->alpha_g1, &vk->beta_g1, &vk->beta_g2, &vk->gamma_g2, &vk->delta_g1, &vk->delta_g2};
    static const int g2[6] = {0, 0, 1, 1, 0, 1};
    uint64_t at = 0;
    for (int i = 0; i < 6 && !rc; i++) {
        const size_t size = g2[i] ? FIL_G2_BYTES : FIL_G1_BYTES;
        fil_points_encode(s->buf, hdr[i], NULL, 1, g2[i], 1);
        rc = write_at(s, s->buf, size, at, err);
        at += size;
    }
    if (!rc && fil_points_encode(s->buf, vk->ic, NULL, vk->n_ic, 0, 1))
        rc = cuzk_fail(err, CUZK_ERR_ARG, "%s: ic holds the point at infinity, which the format cannot", s->path);
    rc = rc ? rc : write_at(s, s->buf, (size_t)vk->n_ic * FIL_G1_BYTES, s->at[SEC_IC], err);
    for (int i = 0; i < SECTIONS && !rc; i++) {
        uint8_t b[4];
        be32(b, section_count(s, i));
        rc = write_at(s, b, 4, s->at[i] - 4, err);
    }
    if (rc) {
        fil_params_stream_abort(s);
        return rc;
    }
    rc = cuzk_outfile_commit(&s->out, err);
    free(s->buf);
    free(s->pick);
    memset(s, 0, sizeof *s);
    return rc;
}

void fil_params_stream_abort(fil_params_stream *s)
{
    cuzk_outfile_abort(&s->out);
    free(s->buf);
    free(s->pick);
    memset(s, 0, sizeof *s);
}
