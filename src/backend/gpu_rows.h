/* What the gpu backend lends the GPU tests: a GPU key's A and B rows made
 * from the key's matrices as the backend makes them for its own keys. */
#ifndef CUZK_BACKEND_GPU_ROWS_H
#define CUZK_BACKEND_GPU_ROWS_H

#include "groth16/zkey.h"
#include "synthesis/pce.h"
#include "util/err.h"

/* Gives the GPU key k (made from z, on g's device) z's A and B matrices,
 * compiled by the PCE (pce, or compiled here from z when pce is NULL): what
 * cuzk_gpu_prove without a, b, c needs. */
struct cuzk_gpu;
struct cuzk_gpu_key;
int backend_gpu_key_rows(struct cuzk_gpu *g, struct cuzk_gpu_key *k, const cuzk_zkey *z, const cuzk_pce *pce,
                         cuzk_error *err);

#endif
