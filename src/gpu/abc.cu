/* a, b, c on the device from the key's A and B matrices (abc.cuh). */
#include "gpu/abc.cuh"
#include "gpu/ff.cuh"

namespace gpu {

static constexpr unsigned ABC_THREADS = 256;

static size_t terms(const cuzk_gpu_rows *rows, int m)
{
    return rows->row_start[m][rows->n_rows];
}

/* B's offsets shifted past A's terms, so both index one wire and coef array */
static int upload_row_starts(const cuzk_gpu_rows *rows, uint32_t *dst, cuzk_error *err)
{
    const size_t n1 = (size_t)rows->n_rows + 1;
    uint32_t *shifted = static_cast<uint32_t *>(malloc(n1 * sizeof *shifted));
    if (!shifted)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory for %u row offsets", rows->n_rows);
    const uint32_t nnz_a = rows->row_start[0][rows->n_rows];
    for (size_t i = 0; i < n1; i++)
        shifted[i] = nnz_a + rows->row_start[1][i];
    int rc = copy_to_device(dst, rows->row_start[0], n1 * sizeof *dst, err);
    if (!rc)
        rc = copy_to_device(dst + n1, shifted, n1 * sizeof *dst, err);
    free(shifted);
    return rc;
}

int abc_rows_upload(cuzk_gpu *g, cuzk_curve_id curve, const cuzk_gpu_rows *rows, abc_rows *r, cuzk_error *err)
{
    *r = abc_rows();
    const size_t n1 = (size_t)rows->n_rows + 1, ta = terms(rows, 0), tb = terms(rows, 1);
    if (ta + tb > UINT32_MAX)
        return cuzk_fail(err, CUZK_ERR_ARG, "%zu matrix terms: at most 2^32 - 1", ta + tb);
    GPU_CHECK(cudaMalloc(&r->row_start, 2 * n1 * sizeof(uint32_t)));
    GPU_CHECK(cudaMalloc(&r->wire, (ta + tb + 1) * sizeof(uint32_t)));
    GPU_CHECK(cudaMalloc(&r->coef, (ta + tb + 1) * sizeof(uint32_t)));
    GPU_CHECK(cudaMalloc(&r->values, ((size_t)rows->n_values + 1) * 32));
    GPU_CHECK(cudaMalloc(&r->values_normal, ((size_t)rows->n_values + 1) * 32));
    GPU_TRY(upload_row_starts(rows, r->row_start, err));
    GPU_TRY(copy_to_device(r->wire, rows->wire[0], ta * sizeof(uint32_t), err));
    GPU_TRY(copy_to_device(r->wire + ta, rows->wire[1], tb * sizeof(uint32_t), err));
    GPU_TRY(copy_to_device(r->coef, rows->coef[0], ta * sizeof(uint32_t), err));
    GPU_TRY(copy_to_device(r->coef + ta, rows->coef[1], tb * sizeof(uint32_t), err));
    GPU_TRY(copy_to_device(r->values, rows->values, (size_t)rows->n_values * 32, err));
    GPU_TRY(copy_to_device(r->values_normal, rows->values, (size_t)rows->n_values * 32, err));
    GPU_TRY(scalars_to_normal(g, curve, r->values_normal, rows->n_values, err));
    GPU_CHECK(cudaStreamSynchronize(g->stream)); /* before any context proves with them */
    r->n = rows->n_rows;
    return 0;
}

void abc_rows_free(abc_rows *r)
{
    for (void *p : {(void *)r->row_start, (void *)r->wire, (void *)r->coef, r->values, r->values_normal})
        if (p)
            cudaFree(p);
    cudaGetLastError();
    *r = abc_rows();
}

/* Terms a thread gathers before it sums them: ABC_BATCH witness values
 * in flight at once instead of one after another. */
static constexpr unsigned ABC_BATCH = 4;

/* sum over terms [lo, hi) of coef w[wire], normal form (abc.cuh) */
template <class Fr>
FF_INLINE Fr row_sum(const abc_rows &r, const Fr *w, uint32_t lo, uint32_t hi)
{
    const Fr *values = static_cast<const Fr *>(r.values);
    const Fr *values_normal = static_cast<const Fr *>(r.values_normal);
    Fr acc = Fr::zero();
    for (uint32_t k = lo; k < hi; k += ABC_BATCH) {
        Fr x[ABC_BATCH];
#pragma unroll
        for (unsigned u = 0; u < ABC_BATCH; u++)
            x[u] = k + u < hi ? load_ro(w + __ldg(r.wire + k + u)) : Fr::zero();
#pragma unroll
        for (unsigned u = 0; u < ABC_BATCH; u++) {
            const uint32_t code = k + u < hi ? __ldg(r.coef + k + u) : CUZK_GPU_COEF_ONE;
            if (code == CUZK_GPU_COEF_ONE)
                acc = acc + x[u]; /* + 0 past the row's end */
            else if (code == CUZK_GPU_COEF_MINUS_ONE)
                acc = acc - x[u];
            else if (x[u] == Fr::raw_one()) /* coef itself (a few distinct values, in cache) */
                acc = acc + load_ro(values_normal + code - CUZK_GPU_COEF_VALUES);
            else if (!x[u].is_zero()) /* (coef R) x R^-1 */
                acc = acc + load_ro(values + code - CUZK_GPU_COEF_VALUES) * x[u];
        }
    }
    return acc;
}

/* A row's sum s (normal form) in Montgomery form, s R, with the products
 * left out where s is 0 or 1 (most rows of a bit-heavy circuit). */
template <class Fr> struct row_value {
    Fr mont;
    bool zero, one;
    FF_INLINE explicit row_value(const Fr &s) : zero(s.is_zero()), one(s == Fr::raw_one())
    {
        mont = zero ? s : one ? Fr::one() : s.to_mont();
    }
};

/* thread i: a_i, b_i, c_i = a_i b_i (Montgomery) */
template <class Fr> __global__ void abc_kernel(const abc_rows r, const Fr *w, Fr *a_out, Fr *b_out, Fr *c_out)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x, n = r.n;
    if (i >= n)
        return;
    const row_value<Fr> a(row_sum(r, w, __ldg(r.row_start + i), __ldg(r.row_start + i + 1)));
    const row_value<Fr> b(row_sum(r, w, __ldg(r.row_start + n + 1 + i), __ldg(r.row_start + n + 2 + i)));
    store(a_out + i, a.mont);
    store(b_out + i, b.mont);
    store(c_out + i, a.zero || b.one ? a.mont : b.zero || a.one ? b.mont : a.mont * b.mont);
}

template <class Fr>
static int launch(cuzk_gpu *g, const abc_rows &r, const void *witness, void *a, void *b, void *c, cuzk_error *err)
{
    abc_kernel<Fr><<<grid_for(r.n, ABC_THREADS), ABC_THREADS, 0, g->stream>>>(
        r, static_cast<const Fr *>(witness), static_cast<Fr *>(a), static_cast<Fr *>(b), static_cast<Fr *>(c));
    GPU_LAUNCHED();
    return 0;
}

int abc_build(cuzk_gpu *g, cuzk_curve_id curve, const abc_rows &r, const void *witness, void *a, void *b, void *c,
              cuzk_error *err)
{
    switch (curve) {
    case CUZK_CURVE_BN254: return launch<bn254_fr_t>(g, r, witness, a, b, c, err);
    case CUZK_CURVE_BLS12_381: return launch<bls12_381_fr_t>(g, r, witness, a, b, c, err);
    }
    return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve id %d", (int)curve);
}

} /* namespace gpu */
