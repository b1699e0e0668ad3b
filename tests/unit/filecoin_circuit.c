/* Small circuits of chosen density shapes (contracts in filecoin_circuit.h). */
#include "filecoin_circuit.h"

#include <stdlib.h>
#include <string.h>

#include "ff/field.h"
#include "filecoin/setup.h"
#include "support.h"
#include "util/err.h"
#include "util/random.h"

typedef struct {
    uint32_t wire;
    uint64_t coef; /* small, normal form */
} fc_term;

typedef struct {
    cuzk_r1cs *r;
    bls12_381_fr *val; /* Montgomery, per wire */
    uint32_t row;
} fc_builder;

static void lc_value(const fc_builder *b, const fc_term *t, int n, bls12_381_fr *out)
{
    bls12_381_fr_set_zero(out);
    for (int i = 0; i < n; i++) {
        bls12_381_fr c, p;
        bls12_381_fr_from_u64(&c, t[i].coef);
        bls12_381_fr_mul(&p, &c, &b->val[t[i].wire]);
        bls12_381_fr_add(out, out, &p);
    }
}

static void put_lc(fc_builder *b, int m, const fc_term *t, int n)
{
    cuzk_r1cs *r = b->r;
    uint32_t at = r->row_start[m][b->row];
    for (int i = 0; i < n; i++)
        r->terms[m][at + i] = (cuzk_r1cs_term){t[i].wire, 0, {t[i].coef, 0, 0, 0}};
    r->row_start[m][b->row + 1] = at + (uint32_t)n;
}

/* constraint A * B = C; out (when not UINT32_MAX) is the wire C defines,
 * whose value is set to A * B */
static void constrain(fc_builder *b, const fc_term *a, int na, const fc_term *bb, int nb, const fc_term *c, int nc,
                      uint32_t out)
{
    if (out != UINT32_MAX) {
        bls12_381_fr va, vb;
        lc_value(b, a, na, &va);
        lc_value(b, bb, nb, &vb);
        bls12_381_fr_mul(&b->val[out], &va, &vb);
    }
    put_lc(b, 0, a, na);
    put_lc(b, 1, bb, nb);
    put_lc(b, 2, c, nc);
    b->row++;
}

int fc_build(fc_shape shape, uint32_t n_pub, uint32_t m, uint64_t seed, cuzk_r1cs *r, cuzk_wtns *w)
{
    if (shape == FC_ALL_DENSE && m < 3)
        return -1;
    if (shape == FC_NO_B_AUX && n_pub < 1)
        return -1;
    uint32_t inputs = n_pub + 1, aux = shape == FC_ALL_DENSE ? m - 2 : m, wires = inputs + aux;
    memset(r, 0, sizeof *r);
    memset(w, 0, sizeof *w);
    *r = (cuzk_r1cs){.curve = CUZK_CURVE_BLS12_381, .n_wires = wires, .n_pub_in = n_pub, .n_labels = wires,
                     .n_constraints = m};
    const uint32_t max_terms = 2 * m + inputs + 2;
    for (int k = 0; k < 3; k++) {
        r->row_start[k] = calloc(m + 1, sizeof *r->row_start[k]);
        r->terms[k] = calloc(max_terms, sizeof *r->terms[k]);
    }
    fc_builder b = {r, calloc(wires, sizeof(bls12_381_fr)), 0};
    w->values = aligned_alloc(64, ((size_t)wires * 32 + 63) / 64 * 64);
    if (!b.val || !w->values || !r->row_start[0] || !r->row_start[1] || !r->row_start[2] || !r->terms[0] ||
        !r->terms[1] || !r->terms[2]) {
        free(b.val);
        cuzk_r1cs_free(r);
        cuzk_wtns_free(w);
        return -1;
    }
    bls12_381_fr_set_one(&b.val[0]);
    for (uint32_t i = 1; i < inputs; i++)
        bls12_381_fr_from_u64(&b.val[i], cuzk_splitmix64(&seed));
    const uint32_t ONE = 0;
    for (uint32_t i = 0; i < aux; i++) {
        uint32_t out = inputs + i, prev = out - 1;
        fc_term c = {out, 1};
        if (shape == FC_ALL_DENSE) {
            /* z_0 = (ONE + x_1 + .. + x_k)^2, z_i = (z_(i-1) + ONE)^2 */
            fc_term s[inputs];
            int n = 0;
            if (i == 0)
                for (uint32_t k = 0; k < inputs; k++)
                    s[n++] = (fc_term){k, 1 + k};
            else {
                s[n++] = (fc_term){ONE, 1};
                s[n++] = (fc_term){prev, 1};
            }
            constrain(&b, s, n, s, n, &c, 1, out);
        } else {
            uint32_t x = (uint32_t)(cuzk_splitmix64(&seed) % out), y = (uint32_t)(cuzk_splitmix64(&seed) % out);
            fc_term a[2] = {{x < y ? x : y, 1 + cuzk_splitmix64(&seed) % 1000}, {x < y ? y : x, 3}};
            int na = x == y ? 1 : 2;
            fc_term v = shape == FC_NO_B_AUX ? (fc_term){(uint32_t)(cuzk_splitmix64(&seed) % 2), 1}
                                             : (fc_term){(uint32_t)(cuzk_splitmix64(&seed) % out), 1};
            constrain(&b, a, na, &v, 1, &c, 1, out);
        }
    }
    if (shape == FC_ALL_DENSE) { /* the last wire into A and B: z * ONE = z, ONE * z = z */
        fc_term z = {wires - 1, 1}, one = {ONE, 1};
        constrain(&b, &z, 1, &one, 1, &z, 1, UINT32_MAX);
        constrain(&b, &one, 1, &z, 1, &z, 1, UINT32_MAX);
    }
    w->curve = CUZK_CURVE_BLS12_381;
    w->n_witness = wires;
    for (uint32_t i = 0; i < wires; i++)
        bls12_381_fr_from_mont((bls12_381_fr *)(w->values + 4 * (size_t)i), &b.val[i]);
    free(b.val);
    return 0;
}

int fc_case_make(fc_case *c, fc_shape shape, uint32_t n_pub, uint32_t m, uint64_t seed, int nthreads,
                 cuzk_error *err)
{
    memset(c, 0, sizeof *c);
    if (fc_build(shape, n_pub, m, seed, &c->r, &c->w))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "no circuit of %u constraints of that shape", m), -1;
    fil_setup_options o = {.nthreads = nthreads, .toxic = test_toxic};
    if (fil_setup(&c->r, &o, &c->p, err) || fil_assignment_from_r1cs(&c->as, &c->r, &c->w, nthreads, err)) {
        fc_case_free(c);
        return -1;
    }
    return 0;
}

void fc_case_free(fc_case *c)
{
    fil_assignment_free(&c->as);
    fil_params_free(&c->p);
    cuzk_wtns_free(&c->w);
    cuzk_r1cs_free(&c->r);
}

cuzk_assignment fc_abi_of(const fil_assignment *x)
{
    return (cuzk_assignment){x->a_aux.bits, x->a_aux.bit_len, x->a_aux.popcount,
                             x->b_inp.bits, x->b_inp.bit_len, x->b_inp.popcount,
                             x->b_aux.bits, x->b_aux.bit_len, x->b_aux.popcount,
                             (const cuzk_blst_fr *)x->a, (const cuzk_blst_fr *)x->b, (const cuzk_blst_fr *)x->c,
                             x->abc_size,
                             (const cuzk_blst_fr *)x->inputs, x->n_inputs,
                             (const cuzk_blst_fr *)x->aux, x->n_aux};
}
