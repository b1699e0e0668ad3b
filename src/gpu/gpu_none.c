/* The door of src/gpu/gpu.h for builds without nvcc (mk/cuda.mk picks this
 * file or the .cu files): no devices, and every call that would need one
 * fails with "built without CUDA". gpu_bench.h's entries have no stubs:
 * what calls them is built only with CUDA. */
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

int cuzk_gpu_set_key_tables(cuzk_gpu *g, int on, cuzk_error *err)
{
    (void)g, (void)on;
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

int cuzk_gpu_key_upload_bellman(cuzk_gpu *g, const cuzk_bellman_key *b, cuzk_gpu_key **out, cuzk_error *err)
{
    (void)g, (void)b;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

int cuzk_gpu_key_stream_bellman(cuzk_gpu *g, const cuzk_bellman_key *b, size_t slice_points, cuzk_gpu_key **out,
                                cuzk_error *err)
{
    (void)slice_points;
    return cuzk_gpu_key_upload_bellman(g, b, out, err);
}

int cuzk_gpu_prove_bellman(cuzk_gpu *g, const cuzk_gpu_key *k, const cuzk_bellman_witness *w,
                           const cuzk_bellman_packed *packed, cuzk_msm_results *m, cuzk_prove_timings *t,
                           cuzk_error *err)
{
    (void)g, (void)k, (void)w, (void)packed, (void)m, (void)t;
    return no_cuda(err);
}

int cuzk_gpu_ceremony_mul_make(cuzk_gpu *g, size_t round, cuzk_ceremony_mul *mul, cuzk_error *err)
{
    (void)g, (void)round;
    if (mul)
        *mul = (cuzk_ceremony_mul){0};
    return no_cuda(err);
}

void cuzk_gpu_ceremony_mul_free(cuzk_ceremony_mul *mul) { (void)mul; }

void *cuzk_gpu_host_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void cuzk_gpu_host_free(void *p) { (void)p; }
