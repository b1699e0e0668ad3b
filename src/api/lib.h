/* The library layer behind include/cuzk/groth16.h and rapidsnark's C API
 * (include/cuzk/rapidsnark/prover.h): what the public handles hold, and
 * the calls that the command line shares with them (it has files and
 * timings to deal with, the handles' users text). */
#ifndef CUZK_API_LIB_H
#define CUZK_API_LIB_H

#include "cuzk/groth16.h"
#include "backend/backend.h"
#include "groth16/groth16.h"

struct cuzk_key {
    cuzk_zkey z;
    cuzk_vk vk; /* exported once at load: each proof is checked against it */
};

struct cuzk_prover {
    cuzk_backend *b;
    int threads;
};

/* A key from a zkey already read (adopted: z is left empty). On failure
 * z is freed. */
int lib_key_adopt(cuzk_key **out, cuzk_zkey *z, cuzk_error *err);

/* cuzk_prover_create with one_shot: each key serves one proof (a GPU then
 * builds no window tables, whose cost only many proofs repay). */
int lib_prover_make(cuzk_prover **out, const char *backend, int threads, int one_shot, cuzk_error *err);

/* One proof of w (read, of any length) with key on p: flags as
 * cuzk_prove_wtns_memory's. On CUZK_OK fills proof, pub (n_public signals,
 * the caller's) and, when t is not NULL, the stage timings. */
int lib_prove(cuzk_prover *p, const cuzk_key *key, const cuzk_wtns *w, unsigned flags, cuzk_proof *proof,
              uint64_t (*pub)[4], cuzk_prove_timings *t, cuzk_error *err);

/* lib_prove into proof.json and public.json texts (malloc'd; NULL on
 * failure). */
int lib_prove_json(cuzk_prover *p, const cuzk_key *key, const cuzk_wtns *w, unsigned flags, char **proof_json,
                   char **public_json, cuzk_error *err);

#endif
