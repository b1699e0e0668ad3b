/* Bellperson's prover on a backend's device (contracts in prove_device.h). */
#include "filecoin/prove_device.h"

#include <stdlib.h>
#include <string.h>

#include "util/err.h"

struct fil_device_key {
    cuzk_backend *backend;
    void *handle;
    const fil_params *params;
    fil_density a_aux, b_inp, b_aux; /* copies: what the key was made for */
};

static int density_copy(fil_density *to, const fil_density *from)
{
    const size_t words = (from->bit_len + 63) / 64;
    to->bit_len = from->bit_len;
    to->popcount = from->popcount;
    to->bits = malloc(words ? words * sizeof *to->bits : 1);
    if (!to->bits)
        return -1;
    memcpy(to->bits, from->bits, words * sizeof *to->bits);
    return 0;
}

static int density_same(const fil_density *a, const fil_density *b)
{
    if (a->bit_len != b->bit_len || a->popcount != b->popcount)
        return 0;
    for (size_t i = 0; i < a->bit_len / 64; i++)
        if (a->bits[i] != b->bits[i])
            return 0;
    const size_t tail = a->bit_len % 64; /* bits past the end do not count */
    return !tail || !((a->bits[a->bit_len / 64] ^ b->bits[a->bit_len / 64]) & ((1ULL << tail) - 1));
}

/* vars <- the variables (inputs first, then n_inputs + aux index) whose
 * bits are set: every input when inp is NULL; returns how many */
static size_t variables_of(uint32_t *vars, const fil_density *inp, size_t n_inputs, const fil_density *aux)
{
    size_t k = 0;
    for (size_t i = 0; i < n_inputs; i++)
        if (!inp || fil_density_get(inp, i))
            vars[k++] = (uint32_t)i;
    for (size_t j = 0; j < aux->bit_len; j++)
        if (fil_density_get(aux, j))
            vars[k++] = (uint32_t)(n_inputs + j);
    return k;
}

int fil_device_key_load(fil_device_key **out, cuzk_backend *b, int device, const fil_params *p,
                        const fil_assignment *as, cuzk_error *err)
{
    *out = NULL;
    if (!b->bellman_key_load)
        return cuzk_fail(err, CUZK_ERR_ARG, "the %s backend keeps no keys on a device", b->name);
    int rc = fil_assignment_check(p, as, err);
    if (rc)
        return rc;
    fil_device_key *k = calloc(1, sizeof *k);
    uint32_t *a_vars = malloc(((size_t)p->n_a + 1) * sizeof *a_vars);
    uint32_t *b_vars = malloc(((size_t)p->n_b_g1 + 1) * sizeof *b_vars);
    if (!k || !a_vars || !b_vars || density_copy(&k->a_aux, &as->a_aux) || density_copy(&k->b_inp, &as->b_inp) ||
        density_copy(&k->b_aux, &as->b_aux)) {
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a device key's index lists");
        goto done;
    }
    k->backend = b;
    k->params = p;
    const cuzk_bellman_key key = {
        .curve = CUZK_CURVE_BLS12_381,
        .n_inputs = (uint32_t)as->n_inputs,
        .n_aux = (uint32_t)as->n_aux,
        .domain_size = p->n_h + 1,
        .domain_generator = FIL_DOMAIN_GENERATOR,
        .a = p->a,
        .b_g1 = p->b_g1,
        .b_g2 = p->b_g2,
        .l = p->l,
        .h = p->h,
        .n_a = variables_of(a_vars, NULL, as->n_inputs, &as->a_aux),
        .n_b = variables_of(b_vars, &as->b_inp, as->n_inputs, &as->b_aux),
        .a_vars = a_vars,
        .b_vars = b_vars,
    };
    rc = b->bellman_key_load(b, device, &key, &k->handle, err);
done:
    free(a_vars);
    free(b_vars);
    if (rc) {
        fil_device_key_free(k);
        return rc;
    }
    *out = k;
    return CUZK_OK;
}

int fil_device_key_fits(const fil_device_key *k, const fil_assignment *as)
{
    return density_same(&k->a_aux, &as->a_aux) && density_same(&k->b_inp, &as->b_inp) &&
           density_same(&k->b_aux, &as->b_aux);
}

void fil_device_key_free(fil_device_key *k)
{
    if (!k)
        return;
    if (k->handle)
        k->backend->bellman_key_free(k->backend, k->handle);
    fil_density_free(&k->a_aux);
    fil_density_free(&k->b_inp);
    fil_density_free(&k->b_aux);
    free(k);
}

int fil_prove_on(fil_device_key *k, const fil_assignment *as, const bls12_381_fr *r, const bls12_381_fr *s,
                 fil_proof *proof, cuzk_error *err)
{
    return fil_prove_on_packed(k, as, NULL, r, s, proof, NULL, err);
}

int fil_prove_on_packed(fil_device_key *k, const fil_assignment *as, const cuzk_bellman_packed *packed,
                        const bls12_381_fr *r, const bls12_381_fr *s, fil_proof *proof, cuzk_prove_timings *t,
                        cuzk_error *err)
{
    int rc = fil_assignment_check(k->params, as, err);
    if (rc)
        return rc;
    if (!fil_device_key_fits(k, as))
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the assignment's densities are not those the device key was "
                         "made for (another circuit with the same counts)");
    const cuzk_bellman_witness w = {as->a, as->b, as->c, as->abc_size, as->inputs, as->aux};
    cuzk_msm_results m;
    if ((rc = k->backend->bellman_prove(k->backend, k->handle, &w, packed, &m, t, err)))
        return rc;
    bls12_381_g1_jac A, B1, LH, H;
    bls12_381_g2_jac B2;
    memcpy(&A, m.a, sizeof A);
    memcpy(&B1, m.b1, sizeof B1);
    memcpy(&B2, m.b2, sizeof B2);
    memcpy(&LH, m.c, sizeof LH);
    memcpy(&H, m.h, sizeof H); /* infinity when c holds the sum */
    bls12_381_g1_jac_add_var(&LH, &LH, &H);
    fil_proof_finish(&k->params->vk, &A, &B1, &B2, &LH, r, s, proof);
    return CUZK_OK;
}
