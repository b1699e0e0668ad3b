/* A Groth16 key and witness in bellman's layout (bellman, bellperson:
 * Filecoin's .params, src/filecoin), as a prover device takes them
 * (backend.h's bellman_* operations, gpu.h's cuzk_gpu_*_bellman).
 *
 * Variables: n_inputs inputs (ONE first), then n_aux aux; variable j is
 * input j for j < n_inputs, else aux j - n_inputs. For a domain of n
 * points (roots of unity from domain_generator, 7 for blstrs):
 *   A  = sum over a's points:   value(a_vars[i]) a[i]
 *   B1 = sum over b's points:   value(b_vars[i]) b_g1[i], B2 the same on b_g2
 *   C' + H' = sum_j aux_j l[j] + sum_{i < n-1} h_i h[i], h the quotient
 *        (a b - c) / Z in coefficient form: iFFT, FFT on the coset
 *        g<w>, divide by Z = g^n - 1, coset iFFT (src/filecoin/prove.h)
 * Points are ec.inc's affine points (Montgomery form, blst's layout),
 * scalars Fr in Montgomery form (blstrs's), all in host memory. */
#ifndef CUZK_GROTH16_BELLMAN_H
#define CUZK_GROTH16_BELLMAN_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

typedef struct {
    cuzk_curve_id curve;
    uint32_t n_inputs, n_aux;
    uint32_t domain_size;      /* n, a power of two; h holds n - 1 points */
    uint64_t domain_generator; /* g: the domain's root g^((r-1)/n), the coset g<w> */
    const void *a, *b_g1, *b_g2, *l, *h;
    size_t n_a, n_b;                 /* points in a; in b_g1 and in b_g2 */
    const uint32_t *a_vars, *b_vars; /* each point's variable, < n_inputs + n_aux */
} cuzk_bellman_key;

typedef struct {
    const void *a, *b, *c; /* abc_size evaluations on the domain (<= n; the rest zero) */
    size_t abc_size;
    const void *inputs, *aux; /* the key's n_inputs and n_aux values */
} cuzk_bellman_witness;

#endif
