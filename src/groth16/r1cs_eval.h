/* Evaluating r1cs constraints on a witness (normal-form values). */
#ifndef CUZK_GROTH16_R1CS_EVAL_H
#define CUZK_GROTH16_R1CS_EVAL_H

#include "ff/fr_any.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"

/* out = sum_k coef_k w[wire_k] over terms[begin..end), normal form. */
void cuzk_lc_eval(const fr_any *f, uint64_t out[4], const cuzk_r1cs_term *terms, uint32_t begin, uint32_t end,
                  const uint64_t *w);

/* 1 when w[0] == 1, the constant wire every circuit starts with. */
int cuzk_wtns_starts_with_one(const cuzk_wtns *w);

#endif
