/* The door of src/gpu/gpu.h for builds without nvcc (mk/cuda.mk picks this
 * file or the .cu files): no devices, and every call that would need one
 * fails with "built without CUDA". */
#include "gpu/gpu.h"

#include "util/err.h"

static int no_cuda(cuzk_error *err)
{
    return cuzk_fail(err, CUZK_GPU_ERR_DEVICE, "cuzk was built without CUDA (make CUDA=1 builds it where nvcc is installed)");
}

int cuzk_gpu_device_count(void) { return 0; }

int cuzk_gpu_memory(int device, size_t *used, size_t *total, cuzk_error *err)
{
    (void)device;
    *used = *total = 0;
    return no_cuda(err);
}

int cuzk_gpu_scratch_capacity(int device, size_t *bytes, cuzk_error *err)
{
    (void)device;
    *bytes = 0;
    return no_cuda(err);
}

int cuzk_gpu_pool_usage(cuzk_gpu *g, int reset, size_t *used, size_t *high, cuzk_error *err)
{
    (void)g, (void)reset;
    *used = *high = 0;
    return no_cuda(err);
}

int cuzk_gpu_ballast(int device, size_t limit, void **ballast, cuzk_error *err)
{
    (void)device, (void)limit;
    *ballast = NULL;
    return no_cuda(err);
}

void cuzk_gpu_ballast_free(int device, void *ballast) { (void)device, (void)ballast; }

int cuzk_gpu_open(cuzk_gpu **out, int device, cuzk_error *err)
{
    (void)device;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

void cuzk_gpu_close(cuzk_gpu *g) { (void)g; }

int cuzk_gpu_ntt(cuzk_gpu *g, cuzk_curve_id curve, void *data, size_t n, int inverse, cuzk_error *err)
{
    (void)g, (void)curve, (void)data, (void)n, (void)inverse;
    return no_cuda(err);
}

int cuzk_gpu_coset_h(cuzk_gpu *g, cuzk_curve_id curve, void *a, const void *b, const void *c, size_t n,
                     cuzk_error *err)
{
    (void)g, (void)curve, (void)a, (void)b, (void)c, (void)n;
    return no_cuda(err);
}

int cuzk_gpu_msm_g1(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases, const void *scalars,
                    size_t n, cuzk_error *err)
{
    (void)g, (void)curve, (void)result_jac, (void)bases, (void)scalars, (void)n;
    return no_cuda(err);
}

int cuzk_gpu_msm_g2(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases, const void *scalars,
                    size_t n, cuzk_error *err)
{
    (void)g, (void)curve, (void)result_jac, (void)bases, (void)scalars, (void)n;
    return no_cuda(err);
}

int cuzk_gpu_alloc(cuzk_gpu *g, void **dev, size_t bytes, cuzk_error *err)
{
    (void)g, (void)bytes;
    if (dev)
        *dev = NULL;
    return no_cuda(err);
}

void cuzk_gpu_free(cuzk_gpu *g, void *dev) { (void)g, (void)dev; }

int cuzk_gpu_upload(cuzk_gpu *g, void *dev, const void *host, size_t bytes, cuzk_error *err)
{
    (void)g, (void)dev, (void)host, (void)bytes;
    return no_cuda(err);
}

int cuzk_gpu_download(cuzk_gpu *g, void *host, const void *dev, size_t bytes, cuzk_error *err)
{
    (void)g, (void)host, (void)dev, (void)bytes;
    return no_cuda(err);
}

int cuzk_gpu_ntt_dev(cuzk_gpu *g, cuzk_curve_id curve, void *data, size_t n, int inverse, cuzk_error *err)
{
    (void)g, (void)curve, (void)data, (void)n, (void)inverse;
    return no_cuda(err);
}

int cuzk_gpu_coset_h_dev(cuzk_gpu *g, cuzk_curve_id curve, void *a, void *b, void *c, size_t n, cuzk_error *err)
{
    (void)g, (void)curve, (void)a, (void)b, (void)c, (void)n;
    return no_cuda(err);
}

int cuzk_gpu_msm_g1_dev(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases, const void *scalars,
                        size_t n, cuzk_error *err)
{
    (void)g, (void)curve, (void)result_jac, (void)bases, (void)scalars, (void)n;
    return no_cuda(err);
}

int cuzk_gpu_msm_g2_dev(cuzk_gpu *g, cuzk_curve_id curve, void *result_jac, const void *bases, const void *scalars,
                        size_t n, cuzk_error *err)
{
    (void)g, (void)curve, (void)result_jac, (void)bases, (void)scalars, (void)n;
    return no_cuda(err);
}

int cuzk_gpu_set_msm_window(cuzk_gpu *g, unsigned c, cuzk_error *err)
{
    (void)g, (void)c;
    return no_cuda(err);
}

int cuzk_gpu_set_msm_lanes(cuzk_gpu *g, int lanes, cuzk_error *err)
{
    (void)g, (void)lanes;
    return no_cuda(err);
}

size_t cuzk_gpu_msm_table_bytes(const cuzk_gpu *g, cuzk_curve_id curve, int g2, size_t n)
{
    (void)g, (void)curve, (void)g2, (void)n;
    return 0;
}

int cuzk_gpu_msm_table_make(cuzk_gpu *g, cuzk_curve_id curve, int g2, const void *bases, size_t n,
                            cuzk_gpu_msm_table **out, cuzk_error *err)
{
    (void)g, (void)curve, (void)g2, (void)bases, (void)n;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

int cuzk_gpu_msm_table_run(cuzk_gpu *g, const cuzk_gpu_msm_table *t, void *result_jac, const void *scalars,
                           size_t n, cuzk_error *err)
{
    (void)g, (void)t, (void)result_jac, (void)scalars, (void)n;
    return no_cuda(err);
}

void cuzk_gpu_msm_table_free(cuzk_gpu_msm_table *t) { (void)t; }

int cuzk_gpu_set_key_tables(cuzk_gpu *g, int on, cuzk_error *err)
{
    (void)g, (void)on;
    return no_cuda(err);
}

int cuzk_gpu_set_c_plus_h(cuzk_gpu *g, unsigned slices, int h_aside, cuzk_error *err)
{
    (void)g, (void)slices, (void)h_aside;
    return no_cuda(err);
}

int cuzk_gpu_key_upload(cuzk_gpu *g, const cuzk_zkey *z, cuzk_gpu_key **out, cuzk_error *err)
{
    (void)g, (void)z;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

int cuzk_gpu_key_stream(cuzk_gpu *g, const cuzk_zkey *z, size_t slice_points, cuzk_gpu_key **out, cuzk_error *err)
{
    (void)slice_points;
    return cuzk_gpu_key_upload(g, z, out, err);
}

int cuzk_gpu_key_streamed(const cuzk_gpu_key *k)
{
    (void)k;
    return 0;
}

int cuzk_gpu_key_set_rows(cuzk_gpu *g, cuzk_gpu_key *k, const cuzk_gpu_rows *rows, cuzk_error *err)
{
    (void)g, (void)k, (void)rows;
    return no_cuda(err);
}

int cuzk_gpu_key_has_rows(const cuzk_gpu_key *k)
{
    (void)k;
    return 0;
}

void cuzk_gpu_key_free(cuzk_gpu_key *k) { (void)k; }

int cuzk_gpu_prove(cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, const void *witness, cuzk_msm_results *m,
                   cuzk_prove_timings *t, cuzk_error *err)
{
    (void)g, (void)k, (void)abc, (void)witness, (void)m, (void)t;
    return no_cuda(err);
}

int cuzk_gpu_prove_packed(cuzk_gpu *g, const cuzk_gpu_key *k, const cuzk_wtns_packed *w, cuzk_msm_results *m,
                          cuzk_prove_timings *t, cuzk_error *err)
{
    (void)g, (void)k, (void)w, (void)m, (void)t;
    return no_cuda(err);
}

int cuzk_gpu_setup(cuzk_gpu *g, const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z, cuzk_gpu_key **key,
                   cuzk_error *err)
{
    (void)g, (void)r, (void)o, (void)z, (void)key;
    return no_cuda(err);
}

void *cuzk_gpu_host_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void cuzk_gpu_host_free(void *p) { (void)p; }
