/* Development keys in bellperson's layout (contracts in setup.h). */
#include "filecoin/setup.h"

#include <stdlib.h>
#include <string.h>

#include "filecoin/assignment.h"
#include "filecoin/params_stream.h"
#include "filecoin/prove.h"
#include "groth16/groth16.h"
#include "groth16/groth16_ops.h"
#include "util/err.h"

/* out <- the first `inputs` points of all, then those of the aux variables
 * set in d; -1 when one kept is the identity (its index in *bad) */
#define FILTER_DEFINE(G)                                                                                    \
    static int filter_##G(bls12_381_##G##_affine *out, const bls12_381_##G##_affine *all, size_t inputs,    \
                          const fil_density *inp, const fil_density *aux, size_t *bad)                      \
    {                                                                                                       \
        size_t k = 0;                                                                                       \
        for (size_t i = 0; i < inputs + aux->bit_len; i++) {                                                \
            int keep = i < inputs ? (!inp || fil_density_get(inp, i)) : fil_density_get(aux, i - inputs);   \
            if (!keep)                                                                                      \
                continue;                                                                                   \
            if (bls12_381_##G##_affine_is_inf(&all[i])) {                                                   \
                *bad = i;                                                                                   \
                return -1;                                                                                  \
            }                                                                                               \
            out[k++] = all[i];                                                                              \
        }                                                                                                   \
        return 0;                                                                                           \
    }
FILTER_DEFINE(g1)
FILTER_DEFINE(g2)

/* vk <- z's verifying key; z's ic moves to it */
static void vk_take(fil_vk *vk, cuzk_zkey *z, size_t inputs)
{
    memcpy(&vk->alpha_g1, z->alpha1, sizeof vk->alpha_g1);
    memcpy(&vk->beta_g1, z->beta1, sizeof vk->beta_g1);
    memcpy(&vk->delta_g1, z->delta1, sizeof vk->delta_g1);
    memcpy(&vk->beta_g2, z->beta2, sizeof vk->beta_g2);
    memcpy(&vk->gamma_g2, z->gamma2, sizeof vk->gamma_g2);
    memcpy(&vk->delta_g2, z->delta2, sizeof vk->delta_g2);
    vk->n_ic = (uint32_t)inputs;
    vk->ic = (bls12_381_g1_affine *)z->ic;
    z->ic = NULL;
}

/* the groth16 setup's options for o, on bellman's domain */
static cuzk_setup_options setup_options_of(const fil_setup_options *o)
{
    return (cuzk_setup_options){.nthreads = o ? o->nthreads : 1,
                                .toxic = o ? o->toxic : NULL,
                                .progress = o ? o->progress : NULL,
                                .progress_ctx = o ? o->progress_ctx : NULL,
                                .device_round = o ? o->device_round : 0,
                                .bellman_domain = 1};
}

/* groth16's setup for so, its multiplications on o's backend */
static int run_setup(const cuzk_r1cs *r, const fil_setup_options *o, const cuzk_setup_options *so, cuzk_zkey *z,
                     cuzk_error *err)
{
    cuzk_backend *b = o ? o->backend : NULL;
    return b ? backend_setup(b, r, so, z, err) : cuzk_groth16_setup_with(r, so, z, err);
}

/* The key's densities: a_aux, b_inp, b_aux (fil_densities_of_r1cs) of a
 * BLS12-381 r1cs */
typedef struct {
    fil_density a_aux, b_inp, b_aux;
} key_densities;

static int key_densities_of(const cuzk_r1cs *r, key_densities *d, cuzk_error *err)
{
    if (r->curve != CUZK_CURVE_BLS12_381)
        return cuzk_fail(err, CUZK_ERR_ARG, "Filecoin's keys are for BLS12-381 circuits only");
    return fil_densities_of_r1cs(r, &d->a_aux, &d->b_inp, &d->b_aux, err);
}

static void key_densities_free(key_densities *d)
{
    fil_density_free(&d->a_aux);
    fil_density_free(&d->b_inp);
    fil_density_free(&d->b_aux);
}

int fil_setup(const cuzk_r1cs *r, const fil_setup_options *o, fil_params *p, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    key_densities d;
    int rc = key_densities_of(r, &d, err);
    if (rc)
        return rc;
    const cuzk_setup_options so = setup_options_of(o);
    cuzk_zkey z;
    if ((rc = run_setup(r, o, &so, &z, err)))
        goto out;
    size_t inputs = (size_t)z.n_public + 1, aux = z.n_vars - inputs, bad = 0;
    for (size_t j = 0; j < aux; j++)
        if (bls12_381_g1_affine_is_inf((const bls12_381_g1_affine *)z.c + j)) {
            rc = cuzk_fail(err, CUZK_ERR_ARG,
                           "wire %zu is in no constraint: its l point is the identity, which a .params cannot hold",
                           inputs + j);
            goto out_z;
        }
    vk_take(&p->vk, &z, inputs);
    p->n_l = (uint32_t)aux;
    p->l = (bls12_381_g1_affine *)z.c;
    z.c = NULL;
    p->n_h = z.domain_size - 1;
    p->h = (bls12_381_g1_affine *)z.h;
    z.h = NULL;
    p->n_a = (uint32_t)(inputs + d.a_aux.popcount);
    p->n_b_g1 = p->n_b_g2 = (uint32_t)(d.b_inp.popcount + d.b_aux.popcount);
    p->a = aligned_alloc(64, ((size_t)p->n_a * sizeof *p->a + 63) / 64 * 64 + 64);
    p->b_g1 = aligned_alloc(64, ((size_t)p->n_b_g1 * sizeof *p->b_g1 + 63) / 64 * 64 + 64);
    p->b_g2 = aligned_alloc(64, ((size_t)p->n_b_g2 * sizeof *p->b_g2 + 63) / 64 * 64 + 64);
    if (!p->a || !p->b_g1 || !p->b_g2) {
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for the key's a and b queries");
        goto out_z;
    }
    if (filter_g1(p->a, (const bls12_381_g1_affine *)z.a, inputs, NULL, &d.a_aux, &bad) ||
        filter_g1(p->b_g1, (const bls12_381_g1_affine *)z.b1, inputs, &d.b_inp, &d.b_aux, &bad) ||
        filter_g2(p->b_g2, (const bls12_381_g2_affine *)z.b2, inputs, &d.b_inp, &d.b_aux, &bad))
        rc = cuzk_fail(err, CUZK_ERR_ARG, "wire %zu's terms cancel at tau (its query point is the identity); run setup "
                       "again", bad);
out_z:
    cuzk_zkey_free(&z);
    if (rc)
        fil_params_free(p);
out:
    key_densities_free(&d);
    return rc;
}

int fil_setup_write(cuzk_r1cs *r, const fil_setup_options *o, const char *params_path, const char *vk_path,
                    cuzk_error *err)
{
    key_densities d;
    int rc = key_densities_of(r, &d, err);
    if (rc)
        return rc;
    const size_t inputs = (size_t)r->n_pub_out + r->n_pub_in + 1;
    size_t round = o && o->stream_round ? o->stream_round : (size_t)1 << 22;
    round = round < inputs ? inputs : round; /* the vk's ic goes through the same buffer */
    uint64_t rows = (uint64_t)r->n_constraints + inputs, domain = 1;
    while (domain < rows)
        domain <<= 1;
    fil_params_stream st;
    cuzk_setup_options so = setup_options_of(o);
    so.emit = fil_params_stream_emit;
    so.emit_ctx = &st;
    so.emit_round = round;
    so.r1cs_read = cuzk_r1cs_free_ctx;
    so.r1cs_read_ctx = r;
    cuzk_zkey z;
    if ((rc = fil_params_stream_open(&st, params_path, inputs, (size_t)domain, &d.a_aux, &d.b_inp, &d.b_aux, round,
                                     so.nthreads, err)))
        goto out;
    if ((rc = run_setup(r, o, &so, &z, err))) {
        fil_params_stream_abort(&st);
        goto out;
    }
    fil_vk vk = {0};
    vk_take(&vk, &z, inputs);
    cuzk_zkey_free(&z);
    if (!(rc = fil_params_stream_finish(&st, &vk, err)) && vk_path)
        rc = fil_vk_write(&vk, vk_path, err);
    fil_vk_free(&vk);
out:
    key_densities_free(&d);
    return rc;
}
