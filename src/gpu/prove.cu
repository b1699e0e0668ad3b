/* Whole proofs on the device (gpu.h, "whole proofs"): the proving key kept
 * resident (or streamed from host memory when it does not fit), and the
 * device part of one proof timed phase by phase with CUDA events. */
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gpu/abc.cuh"
#include "gpu/msm.cuh"

/* the key's point arrays */
enum { KEY_A, KEY_B1, KEY_B2, KEY_C, KEY_H, KEY_ARRAYS };

struct cuzk_gpu_key {
    int device;
    cuzk_curve_id curve;
    uint32_t n_vars, n_public, domain_size;
    size_t count[KEY_ARRAYS], point_bytes[KEY_ARRAYS];
    /* resident: device copies of the points, exactly as in the zkey */
    void *pts[KEY_ARRAYS];
    /* streamed: the zkey's own arrays, page-locked in place by us where
     * `registered`, sent slice points at a time */
    bool streamed;
    size_t slice;
    const void *host[KEY_ARRAYS];
    bool registered[KEY_ARRAYS];
    /* the A and B matrices, once given (row_start NULL until then) */
    gpu::abc_rows rows;
};

namespace gpu {

/* Scalars of both curves: four little-endian words. */
struct fr_words {
    uint64_t l[4];
};

static constexpr size_t STREAM_SLICE_DEFAULT = (size_t)1 << 22;

static void describe(cuzk_gpu_key *k, const cuzk_zkey *z)
{
    const size_t g1 = 2 * (size_t)z->n8q, g2 = 4 * (size_t)z->n8q;
    const void *arrays[KEY_ARRAYS] = {z->a, z->b1, z->b2, z->c, z->h};
    const size_t count[KEY_ARRAYS] = {z->n_vars, z->n_vars, z->n_vars, (size_t)z->n_vars - z->n_public - 1,
                                      z->domain_size};
    k->curve = z->curve;
    k->n_vars = z->n_vars;
    k->n_public = z->n_public;
    k->domain_size = z->domain_size;
    for (int i = 0; i < KEY_ARRAYS; i++) {
        k->host[i] = arrays[i];
        k->count[i] = count[i];
        k->point_bytes[i] = i == KEY_B2 ? g2 : g1;
    }
}

static int upload_points(cuzk_gpu_key *k, cuzk_error *err)
{
    for (int i = 0; i < KEY_ARRAYS; i++) {
        const size_t bytes = k->count[i] * k->point_bytes[i];
        GPU_CHECK(cudaMalloc(&k->pts[i], bytes ? bytes : 1));
        GPU_CHECK(cudaMemcpy(k->pts[i], k->host[i], bytes, cudaMemcpyHostToDevice));
        k->host[i] = nullptr;
    }
    return 0;
}

/* Page-locks the arrays in place for fast asynchronous copies. Optional:
 * when the driver refuses (memory limits, an array sharing pages with
 * another already locked) the copies still work from pageable memory. */
static void lock_host_arrays(cuzk_gpu_key *k)
{
    for (int i = 0; i < KEY_ARRAYS; i++) {
        const size_t bytes = k->count[i] * k->point_bytes[i];
        if (bytes)
            k->registered[i] =
                cudaHostRegister(const_cast<void *>(k->host[i]), bytes, cudaHostRegisterPortable) == cudaSuccess;
        cudaGetLastError();
    }
}

static double elapsed_s(cudaEvent_t from, cudaEvent_t to)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, from, to) == cudaSuccess ? ms / 1000.0 : 0.0;
}

/* The phases, each ending at an event on the context's stream:
 *   0 start  1 h2d  2 abc  3 ntt  4 msm_a  5 msm_b1  6 msm_b2  7 msm_c  8 msm_h
 * Each MSM brings its window sums back itself and finishes on the host,
 * so the results need no copy of their own: d2h is folded into the MSMs. */
static int mark(cuzk_gpu *g, int i, cuzk_error *err)
{
    static_assert(sizeof g->phase_ev / sizeof g->phase_ev[0] >= 9, "nine phase events");
    if (!g->phase_ev[i])
        GPU_CHECK(cudaEventCreate(&g->phase_ev[i]));
    GPU_CHECK(cudaEventRecord(g->phase_ev[i], g->stream));
    return 0;
}

/* r += p on the host, for the curve and group of the key array */
static void add_partial(cuzk_curve_id curve, bool g2, void *r, const void *p)
{
#define ADD(G) G##_jac_add(static_cast<G##_jac *>(r), static_cast<const G##_jac *>(r), static_cast<const G##_jac *>(p))
    if (curve == CUZK_CURVE_BN254) {
        if (g2)
            ADD(bn254_g2);
        else
            ADD(bn254_g1);
    } else {
        if (g2)
            ADD(bls12_381_g2);
        else
            ADD(bls12_381_g1);
    }
#undef ADD
}

static int msm_on(cuzk_gpu *g, cuzk_curve_id curve, bool g2, void *result, const void *bases,
                  const fr_words *scalars, size_t n, cuzk_error *err)
{
    return (g2 ? cuzk_gpu_msm_g2_dev : cuzk_gpu_msm_g1_dev)(g, curve, result, bases, scalars, n, err);
}

/* One MSM of a streamed key: slice j's points are copied on the copy
 * stream while slice j - 1's MSM runs; the partial sums add up on the host.
 * A buffer is refilled only after the MSM that read it has returned (each
 * MSM waits for its own result). */
static int streamed_msm(cuzk_gpu *g, const cuzk_gpu_key *k, int which, const fr_words *scalars, size_t n,
                        void *result, cuzk_error *err)
{
    const bool g2 = which == KEY_B2;
    const size_t pb = k->point_bytes[which], slice = k->slice;
    const uint8_t *host = static_cast<const uint8_t *>(k->host[which]);
    const size_t result_bytes = g2 ? sizeof(cuzk_msm_results::b2) : sizeof(cuzk_msm_results::a);
    memset(result, 0, result_bytes); /* infinity: Z = 0 */
    if (n == 0)
        return 0;
    dev_buf<uint8_t> buf[2];
    GPU_TRY(buf[0].alloc(g, slice * pb, err));
    GPU_TRY(buf[1].alloc(g, slice * pb, err));
    for (cudaEvent_t &e : g->slice_ready)
        if (!e)
            GPU_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    const size_t slices = (n + slice - 1) / slice;
    auto len = [&](size_t j) { return n - j * slice < slice ? n - j * slice : slice; };
    auto send = [&](size_t j) -> int {
        GPU_CHECK(cudaMemcpyAsync(buf[j % 2].get(), host + j * slice * pb, len(j) * pb, cudaMemcpyHostToDevice,
                                  g->copy_stream));
        GPU_CHECK(cudaEventRecord(g->slice_ready[j % 2], g->copy_stream));
        return 0;
    };
    GPU_TRY(send(0));
    for (size_t j = 0; j < slices; j++) {
        if (j + 1 < slices)
            GPU_TRY(send(j + 1));
        GPU_CHECK(cudaStreamWaitEvent(g->stream, g->slice_ready[j % 2], 0));
        uint64_t partial[sizeof(cuzk_msm_results::b2) / 8];
        GPU_TRY(msm_on(g, k->curve, g2, partial, buf[j % 2].get(), scalars + j * slice, len(j), err));
        add_partial(k->curve, g2, result, partial);
    }
    return 0;
}

/* A, B1 (G1) and B2 (G2) over the witness: on a resident key sharing the
 * digits and their sort, on a streamed key slice by slice. */
static int witness_msms(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w, cuzk_msm_results *m, cuzk_error *err)
{
    if (k->streamed) {
        GPU_TRY(streamed_msm(g, k, KEY_A, w, k->n_vars, m->a, err));
        GPU_TRY(mark(g, 4, err));
        GPU_TRY(streamed_msm(g, k, KEY_B1, w, k->n_vars, m->b1, err));
        GPU_TRY(mark(g, 5, err));
        GPU_TRY(streamed_msm(g, k, KEY_B2, w, k->n_vars, m->b2, err));
        return mark(g, 6, err);
    }
    const bool bn = k->curve == CUZK_CURVE_BN254;
    msm_sorted sorted;
    const msm_plan plan = bn ? msm_bn254_g1_plan(g, k->n_vars) : msm_bls12_381_g1_plan(g, k->n_vars);
    GPU_TRY(msm_prepare(g, reinterpret_cast<const uint32_t *>(w), k->n_vars, plan, sorted, err));
    GPU_TRY((bn ? msm_bn254_g1_sorted : msm_bls12_381_g1_sorted)(g, m->a, k->pts[KEY_A], sorted, err));
    GPU_TRY(mark(g, 4, err));
    GPU_TRY((bn ? msm_bn254_g1_sorted : msm_bls12_381_g1_sorted)(g, m->b1, k->pts[KEY_B1], sorted, err));
    GPU_TRY(mark(g, 5, err));
    GPU_TRY((bn ? msm_bn254_g2_sorted : msm_bls12_381_g2_sorted)(g, m->b2, k->pts[KEY_B2], sorted, err));
    return mark(g, 6, err);
}

/* MSM `which` of the key (A, B1, B2, C or H) over n scalars on the device */
static int key_msm(cuzk_gpu *g, const cuzk_gpu_key *k, int which, const fr_words *scalars, size_t n, void *result,
                   cuzk_error *err)
{
    if (k->streamed)
        return streamed_msm(g, k, which, scalars, n, result, err);
    return msm_on(g, k->curve, which == KEY_B2, result, k->pts[which], scalars, n, err);
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
    GPU_CHECK(cudaMemcpyAsync(d_w, witness, nv * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    if (abc)
        GPU_CHECK(cudaMemcpyAsync(a, abc, 3 * n * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    GPU_TRY(mark(g, 1, err));
    if (!abc)
        GPU_TRY(abc_build(g, curve, k->rows, d_w, a, err));
    GPU_TRY(mark(g, 2, err));
    /* h = a o b - c on the coset, normal form, written over a */
    GPU_TRY(cuzk_gpu_coset_h_dev(g, curve, a, b, c, n, err));
    GPU_TRY(mark(g, 3, err));
    memset(m, 0, sizeof *m);
    m->curve = curve;
    GPU_TRY(witness_msms(g, k, d_w, m, err));
    GPU_TRY(key_msm(g, k, KEY_C, d_w.get() + first_private, nv - first_private, m->c, err));
    GPU_TRY(mark(g, 7, err));
    GPU_TRY(key_msm(g, k, KEY_H, a, n, m->h, err));
    GPU_TRY(mark(g, 8, err));
    GPU_CHECK(cudaEventSynchronize(g->phase_ev[8]));
    if (t) {
        cudaEvent_t *ev = g->phase_ev;
        t->h2d = elapsed_s(ev[0], ev[1]);
        if (!abc)
            t->abc = elapsed_s(ev[1], ev[2]);
        t->ntt = elapsed_s(ev[2], ev[3]);
        t->msm_a = elapsed_s(ev[3], ev[4]);
        t->msm_b1 = elapsed_s(ev[4], ev[5]);
        t->msm_b2 = elapsed_s(ev[5], ev[6]);
        t->msm_c = elapsed_s(ev[6], ev[7]);
        t->msm_h = elapsed_s(ev[7], ev[8]);
        t->d2h = 0;
        t->total = elapsed_s(ev[0], ev[8]);
    }
    return 0;
}

/* A key of either kind: the shared description, then the points resident
 * or streamed (slice points at a time). */
static int make_key(cuzk_gpu *g, const cuzk_zkey *z, bool streamed, size_t slice, cuzk_gpu_key **out,
                    cuzk_error *err)
{
    if (!g || !z || !out || !z->a)
        return cuzk_fail(err, CUZK_ERR_ARG, "a device key needs a context, a whole key and an output");
    *out = NULL;
    GPU_CHECK(cudaSetDevice(g->device));
    cuzk_gpu_key *k = static_cast<cuzk_gpu_key *>(calloc(1, sizeof *k));
    if (!k)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory for a device key");
    k->device = g->device;
    k->rows = abc_rows();
    describe(k, z);
    int rc = 0;
    if (streamed) {
        k->streamed = true;
        k->slice = slice ? slice : STREAM_SLICE_DEFAULT;
        lock_host_arrays(k);
    } else {
        rc = upload_points(k, err);
    }
    if (rc) {
        cuzk_gpu_key_free(k);
        return rc;
    }
    *out = k;
    return 0;
}

} /* namespace gpu */

extern "C" size_t cuzk_gpu_key_bytes(const cuzk_zkey *z)
{
    if (!z)
        return 0;
    const size_t g1 = 2 * (size_t)z->n8q, g2 = 4 * (size_t)z->n8q;
    const size_t n_c = (size_t)z->n_vars - z->n_public - 1;
    return z->n_vars * (2 * g1 + g2) + (n_c + z->domain_size) * g1;
}

extern "C" int cuzk_gpu_key_upload(cuzk_gpu *g, const cuzk_zkey *z, cuzk_gpu_key **out, cuzk_error *err)
{
    return gpu::make_key(g, z, false, 0, out, err);
}

extern "C" int cuzk_gpu_key_stream(cuzk_gpu *g, const cuzk_zkey *z, size_t slice_points, cuzk_gpu_key **out,
                                   cuzk_error *err)
{
    return gpu::make_key(g, z, true, slice_points, out, err);
}

extern "C" int cuzk_gpu_key_streamed(const cuzk_gpu_key *k)
{
    return k && k->streamed;
}

extern "C" int cuzk_gpu_key_set_rows(cuzk_gpu *g, cuzk_gpu_key *k, const cuzk_gpu_rows *rows, cuzk_error *err)
{
    if (!g || !k || !rows || k->device != g->device)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_key_set_rows: needs a context on the key's device and rows");
    if (k->rows.row_start)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_key_set_rows: the key has its rows already");
    if (rows->n_rows != k->domain_size)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_key_set_rows: %u rows for a key of domain size %u",
                         rows->n_rows, k->domain_size);
    GPU_CHECK(cudaSetDevice(g->device));
    gpu::abc_rows r;
    int rc = gpu::abc_rows_upload(rows, &r, err);
    if (rc) {
        gpu::abc_rows_free(&r);
        return rc;
    }
    k->rows = r;
    return 0;
}

extern "C" int cuzk_gpu_key_has_rows(const cuzk_gpu_key *k)
{
    return k && k->rows.row_start;
}

extern "C" void cuzk_gpu_key_free(cuzk_gpu_key *k)
{
    if (!k)
        return;
    cudaSetDevice(k->device);
    for (int i = 0; i < KEY_ARRAYS; i++) {
        if (k->pts[i])
            cudaFree(k->pts[i]);
        if (k->registered[i])
            cudaHostUnregister(const_cast<void *>(k->host[i]));
    }
    gpu::abc_rows_free(&k->rows);
    cudaGetLastError();
    free(k);
}

extern "C" int cuzk_gpu_prove(cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, const void *witness,
                              cuzk_msm_results *m, cuzk_prove_timings *t, cuzk_error *err)
{
    if (!g || !k || !witness || !m)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove: needs a context, a device key, witness, results");
    if (k->device != g->device)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove: the key is on device %d, the context on device %d",
                         k->device, g->device);
    if (!abc && !k->rows.row_start)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove: no a, b, c given and the key has no rows to build "
                         "them (cuzk_gpu_key_set_rows)");
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
