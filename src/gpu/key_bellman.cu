/* A key in bellman's layout on the device (gpu.h,
 * cuzk_gpu_key_upload_bellman, cuzk_gpu_key_stream_bellman): its arrays are
 * already what a zkey's become once their points at infinity are dropped
 * (key.cu), a and b with the list of the variable of each point, so the
 * points go up as they are (or stay in host memory, streamed by each proof)
 * and the index lists pick their scalars (prove.cu's kept_scalars). */
#include <cstdlib>
#include <cstring>

#include "gpu/key.cuh"

namespace gpu {

/* what the key's counts and variables must satisfy */
static int bellman_check(const cuzk_bellman_key *b, cuzk_error *err)
{
    const size_t n = b->domain_size, nv = (size_t)b->n_inputs + b->n_aux;
    if (b->curve != CUZK_CURVE_BN254 && b->curve != CUZK_CURVE_BLS12_381)
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve id %d", (int)b->curve);
    if (b->domain_generator < 2)
        return cuzk_fail(err, CUZK_ERR_ARG, "a bellman key needs its domain's generator");
    if (n == 0 || (n & (n - 1)) || b->n_inputs == 0 || nv > UINT32_MAX)
        return cuzk_fail(err, CUZK_ERR_ARG, "a bellman key needs a domain of 2^k points and at least one input "
                         "(domain %zu, %u inputs, %u aux)", n, b->n_inputs, b->n_aux);
    if (!b->a || !b->a_vars || (b->n_b && (!b->b_g1 || !b->b_g2 || !b->b_vars)) || (b->n_aux && !b->l) ||
        (n > 1 && !b->h))
        return cuzk_fail(err, CUZK_ERR_ARG, "a bellman key lacks a point array or an index list");
    if (b->n_a == 0 || b->n_a > nv || b->n_b > nv)
        return cuzk_fail(err, CUZK_ERR_ARG, "%zu a points and %zu b points for %zu variables", b->n_a, b->n_b, nv);
    for (size_t i = 0; i < b->n_a; i++)
        if (b->a_vars[i] >= nv)
            return cuzk_fail(err, CUZK_ERR_ARG, "a point %zu is for variable %u of %zu", i, b->a_vars[i], nv);
    for (size_t i = 0; i < b->n_b; i++)
        if (b->b_vars[i] >= nv)
            return cuzk_fail(err, CUZK_ERR_ARG, "b point %zu is for variable %u of %zu", i, b->b_vars[i], nv);
    return 0;
}

/* k->pts[i] <- bytes at host (device memory of its own) */
static int upload_array(cuzk_gpu_key *k, int i, const void *host, size_t bytes, cuzk_error *err)
{
    GPU_CHECK(cudaMalloc(&k->pts[i], bytes ? bytes : 1));
    return copy_to_device(k->pts[i], host, bytes, err);
}

/* k->idx[i] <- vars (n of them), kept[i] = n */
static int upload_index(cuzk_gpu_key *k, int i, const uint32_t *vars, size_t n, cuzk_error *err)
{
    k->kept[i] = n;
    GPU_CHECK(cudaMalloc(&k->idx[i], (n ? n : 1) * sizeof(uint32_t)));
    return copy_to_device(k->idx[i], vars, n * sizeof(uint32_t), err);
}

/* k described from b, its index lists on the device; no points yet */
static int bellman_describe(const cuzk_bellman_key *b, cuzk_gpu_key *k, cuzk_error *err)
{
    const size_t fp = b->curve == CUZK_CURVE_BN254 ? 32 : 48, n = b->domain_size;
    k->curve = b->curve;
    k->n_vars = b->n_inputs + b->n_aux;
    k->n_public = b->n_inputs - 1;
    k->domain_size = b->domain_size;
    k->bellman_generator = b->domain_generator;
    k->rows = abc_rows();
    const size_t count[KEY_ARRAYS] = {k->n_vars, k->n_vars, k->n_vars, b->n_aux, n - 1};
    for (int i = 0; i < KEY_ARRAYS; i++) {
        k->count[i] = count[i];
        k->point_bytes[i] = (i == KEY_B2 ? 4 : 2) * fp;
        k->same_set[i] = i;
    }
    GPU_TRY(upload_index(k, KEY_A, b->a_vars, b->n_a, err));
    GPU_TRY(upload_index(k, KEY_B1, b->b_vars, b->n_b, err));
    GPU_TRY(upload_index(k, KEY_B2, b->b_vars, b->n_b, err));
    if (b->n_a == b->n_b && !memcmp(b->a_vars, b->b_vars, b->n_a * sizeof *b->a_vars))
        k->same_set[KEY_B1] = KEY_A; /* A's digits serve B too */
    k->same_set[KEY_B2] = k->same_set[KEY_B1];
    k->kept[KEY_C] = b->n_aux;
    k->kept[KEY_H] = n - 1;
    return 0;
}

/* b's points resident on k's device */
static int bellman_upload(const cuzk_bellman_key *b, cuzk_gpu_key *k, cuzk_error *err)
{
    GPU_TRY(upload_array(k, KEY_A, b->a, b->n_a * k->point_bytes[KEY_A], err));
    GPU_TRY(upload_array(k, KEY_B1, b->b_g1, b->n_b * k->point_bytes[KEY_B1], err));
    GPU_TRY(upload_array(k, KEY_B2, b->b_g2, b->n_b * k->point_bytes[KEY_B2], err));
    /* C's array holds H's points after its own: one MSM makes C' + H' */
    const size_t c_bytes = b->n_aux * k->point_bytes[KEY_C], h_bytes = (b->domain_size - 1) * k->point_bytes[KEY_H];
    GPU_CHECK(cudaMalloc(&k->pts[KEY_C], c_bytes + h_bytes ? c_bytes + h_bytes : 1));
    GPU_TRY(copy_to_device(k->pts[KEY_C], b->l, c_bytes, err));
    return copy_to_device(static_cast<uint8_t *>(k->pts[KEY_C]) + c_bytes, b->h, h_bytes, err);
}

/* b's points left in host memory, page-locked in place where the system
 * lets us, sent slice points at a time by each proof */
static void bellman_stream(const cuzk_bellman_key *b, cuzk_gpu_key *k, size_t slice)
{
    const void *const host[KEY_ARRAYS] = {b->a, b->b_g1, b->b_g2, b->l, b->h};
    memcpy(k->host, host, sizeof k->host);
    k->streamed = true;
    k->slice = slice ? slice : STREAM_SLICE_DEFAULT;
    lock_host_arrays(k);
}

static int make_bellman_key(cuzk_gpu *g, const cuzk_bellman_key *b, bool streamed, size_t slice,
                            cuzk_gpu_key **out, cuzk_error *err)
{
    if (!g || !b || !out)
        return cuzk_fail(err, CUZK_ERR_ARG, "a device key needs a context, a key and an output");
    *out = NULL;
    GPU_TRY(bellman_check(b, err));
    GPU_CHECK(cudaSetDevice(g->device));
    cuzk_gpu_key *k = static_cast<cuzk_gpu_key *>(calloc(1, sizeof *k));
    if (!k)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory for a device key");
    k->device = g->device;
    int rc = bellman_describe(b, k, err);
    if (!rc && streamed)
        bellman_stream(b, k, slice);
    else if (!rc)
        rc = bellman_upload(b, k, err);
    if (rc) {
        cuzk_gpu_key_free(k);
        return rc;
    }
    *out = k;
    return 0;
}

} /* namespace gpu */

extern "C" int cuzk_gpu_key_upload_bellman(cuzk_gpu *g, const cuzk_bellman_key *b, cuzk_gpu_key **out,
                                           cuzk_error *err)
{
    return gpu::make_bellman_key(g, b, false, 0, out, err);
}

extern "C" int cuzk_gpu_key_stream_bellman(cuzk_gpu *g, const cuzk_bellman_key *b, size_t slice_points,
                                           cuzk_gpu_key **out, cuzk_error *err)
{
    return gpu::make_bellman_key(g, b, true, slice_points, out, err);
}
