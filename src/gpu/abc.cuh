/* a, b, c of one proof built on the device from the proving key's
 * coefficients: the CPU's synthesize_abc (src/groth16/prove.inc, step 1),
 *   a = A.w, b = B.w (row by row), c = a o b,
 * so a whole proof needs only the witness from the host.
 *
 * The coefficients (zkey section 4, any order) are regrouped once, when the
 * key is uploaded, into rows: A's n rows, then B's n rows, each row's
 * entries in file order (compressed sparse rows). One thread then sums one
 * row of A and one of B; each entry's stored value is coef R^2 and the
 * witness is in normal form, so one Montgomery product gives (coef w) R, as
 * on the CPU. */
#ifndef CUZK_GPU_ABC_CUH
#define CUZK_GPU_ABC_CUH

#include "gpu/gpu_internal.cuh"

namespace gpu {

struct abc_rows {
    uint32_t n = 0;                  /* rows per matrix: the domain size */
    uint32_t *row_start = nullptr;   /* 2n + 1 offsets into wire and value */
    uint32_t *wire = nullptr;        /* per entry */
    void *value = nullptr;           /* per entry: 32 bytes, coef R^2 */
};

/* Device bytes abc_rows_upload takes for z. */
size_t abc_rows_bytes(const cuzk_zkey *z);

/* *r <- z's coefficients as device rows (cudaMalloc'd on the current
 * device); free with abc_rows_free, also after a failure. */
int abc_rows_upload(const cuzk_zkey *z, abc_rows *r, cuzk_error *err);
void abc_rows_free(abc_rows *r);

/* abc (3 n scalars on the device: a, b, c, Montgomery) <- the rows against
 * the witness (device, normal form), on g's stream. */
int abc_build(cuzk_gpu *g, cuzk_curve_id curve, const abc_rows &r, const void *witness, void *abc, cuzk_error *err);

} /* namespace gpu */

#endif
