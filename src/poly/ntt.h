/* Number-theoretic transforms over the scalar fields bn254_fr and
 * bls12_381_fr (one template, src/poly/ntt.inc, instantiated by ntt.c).
 *
 * For F in {bn254_fr, bls12_381_fr}, with s = the field's two-adicity
 * (BN254_FR_TWO_ADICITY = 28, BLS12_381_FR_TWO_ADICITY = 32). All values are
 * in Montgomery form; nthreads < 1 counts as 1.
 *
 * void F_ntt_root(F *w, unsigned log_n)
 *   On output w = F_root_of_unity^(2^(s - log_n)) (the constants.h table),
 *   a primitive 2^log_n-th root of unity (one for log_n = 0). log_n > s has
 *   no such root: w = 0.
 *
 * int F_ntt(F *a, size_t n, int nthreads)
 *   In place, natural order in and out: a[i] <- sum_j a[j] w_n^(i j), with
 *   w_n = F_ntt_root(log2 n). n must be 2^k, 0 <= k <= s.
 *   Returns 0, CUZK_ERR_ARG (n not such a power of two; a untouched) or
 *   CUZK_ERR_NOMEM (a untouched). Output does not depend on nthreads.
 *
 * int F_intt(F *a, size_t n, int nthreads)
 *   The inverse: a[i] <- n^-1 sum_j a[j] w_n^(-i j). Same contract.
 *
 * void F_scale_by_powers(F *a, size_t n, const F *g, int nthreads)
 *   a[i] <- a[i] g^i for i < n (the coset shift: ntt after it evaluates on
 *   the coset g<w_n>). g may not alias a.
 */
#ifndef CUZK_POLY_NTT_H
#define CUZK_POLY_NTT_H

#include <stddef.h>

#include "cuzk/cuzk.h"
#include "ff/field.h"

#define NTT_DECLARE(F)                                                                          \
    void F##_ntt_root(F *w, unsigned log_n);                                                    \
    int F##_ntt(F *a, size_t n, int nthreads);                                                  \
    int F##_intt(F *a, size_t n, int nthreads);                                                 \
    void F##_scale_by_powers(F *a, size_t n, const F *g, int nthreads);

#define NTT_DECLARE_CURVE(prefix, PREFIX, snarkjs) NTT_DECLARE(prefix##_fr)
CUZK_CURVES(NTT_DECLARE_CURVE)
#undef NTT_DECLARE_CURVE

#undef NTT_DECLARE

#endif
