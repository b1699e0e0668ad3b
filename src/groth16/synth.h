/* Synthetic satisfiable circuits for benchmarks and tests, shaped like real
 * multiplication gates: constraint i multiplies two sparse linear
 * combinations of earlier wires into a new wire,
 *   (sum_a c_a w_a) * (sum_b c_b w_b) = 1 * w_new
 * with coefficients a mix of +1, -1 and full-size field elements.
 * Wire layout: 0 = the constant 1, 1..n_public = public inputs, then
 * CUZK_SYNTH_PRIVATE_INPUTS private inputs, then one wire per constraint. */
#ifndef CUZK_GROTH16_SYNTH_H
#define CUZK_GROTH16_SYNTH_H

#include "groth16/r1cs.h"
#include "groth16/wtns.h"

#define CUZK_SYNTH_PRIVATE_INPUTS 2

typedef struct {
    cuzk_curve_id curve;
    uint32_t n_constraints;
    uint32_t n_public;
    uint64_t seed;     /* the same seed gives the same circuit and witness */
    int zero_witness;  /* all inputs 0 and no constant wire in the gates: an all-zero witness (but w[0] = 1) */
} cuzk_synth_params;

/* Builds the circuit and its witness; free both with their _free. */
int cuzk_circuit_synth(const cuzk_synth_params *p, cuzk_r1cs *r, cuzk_wtns *w, cuzk_error *err);

#endif
