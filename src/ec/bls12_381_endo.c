/* Subgroup checks by endomorphisms on BLS12-381 (contracts in
 * bls12_381_endo.h). */
#include "ec/bls12_381_endo.h"

#include <pthread.h>
#include <string.h>

/* |z| = 0xd201000000010000, z < 0 */
static const uint64_t z_abs[1] = {BLS12_381_ATE_LOOP};

static struct {
    bls12_381_fp beta;
    bls12_381_fp2 cx, cy;
} endo;
static pthread_once_t endo_once = PTHREAD_ONCE_INIT;

/* e = (p - 1) / d for d = 2 or 3 (p = 1 mod 3: exact) */
static void p_minus_one_over(uint64_t e[6], uint64_t d)
{
    unsigned __int128 rem = 0;
    for (int i = 5; i >= 0; i--) {
        unsigned __int128 cur = rem << 64 | (i == 0 ? bls12_381_fp_MODULUS[0] - 1 : bls12_381_fp_MODULUS[i]);
        e[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
}

/* [z^2] on G1 and [z] on G2: z^2 = |z|^2, z = -|z| */
static void g1_mul_z2(bls12_381_g1_jac *r, const bls12_381_g1_jac *p)
{
    bls12_381_g1_jac_mul_var(r, p, z_abs, 64);
    bls12_381_g1_jac_mul_var(r, r, z_abs, 64);
}

static void g2_mul_z(bls12_381_g2_jac *r, const bls12_381_g2_jac *p)
{
    bls12_381_g2_jac_mul_var(r, p, z_abs, 64);
    bls12_381_g2_jac_neg(r, r);
}

static void phi(bls12_381_g1_affine *r, const bls12_381_g1_affine *p, const bls12_381_fp *beta)
{
    bls12_381_fp_mul(&r->x, &p->x, beta);
    r->y = p->y;
}

static void psi(bls12_381_g2_affine *r, const bls12_381_g2_affine *p, const bls12_381_fp2 *cx, const bls12_381_fp2 *cy)
{
    bls12_381_fp2 t;
    bls12_381_fp2_conj(&t, &p->x);
    bls12_381_fp2_mul(&r->x, &t, cx);
    bls12_381_fp2_conj(&t, &p->y);
    bls12_381_fp2_mul(&r->y, &t, cy);
}

static int g1_test(const bls12_381_g1_affine *p, const bls12_381_fp *beta)
{
    bls12_381_g1_affine q;
    bls12_381_g1_jac j, t, s;
    phi(&q, p, beta);
    bls12_381_g1_jac_from_affine(&j, p);
    g1_mul_z2(&t, &j); /* z^2 P */
    bls12_381_g1_jac_add_affine_var(&s, &t, &q);
    return bls12_381_g1_jac_is_inf(&s); /* phi(P) + z^2 P = O */
}

static int g2_test(const bls12_381_g2_affine *p, const bls12_381_fp2 *cx, const bls12_381_fp2 *cy)
{
    bls12_381_g2_affine q;
    bls12_381_g2_jac j, t, s;
    psi(&q, p, cx, cy);
    bls12_381_g2_jac_from_affine(&j, p);
    g2_mul_z(&t, &j); /* z P */
    bls12_381_g2_affine_neg(&q, &q);
    bls12_381_g2_jac_add_affine_var(&s, &t, &q);
    return bls12_381_g2_jac_is_inf(&s); /* z P - psi(P) = O */
}

/* beta: 2^((p-1)/3) (2 is not a cube mod p) or its square, whichever acts
 * as -z^2 on the generator; c_x, c_y: xi^-((p-1)/3), xi^-((p-1)/2) for the
 * twist's xi = 1 + u, or their inverses, whichever act as z on G2's
 * generator */
static void endo_init(void)
{
    uint64_t e3[6], e2[6];
    p_minus_one_over(e3, 3);
    p_minus_one_over(e2, 2);
    bls12_381_fp two;
    bls12_381_fp_from_u64(&two, 2);
    bls12_381_fp_pow(&endo.beta, &two, e3, 384);
    bls12_381_g1_affine g1;
    bls12_381_g1_generator(&g1);
    if (!g1_test(&g1, &endo.beta))
        bls12_381_fp_sqr(&endo.beta, &endo.beta);

    bls12_381_fp2 xi;
    bls12_381_fp_set_one(&xi.c0);
    bls12_381_fp_set_one(&xi.c1);
    bls12_381_fp2 a, b;
    bls12_381_fp2_pow(&a, &xi, e3, 384);
    bls12_381_fp2_pow(&b, &xi, e2, 384);
    bls12_381_g2_affine g2;
    bls12_381_g2_generator(&g2);
    bls12_381_fp2_inv(&endo.cx, &a);
    bls12_381_fp2_inv(&endo.cy, &b);
    if (!g2_test(&g2, &endo.cx, &endo.cy)) {
        endo.cx = a;
        endo.cy = b;
    }
}

int bls12_381_g1_in_subgroup_endo(const bls12_381_g1_affine *p)
{
    pthread_once(&endo_once, endo_init);
    return g1_test(p, &endo.beta);
}

int bls12_381_g2_in_subgroup_endo(const bls12_381_g2_affine *p)
{
    pthread_once(&endo_once, endo_init);
    return g2_test(p, &endo.cx, &endo.cy);
}

void bls12_381_g1_endo_beta(bls12_381_fp *beta)
{
    pthread_once(&endo_once, endo_init);
    *beta = endo.beta;
}
