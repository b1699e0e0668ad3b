/* Curve dispatch and input checks shared by both curves. */
#include "groth16/groth16.h"

#include <string.h>

#include "groth16/r1cs_eval.h"
#include "codec/curve_id.h"
#include "groth16/groth16_ops.h"
#include "util/err.h"
#include "util/verify.h"

/* Inputs come from the readers, which know only these curves. */
static const cuzk_groth16_ops *ops_for(cuzk_curve_id curve)
{
#define OPS_ROW_(prefix, PREFIX, snarkjs) [CUZK_CURVE_##PREFIX] = &prefix##_groth16_ops,
    static const cuzk_groth16_ops *const ops[CUZK_N_CURVES] = {CUZK_CURVES(OPS_ROW_)};
    CUZK_VERIFY_CHECK(cuzk_curve_valid(curve));
    return ops[curve];
}

int cuzk_groth16_check_inputs(const cuzk_zkey *z, const cuzk_wtns *w, cuzk_error *err)
{
    if (w->curve != z->curve)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the witness is over %s but the key is over %s",
                         cuzk_curve_snarkjs_name(w->curve), cuzk_curve_snarkjs_name(z->curve));
    if (w->n_witness != z->n_vars)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the witness has %u values but the key expects nVars = %u",
                         w->n_witness, z->n_vars);
    if (w->values && !cuzk_wtns_starts_with_one(w))
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "witness value 0 must be 1 (the constant wire)");
    return CUZK_OK;
}

void cuzk_groth16_public_signals(const cuzk_zkey *z, const cuzk_wtns *w, uint64_t (*pub)[4])
{
    memcpy(pub, w->values + 4, (size_t)z->n_public * sizeof *pub);
}

void cuzk_groth16_synthesize_abc(const cuzk_zkey *z, const cuzk_wtns *w, void *abc, int nthreads)
{
    ops_for(z->curve)->synthesize_abc(z, w, abc, nthreads < 1 ? 1 : nthreads);
}

int cuzk_groth16_prove_abc(const cuzk_zkey *z, const cuzk_wtns *w, void *abc, int nthreads, cuzk_msm_results *m,
                           cuzk_prove_timings *t, cuzk_error *err)
{
    cuzk_prove_timings local;
    memset(&local, 0, sizeof local);
    return ops_for(z->curve)->prove_abc(z, w, abc, nthreads < 1 ? 1 : nthreads, m, t ? t : &local, err);
}

int cuzk_groth16_finish(const cuzk_zkey *z, const cuzk_msm_results *m, cuzk_proof *proof, cuzk_error *err)
{
    if (m->curve != z->curve)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "MSM results over the wrong curve");
    return ops_for(z->curve)->finish(z, m, proof, err);
}

int cuzk_groth16_verify(const cuzk_vk *vk, const uint64_t (*pub)[4], uint32_t n_pub, const cuzk_proof *proof,
                        cuzk_error *err)
{
    if (vk->curve != proof->curve)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the proof is over %s but the verification key is over %s",
                         cuzk_curve_snarkjs_name(proof->curve), cuzk_curve_snarkjs_name(vk->curve));
    return ops_for(vk->curve)->verify(vk, pub, n_pub, proof, err);
}

int cuzk_groth16_verify_own(const cuzk_vk *vk, const uint64_t (*pub)[4], uint32_t n_pub, const cuzk_proof *proof,
                            int witness_checked, cuzk_error *err)
{
    cuzk_error why = {0};
    int rc = cuzk_groth16_verify(vk, pub, n_pub, proof, &why);
    if (!rc)
        return CUZK_OK;
    if (witness_checked)
        return cuzk_fail(err, rc,
                         "the proof does not verify against the key's own verification key (%.200s): the witness "
                         "satisfies the circuit's r1cs, so the proving key is corrupt or is not the r1cs's",
                         why.msg);
    return cuzk_fail(err, rc,
                     "the proof does not verify against the key's own verification key (%.200s): the witness does "
                     "not satisfy the circuit, or the proving key is corrupt; checking the witness against the "
                     "circuit's r1cs tells which (--r1cs, or a circuit registered with its r1cs)",
                     why.msg);
}

int cuzk_groth16_export_vk(const cuzk_zkey *z, cuzk_vk *vk, cuzk_error *err)
{
    return ops_for(z->curve)->export_vk(z, vk, 1, err);
}

int cuzk_groth16_verifying_key(const cuzk_zkey *z, cuzk_vk *vk, cuzk_error *err)
{
    return ops_for(z->curve)->export_vk(z, vk, 0, err);
}

int cuzk_groth16_setup_with(const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z, cuzk_error *err)
{
    static const cuzk_setup_domain bellman = {7, 1};
    return cuzk_groth16_setup_domain(r, o, o->bellman_domain ? &bellman : NULL, z, err);
}

int cuzk_groth16_setup_domain(const cuzk_r1cs *r, const cuzk_setup_options *o, const cuzk_setup_domain *d,
                              cuzk_zkey *z, cuzk_error *err)
{
    if ((uint64_t)r->n_pub_out + r->n_pub_in + 1 > r->n_wires)
        return cuzk_fail(err, CUZK_ERR_ARG, "the r1cs has %u wires, fewer than its public signals + 1",
                         r->n_wires);
    if (o->no_host_points && !o->mul)
        return cuzk_fail(err, CUZK_ERR_ARG, "a setup without host points needs a multiplier that keeps them");
    cuzk_setup_options opts = *o;
    opts.nthreads = o->nthreads < 1 ? 1 : o->nthreads;
    static const cuzk_setup_domain snarkjs = {5, 0};
    return ops_for(r->curve)->setup(r, &opts, d ? d : &snarkjs, z, err);
}

int cuzk_groth16_setup(const cuzk_r1cs *r, int nthreads, cuzk_zkey *z, cuzk_error *err)
{
    return cuzk_groth16_setup_with(r, &(cuzk_setup_options){.nthreads = nthreads}, z, err);
}
