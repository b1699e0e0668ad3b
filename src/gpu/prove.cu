/* The device part of one proof (gpu.h, cuzk_gpu_prove): the witness and
 * a, b, c to the device, the coset chain, the MSMs over a resident or a
 * streamed key (key.cu), timed phase by phase with CUDA events. */
#include <cstdint>
#include <cstring>

#include "gpu/key.cuh"
#include "gpu/unpack.cuh"

namespace gpu {

/* Scalars of both curves: four little-endian words. */
struct fr_words {
    uint64_t l[4];
};

static double elapsed_s(cudaEvent_t from, cudaEvent_t to)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, from, to) == cudaSuccess ? ms / 1000.0 : 0.0;
}

/* Phase i ends here (gpu_phase). Each MSM brings its window sums back
 * itself and finishes on the host, so the results need no copy (and no
 * phase) of their own. */
static int mark(cuzk_gpu *g, gpu_phase i, cuzk_error *err)
{
    if (!g->phase_ev[i])
        GPU_CHECK(cudaEventCreate(&g->phase_ev[i]));
    GPU_CHECK(cudaEventRecord(g->phase_ev[i], g->stream));
    if (i == PHASE_START)
        g->phases_run = 0;
    g->phase_order[g->phases_run++] = i;
    return 0;
}

/* t's fields from the last proof's marks; a, b, c's only when the device
 * built them (host_abc false) */
static void phase_times(const cuzk_gpu *g, bool host_abc, cuzk_prove_timings *t)
{
    /* in gpu_phase's order; PHASE_START has no time */
    double *const phase_time[PHASES] = {nullptr,    &t->h2d,    &t->abc,   &t->ntt,  &t->msm_a,
                                        &t->msm_b1, &t->msm_b2, &t->msm_c, &t->msm_h};
    const cudaEvent_t *ev = g->phase_ev;
    for (int j = 1; j < g->phases_run; j++) {
        const int p = g->phase_order[j];
        if (p != PHASE_ABC || !host_abc)
            *phase_time[p] = elapsed_s(ev[g->phase_order[j - 1]], ev[p]);
    }
    t->device = t->total = elapsed_s(ev[PHASE_START], ev[PHASE_MSM_H]);
}

/* r += p on the host, for the curve and group of the key array; fails on
 * an unknown curve */
static int add_partial(cuzk_curve_id curve, bool g2, void *r, const void *p, cuzk_error *err)
{
#define ADD(G) G##_jac_add_var(static_cast<G##_jac *>(r), static_cast<const G##_jac *>(r), static_cast<const G##_jac *>(p))
    switch (curve) {
    case CUZK_CURVE_BN254:
        g2 ? ADD(bn254_g2) : ADD(bn254_g1);
        return 0;
    case CUZK_CURVE_BLS12_381:
        g2 ? ADD(bls12_381_g2) : ADD(bls12_381_g1);
        return 0;
    }
#undef ADD
    return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve id %d", (int)curve);
}

/* the hand-overs between the stream and the copy stream (g->side_ev) */
enum { SIDE_H, SIDE_CH_DIGITS, SIDE_DONE, SIDE_RELEASE, SIDE_SLICES, SIDE_EVENTS };

static cudaError_t side_event(cuzk_gpu *g, int i)
{
    static_assert(sizeof g->side_ev / sizeof g->side_ev[0] == SIDE_EVENTS, "one event per hand-over");
    return g->side_ev[i] ? cudaSuccess : cudaEventCreateWithFlags(&g->side_ev[i], cudaEventDisableTiming);
}

/* side_ev[i] recorded on `from`, waited for by `to` */
static int hand_over(cuzk_gpu *g, int i, cudaStream_t from, cudaStream_t to, cuzk_error *err)
{
    GPU_CHECK(side_event(g, i));
    GPU_CHECK(cudaEventRecord(g->side_ev[i], from));
    GPU_CHECK(cudaStreamWaitEvent(to, g->side_ev[i], 0));
    return 0;
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
    /* the pool may give the buffers memory that work queued earlier on the
     * stream (a quotient's scratch, freed) still uses: the copy stream
     * writes them only after that work */
    GPU_TRY(hand_over(g, SIDE_SLICES, g->stream, g->copy_stream, err));
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
        GPU_TRY(msm_group_of(k->curve, g2)->call(g, partial, buf[j % 2].get(), scalars + j * slice, len(j), true,
                                                 err));
        GPU_TRY(add_partial(k->curve, g2, result, partial, err));
    }
    return 0;
}

/* out[j] = in[idx[j]] */
static __global__ void gather_kernel(const fr_words *in, const uint32_t *idx, size_t n, fr_words *out)
{
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        out[j] = in[idx[j]];
}

/* dst[0..kept[i]) <- the scalars of array i's kept points, on st: all
 * count[i] of them, or those at its index list */
static int kept_scalars(cudaStream_t st, const cuzk_gpu_key *k, int i, const fr_words *scalars, fr_words *dst,
                        cuzk_error *err)
{
    const size_t n = k->kept[i];
    if (n == 0) /* no launch of 0 blocks */
        return 0;
    if (!k->idx[i]) {
        GPU_CHECK(cudaMemcpyAsync(dst, scalars, n * sizeof *dst, cudaMemcpyDeviceToDevice, st));
        return 0;
    }
    gather_kernel<<<grid_for(n, 256), 256, 0, st>>>(scalars, k->idx[i], n, dst);
    GPU_LAUNCHED();
    return 0;
}

/* msm_prepare for n scalars of resident array i, with G1's plan fitted to
 * the scalars (A, B1 and B2 may share digits), or its table's where the
 * cost model says that is cheaper for them: a table's one set of 2^23
 * buckets costs more than it saves when most scalars are 0 and 1 (the
 * plain plan then reads the table's row 0, its bases). */
static int array_prepare(cuzk_gpu *g, const cuzk_gpu_key *k, int i, const fr_words *scalars, size_t n,
                         msm_sorted &out, cuzk_error *err, cudaStream_t st)
{
    const uint32_t *sc = reinterpret_cast<const uint32_t *>(scalars);
    const msm_group *grp = msm_group_of(k->curve, false);
    uint64_t lengths[MSM_LENGTHS];
    GPU_TRY(msm_scalar_lengths(g, sc, n, lengths, err, st));
    const msm_plan plain = grp->plan_fitted(g, n, lengths);
    const bool table = k->tables && grp->cost(array_plan(g, k, i), n, lengths) <= grp->cost(plain, n, lengths);
    return msm_prepare(g, sc, n, table ? array_plan(g, k, i) : plain, out, err, st, lengths);
}

/* The digits of a proof's MSMs on a resident key: per index set of A, B1
 * and B2 (the arrays with the same index list share them: B1 and B2
 * always, A too when nothing is compacted; w[same_set[i]] serves array
 * i), and for C' + H', one MSM over C's array with the scalars
 * [C's ; H's]. Those are sorted on the context's copy stream while the
 * stream sums B2, A and B1 (sorting is memory bound, bucket sums compute
 * bound). Sorting A's and B's digits there during the NTTs was tried: the
 * NTTs slowed as much as the sort gained
 * (bench/results/2026-12-07-measurements-from-comments.md). When
 * C' + H' is made in slices, ch holds H's digits where they are sorted
 * the same way (h_digits_aside), from ch_scalars, [C's ; H's]: freed on
 * the stream, after the copy stream is done with them (digits_release). */
struct proof_digits {
    msm_sorted w[KEY_B2 + 1], ch;
    dev_buf<fr_words> ch_scalars;
};

static int witness_digits(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w, proof_digits &d, cuzk_error *err)
{
    const cudaStream_t st = g->stream;
    for (int i = KEY_A; i <= KEY_B2; i++) {
        if (k->same_set[i] != i)
            continue;
        const fr_words *scalars = w;
        dev_buf<fr_words> gathered;
        if (k->idx[i]) {
            GPU_TRY(gathered.alloc(g, k->kept[i], err, st));
            GPU_TRY(kept_scalars(st, k, i, w, gathered, err));
            scalars = gathered;
        }
        GPU_TRY(array_prepare(g, k, i, scalars, k->kept[i], d.w[i], err, st));
    }
    return 0;
}

/* scalars <- [C's kept scalars ; H's], the scalars of C's device array, on st */
static int c_plus_h_scalars(cuzk_gpu *g, cudaStream_t st, const cuzk_gpu_key *k, const fr_words *w_c,
                            const fr_words *h, dev_buf<fr_words> &scalars, cuzk_error *err)
{
    GPU_TRY(scalars.alloc(g, device_points(k, KEY_C), err, st));
    GPU_TRY(kept_scalars(st, k, KEY_C, w_c, scalars, err));
    return kept_scalars(st, k, KEY_H, h, scalars.get() + k->kept[KEY_C], err);
}

static int c_plus_h_digits(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w_c, const fr_words *h,
                           proof_digits &d, cuzk_error *err)
{
    const cudaStream_t st = g->copy_stream;
    dev_buf<fr_words> scalars;
    GPU_TRY(c_plus_h_scalars(g, st, k, w_c, h, scalars, err));
    return array_prepare(g, k, KEY_C, scalars.get(), device_points(k, KEY_C), d.ch, err, st);
}

/* Declared last in a proof, destroyed first: the stream waits for the
 * copy stream's work, which reads the witness and h that the stream frees
 * next (this matters when a proof fails half way); then the copy stream,
 * which frees the digits, waits for the stream's last use of them. */
struct digits_release {
    cuzk_gpu *g;
    ~digits_release()
    {
        cudaEvent_t &done = g->side_ev[SIDE_DONE], &release = g->side_ev[SIDE_RELEASE];
        if (side_event(g, SIDE_DONE) == cudaSuccess && cudaEventRecord(done, g->copy_stream) == cudaSuccess)
            cudaStreamWaitEvent(g->stream, done, 0);
        if (side_event(g, SIDE_RELEASE) == cudaSuccess && cudaEventRecord(release, g->stream) == cudaSuccess)
            cudaStreamWaitEvent(g->copy_stream, release, 0);
        cudaGetLastError();
    }
};

/* room kept for buckets, window sums and the sorts' own scratch */
static constexpr size_t MSM_ROOM = (size_t)6 << 30;

/* Slices of points the C' + H' MSM is made in: 1 when its digits and their
 * sort (16 bytes an entry at the most) fit in what is left next to the key,
 * else as many as make them fit (a 2^27 key on an H200, no tables), or as
 * many as cuzk_gpu_set_c_plus_h forced. */
static size_t c_plus_h_slices(cuzk_gpu *g, const cuzk_gpu_key *k)
{
    const size_t n = device_points(k, KEY_C);
    if (k->tables || n == 0)
        return 1;
    if (g->ch_slices)
        return g->ch_slices;
    const size_t digits = 16 * (size_t)array_plan(g, k, KEY_C).nwin * n, fixed = 32 * n + MSM_ROOM;
    const size_t left = memory_left(g);
    size_t slices = 1;
    while (slices < CUZK_GPU_C_PLUS_H_SLICES_MAX && digits / slices + fixed > left)
        slices *= 2;
    return slices;
}

/* The sliced C' + H' (c_plus_h_slices > 1) with H's digits sorted on the
 * copy stream while the stream sums B2, A, B1 and C (a sort is memory
 * bound, bucket sums compute bound;
 * bench/results/2026-12-06-h200-abc-aside-raw.txt): all of H's points as one MSM,
 * where its digits, C's largest slice's and the MSMs' room fit in what is
 * left (the slices count every digit; the lengths know a witness's are
 * mostly zero, as at 2^27 bits, where H is one point over a slice), and
 * unless the context says not (cuzk_gpu_set_c_plus_h). *aside says whether
 * they went there (into d.ch). d.ch_scalars <- [C's ; H's], on the
 * stream, either way. */
static int h_digits_aside(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w_c, const fr_words *h, size_t slices,
                          proof_digits &d, bool *aside, cuzk_error *err)
{
    *aside = false;
    dev_buf<fr_words> &scalars = d.ch_scalars;
    GPU_TRY(c_plus_h_scalars(g, g->stream, k, w_c, h, scalars, err));
    const size_t n = device_points(k, KEY_C), slice = (n + slices - 1) / slices, n_c = k->kept[KEY_C];
    const size_t n_h = n - n_c;
    if (n_h == 0 || g->no_h_aside)
        return 0;
    const msm_group *grp = msm_group_of(k->curve, false);
    const uint32_t *sc = reinterpret_cast<const uint32_t *>(scalars.get());
    uint64_t lengths[MSM_LENGTHS];
    size_t c_bytes = 0; /* C's largest slice's digits, prepared on the stream meanwhile */
    for (size_t at = 0; at < n_c; at += slice) {
        const size_t len = n_c - at < slice ? n_c - at : slice;
        GPU_TRY(msm_scalar_lengths(g, sc + 8 * at, len, lengths, err));
        const size_t b = msm_prepare_bytes(grp->plan_fitted(g, len, lengths), len, lengths);
        c_bytes = b > c_bytes ? b : c_bytes;
    }
    GPU_TRY(msm_scalar_lengths(g, sc + 8 * n_c, n_h, lengths, err));
    const msm_plan plan = grp->plan_fitted(g, n_h, lengths);
    if (msm_prepare_bytes(plan, n_h, lengths) + c_bytes + MSM_ROOM > memory_left(g))
        return 0;
    GPU_TRY(hand_over(g, SIDE_H, g->stream, g->copy_stream, err));
    GPU_TRY(msm_prepare(g, sc + 8 * n_c, n_h, plan, d.ch, err, g->copy_stream, lengths));
    *aside = true;
    return 0;
}

/* C' + H' in slices of at most n / slices points, one after another on the
 * stream, C's points and H's never in one slice (a witness's digits are
 * compacted, h's are not: each slice sorts as suits it), over scalars
 * [C's ; H's]; H's digits sorted already when h_aside is not NULL
 * (h_digits_aside); the partial sums add up on the host */
static int c_plus_h_sliced(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *scalars, size_t slices,
                           const msm_sorted *h_aside, void *result, cuzk_error *err)
{
    const size_t n = device_points(k, KEY_C), slice = (n + slices - 1) / slices, pb = k->point_bytes[KEY_C];
    const size_t ends[2] = {k->kept[KEY_C], n};
    const msm_group *grp = msm_group_of(k->curve, false);
    const uint8_t *pts = static_cast<const uint8_t *>(k->pts[KEY_C]);
    memset(result, 0, sizeof(cuzk_msm_results::a));
    const auto sum = [&](const msm_sorted &d, size_t at) -> int {
        uint64_t partial[sizeof(cuzk_msm_results::a) / 8];
        GPU_TRY(grp->sorted(g, partial, pts + at * pb, d, err));
        return add_partial(k->curve, false, result, partial, err);
    };
    size_t at = 0;
    for (int part = 0; part < 2; part++) { /* C's points, then H's */
        const size_t end = ends[part];
        if (part == 1 && h_aside && at < end) {
            GPU_TRY(hand_over(g, SIDE_CH_DIGITS, g->copy_stream, g->stream, err));
            GPU_TRY(sum(*h_aside, at));
            at = end;
        }
        while (at < end) {
            const size_t len = end - at < slice ? end - at : slice;
            msm_sorted d;
            GPU_TRY(msm_prepare_fitted(g, grp, reinterpret_cast<const uint32_t *>(scalars + at), len, d, err));
            GPU_TRY(sum(d, at));
            at += len;
        }
    }
    return 0;
}

/* The MSMs of a resident key, phases PHASE_MSM_A..H, once h is on the device */
static int resident_msms(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w, const fr_words *h,
                         proof_digits &d, cuzk_msm_results *m, cuzk_error *err)
{
    void *result[KEY_B2 + 1] = {m->a, m->b1, m->b2};
    const fr_words *w_c = w + k->n_public + 1;
    GPU_TRY(witness_digits(g, k, w, d, err));
    const size_t slices = c_plus_h_slices(g, k);
    bool h_aside = false;
    if (slices == 1) {
        GPU_TRY(hand_over(g, SIDE_H, g->stream, g->copy_stream, err));
        GPU_TRY(c_plus_h_digits(g, k, w_c, h, d, err));
    } else {
        GPU_TRY(h_digits_aside(g, k, w_c, h, slices, d, &h_aside, err));
    }
    /* B2 first: C' + H''s digits are sorted on the copy stream meanwhile,
     * and a G2 sum (compute bound) loses less beside a sort (memory bound)
     * than G1's (bench/results/2026-12-06-h100-stream-priority.md) */
    static const int order[3] = {KEY_B2, KEY_A, KEY_B1};
    for (const int i : order) {
        GPU_TRY(msm_group_of(k->curve, i == KEY_B2)->sorted(g, result[i], k->pts[i], d.w[k->same_set[i]], err));
        GPU_TRY(mark(g, gpu_phase(PHASE_MSM_A + i), err));
    }
    if (slices == 1) {
        GPU_TRY(hand_over(g, SIDE_CH_DIGITS, g->copy_stream, g->stream, err));
        GPU_TRY(msm_group_of(k->curve, false)->sorted(g, m->c, k->pts[KEY_C], d.ch, err)); /* m->h stays infinity */
    } else {
        for (int i = KEY_A; i <= KEY_B2; i++)
            d.w[i].release(); /* their digits are done with */
        GPU_TRY(c_plus_h_sliced(g, k, d.ch_scalars, slices, h_aside ? &d.ch : nullptr, m->c, err));
    }
    GPU_TRY(mark(g, PHASE_MSM_C, err)); /* C' + H' */
    return mark(g, PHASE_MSM_H, err);
}

/* The MSMs of a streamed key, phases PHASE_MSM_A..H, each slice by slice:
 * w's scalars (those an index list picks, gathered first), C's from the
 * first private one, H's from h; m->c and m->h apart. */
static int streamed_msms(cuzk_gpu *g, const cuzk_gpu_key *k, const fr_words *w, const fr_words *h,
                         cuzk_msm_results *m, cuzk_error *err)
{
    const size_t first_private = (size_t)k->n_public + 1;
    void *result[KEY_ARRAYS] = {m->a, m->b1, m->b2, m->c, m->h};
    dev_buf<fr_words> picked;
    size_t most_picked = 0;
    for (int i = 0; i < KEY_ARRAYS; i++)
        most_picked = k->idx[i] && k->kept[i] > most_picked ? k->kept[i] : most_picked;
    if (most_picked)
        GPU_TRY(picked.alloc(g, most_picked, err));
    for (int i = 0; i < KEY_ARRAYS; i++) {
        const fr_words *scalars = i == KEY_H ? h : i == KEY_C ? w + first_private : w;
        if (k->idx[i]) {
            GPU_TRY(kept_scalars(g->stream, k, i, w, picked, err));
            scalars = picked;
        }
        GPU_TRY(streamed_msm(g, k, i, scalars, host_points(k, i), result[i], err));
        GPU_TRY(mark(g, gpu_phase(PHASE_MSM_A + i), err));
    }
    return 0;
}

/* witness (host values) or packed gives the witness */
static int prove(cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, const void *witness,
                 const cuzk_wtns_packed *packed, cuzk_msm_results *m, cuzk_prove_timings *t, cuzk_error *err)
{
    const size_t n = k->domain_size, nv = k->n_vars;
    const cuzk_curve_id curve = k->curve;
    /* a (h once the coset chain is done) apart from b, c, which go back to
     * the pool before the MSMs need its memory for their digits */
    dev_buf<fr_words> d_a, d_bc, d_w;
    GPU_TRY(d_a.alloc(g, n, err));
    GPU_TRY(d_bc.alloc(g, 2 * n, err));
    GPU_TRY(d_w.alloc(g, nv, err));
    fr_words *a = d_a, *b = d_bc, *c = b + n;
    proof_digits digits;
    digits_release release = {g};

    GPU_TRY(mark(g, PHASE_START, err));
    if (packed)
        GPU_TRY(wtns_unpack(g, packed, d_w, err));
    else
        GPU_CHECK(cudaMemcpyAsync(d_w, witness, nv * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    if (abc) {
        const fr_words *h_abc = static_cast<const fr_words *>(abc);
        GPU_CHECK(cudaMemcpyAsync(a, h_abc, n * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
        GPU_CHECK(cudaMemcpyAsync(b, h_abc + n, 2 * n * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    }
    GPU_TRY(mark(g, PHASE_H2D, err));
    if (!abc)
        GPU_TRY(abc_build(g, curve, k->rows, d_w, a, b, c, err));
    GPU_TRY(mark(g, PHASE_ABC, err));
    /* h = a o b - c on the coset, normal form, written over a */
    GPU_TRY(cuzk_gpu_coset_h_dev(g, curve, a, b, c, n, err));
    d_bc.release();
    GPU_TRY(mark(g, PHASE_NTT, err));
    memset(m, 0, sizeof *m);
    m->curve = curve;
    if (k->streamed)
        GPU_TRY(streamed_msms(g, k, d_w, a, m, err));
    else
        GPU_TRY(resident_msms(g, k, d_w, a, digits, m, err));
    GPU_CHECK(cudaEventSynchronize(g->phase_ev[PHASE_MSM_H]));
    if (t)
        phase_times(g, abc != nullptr, t);
    return 0;
}

/* values [0, n) of dst from the host: packed when p packed them, else whole */
static int values_to_device(cuzk_gpu *g, fr_words *dst, const void *values, size_t n, const cuzk_wtns_packed *p,
                            cuzk_error *err)
{
    if (p && p->base)
        return wtns_unpack(g, p, dst, err);
    GPU_CHECK(cudaMemcpyAsync(dst, values, n * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    return 0;
}

/* bellman_loader's fn over a proof's a, b, c: array i's abc_size values
 * (packed or whole), zeros up to the domain's n */
struct abc_source {
    cuzk_gpu *g;
    const cuzk_bellman_witness *w;
    const cuzk_bellman_packed *packed;
    size_t n;
};

static int abc_to_device(void *ctx, int i, void *dst_v, cuzk_error *err)
{
    const abc_source *s = static_cast<const abc_source *>(ctx);
    cuzk_gpu *g = s->g;
    const void *const abc[3] = {s->w->a, s->w->b, s->w->c};
    const cuzk_wtns_packed *const abc_packed[3] = {s->packed ? &s->packed->a : nullptr,
                                                   s->packed ? &s->packed->b : nullptr,
                                                   s->packed ? &s->packed->c : nullptr};
    fr_words *dst = static_cast<fr_words *>(dst_v);
    const size_t rows = s->w->abc_size;
    GPU_TRY(values_to_device(g, dst, abc[i], rows, abc_packed[i], err));
    GPU_CHECK(cudaMemsetAsync(dst + rows, 0, (s->n - rows) * sizeof(fr_words), g->stream));
    return 0;
}

/* the inputs and aux to the device as the MSMs' scalars (normal form) */
static int witness_to_device(cuzk_gpu *g, const cuzk_gpu_key *k, const cuzk_bellman_witness *w,
                             const cuzk_bellman_packed *packed, fr_words *d_w, cuzk_error *err)
{
    const size_t ni = (size_t)k->n_public + 1, nz = k->n_vars - ni;
    GPU_CHECK(cudaMemcpyAsync(d_w, w->inputs, ni * sizeof(fr_words), cudaMemcpyHostToDevice, g->stream));
    return values_to_device(g, d_w + ni, w->aux, nz, packed ? &packed->aux : nullptr, err);
}

/* A proof with a key in bellman's layout (gpu.h, cuzk_gpu_prove_bellman):
 * the phases of prove(), ABC empty (a, b, c come from the host). A key
 * too large for the card (streamed) leaves little room beside a proof:
 * its quotient runs in three buffers of n (bellman_h_lean, a, b, c loaded
 * one at a time) and the witness comes after, so a proof's peak is 3 n
 * elements instead of 4 n + the witness. Its phases then run in another
 * order: the quotient with a, b, c's trips, the witness's trip, its
 * scalars. */
static int prove_bellman(cuzk_gpu *g, const cuzk_gpu_key *k, const cuzk_bellman_witness *w,
                         const cuzk_bellman_packed *packed, cuzk_msm_results *m, cuzk_prove_timings *t,
                         cuzk_error *err)
{
    const size_t n = k->domain_size;
    const bool lean = k->streamed;
    /* h apart from the other buffers, which go back to the pool before the
     * MSMs need its memory for their digits */
    dev_buf<fr_words> d_h, d_rest, d_w;
    GPU_TRY(d_h.alloc(g, n, err));
    GPU_TRY(d_rest.alloc(g, (lean ? 2 : 3) * n, err));
    proof_digits digits;
    digits_release release = {g};
    abc_source abc = {g, w, packed, n};

    GPU_TRY(mark(g, PHASE_START, err));
    if (lean) {
        void *const v[3] = {d_h.get(), d_rest.get(), d_rest.get() + n};
        GPU_TRY(bellman_h_lean(g, k->curve, v, n, k->bellman_generator, bellman_loader{abc_to_device, &abc}, err));
        d_rest.release();
        GPU_TRY(mark(g, PHASE_NTT, err));
    }
    GPU_TRY(d_w.alloc(g, k->n_vars, err));
    GPU_TRY(witness_to_device(g, k, w, packed, d_w, err));
    void *const v[4] = {d_h.get(), d_rest.get(), d_rest.get() + n, d_rest.get() + 2 * n};
    for (int i = 0; i < 3 && !lean; i++)
        GPU_TRY(abc_to_device(&abc, i, v[i], err));
    GPU_TRY(mark(g, PHASE_H2D, err));
    GPU_TRY(scalars_to_normal(g, k->curve, d_w, k->n_vars, err)); /* the MSMs' scalars */
    GPU_TRY(mark(g, PHASE_ABC, err));
    if (!lean) {
        GPU_TRY(bellman_h(g, k->curve, v, n, k->bellman_generator, err));
        d_rest.release();
        GPU_TRY(mark(g, PHASE_NTT, err));
    }
    memset(m, 0, sizeof *m);
    m->curve = k->curve;
    if (k->streamed)
        GPU_TRY(streamed_msms(g, k, d_w, d_h, m, err));
    else
        GPU_TRY(resident_msms(g, k, d_w, d_h, digits, m, err));
    GPU_CHECK(cudaEventSynchronize(g->phase_ev[PHASE_MSM_H]));
    if (t)
        phase_times(g, true, t);
    return 0;
}

} /* namespace gpu */

/* What cuzk_gpu_prove and cuzk_gpu_prove_packed require alike */
static int prove_args(const char *call, cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, bool has_witness,
                      cuzk_msm_results *m, cuzk_error *err)
{
    if (!g || !k || !has_witness || !m)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: needs a context, a device key, witness, results", call);
    if (k->device != g->device)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: the key is on device %d, the context on device %d", call,
                         k->device, g->device);
    if (k->bellman_generator)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: the key is in bellman's layout (cuzk_gpu_prove_bellman)", call);
    if (!abc && !k->rows.row_start)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: no a, b, c given and the key has no rows to build "
                         "them (cuzk_gpu_key_set_rows)", call);
    GPU_CHECK(cudaSetDevice(g->device));
    return 0;
}

extern "C" int cuzk_gpu_prove(cuzk_gpu *g, const cuzk_gpu_key *k, const void *abc, const void *witness,
                              cuzk_msm_results *m, cuzk_prove_timings *t, cuzk_error *err)
{
    GPU_TRY(prove_args("cuzk_gpu_prove", g, k, abc, witness != nullptr, m, err));
    return gpu::prove(g, k, abc, witness, nullptr, m, t, err);
}

extern "C" int cuzk_gpu_prove_packed(cuzk_gpu *g, const cuzk_gpu_key *k, const cuzk_wtns_packed *w,
                                     cuzk_msm_results *m, cuzk_prove_timings *t, cuzk_error *err)
{
    GPU_TRY(prove_args("cuzk_gpu_prove_packed", g, k, nullptr, w && w->base, m, err));
    if (w->n != k->n_vars)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove_packed: %zu values packed, the key has %u wires", w->n,
                         k->n_vars);
    return gpu::prove(g, k, nullptr, nullptr, w, m, t, err);
}

/* each packed array (base set) holds as many values as its plain one */
static bool packed_fits(const cuzk_bellman_packed *p, size_t abc_size, size_t n_aux)
{
    const cuzk_wtns_packed *abc[3] = {&p->a, &p->b, &p->c};
    for (const cuzk_wtns_packed *x : abc)
        if (x->base && x->n != abc_size)
            return false;
    return !p->aux.base || p->aux.n == n_aux;
}

extern "C" int cuzk_gpu_prove_bellman(cuzk_gpu *g, const cuzk_gpu_key *k, const cuzk_bellman_witness *w,
                                      const cuzk_bellman_packed *packed, cuzk_msm_results *m,
                                      cuzk_prove_timings *t, cuzk_error *err)
{
    if (!g || !k || !w || !m || !k->bellman_generator)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove_bellman: needs a context, a key in bellman's layout, "
                         "a witness, results");
    if (k->device != g->device)
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove_bellman: the key is on device %d, the context on %d",
                         k->device, g->device);
    if (w->abc_size > k->domain_size || (w->abc_size && (!w->a || !w->b || !w->c)) || !w->inputs ||
        (k->n_vars > (size_t)k->n_public + 1 && !w->aux))
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove_bellman: %zu rows of a, b, c for a domain of %u, or "
                         "a missing array", w->abc_size, k->domain_size);
    if (packed && !packed_fits(packed, w->abc_size, k->n_vars - (size_t)k->n_public - 1))
        return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_gpu_prove_bellman: the packed arrays' lengths are not the "
                         "witness's");
    GPU_CHECK(cudaSetDevice(g->device));
    return gpu::prove_bellman(g, k, w, packed, m, t, err);
}
