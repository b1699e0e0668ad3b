/* Assignments from circom's r1cs and witness (contracts in assignment.h). */
#include "filecoin/assignment.h"

#include <stdlib.h>
#include <string.h>

#include "groth16/r1cs_eval.h"
#include "util/err.h"
#include "util/threads.h"

static int density_new(fil_density *d, size_t bit_len)
{
    d->bit_len = bit_len;
    d->popcount = 0;
    d->bits = calloc((bit_len + 63) / 64 + 1, sizeof *d->bits);
    return d->bits ? 0 : -1;
}

void fil_density_free(fil_density *d)
{
    free(d->bits);
    memset(d, 0, sizeof *d);
}

/* d's bit wire - first for every term of matrix m on a wire in [first, first + bit_len) */
static void density_mark(fil_density *d, const cuzk_r1cs *r, int m, uint32_t first)
{
    size_t terms = r->row_start[m][r->n_constraints];
    for (size_t k = 0; k < terms; k++) {
        uint32_t wire = r->terms[m][k].wire;
        if (wire >= first && wire - first < d->bit_len)
            d->bits[(wire - first) / 64] |= 1ULL << ((wire - first) % 64);
    }
    for (size_t i = 0; i < (d->bit_len + 63) / 64; i++)
        d->popcount += (size_t)__builtin_popcountll(d->bits[i]);
}

int fil_densities_of_r1cs(const cuzk_r1cs *r, fil_density *a_aux, fil_density *b_inp, fil_density *b_aux,
                          cuzk_error *err)
{
    uint32_t inputs = r->n_pub_out + r->n_pub_in + 1, aux = r->n_wires - inputs;
    memset(a_aux, 0, sizeof *a_aux);
    memset(b_inp, 0, sizeof *b_inp);
    memset(b_aux, 0, sizeof *b_aux);
    if (density_new(a_aux, aux) || density_new(b_inp, inputs) || density_new(b_aux, aux)) {
        fil_density_free(a_aux);
        fil_density_free(b_inp);
        fil_density_free(b_aux);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for the density bitmaps of %u wires", r->n_wires);
    }
    density_mark(a_aux, r, 0, inputs);
    density_mark(b_inp, r, 1, 0);
    density_mark(b_aux, r, 1, inputs);
    return CUZK_OK;
}

void fil_assignment_free(fil_assignment *as)
{
    fil_density_free(&as->a_aux);
    fil_density_free(&as->b_inp);
    fil_density_free(&as->b_aux);
    free(as->a);
    free(as->b);
    free(as->c);
    free(as->inputs);
    free(as->aux);
    memset(as, 0, sizeof *as);
}

typedef struct {
    const cuzk_r1cs *r;
    const cuzk_wtns *w;
    fil_assignment *as;
    uint32_t *unsatisfied; /* per thread: the first failing row of its range, or UINT32_MAX */
} eval_job;

/* rows [begin, end): the r1cs rows by their linear combinations, then the
 * input rows (a = input, b = c = 0); Montgomery form */
static void eval_range(void *vctx, size_t begin, size_t end, int tid)
{
    const eval_job *j = vctx;
    const cuzk_r1cs *r = j->r;
    fr_any f = fr_any_of(CUZK_CURVE_BLS12_381);
    for (size_t row = begin; row < end; row++) {
        bls12_381_fr v[3];
        if (row < r->n_constraints) {
            for (int m = 0; m < 3; m++)
                cuzk_lc_eval(&f, v[m].l, r->terms[m], r->row_start[m][row], r->row_start[m][row + 1], j->w->values);
        } else {
            memcpy(v[0].l, j->w->values + 4 * (row - r->n_constraints), sizeof v[0].l);
            memset(&v[1], 0, 2 * sizeof v[1]);
        }
        bls12_381_fr *dst[3] = {&j->as->a[row], &j->as->b[row], &j->as->c[row]};
        for (int m = 0; m < 3; m++)
            bls12_381_fr_to_mont(dst[m], &v[m]);
        bls12_381_fr ab;
        bls12_381_fr_mul(&ab, dst[0], dst[1]);
        if (!bls12_381_fr_eq(&ab, dst[2]) && j->unsatisfied[tid] == UINT32_MAX)
            j->unsatisfied[tid] = (uint32_t)row;
    }
}

static void to_mont_range(void *vctx, size_t begin, size_t end, int tid)
{
    (void)tid;
    const void *const *x = vctx; /* {out, in} */
    bls12_381_fr *out = (bls12_381_fr *)x[0];
    const bls12_381_fr *in = x[1];
    for (size_t i = begin; i < end; i++)
        bls12_381_fr_to_mont(&out[i], &in[i]);
}

int fil_assignment_from_r1cs(fil_assignment *as, const cuzk_r1cs *r, const cuzk_wtns *w, int nthreads,
                             cuzk_error *err)
{
    memset(as, 0, sizeof *as);
    if (r->curve != CUZK_CURVE_BLS12_381)
        return cuzk_fail(err, CUZK_ERR_ARG, "Filecoin's prover is for BLS12-381 circuits only");
    if (w->curve != r->curve || w->n_witness != r->n_wires)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the witness has %u values (of %s) but the r1cs has %u wires",
                         w->n_witness, w->curve == r->curve ? "the same curve" : "another curve", r->n_wires);
    if (!cuzk_wtns_starts_with_one(w))
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "witness value 0 must be 1 (the input ONE)");
    if (nthreads < 1)
        nthreads = 1;
    size_t inputs = (size_t)r->n_pub_out + r->n_pub_in + 1, rows = r->n_constraints + inputs;
    as->abc_size = rows;
    as->n_inputs = inputs;
    as->n_aux = r->n_wires - inputs;
    int rc = fil_densities_of_r1cs(r, &as->a_aux, &as->b_inp, &as->b_aux, err);
    if (rc)
        return rc;
    as->a = malloc(rows * sizeof *as->a);
    as->b = malloc(rows * sizeof *as->b);
    as->c = malloc(rows * sizeof *as->c);
    as->inputs = malloc(inputs * sizeof *as->inputs);
    as->aux = malloc((as->n_aux ? as->n_aux : 1) * sizeof *as->aux);
    if (!as->a || !as->b || !as->c || !as->inputs || !as->aux) {
        fil_assignment_free(as);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for an assignment of %zu rows", rows);
    }
    uint32_t unsatisfied[nthreads];
    for (int t = 0; t < nthreads; t++)
        unsatisfied[t] = UINT32_MAX;
    cuzk_parallel_for(nthreads, rows, eval_range, &(eval_job){r, w, as, unsatisfied});
    uint32_t first = UINT32_MAX;
    for (int t = 0; t < nthreads; t++)
        first = unsatisfied[t] < first ? unsatisfied[t] : first;
    if (first != UINT32_MAX) {
        fil_assignment_free(as);
        return cuzk_fail(err, CUZK_ERR_UNSATISFIED, "the witness does not satisfy constraint %u (a b != c)", first);
    }
    const bls12_381_fr *values = (const bls12_381_fr *)w->values;
    cuzk_parallel_for(nthreads, inputs, to_mont_range, (const void *[2]){as->inputs, values});
    cuzk_parallel_for(nthreads, as->n_aux, to_mont_range, (const void *[2]){as->aux, values + inputs});
    return CUZK_OK;
}
