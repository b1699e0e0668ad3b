/* Bellperson's prover (prove.h) with its device part on a backend's
 * device: the key resident there (the backend's bellman operations,
 * groth16/bellman.h), the quotient and the MSMs on the device, the
 * blinding on the CPU. The proofs are fil_prove's, byte for byte.
 *
 * A key's a and b points go with the variables an assignment's densities
 * mark, so a device key is made for one circuit's densities: the ones of
 * the assignment it is loaded with, which every assignment proved with it
 * must have (fil_device_key_fits). */
#ifndef CUZK_FILECOIN_PROVE_DEVICE_H
#define CUZK_FILECOIN_PROVE_DEVICE_H

#include "backend/backend.h"
#include "filecoin/prove.h"

typedef struct fil_device_key fil_device_key;

/* *out <- p on device `device` of b, for as's densities (as checked
 * against p first: fil_assignment_check). CUZK_ERR_ARG when b has no
 * device keys (bellman_key_load NULL), CUZK_ERR_NOMEM when the points do
 * not fit, or the check's error. p must outlive the key. */
int fil_device_key_load(fil_device_key **out, cuzk_backend *b, int device, const fil_params *p,
                        const fil_assignment *as, cuzk_error *err);

/* 1 when as has the densities k was made for. */
int fil_device_key_fits(const fil_device_key *k, const fil_assignment *as);

void fil_device_key_free(fil_device_key *k);

/* fil_prove with k: CUZK_ERR_MISMATCH when as does not fit p or k, else
 * the backend's errors (CUZK_ERR_NOMEM when the proof's scratch does not
 * fit beside the key). */
int fil_prove_on(fil_device_key *k, const fil_assignment *as, const bls12_381_fr *r, const bls12_381_fr *s,
                 fil_proof *proof, cuzk_error *err);

/* fil_prove_on with as's arrays also packed (packed, not NULL: those that
 * packed cross to the device so, the others whole; filecoin/pack_ahead.h
 * makes them): the same proof. t, when not NULL, gets the device's phase
 * times (groth16.h). */
int fil_prove_on_packed(fil_device_key *k, const fil_assignment *as, const cuzk_bellman_packed *packed,
                        const bls12_381_fr *r, const bls12_381_fr *s, fil_proof *proof, cuzk_prove_timings *t,
                        cuzk_error *err);

#endif
