/* Development setups with their fixed-base multiplications on the device
 * (gpu.h, cuzk_gpu_setup): the setup itself (toxic waste, Lagrange basis,
 * u, v, w; src/groth16/setup.inc) runs on the CPU and hands each point
 * array's scalars here through cuzk_setup_mul. The points come back to the
 * host, or stay on the device as a resident key, or both. */
#include <cstring>

extern "C" { /* first, so the setup's C functions keep C linkage */
#include "groth16/groth16.h"
}

#include "gpu/key.cuh"

namespace gpu {

/* One setup's state on the device. */
struct setup_run {
    cuzk_gpu *g;
    const cuzk_zkey *z;               /* the key being made (its sizes) */
    bool keep;                        /* the arrays stay on the device for a key */
    size_t round;                     /* points per round when not kept (cuzk_setup_options.device_round) */
    void *dev[CUZK_SETUP_ARRAYS];     /* kept arrays (cudaMalloc); C's holds H's points after its own */
};

/* Where array `which` of n points goes on the device: the kept array (made
 * on first use; C's with room for H), or `scratch` when nothing is kept. */
static int array_target(setup_run *s, cuzk_setup_array which, size_t n, size_t pb, dev_buf<uint8_t> &scratch,
                        uint8_t **to, cuzk_error *err)
{
    if (!s->keep) {
        GPU_TRY(scratch.alloc(s->g, n * pb, err));
        *to = scratch;
        return 0;
    }
    if (which == CUZK_SETUP_H) { /* after C's points */
        if (!s->dev[CUZK_SETUP_C])
            return cuzk_fail(err, CUZK_ERR_ARG, "setup: H's points came before C's");
        *to = static_cast<uint8_t *>(s->dev[CUZK_SETUP_C]) + ((size_t)s->z->n_vars - s->z->n_public - 1) * pb;
        return 0;
    }
    const size_t count = which == CUZK_SETUP_C ? n + s->z->domain_size : n;
    GPU_CHECK(cudaMalloc(&s->dev[which], count * pb + 1));
    *to = static_cast<uint8_t *>(s->dev[which]);
    return 0;
}

/* Points made per round when the arrays go back to the host only: device
 * memory stays bounded (2^24 G2 points: 3 GiB) at any key size. */
static constexpr size_t SETUP_ROUND_DEFAULT = (size_t)1 << 24;

/* One round: len scalars up to d_scalars, their points to dst, and back
 * to out (host) unless it is NULL; waits for it, so the next round may
 * reuse the buffers. */
static int setup_round(cuzk_gpu *g, const msm_group *grp, cuzk_curve_id curve, const uint8_t *d_table,
                       uint8_t *d_scalars, const uint8_t *scalars, size_t len, uint8_t *dst, uint8_t *out,
                       cuzk_error *err)
{
    GPU_CHECK(cudaMemcpyAsync(d_scalars, scalars, 32 * len, cudaMemcpyHostToDevice, g->stream));
    GPU_TRY(scalars_to_normal(g, curve, d_scalars, len, err));
    GPU_TRY(grp->fixed_mul(g, d_table, d_scalars, len, dst, err));
    if (out)
        GPU_CHECK(cudaMemcpyAsync(out, dst, len * grp->point_bytes, cudaMemcpyDeviceToHost, g->stream));
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

/* cuzk_setup_mul's mul: the table and scalars up, the points made, back to
 * out when asked (in rounds of s->round points when nothing is kept); the
 * scalars (they reveal the toxic waste) are wiped from device memory
 * before it is freed. */
static int setup_mul(void *ctx, cuzk_curve_id curve, cuzk_setup_array which, void *out, const void *table,
                     const void *scalars, size_t n, cuzk_error *err)
{
    setup_run *s = static_cast<setup_run *>(ctx);
    cuzk_gpu *g = s->g;
    const msm_group *grp = msm_group_of(curve, which == CUZK_SETUP_B2);
    if (!grp)
        return cuzk_fail(err, CUZK_ERR_ARG, "setup: unknown curve %d", (int)curve);
    const size_t pb = grp->point_bytes, table_bytes = (size_t)CUZK_SETUP_WINDOWS * CUZK_SETUP_DIGITS * pb;
    const size_t round = s->keep || n < s->round ? n : s->round;
    dev_buf<uint8_t> d_table, d_scalars, scratch;
    uint8_t *to = nullptr;
    GPU_TRY(array_target(s, which, round, pb, scratch, &to, err));
    if (n == 0)
        return 0;
    GPU_TRY(d_table.alloc(g, table_bytes, err));
    GPU_TRY(d_scalars.alloc(g, 32 * round, err));
    GPU_CHECK(cudaMemcpyAsync(d_table, table, table_bytes, cudaMemcpyHostToDevice, g->stream));
    int rc = 0;
    for (size_t at = 0; at < n && !rc; at += round) {
        const size_t len = n - at < round ? n - at : round;
        rc = setup_round(g, grp, curve, d_table, d_scalars, static_cast<const uint8_t *>(scalars) + 32 * at, len,
                         s->keep ? to + at * pb : to, out ? static_cast<uint8_t *>(out) + at * pb : nullptr, err);
    }
    cudaMemsetAsync(d_scalars, 0, 32 * round, g->stream); /* on failure too */
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    return rc;
}

static void free_arrays(setup_run *s)
{
    for (void *&p : s->dev) {
        if (p)
            cudaFree(p);
        p = nullptr;
    }
    cudaGetLastError();
}

} /* namespace gpu */

extern "C" int cuzk_gpu_setup(cuzk_gpu *g, const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z,
                              cuzk_gpu_key **key, cuzk_error *err)
{
    if (!g || !r || !o || !z)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_setup: needs a context, an r1cs, options and a key");
    if (o->no_host_points && !key)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_setup: without host points the device key must be kept");
    if (key)
        *key = NULL;
    GPU_CHECK(cudaSetDevice(g->device));
    gpu::setup_run s = {g, z, key != NULL, o->device_round ? o->device_round : gpu::SETUP_ROUND_DEFAULT, {}};
    const cuzk_setup_mul mul = {&s, gpu::setup_mul};
    cuzk_setup_options opts = *o;
    opts.mul = &mul;
    int rc = cuzk_groth16_setup_with(r, &opts, z, err);
    if (rc || !key) {
        gpu::free_arrays(&s);
        return rc;
    }
    if ((rc = gpu::key_adopt(g, z, s.dev, {o->progress, o->progress_ctx}, key, err)))
        cuzk_zkey_free(z);
    return rc;
}
