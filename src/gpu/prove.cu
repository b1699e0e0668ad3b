/* Whole proofs on the device (gpu.h, "whole proofs"): the proving key's
 * points kept resident, and the device part of one proof timed phase by
 * phase with CUDA events. */
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gpu/gpu_internal.cuh"

struct cuzk_gpu_key {
    int device;
    cuzk_curve_id curve;
    uint32_t n_vars, n_public, domain_size;
    void *a, *b1, *b2, *c, *h; /* affine points exactly as in the zkey */
};

namespace gpu {

/* Scalars of both curves: four little-endian words. */
struct fr_words {
    uint64_t l[4];
};

struct key_layout {
    size_t g1, g2;                  /* bytes per affine point */
    size_t n_a, n_c, n_h;           /* points in A (= B1 = B2), C, H */
};

static key_layout layout_of(const cuzk_zkey *z)
{
    key_layout l;
    l.g1 = 2 * (size_t)z->n8q;
    l.g2 = 4 * (size_t)z->n8q;
    l.n_a = z->n_vars;
    l.n_c = (size_t)z->n_vars - z->n_public - 1;
    l.n_h = z->domain_size;
    return l;
}

static int upload_points(void **dst, const void *src, size_t bytes, cuzk_error *err)
{
    GPU_CHECK(cudaMalloc(dst, bytes ? bytes : 1));
    GPU_CHECK(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice));
    return 0;
}

static int upload_key(cuzk_gpu_key *k, const cuzk_zkey *z, cuzk_error *err)
{
    const key_layout l = layout_of(z);
    GPU_TRY(upload_points(&k->a, z->a, l.n_a * l.g1, err));
    GPU_TRY(upload_points(&k->b1, z->b1, l.n_a * l.g1, err));
    GPU_TRY(upload_points(&k->b2, z->b2, l.n_a * l.g2, err));
    GPU_TRY(upload_points(&k->c, z->c, l.n_c * l.g1, err));
    GPU_TRY(upload_points(&k->h, z->h, l.n_h * l.g1, err));
    return 0;
}

static double elapsed_s(cudaEvent_t from, cudaEvent_t to)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, from, to) == cudaSuccess ? ms / 1000.0 : 0.0;
}

/* The phases, each ending at an event on the context's stream:
 *   0 start  1 h2d  2 ntt  3 msm_a  4 msm_b1  5 msm_b2  6 msm_c  7 msm_h
 * Each MSM brings its window sums back itself and finishes on the host,
 * so the results need no copy of their own: d2h is folded into the MSMs. */
static int mark(cuzk_gpu *g, int i, cuzk_error *err)
{
    if (!g->phase_ev[i])
        GPU_CHECK(cudaEventCreate(&g->phase_ev[i]));
    GPU_CHECK(cudaEventRecord(g->phase_ev[i], g->stream));
    return 0;
}

static int prove(cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, const void *witness, cuzk_msm_results *m,
                 cuzk_prove_timings *t, cuzk_error *err)
{
    const size_t n = k->domain_size, nv = k->n_vars, first_private = (size_t)k->n_public + 1;
    const cuzk_curve_id curve = k->curve;
    dev_buf<fr_words> d_abc, d_w;
    GPU_TRY(d_abc.alloc(g, 3 * n, err));
    GPU_TRY(d_w.alloc(g, nv, err));
    fr_words *a = d_abc, *b = a + n, *c = b + n;

    GPU_TRY(mark(g, 0, err));
    GPU_CHECK(cudaMemcpyAsync(a, abc, 3 * n * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    GPU_CHECK(cudaMemcpyAsync(d_w, witness, nv * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    GPU_TRY(mark(g, 1, err));
    /* h = a o b - c on the coset, normal form, written over a */
    GPU_TRY(cuzk_gpu_coset_h_dev(g, curve, a, b, c, n, err));
    GPU_TRY(mark(g, 2, err));
    memset(m, 0, sizeof *m);
    m->curve = curve;
    GPU_TRY(cuzk_gpu_msm_g1_dev(g, curve, m->a, k->a, d_w, nv, err));
    GPU_TRY(mark(g, 3, err));
    GPU_TRY(cuzk_gpu_msm_g1_dev(g, curve, m->b1, k->b1, d_w, nv, err));
    GPU_TRY(mark(g, 4, err));
    GPU_TRY(cuzk_gpu_msm_g2_dev(g, curve, m->b2, k->b2, d_w, nv, err));
    GPU_TRY(mark(g, 5, err));
    GPU_TRY(cuzk_gpu_msm_g1_dev(g, curve, m->c, k->c, d_w.get() + first_private, nv - first_private, err));
    GPU_TRY(mark(g, 6, err));
    GPU_TRY(cuzk_gpu_msm_g1_dev(g, curve, m->h, k->h, a, n, err));
    GPU_TRY(mark(g, 7, err));
    GPU_CHECK(cudaEventSynchronize(g->phase_ev[7]));
    if (t) {
        cudaEvent_t *ev = g->phase_ev;
        t->h2d = elapsed_s(ev[0], ev[1]);
        t->ntt = elapsed_s(ev[1], ev[2]);
        t->msm_a = elapsed_s(ev[2], ev[3]);
        t->msm_b1 = elapsed_s(ev[3], ev[4]);
        t->msm_b2 = elapsed_s(ev[4], ev[5]);
        t->msm_c = elapsed_s(ev[5], ev[6]);
        t->msm_h = elapsed_s(ev[6], ev[7]);
        t->d2h = 0;
        t->total = elapsed_s(ev[0], ev[7]);
    }
    return 0;
}

} /* namespace gpu */

extern "C" size_t cuzk_gpu_key_bytes(const cuzk_zkey *z)
{
    if (!z)
        return 0;
    const gpu::key_layout l = gpu::layout_of(z);
    return l.n_a * (2 * l.g1 + l.g2) + (l.n_c + l.n_h) * l.g1;
}

extern "C" int cuzk_gpu_key_upload(cuzk_gpu *g, const cuzk_zkey *z, cuzk_gpu_key **out, cuzk_error *err)
{
    if (!g || !z || !out || !z->a)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_key_upload: needs a context, a whole key and an output");
    *out = NULL;
    GPU_CHECK(cudaSetDevice(g->device));
    cuzk_gpu_key *k = static_cast<cuzk_gpu_key *>(calloc(1, sizeof *k));
    if (!k)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory for a device key");
    k->device = g->device;
    k->curve = z->curve;
    k->n_vars = z->n_vars;
    k->n_public = z->n_public;
    k->domain_size = z->domain_size;
    int rc = gpu::upload_key(k, z, err);
    if (rc) {
        cuzk_gpu_key_free(k);
        return rc;
    }
    *out = k;
    return 0;
}

extern "C" void cuzk_gpu_key_free(cuzk_gpu_key *k)
{
    if (!k)
        return;
    cudaSetDevice(k->device);
    for (void *p : {k->a, k->b1, k->b2, k->c, k->h})
        if (p)
            cudaFree(p);
    cudaGetLastError();
    free(k);
}

extern "C" int cuzk_gpu_prove(cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, const void *witness,
                              cuzk_msm_results *m, cuzk_prove_timings *t, cuzk_error *err)
{
    if (!g || !k || !abc || !witness || !m)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove: needs a context, a device key, abc, witness, results");
    if (k->device != g->device)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove: the key is on device %d, the context on device %d",
                         k->device, g->device);
    GPU_CHECK(cudaSetDevice(g->device));
    return gpu::prove(g, k, abc, witness, m, t, err);
}

extern "C" void *cuzk_gpu_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

extern "C" void cuzk_gpu_host_free(void *p)
{
    if (p)
        cudaFreeHost(p);
    cudaGetLastError();
}
