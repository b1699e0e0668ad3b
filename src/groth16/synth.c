#include "groth16/synth.h"

#include <stdlib.h>
#include <string.h>

#include "groth16/r1cs_eval.h"
#include "util/err.h"
#include "util/random.h"

/* A uniform-ish element below the modulus: rejection on the masked top. */
static void random_element(uint64_t out[4], const uint64_t *m, uint64_t *state)
{
    uint64_t mask = ~0ULL >> __builtin_clzll(m[3]);
    do {
        for (int i = 0; i < 4; i++)
            out[i] = cuzk_splitmix64(state);
        out[3] &= mask;
    } while (mont_geq(out, m, 4));
}

/* +1, -1 (m - 1) or a full element: real circuits are dominated by +-1. */
static void random_coef(uint64_t out[4], const uint64_t *m, uint64_t *state)
{
    uint64_t pick = cuzk_splitmix64(state) % 4;
    if (pick == 0) {
        random_element(out, m, state);
        return;
    }
    memset(out, 0, 4 * sizeof *out);
    out[0] = 1;
    if (pick == 1)
        mont_sub_raw(out, m, out, 4);
}

typedef struct {
    const cuzk_synth_params *p;
    fr_any f;
    uint64_t state;
    uint32_t first_input; /* lowest wire a gate may read: 1 in zero mode */
} synth_ctx;

/* Appends a linear combination of nterms distinct-ish earlier wires < limit. */
static void add_lc(synth_ctx *x, cuzk_r1cs *r, int matrix, uint32_t *at, uint32_t nterms, uint32_t limit)
{
    for (uint32_t k = 0; k < nterms; k++) {
        cuzk_r1cs_term *t = &r->terms[matrix][(*at)++];
        t->wire = x->first_input + (uint32_t)(cuzk_splitmix64(&x->state) % (limit - x->first_input));
        t->pad = 0;
        random_coef(t->coef, x->f.modulus, &x->state);
    }
}

static int alloc_system(cuzk_r1cs *r, uint32_t m, uint32_t max_terms)
{
    for (int k = 0; k < 3; k++) {
        r->row_start[k] = calloc((size_t)m + 1, sizeof *r->row_start[k]);
        r->terms[k] = calloc((size_t)m * max_terms + 1, sizeof *r->terms[k]);
        if (!r->row_start[k] || !r->terms[k])
            return -1;
    }
    return 0;
}

int cuzk_circuit_synth(const cuzk_synth_params *p, cuzk_r1cs *r, cuzk_wtns *w, cuzk_error *err)
{
    memset(r, 0, sizeof *r);
    memset(w, 0, sizeof *w);
    uint32_t inputs = 1 + p->n_public + CUZK_SYNTH_PRIVATE_INPUTS;
    if (p->n_constraints == 0 || (uint64_t)inputs + p->n_constraints > UINT32_MAX / 2)
        return cuzk_fail(err, CUZK_ERR_ARG, "a synthetic circuit needs 1 to 2^31 constraints, not %u",
                         p->n_constraints);
    synth_ctx x = {p, fr_any_of(p->curve), p->seed ^ 0x6375706b73796e74ULL, p->zero_witness ? 1 : 0};
    uint32_t n_wires = inputs + p->n_constraints, m = p->n_constraints;
    *r = (cuzk_r1cs){.curve = p->curve, .n_wires = n_wires, .n_pub_in = p->n_public,
                     .n_prv_in = CUZK_SYNTH_PRIVATE_INPUTS, .n_labels = n_wires, .n_constraints = m};
    *w = (cuzk_wtns){.curve = p->curve, .n_witness = n_wires};
    w->values = aligned_alloc(64, ((size_t)n_wires * 32 + 63) / 64 * 64);
    if (!w->values || alloc_system(r, m, 2)) {
        cuzk_r1cs_free(r);
        cuzk_wtns_free(w);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a circuit of %u constraints", m);
    }
    memset(w->values, 0, (size_t)n_wires * 32);
    w->values[0] = 1;
    for (uint32_t i = 1; i < inputs && !p->zero_witness; i++)
        random_element(w->values + 4 * (size_t)i, x.f.modulus, &x.state);

    uint32_t at[3] = {0, 0, 0};
    for (uint32_t i = 0; i < m; i++) {
        uint32_t out = inputs + i;
        add_lc(&x, r, 0, &at[0], 1 + (uint32_t)(cuzk_splitmix64(&x.state) & 1), out);
        add_lc(&x, r, 1, &at[1], 1 + (uint32_t)(cuzk_splitmix64(&x.state) & 1), out);
        cuzk_r1cs_term *c = &r->terms[2][at[2]++];
        *c = (cuzk_r1cs_term){.wire = out, .coef = {1, 0, 0, 0}};
        for (int k = 0; k < 3; k++)
            r->row_start[k][i + 1] = at[k];
        uint64_t a[4], b[4];
        cuzk_lc_eval(&x.f, a, r->terms[0], r->row_start[0][i], at[0], w->values);
        cuzk_lc_eval(&x.f, b, r->terms[1], r->row_start[1][i], at[1], w->values);
        fr_any_mul_normal(&x.f, w->values + 4 * (size_t)out, a, b);
    }
    return CUZK_OK;
}
