/* Development keys in bellperson's layout (params.h) for any BLS12-381
 * r1cs: groth16's setup (setup.inc) on blstrs's domain (roots from 7) with
 * bellman's H (tau^i Z(tau)/delta), then the a and b queries filtered by
 * the densities of assignment.h. NOT for production: whoever ran it could
 * forge proofs (Filecoin's keys come from its trusted setup). */
#ifndef CUZK_FILECOIN_SETUP_H
#define CUZK_FILECOIN_SETUP_H

#include <stdint.h>

#include "backend/backend.h"
#include "cuzk/cuzk.h"
#include "filecoin/params.h"
#include "groth16/r1cs.h"

typedef struct {
    int nthreads;               /* < 1: one */
    const uint64_t (*toxic)[4]; /* NULL: fresh; else tau, alpha, beta, gamma, delta (tests) */
    void (*progress)(void *ctx, const char *stage);
    void *progress_ctx;
    cuzk_backend *backend;      /* who does the fixed-base multiplications
                                   (backend_setup: its device when it has
                                   one); NULL: the CPU. The same key, byte
                                   for byte, for the same toxic waste */
    size_t device_round;        /* cuzk_setup_options' (0: the device's choice) */
    size_t stream_round;        /* fil_setup_write: points written a round (0: 2^22; at least the inputs) */
} fil_setup_options;

/* A key for r into p (free with fil_params_free). CUZK_ERR_ARG for a
 * curve other than BLS12-381, or a wire in no constraint (its l point
 * would be the identity, which the format cannot hold), or a column whose
 * terms cancel at tau; CUZK_ERR_NOMEM; the setup's own errors. */
int fil_setup(const cuzk_r1cs *r, const fil_setup_options *o, fil_params *p, cuzk_error *err);

/* fil_setup's key written to params_path as it is made (params_stream.h),
 * never whole in memory, and its .vk to vk_path (NULL: none): the same
 * bytes as fil_setup then fil_params_write. r is freed once the setup has
 * read it (before the multiplications), whatever happens after; the
 * caller still calls cuzk_r1cs_free (harmless on a freed r). Errors as
 * fil_setup's, CUZK_ERR_IO (the file is then not published). */
int fil_setup_write(cuzk_r1cs *r, const fil_setup_options *o, const char *params_path, const char *vk_path,
                    cuzk_error *err);

#endif
