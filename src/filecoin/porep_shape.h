/* A synthetic circuit of the shape of Filecoin's 32 GiB PoRep partition,
 * made in memory at a domain of 2^k (an .r1cs of 2^27 constraints would be
 * tens of GB), for benchmarks and the supraseal-c2 oracle
 * (bench/peers/c2-porep.sh).
 *
 * The partition (measured by Curio's cuzk): 328 inputs (ONE and 327
 * public), 130,169,893 aux, 130,278,869 constraints, domain 2^27; the aux
 * variables in A 99.7 %, in B 25.4 %; of the inputs only ONE in B. At 2^k
 * the counts scale by 2^(k-27), bounded so that constraints + inputs fit
 * the domain. Aux wire j (by p = j mod 1000) has one constraint:
 *   p <  254  a free bit           x * x = x          (in A, B, C)
 *   p <  997  a value              x * ONE = x        (in A, C): a bit,
 *             but 1 % small (< 2^32) and 1 % full-size field elements
 *   p >= 997  a copy of wire j - 3 x_(j-3) * ONE = x  (in C only)
 * then the extra constraints (constraints - aux of them): the first bind
 * public input s to an aux value, input_s * ONE = x_t (x_t = input_s, a
 * full-size value), the others sum two values, (x + x') * ONE = x + x'.
 * Every wire is in some constraint and the witness satisfies them all; the
 * same seed gives the same circuit and witness. */
#ifndef CUZK_FILECOIN_POREP_SHAPE_H
#define CUZK_FILECOIN_POREP_SHAPE_H

#include <stdint.h>

#include "cuzk/cuzk.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"

enum { FIL_POREP_INPUTS = 328, FIL_POREP_LOG_MIN = 10, FIL_POREP_LOG_MAX = 27 };

typedef struct {
    uint32_t inputs, aux, constraints; /* inputs counts ONE */
} fil_porep_counts;

/* The counts at 2^log_k; -1 outside [FIL_POREP_LOG_MIN, FIL_POREP_LOG_MAX]. */
int fil_porep_counts_of(unsigned log_k, fil_porep_counts *c);

/* The circuit (circom's wire layout: 0 = ONE, then the public inputs, then
 * the aux) and its witness (normal form) on nthreads threads; free both
 * with their _free. CUZK_ERR_ARG for a log_k out of range, CUZK_ERR_NOMEM. */
int fil_porep_synth(unsigned log_k, uint64_t seed, int nthreads, cuzk_r1cs *r, cuzk_wtns *w, cuzk_error *err);

#endif
