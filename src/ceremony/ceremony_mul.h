/* The hook the ceremony's heavy multiplications go through
 * (cuzk_ceremony_mul), apart from the rest of ceremony.h so that a device
 * (src/gpu) can fill it with nothing else of the ceremony in view. */
#ifndef CUZK_CEREMONY_CEREMONY_MUL_H
#define CUZK_CEREMONY_CEREMONY_MUL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

/* One term of a sparse linear combination of points: k times point `base`
 * of table `table`; k in normal form, < r. */
typedef struct {
    uint32_t table, base;
    uint64_t k[4];
} cuzk_lc_term;

/* Where a long multiplication tells how far it is: fn(ctx, stage, done,
 * total) with done of total points (fn NULL: nobody listens). */
typedef struct {
    void (*fn)(void *ctx, const char *stage, uint64_t done, uint64_t total);
    void *ctx;
    const char *stage;
} cuzk_ceremony_report;

/* What the ceremony multiplies, for a device to take over (NULL members:
 * the CPU's). Points are affine, Montgomery, all-zero = infinity, in host
 * memory; g2 says the group; report (never NULL) hears of the progress.
 *   combine: out[i] = sum of the terms start[i] .. start[i + 1] - 1 (k
 *            public: the circuit's coefficients), i < n;
 *   scale:   pts[i] <- first inc^i pts[i], i < n, in place (first and
 *            inc secret, Montgomery Fr);
 *   ifft:    the inverse FFT of the n = 2^log_n points in place, natural
 *            order in and out: pts_j <- n_inv sum_i pts_i root_inv^(ij)
 *            (root_inv: the inverse of the domain's root of order n,
 *            n_inv = 1/n, Montgomery Fr, public): prepare phase2's
 *            Lagrange bases. CUZK_ERR_NOMEM when the points do not fit
 *            the device: the ceremony then runs it on the CPU;
 *   msm:     *result_jac = sum of scalars[i] bases[i], i < n (scalars in
 *            normal form, public; the result Jacobian, Montgomery, as
 *            src/msm/msm.h's): zkey new's outputs of many terms. */
typedef struct {
    void *ctx;
    int (*combine)(void *ctx, cuzk_curve_id curve, int g2, void *out, size_t n, const uint64_t *start,
                   const cuzk_lc_term *terms, const void *const *tables, const cuzk_ceremony_report *report,
                   cuzk_error *err);
    int (*scale)(void *ctx, cuzk_curve_id curve, int g2, void *pts, size_t n, const uint64_t *first,
                 const uint64_t *inc, const cuzk_ceremony_report *report, cuzk_error *err);
    int (*ifft)(void *ctx, cuzk_curve_id curve, int g2, void *pts, unsigned log_n, const uint64_t *root_inv,
                const uint64_t *n_inv, const cuzk_ceremony_report *report, cuzk_error *err);
    int (*msm)(void *ctx, cuzk_curve_id curve, int g2, void *result_jac, const void *bases, const void *scalars,
               size_t n, cuzk_error *err);
} cuzk_ceremony_mul;

#endif
