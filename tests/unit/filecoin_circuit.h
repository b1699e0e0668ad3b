/* Small BLS12-381 circuits of chosen density shapes for the Filecoin tests
 * (test_filecoin_*.c): public inputs x_1..x_k after ONE, then aux wires
 * each defined by one constraint (so none is in no constraint), with a
 * satisfying witness.
 *   FC_RANDOM     z_i = (c x + d y) * v over random earlier wires
 *   FC_ALL_DENSE  every input and every aux wire in both A and B
 *   FC_NO_B_AUX   B holds inputs only (ONE, x_1): no aux in b's query
 * The circuit has m constraints (m >= 3 for FC_ALL_DENSE). */
#ifndef CUZK_TESTS_FILECOIN_CIRCUIT_H
#define CUZK_TESTS_FILECOIN_CIRCUIT_H

#include <stdint.h>

#include "cuzk/supraseal.h"
#include "filecoin/assignment.h"
#include "filecoin/params.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"

typedef enum { FC_RANDOM, FC_ALL_DENSE, FC_NO_B_AUX } fc_shape;

/* Builds it into r and w (free with their _free); 0, or -1 when memory ran
 * out or the shape cannot have m constraints. */
int fc_build(fc_shape shape, uint32_t n_pub, uint32_t m, uint64_t seed, cuzk_r1cs *r, cuzk_wtns *w);

/* One such circuit with its development key (fil_setup, the tests' toxic
 * waste) and bellperson's assignment, on nthreads threads. */
typedef struct {
    cuzk_r1cs r;
    cuzk_wtns w;
    fil_params p;
    fil_assignment as;
} fc_case;

/* 0, or -1 with the reason in err (the case then holds nothing to free). */
int fc_case_make(fc_case *c, fc_shape shape, uint32_t n_pub, uint32_t m, uint64_t seed, int nthreads,
                 cuzk_error *err);
void fc_case_free(fc_case *c);

/* the public inputs after ONE, normal form */
static inline const uint64_t (*fc_case_public(const fc_case *c))[4]
{
    return (const uint64_t (*)[4])(c->w.values + 4);
}

/* the assignment as bellperson hands it to supraseal-c2's ABI */
cuzk_assignment fc_abi_of(const fil_assignment *x);

#endif
