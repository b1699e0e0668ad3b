#include "groth16/r1cs_eval.h"

#include <string.h>

#include "codec/curve_id.h"
#include "groth16/groth16.h"
#include "util/err.h"

void cuzk_lc_eval(const fr_any *f, uint64_t out[4], const cuzk_r1cs_term *terms, uint32_t begin, uint32_t end,
                  const uint64_t *w)
{
    memset(out, 0, 4 * sizeof *out);
    for (uint32_t k = begin; k < end; k++) {
        uint64_t t[4];
        fr_any_mul_normal(f, t, terms[k].coef, w + 4 * (size_t)terms[k].wire);
        fr_any_add(f, out, out, t);
    }
}

int cuzk_wtns_starts_with_one(const cuzk_wtns *w)
{
    static const uint64_t one[4] = {1, 0, 0, 0};
    return w->n_witness > 0 && memcmp(w->values, one, sizeof one) == 0;
}

int cuzk_r1cs_check_witness(const cuzk_r1cs *r, const cuzk_wtns *w, cuzk_error *err)
{
    if (r->curve != w->curve)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the witness is over %s but the r1cs is over %s",
                         cuzk_curve_snarkjs_name(w->curve), cuzk_curve_snarkjs_name(r->curve));
    if (w->n_witness != r->n_wires)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the witness has %u values but the r1cs has %u wires",
                         w->n_witness, r->n_wires);
    if (!cuzk_wtns_starts_with_one(w))
        return cuzk_fail(err, CUZK_ERR_UNSATISFIED, "witness value 0 must be 1 (the constant wire)");
    fr_any f = fr_any_of(r->curve);
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        uint64_t v[3][4], ab[4];
        for (int k = 0; k < 3; k++)
            cuzk_lc_eval(&f, v[k], r->terms[k], r->row_start[k][i], r->row_start[k][i + 1], w->values);
        fr_any_mul_normal(&f, ab, v[0], v[1]);
        if (memcmp(ab, v[2], sizeof ab))
            return cuzk_fail(err, CUZK_ERR_UNSATISFIED, "constraint %u (of %u) is not satisfied: A.w * B.w != C.w",
                             i, r->n_constraints);
    }
    return CUZK_OK;
}
