/* Test support: a small synthetic BN254 circuit (a few hundred constraints,
 * so CPU proofs take milliseconds), its development key and r1cs on disk and
 * a satisfying witness. Linked into every test binary. */
#ifndef CUZK_TESTS_SMALL_CIRCUIT_H
#define CUZK_TESTS_SMALL_CIRCUIT_H

#include "groth16/wtns.h"

/* Writes the key to zkey_path and (when not NULL) the r1cs to r1cs_path;
 * *w gets the witness (free with cuzk_wtns_free). Two public signals. */
int small_circuit_write(uint32_t constraints, const char *zkey_path, const char *r1cs_path, cuzk_wtns *w,
                        cuzk_error *err);

#endif
