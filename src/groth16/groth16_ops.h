/* The per-curve Groth16 entry points behind groth16.h's dispatch. Each
 * groth16_<curve>.c stamps the *.inc templates out once for its curve. */
#ifndef CUZK_GROTH16_GROTH16_OPS_H
#define CUZK_GROTH16_GROTH16_OPS_H

#include "ec/ec.h"
#include "groth16/groth16.h"

/* A setup's domain and H (setup.inc): snarkjs's by default (roots from 5,
 * H at the 2n-domain's odd points, n of them), or bellman's (Filecoin's
 * .params, src/filecoin): roots from domain_generator 7 and, with
 * h_monomial, H = tau^i (tau^n - 1)/delta for i < n - 1 (the bases of the
 * quotient's coefficients; z->h then holds n - 1 points, and z is the
 * material of a Filecoin key, not a zkey to write or prove with). */
typedef struct {
    uint64_t domain_generator; /* 0 or 5: snarkjs's; 7: bellman's and blstrs's */
    int h_monomial;
} cuzk_setup_domain;

typedef struct {
    void (*synthesize_abc)(const cuzk_zkey *z, const cuzk_wtns *w, void *abc, int nthreads);
    int (*prove_abc)(const cuzk_zkey *z, const cuzk_wtns *w, void *abc, int nthreads, cuzk_msm_results *m,
                     cuzk_prove_timings *t, cuzk_error *err);
    int (*finish)(const cuzk_zkey *z, const cuzk_msm_results *m, cuzk_proof *proof, cuzk_error *err);
    int (*verify)(const cuzk_vk *vk, const uint64_t (*pub)[4], uint32_t n_pub, const cuzk_proof *proof,
                  cuzk_error *err);
    int (*export_vk)(const cuzk_zkey *z, cuzk_vk *vk, int alphabeta, cuzk_error *err);
    int (*setup)(const cuzk_r1cs *r, const cuzk_setup_options *o, const cuzk_setup_domain *d, cuzk_zkey *z,
                 cuzk_error *err);
} cuzk_groth16_ops;

#define CUZK_GROTH16_OPS_DECLARE_(prefix, PREFIX, snarkjs) extern const cuzk_groth16_ops prefix##_groth16_ops;
CUZK_CURVES(CUZK_GROTH16_OPS_DECLARE_)

/* cuzk_groth16_setup_with on the domain d (NULL: snarkjs's). */
int cuzk_groth16_setup_domain(const cuzk_r1cs *r, const cuzk_setup_options *o, const cuzk_setup_domain *d,
                              cuzk_zkey *z, cuzk_error *err);

/* The proof's blinding on the curve's own points (prove.inc), for provers
 * of other key layouts (src/filecoin): with r, s in normal form,
 *   A <- alpha1 + A' + r delta1,  B2 <- beta2 + B2' + s delta2,
 *   C <- C + s A + r (beta1 + B1' + s delta1) - r s delta1
 * where C enters as C' + H' (the private and quotient MSMs' sum); r = s = 0
 * gives the deterministic proof. Constant time in r and s. */
#define CUZK_GROTH16_BLIND_DECLARE_(prefix, PREFIX, snarkjs)                                                      \
    void prefix##_groth16_blind(prefix##_g1_jac *A, prefix##_g2_jac *B2, prefix##_g1_jac *C,                     \
                                const prefix##_g1_jac *B1_msm, const prefix##_g1_affine *alpha1,                 \
                                const prefix##_g1_affine *beta1, const prefix##_g2_affine *beta2,                \
                                const prefix##_g1_affine *delta1, const prefix##_g2_affine *delta2,              \
                                const prefix##_fr *r, const prefix##_fr *s);
CUZK_CURVES(CUZK_GROTH16_BLIND_DECLARE_)

#endif
