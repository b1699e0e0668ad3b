/* One circuit as bellperson hands it to its GPU prover (supraseal-c2's
 * Assignment): the constraints' evaluations a, b, c, the input and aux
 * assignments, and the density bitmaps that say which variables the key's
 * a and b queries hold. Scalars are BLS12-381 Fr in Montgomery form (blst's
 * and blstrs's layout: 4 little-endian words).
 *
 * Bellperson's variables are the inputs (input 0 is ONE) and the aux
 * variables; a circom circuit's wire 0 is ONE, wires 1..nPublic the
 * inputs, the rest aux. After the circuit's m constraints bellperson adds
 * one constraint input_i * 0 = 0 for every input (so every input is in
 * a's query), which gives a, b, c their abc_size = m + inputs rows. */
#ifndef CUZK_FILECOIN_ASSIGNMENT_H
#define CUZK_FILECOIN_ASSIGNMENT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "ff/field.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"

/* A density bitmap: bit b of word k is variable 64 k + b (set: the
 * variable's column in the matrix is not empty). */
typedef struct {
    uint64_t *bits; /* (bit_len + 63) / 64 words */
    size_t bit_len, popcount;
} fil_density;

typedef struct {
    fil_density a_aux, b_inp, b_aux;
    bls12_381_fr *a, *b, *c; /* abc_size each */
    size_t abc_size;
    bls12_381_fr *inputs; /* n_inputs, inputs[0] = 1 */
    size_t n_inputs;
    bls12_381_fr *aux;
    size_t n_aux;
} fil_assignment;

/* 1 when variable i is set in d. */
static inline int fil_density_get(const fil_density *d, size_t i) { return (int)(d->bits[i / 64] >> (i % 64) & 1); }

/* The densities of r's variables: a_aux from A's columns of the aux wires,
 * b_inp and b_aux from B's. Fresh bitmaps (fil_density_free). CUZK_OK or
 * CUZK_ERR_NOMEM. */
int fil_densities_of_r1cs(const cuzk_r1cs *r, fil_density *a_aux, fil_density *b_inp, fil_density *b_aux,
                          cuzk_error *err);
void fil_density_free(fil_density *d);

/* The assignment of r for witness w (circom's, normal form): the
 * evaluations of every constraint and of the input constraints, the
 * densities, the inputs and aux in Montgomery form, on nthreads threads.
 * CUZK_ERR_MISMATCH when w is of another curve or length or w[0] != 1,
 * CUZK_ERR_UNSATISFIED naming the first constraint with a b != c,
 * CUZK_ERR_ARG for a curve other than BLS12-381, CUZK_ERR_NOMEM. Free with
 * fil_assignment_free. */
int fil_assignment_from_r1cs(fil_assignment *as, const cuzk_r1cs *r, const cuzk_wtns *w, int nthreads,
                             cuzk_error *err);
void fil_assignment_free(fil_assignment *as);

#endif
