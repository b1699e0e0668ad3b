/* The per-curve Groth16 entry points behind groth16.h's dispatch. Each
 * groth16_<curve>.c stamps the *.inc templates out once for its curve. */
#ifndef CUZK_GROTH16_GROTH16_OPS_H
#define CUZK_GROTH16_GROTH16_OPS_H

#include "groth16/groth16.h"

typedef struct {
    void (*synthesize_abc)(const cuzk_zkey *z, const cuzk_wtns *w, void *abc, int nthreads);
    int (*prove_abc)(const cuzk_zkey *z, const cuzk_wtns *w, void *abc, int nthreads, cuzk_msm_results *m,
                     cuzk_prove_timings *t, cuzk_error *err);
    int (*finish)(const cuzk_zkey *z, const cuzk_msm_results *m, cuzk_proof *proof, cuzk_error *err);
    int (*verify)(const cuzk_vk *vk, const uint64_t (*pub)[4], uint32_t n_pub, const cuzk_proof *proof,
                  cuzk_error *err);
    int (*export_vk)(const cuzk_zkey *z, cuzk_vk *vk, int alphabeta, cuzk_error *err);
    int (*setup)(const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z, cuzk_error *err);
} cuzk_groth16_ops;

#define CUZK_GROTH16_OPS_DECLARE_(prefix, PREFIX, snarkjs) extern const cuzk_groth16_ops prefix##_groth16_ops;
CUZK_CURVES(CUZK_GROTH16_OPS_DECLARE_)

#endif
