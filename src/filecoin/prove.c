/* Bellperson's prover and verifier on the CPU (contracts in prove.h). */
#include "filecoin/prove.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/zcash.h"
#include "groth16/groth16.h"
#include "groth16/groth16_ops.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/err.h"
#include "util/random.h"
#include "util/threads.h"

static int density_fits(const fil_density *d, size_t bit_len)
{
    if (d->bit_len != bit_len || (bit_len && !d->bits))
        return 0;
    size_t pop = 0;
    for (size_t i = 0; i < (bit_len + 63) / 64; i++) {
        uint64_t word = d->bits[i];
        if (i == bit_len / 64 && bit_len % 64)
            word &= (1ULL << (bit_len % 64)) - 1; /* bits past the end do not count */
        pop += (size_t)__builtin_popcountll(word);
    }
    return pop == d->popcount;
}

int fil_assignment_check(const fil_params *p, const fil_assignment *as, cuzk_error *err)
{
    size_t n = (size_t)p->n_h + 1;
    if (as->abc_size > n)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "a, b, c have %zu rows, more than the key's domain of %zu", as->abc_size,
                         n);
    if (as->n_inputs != p->vk.n_ic)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "%zu inputs, the key has %" PRIu32, as->n_inputs, p->vk.n_ic);
    if (as->n_aux != p->n_l)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "%zu aux variables, the key's l has %" PRIu32, as->n_aux, p->n_l);
    if (!density_fits(&as->a_aux, as->n_aux) || !density_fits(&as->b_aux, as->n_aux) ||
        !density_fits(&as->b_inp, as->n_inputs))
        return cuzk_fail(err, CUZK_ERR_MISMATCH,
                         "a density bitmap's length or popcount disagrees with the assignment's variables");
    if (as->n_inputs + as->a_aux.popcount != p->n_a)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "inputs + a_aux density = %zu, the key's a has %" PRIu32,
                         as->n_inputs + as->a_aux.popcount, p->n_a);
    if (as->b_inp.popcount + as->b_aux.popcount != p->n_b_g1 || p->n_b_g1 != p->n_b_g2)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "b_inp + b_aux density = %zu, the key's b_g1 has %" PRIu32,
                         as->b_inp.popcount + as->b_aux.popcount, p->n_b_g1);
    if ((as->abc_size && (!as->a || !as->b || !as->c)) || !as->inputs || (as->n_aux && !as->aux))
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the assignment lacks a, b, c or its variables");
    return CUZK_OK;
}

/* ---- 1. the quotient ---- */

typedef struct {
    bls12_381_fr *h;
    const bls12_381_fr *other, *zinv;
} quotient_job;

/* h <- h other: A B on the coset */
static void product_range(void *vctx, size_t begin, size_t end, int tid)
{
    (void)tid;
    const quotient_job *j = vctx;
    for (size_t i = begin; i < end; i++)
        bls12_381_fr_mul(&j->h[i], &j->h[i], &j->other[i]);
}

/* h <- from_mont((h - c) / Z): other holds c's coefficients */
static void difference_range(void *vctx, size_t begin, size_t end, int tid)
{
    (void)tid;
    const quotient_job *j = vctx;
    for (size_t i = begin; i < end; i++) {
        bls12_381_fr_sub(&j->h[i], &j->h[i], &j->other[i]);
        bls12_381_fr_mul(&j->h[i], &j->h[i], j->zinv);
        bls12_381_fr_from_mont(&j->h[i], &j->h[i]);
    }
}

/* h <- the quotient's first n - 1 coefficients in normal form (h holds n).
 * Z is the constant g^n - 1 on the coset and each step is linear in c, so
 * h = coset_iFFT(A B) / Z - iFFT(c) / Z: c needs no coset transform. */
static int quotient(const fil_assignment *as, size_t n, bls12_381_fr *h, int nthreads, cuzk_error *err)
{
    unsigned log_n = (unsigned)__builtin_ctzll(n);
    bls12_381_fr *abc[3];
    abc[0] = h;
    abc[1] = malloc(n * sizeof *h);
    abc[2] = malloc(n * sizeof *h);
    const bls12_381_fr *in[3] = {as->a, as->b, as->c};
    bls12_381_fr w, g, ginv, zinv;
    bls12_381_fr_ntt_root_of(&w, log_n, FIL_DOMAIN_GENERATOR);
    bls12_381_fr_from_u64(&g, FIL_DOMAIN_GENERATOR);
    bls12_381_fr_inv(&ginv, &g);
    bls12_381_fr_ntt_plan *fwd = NULL, *back = NULL;
    int rc = abc[1] && abc[2] ? CUZK_OK : CUZK_ERR_NOMEM;
    rc = rc ? rc : bls12_381_fr_ntt_plan_new_root(&fwd, n, &w, &g, nthreads);
    rc = rc ? rc : bls12_381_fr_ntt_plan_new_root(&back, n, &w, &ginv, nthreads);
    for (int i = 0; i < 3 && !rc; i++) {
        memcpy(abc[i], in[i], as->abc_size * sizeof *h);
        memset(abc[i] + as->abc_size, 0, (n - as->abc_size) * sizeof *h);
        if (i < 2) {
            rc = bls12_381_fr_ntt_to_coset(fwd, abc[i], nthreads);
        } else if (!(rc = bls12_381_fr_intt_scaled(fwd, abc[i], nthreads))) { /* c_i g^i */
            bls12_381_fr_scale_by_powers(abc[i], n, &ginv, nthreads);
        }
    }
    if (!rc) {
        bls12_381_fr one;
        bls12_381_fr_pow(&zinv, &g, (uint64_t[1]){n}, 64);
        bls12_381_fr_set_one(&one);
        bls12_381_fr_sub(&zinv, &zinv, &one);
        bls12_381_fr_inv(&zinv, &zinv); /* 1 / (g^n - 1) */
        cuzk_parallel_for(nthreads, n, product_range, &(quotient_job){h, abc[1], &zinv});
        rc = bls12_381_fr_intt_scaled(back, h, nthreads);
    }
    if (!rc)
        cuzk_parallel_for(nthreads, n - 1, difference_range, &(quotient_job){h, abc[2], &zinv});
    bls12_381_fr_ntt_plan_free(fwd);
    bls12_381_fr_ntt_plan_free(back);
    free(abc[1]);
    free(abc[2]);
    return rc ? cuzk_fail(err, rc, "out of memory for the quotient on a domain of %zu", n) : CUZK_OK;
}

/* ---- 2. the MSMs' scalars ---- */

/* out <- the normal forms of in[i] for the i < n set in d (all when d is
 * NULL); returns how many */
static size_t gather(bls12_381_fr *out, const bls12_381_fr *in, size_t n, const fil_density *d)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!d || fil_density_get(d, i))
            bls12_381_fr_from_mont(&out[k++], &in[i]);
    return k;
}

int fil_prove(const fil_params *p, const fil_assignment *as, const bls12_381_fr *r, const bls12_381_fr *s,
              int nthreads, fil_proof *proof, cuzk_error *err)
{
    int rc = fil_assignment_check(p, as, err);
    if (rc)
        return rc;
    if (nthreads < 1)
        nthreads = 1;
    size_t n = (size_t)p->n_h + 1, ni = as->n_inputs, nz = as->n_aux;
    bls12_381_fr *h = malloc(n * sizeof *h), *sa = malloc((p->n_a + 1) * sizeof *sa),
                 *sb = malloc((p->n_b_g1 + 1) * sizeof *sb), *sz = malloc((nz + 1) * sizeof *sz);
    if (!h || !sa || !sb || !sz) {
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for the scalars of a domain of %zu", n);
        goto done;
    }
    if ((rc = quotient(as, n, h, nthreads, err)))
        goto done;
    gather(sa, as->inputs, ni, NULL);
    gather(sa + ni, as->aux, nz, &as->a_aux);
    size_t kb = gather(sb, as->inputs, ni, &as->b_inp);
    gather(sb + kb, as->aux, nz, &as->b_aux);
    gather(sz, as->aux, nz, NULL);

    bls12_381_g1_jac A, B1, L, H;
    bls12_381_g2_jac B2;
    rc = bls12_381_g1_msm(&A, p->a, sa, p->n_a, nthreads);
    rc = rc ? rc : bls12_381_g1_msm(&B1, p->b_g1, sb, p->n_b_g1, nthreads);
    rc = rc ? rc : bls12_381_g2_msm(&B2, p->b_g2, sb, p->n_b_g2, nthreads);
    rc = rc ? rc : bls12_381_g1_msm(&L, p->l, sz, nz, nthreads);
    rc = rc ? rc : bls12_381_g1_msm(&H, p->h, h, n - 1, nthreads);
    if (rc) {
        rc = cuzk_fail(err, rc, "out of memory in a multi-scalar multiplication");
        goto done;
    }
    bls12_381_g1_jac_add_var(&L, &L, &H);
    fil_proof_finish(&p->vk, &A, &B1, &B2, &L, r, s, proof);
done:
    free(h);
    free(sa);
    free(sb);
    free(sz);
    return rc;
}

void fil_proof_finish(const fil_vk *vk, const bls12_381_g1_jac *A, const bls12_381_g1_jac *B1,
                      const bls12_381_g2_jac *B2, const bls12_381_g1_jac *LH, const bls12_381_fr *r,
                      const bls12_381_fr *s, fil_proof *proof)
{
    bls12_381_g1_jac a = *A, b1 = *B1, c = *LH;
    bls12_381_g2_jac b2 = *B2;
    bls12_381_fr rn = {{0}}, sn = {{0}};
    if (r)
        bls12_381_fr_from_mont(&rn, r);
    if (s)
        bls12_381_fr_from_mont(&sn, s);
    bls12_381_groth16_blind(&a, &b2, &c, &b1, &vk->alpha_g1, &vk->beta_g1, &vk->beta_g2, &vk->delta_g1,
                            &vk->delta_g2, &rn, &sn);
    cuzk_wipe(&rn, sizeof rn);
    cuzk_wipe(&sn, sizeof sn);
    bls12_381_g1_jac_to_affine(&proof->a, &a);
    bls12_381_g2_jac_to_affine(&proof->b, &b2);
    bls12_381_g1_jac_to_affine(&proof->c, &c);
}

/* a uniformly random r in [0, r) by rejection, Montgomery form */
static int random_fr(bls12_381_fr *k)
{
    const uint64_t top_mask = ~0ULL >> __builtin_clzll(bls12_381_fr_MODULUS[3]);
    do {
        if (cuzk_random_bytes(k->l, sizeof k->l))
            return -1;
        k->l[3] &= top_mask;
    } while (!bls12_381_fr_is_canonical(k));
    bls12_381_fr_to_mont(k, k);
    return 0;
}

int fil_random_blinding(bls12_381_fr *r, bls12_381_fr *s) { return random_fr(r) || random_fr(s) ? -1 : 0; }

/* ---- bytes ---- */

void fil_proof_write_bytes(uint8_t out[FIL_PROOF_BYTES], const fil_proof *proof)
{
    fil_g1_compress(out, &proof->a);
    fil_g2_compress(out + FIL_G1_COMPRESSED_BYTES, &proof->b);
    fil_g1_compress(out + FIL_G1_COMPRESSED_BYTES + FIL_G2_COMPRESSED_BYTES, &proof->c);
}

int fil_proof_read_bytes(fil_proof *proof, const uint8_t in[FIL_PROOF_BYTES], cuzk_error *err)
{
    fil_point_status s;
    if ((s = fil_g1_decompress(&proof->a, in, 0)) != FIL_POINT_OK)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "the proof's a is %s", fil_point_status_name(s));
    if ((s = fil_g2_decompress(&proof->b, in + FIL_G1_COMPRESSED_BYTES, 0)) != FIL_POINT_OK)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "the proof's b is %s", fil_point_status_name(s));
    if ((s = fil_g1_decompress(&proof->c, in + FIL_G1_COMPRESSED_BYTES + FIL_G2_COMPRESSED_BYTES, 0)) != FIL_POINT_OK)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "the proof's c is %s", fil_point_status_name(s));
    return CUZK_OK;
}

/* ---- verification, by groth16's verifier on plain integers ---- */

static void fp_plain(uint64_t out[6], const bls12_381_fp *a)
{
    bls12_381_fp t;
    bls12_381_fp_from_mont(&t, a);
    memcpy(out, t.l, sizeof t.l);
}

static void g1_plain(cuzk_g1_plain *o, const bls12_381_g1_affine *p)
{
    memset(o, 0, sizeof *o);
    o->infinity = bls12_381_g1_affine_is_inf(p);
    fp_plain(o->x, &p->x);
    fp_plain(o->y, &p->y);
}

static void g2_plain(cuzk_g2_plain *o, const bls12_381_g2_affine *p)
{
    memset(o, 0, sizeof *o);
    o->infinity = bls12_381_g2_affine_is_inf(p);
    fp_plain(o->x[0], &p->x.c0);
    fp_plain(o->x[1], &p->x.c1);
    fp_plain(o->y[0], &p->y.c0);
    fp_plain(o->y[1], &p->y.c1);
}

int fil_verify(const fil_vk *vk, const uint64_t (*inputs)[4], size_t n_inputs, const fil_proof *proof,
               cuzk_error *err)
{
    if (n_inputs + 1 != vk->n_ic)
        return cuzk_fail(err, CUZK_ERR_INVALID_PROOF, "%zu public inputs given, the verifying key expects %" PRIu32,
                         n_inputs, vk->n_ic - 1);
    cuzk_vk v = {.curve = CUZK_CURVE_BLS12_381, .n_public = vk->n_ic - 1};
    if (!(v.ic = calloc(vk->n_ic, sizeof *v.ic)))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for %" PRIu32 " ic points", vk->n_ic);
    g1_plain(&v.alpha1, &vk->alpha_g1);
    g2_plain(&v.beta2, &vk->beta_g2);
    g2_plain(&v.gamma2, &vk->gamma_g2);
    g2_plain(&v.delta2, &vk->delta_g2);
    for (uint32_t i = 0; i < vk->n_ic; i++)
        g1_plain(&v.ic[i], &vk->ic[i]);
    cuzk_proof pr = {.curve = CUZK_CURVE_BLS12_381};
    g1_plain(&pr.a, &proof->a);
    g2_plain(&pr.b, &proof->b);
    g1_plain(&pr.c, &proof->c);
    int rc = cuzk_groth16_verify(&v, inputs, (uint32_t)n_inputs, &pr, err);
    free(v.ic);
    return rc;
}
