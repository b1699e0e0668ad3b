/* a, b, c of one proof built on the device from the proving key's A and B
 * matrices: the CPU's synthesis (src/synthesis/pce.c, cuzk_pce_synthesize),
 *   a = A.w, b = B.w (row by row), c = a o b,
 * so a whole proof needs only the witness from the host.
 *
 * The matrices come in the PCE's encoding (gpu.h, cuzk_gpu_rows): per term
 * a wire and a code, 0 = +1, 1 = -1, k >= 2 = values[k - 2] (coef R). One
 * thread sums one row of A and one of B. The witness stays in normal form:
 * a +-1 term adds +-w, any other (coef R) w R^-1 = coef w, so a row's sum s
 * is in normal form and one product with R^2 lifts it (s R). A coef term
 * whose witness value is 0 adds nothing and one whose value is 1 adds coef
 * (kept in normal form too): bit-heavy witnesses (SHA-256's packing rows,
 * 32 terms 2^i b_i; XOR's 2a) then take products only for their few
 * full-size values, and a warp no longer waits on one lane's 32 products;
 * a sum of 0 or 1 is lifted (and c made) without products too. */
#ifndef CUZK_GPU_ABC_CUH
#define CUZK_GPU_ABC_CUH

#include "gpu/gpu_internal.cuh"

namespace gpu {

struct abc_rows {
    uint32_t n = 0;                /* rows per matrix: the domain size */
    uint32_t *row_start = nullptr; /* A's n + 1 offsets, then B's n + 1, into wire and coef */
    uint32_t *wire = nullptr;      /* per term: A's terms, then B's */
    uint32_t *coef = nullptr;      /* per term: the code */
    void *values = nullptr;        /* 32 bytes each, coef R */
    void *values_normal = nullptr; /* the same coefs, normal form */
};

/* *r <- rows (of a key on `curve`) copied to g's device (cudaMalloc'd);
 * free with abc_rows_free, also after a failure. */
int abc_rows_upload(cuzk_gpu *g, cuzk_curve_id curve, const cuzk_gpu_rows *rows, abc_rows *r, cuzk_error *err);
void abc_rows_free(abc_rows *r);

/* a, b, c (n scalars each on the device, Montgomery) <- the rows against
 * the witness (device, normal form), on g's stream. */
int abc_build(cuzk_gpu *g, cuzk_curve_id curve, const abc_rows &r, const void *witness, void *a, void *b, void *c,
              cuzk_error *err);

} /* namespace gpu */

#endif
