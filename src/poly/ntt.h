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
 * void F_ntt_root_of(F *w, unsigned log_n, uint64_t generator)
 *   On output w = generator^((r - 1) / 2^log_n), a primitive 2^log_n-th root
 *   of unity when generator generates the multiplicative group: 5 gives
 *   F_ntt_root's roots (snarkjs's), 7 the roots of bellman and blstrs for
 *   bls12_381_fr (Filecoin's domain). log_n > s: w = 0.
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
 *
 * int F_ntt_plan_new(F_ntt_plan **plan, size_t n, const F *g, int nthreads)
 *   On output *plan holds the twiddles of F_ntt_to_coset on n points with
 *   shift g, made once for any number of transforms (a prover's a, b, c).
 *   Returns 0, CUZK_ERR_ARG (n as for F_ntt; plan or g NULL) or
 *   CUZK_ERR_NOMEM; on error *plan = NULL (when plan is not NULL). Which
 *   vector engine (AVX-512 IFMA, AVX2 or none) the plan's transforms use is
 *   decided here.
 *
 * int F_ntt_plan_new_root(F_ntt_plan **plan, size_t n, const F *w, const F *shift,
 *                         int nthreads)
 *   F_ntt_plan_new on the domain of w, a primitive n-th root of unity that
 *   the plan's transforms take for w_n (NULL: F_ntt_root's); w is not
 *   checked. Same returns.
 *
 * void F_ntt_plan_free(F_ntt_plan *plan)
 *   Frees a plan (NULL: nothing).
 *
 * int F_ntt_to_coset(const F_ntt_plan *plan, F *a, int nthreads)
 *   In place, n = the plan's size: from a[i] = p(w_n^i), the values of a
 *   polynomial p of degree < n, to a[i] = p(g w_n^i), natural order in and
 *   out; the same as F_intt, F_scale_by_powers by g, F_ntt. Returns 0,
 *   CUZK_ERR_ARG (plan or a NULL) or CUZK_ERR_NOMEM (a untouched). Output
 *   does not depend on nthreads; plans may be shared by threads.
 *
 * int F_intt_scaled(const F_ntt_plan *plan, F *a, int nthreads)
 *   In place, n = the plan's size, g its shift: from a[i] = p(w_n^i) to
 *   a[i] = p_i g^i, p's coefficients times powers of g, natural order in
 *   and out; the same as F_intt then F_scale_by_powers by g. With g = h^-1
 *   it takes p's values on the coset h<w_n> back to p's coefficients.
 *   Same returns as F_ntt_to_coset.
 */
#ifndef CUZK_POLY_NTT_H
#define CUZK_POLY_NTT_H

#include <stddef.h>

#include "cuzk/cuzk.h"
#include "ff/field.h"

#define NTT_DECLARE(F)                                                                          \
    typedef struct F##_ntt_plan F##_ntt_plan;                                                   \
    void F##_ntt_root(F *w, unsigned log_n);                                                    \
    void F##_ntt_root_of(F *w, unsigned log_n, uint64_t generator);                             \
    int F##_ntt(F *a, size_t n, int nthreads);                                                  \
    int F##_intt(F *a, size_t n, int nthreads);                                                 \
    void F##_scale_by_powers(F *a, size_t n, const F *g, int nthreads);                         \
    int F##_ntt_plan_new(F##_ntt_plan **plan, size_t n, const F *g, int nthreads);              \
    int F##_ntt_plan_new_root(F##_ntt_plan **plan, size_t n, const F *w, const F *g, int nthreads); \
    void F##_ntt_plan_free(F##_ntt_plan *plan);                                                 \
    int F##_ntt_to_coset(const F##_ntt_plan *plan, F *a, int nthreads);                         \
    int F##_intt_scaled(const F##_ntt_plan *plan, F *a, int nthreads);

#define NTT_DECLARE_CURVE(prefix, PREFIX, snarkjs) NTT_DECLARE(prefix##_fr)
CUZK_CURVES(NTT_DECLARE_CURVE)
#undef NTT_DECLARE_CURVE

#undef NTT_DECLARE

#endif
