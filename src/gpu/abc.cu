/* a, b, c on the device from the key's coefficients (abc.cuh). */
#include <cstdlib>
#include <cstring>

#include "gpu/abc.cuh"
#include "gpu/ff.cuh"

namespace gpu {

static constexpr unsigned ABC_THREADS = 256;

size_t abc_rows_bytes(const cuzk_zkey *z)
{
    return (2 * (size_t)z->domain_size + 1) * sizeof(uint32_t) + (size_t)z->n_coefs * (sizeof(uint32_t) + 32);
}

/* counting sort of the coefficients by (matrix, row), stable: file order
 * within a row */
static int group_rows(const cuzk_zkey *z, uint32_t *start, uint32_t *wire, uint8_t *value, cuzk_error *err)
{
    const size_t n = z->domain_size, slots = 2 * n;
    memset(start, 0, (slots + 1) * sizeof *start);
    for (uint32_t k = 0; k < z->n_coefs; k++) {
        const cuzk_zkey_coef *e = &z->coefs[k];
        if (e->matrix > 1 || e->row >= n || e->wire >= z->n_vars)
            return cuzk_fail(err, CUZK_ERR_ARG, "coefficient %u: matrix %u row %u wire %u outside the key", k,
                             e->matrix, e->row, e->wire);
        start[e->matrix * n + e->row + 1]++;
    }
    for (size_t s = 0; s < slots; s++)
        start[s + 1] += start[s];
    uint32_t *fill = static_cast<uint32_t *>(malloc(slots * sizeof *fill));
    if (!fill)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory grouping %u coefficients", z->n_coefs);
    memcpy(fill, start, slots * sizeof *fill);
    for (uint32_t k = 0; k < z->n_coefs; k++) {
        const cuzk_zkey_coef *e = &z->coefs[k];
        const uint32_t at = fill[e->matrix * n + e->row]++;
        wire[at] = e->wire;
        memcpy(value + (size_t)at * 32, e->value, 32);
    }
    free(fill);
    return 0;
}

static int upload_rows(const cuzk_zkey *z, abc_rows *r, uint32_t *start, uint32_t *wire, uint8_t *value,
                       cuzk_error *err)
{
    GPU_TRY(group_rows(z, start, wire, value, err));
    const size_t n_start = 2 * (size_t)z->domain_size + 1, m = z->n_coefs ? z->n_coefs : 1;
    GPU_CHECK(cudaMalloc(&r->row_start, n_start * sizeof(uint32_t)));
    GPU_CHECK(cudaMalloc(&r->wire, m * sizeof(uint32_t)));
    GPU_CHECK(cudaMalloc(&r->value, m * 32));
    GPU_CHECK(cudaMemcpy(r->row_start, start, n_start * sizeof(uint32_t), cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemcpy(r->wire, wire, (size_t)z->n_coefs * sizeof(uint32_t), cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemcpy(r->value, value, (size_t)z->n_coefs * 32, cudaMemcpyHostToDevice));
    r->n = z->domain_size;
    return 0;
}

int abc_rows_upload(const cuzk_zkey *z, abc_rows *r, cuzk_error *err)
{
    *r = abc_rows();
    uint32_t *start = static_cast<uint32_t *>(malloc((2 * (size_t)z->domain_size + 1) * sizeof(uint32_t)));
    uint32_t *wire = static_cast<uint32_t *>(malloc(((size_t)z->n_coefs + 1) * sizeof(uint32_t)));
    uint8_t *value = static_cast<uint8_t *>(malloc(((size_t)z->n_coefs + 1) * 32));
    int rc = start && wire && value ? upload_rows(z, r, start, wire, value, err)
                                    : cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory for %u coefficients",
                                                z->n_coefs);
    free(start);
    free(wire);
    free(value);
    return rc;
}

void abc_rows_free(abc_rows *r)
{
    for (void *p : {(void *)r->row_start, (void *)r->wire, r->value})
        if (p)
            cudaFree(p);
    cudaGetLastError();
    *r = abc_rows();
}

/* sum over entries [lo, hi) of value * w[wire] */
template <class Fr>
FF_INLINE Fr row_dot(const uint32_t *wire, const Fr *value, const Fr *w, uint32_t lo, uint32_t hi)
{
    Fr acc = Fr::zero();
    for (uint32_t k = lo; k < hi; k++)
        acc = acc + load_ro(value + k) * load_ro(w + __ldg(wire + k));
    return acc;
}

/* thread i: a_i, b_i, c_i = a_i b_i */
template <class Fr>
__global__ void abc_kernel(const uint32_t *start, const uint32_t *wire, const Fr *value, const Fr *w, Fr *abc,
                           uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const Fr a = row_dot(wire, value, w, __ldg(start + i), __ldg(start + i + 1));
    const Fr b = row_dot(wire, value, w, __ldg(start + n + i), __ldg(start + n + i + 1));
    store(abc + i, a);
    store(abc + n + i, b);
    store(abc + 2 * (size_t)n + i, a * b);
}

template <class Fr> static int launch(cuzk_gpu *g, const abc_rows &r, const void *witness, void *abc, cuzk_error *err)
{
    abc_kernel<Fr><<<grid_for(r.n, ABC_THREADS), ABC_THREADS, 0, g->stream>>>(
        r.row_start, r.wire, static_cast<const Fr *>(r.value), static_cast<const Fr *>(witness),
        static_cast<Fr *>(abc), r.n);
    GPU_LAUNCHED();
    return 0;
}

int abc_build(cuzk_gpu *g, cuzk_curve_id curve, const abc_rows &r, const void *witness, void *abc, cuzk_error *err)
{
    switch (curve) {
    case CUZK_CURVE_BN254: return launch<bn254_fr_t>(g, r, witness, abc, err);
    case CUZK_CURVE_BLS12_381: return launch<bls12_381_fr_t>(g, r, witness, abc, err);
    }
    return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve id %d", (int)curve);
}

} /* namespace gpu */
