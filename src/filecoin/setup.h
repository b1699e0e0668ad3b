/* Development keys in bellperson's layout (params.h) for any BLS12-381
 * r1cs: groth16's setup (setup.inc) on blstrs's domain (roots from 7) with
 * bellman's H (tau^i Z(tau)/delta), then the a and b queries filtered by
 * the densities of assignment.h. NOT for production: whoever ran it could
 * forge proofs (Filecoin's keys come from its trusted setup). */
#ifndef CUZK_FILECOIN_SETUP_H
#define CUZK_FILECOIN_SETUP_H

#include <stdint.h>

#include "cuzk/cuzk.h"
#include "filecoin/params.h"
#include "groth16/r1cs.h"

typedef struct {
    int nthreads;               /* < 1: one */
    const uint64_t (*toxic)[4]; /* NULL: fresh; else tau, alpha, beta, gamma, delta (tests) */
    void (*progress)(void *ctx, const char *stage);
    void *progress_ctx;
} fil_setup_options;

/* A key for r into p (free with fil_params_free). CUZK_ERR_ARG for a
 * curve other than BLS12-381, or a wire in no constraint (its l point
 * would be the identity, which the format cannot hold), or a column whose
 * terms cancel at tau; CUZK_ERR_NOMEM; the setup's own errors. */
int fil_setup(const cuzk_r1cs *r, const fil_setup_options *o, fil_params *p, cuzk_error *err);

#endif
