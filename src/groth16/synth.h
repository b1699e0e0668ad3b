/* Synthetic satisfiable circuits for benchmarks and tests. Constraint i
 * defines one new wire; its kind comes from the circuit's shape:
 *   random  multiplication gates over sparse linear combinations of earlier
 *           wires, (sum_a c_a w_a) * (sum_b c_b w_b) = 1 * w_new, with
 *           coefficients a mix of +1, -1 and full-size field elements: a
 *           witness of uniformly random field elements
 *   bits    the gates SHA-256 compiles to: booleanity of a free bit
 *           b * (1 - b) = 0, AND a * b = c, XOR 2a * b = a + b - c, bit
 *           packing (sum 2^i b_i) * 1 = word, and a few full-size products:
 *           a witness of ~59 % zeros, ~38 % ones, ~1 % small words and ~1 %
 *           full-size values (the mix of a zk-email circuit's witness)
 *   mixed   half of each
 * Wire layout: 0 = the constant 1, 1..n_public = public inputs, then
 * CUZK_SYNTH_PRIVATE_INPUTS private inputs, then one wire per constraint. */
#ifndef CUZK_GROTH16_SYNTH_H
#define CUZK_GROTH16_SYNTH_H

#include "groth16/r1cs.h"
#include "groth16/wtns.h"

#define CUZK_SYNTH_PRIVATE_INPUTS 2

/* The shapes above, one row each: X(name, NAME), SEP between two rows
 * (what a list puts between two names; nothing elsewhere); synth.c's
 * shape_weights gives each its gates. */
#define CUZK_SHAPE_ROWS(X, SEP) X(random, RANDOM) SEP X(bits, BITS) SEP X(mixed, MIXED)
#define CUZK_SHAPE_ENUM_(name, NAME) CUZK_SHAPE_##NAME,
typedef enum { CUZK_SHAPE_ROWS(CUZK_SHAPE_ENUM_, ) CUZK_SHAPES } cuzk_synth_shape;
/* "random|bits|mixed", a string literal */
#define CUZK_SHAPE_CHOICE_(name, NAME) #name
#define CUZK_SHAPE_CHOICES CUZK_SHAPE_ROWS(CUZK_SHAPE_CHOICE_, "|")

typedef struct {
    cuzk_curve_id curve;
    uint32_t n_constraints;
    uint32_t n_public;
    uint64_t seed;          /* the same seed gives the same circuit and witness */
    int zero_witness;       /* all inputs 0 and no constant wire in the gates: an all-zero witness (but w[0] = 1) */
    cuzk_synth_shape shape; /* CUZK_SHAPE_RANDOM (0) unless set */
} cuzk_synth_params;

/* Builds the circuit and its witness; free both with their _free. */
int cuzk_circuit_synth(const cuzk_synth_params *p, cuzk_r1cs *r, cuzk_wtns *w, cuzk_error *err);

/* "random", "bits", "mixed" <-> the shape; _from_name returns -1 for any
 * other name. */
const char *cuzk_synth_shape_name(cuzk_synth_shape s);
int cuzk_synth_shape_from_name(const char *name, cuzk_synth_shape *out);

/* The value mix of a witness: how many values are 0, 1, small (other
 * values < 2^32 or > r - 2^32) and full-size (the rest). What decides an
 * MSM's work on real circuits (0 and 1 cost no bucket additions). */
typedef struct {
    uint64_t zeros, ones, small, full;
} cuzk_witness_mix;

void cuzk_witness_mix_count(const cuzk_wtns *w, cuzk_witness_mix *out);

#endif
