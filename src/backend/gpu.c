/* The CUDA backend: the device part of a proof is cuzk_gpu_prove
 * (src/gpu/gpu.h) on one of the visible GPUs.
 *
 * Per device:
 *   contexts   one per concurrent worker (a context serves one thread at a
 *              time), opened on first use and kept
 *   keys       the proving keys seen so far, resident in device memory and
 *              shared by the device's contexts; a key is uploaded once,
 *              by the first worker that needs it (the others wait), and
 *              idle keys are freed least recently used first when an upload
 *              runs out of device memory. A key that does not fit even then
 *              streams its points from the zkey's host memory
 *              (cuzk_gpu_key_stream); it refers to that memory, so it is
 *              dropped when its last proof in flight ends. Its A and B
 *              matrices follow on the first proof that brings no a, b, c
 *              (the engine's proofs bring them from its CPU workers).
 *   admission  how many proofs run at once (device_admission.h): a key's
 *              first proof runs alone and its peak use of the device pool
 *              is kept with the key; later ones run next to others while
 *              their peaks fit, and a proof that runs out of device
 *              memory next to others is tried again alone.
 * Keys are told apart by cuzk_zkey.serial, so a key reloaded at the same
 * address is not mistaken for the old one. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/device_admission.h"
#include "backend/gpu_rows.h"
#include "synthesis/pce.h"
#include "gpu/gpu.h"
#include "util/err.h"
#include "util/timer.h"

enum { GPU_MAX_DEVICES = 16, GPU_MAX_CONTEXTS = 8 };

typedef struct device_key {
    uint64_t serial;
    cuzk_gpu_key *key; /* NULL while uploading */
    int rows_loading;  /* a worker is giving it its matrices */
    int only_copy;     /* made on the device by a setup, no host points: never evicted */
    size_t proof_peak; /* device pool bytes its proof took alone; 0: not known yet */
    int refs;
    double last_used;
    struct device_key *next;
} device_key;

typedef struct {
    int index;
    int key_tables; /* cuzk_gpu_set_key_tables of its contexts */
    size_t stream_slice; /* backend_options.gpu_stream_slice */
    void *ballast;  /* cuzk_gpu_ballast: the memory beyond the backend's limit */
    pthread_mutex_t lock;
    pthread_cond_t key_ready;
    cuzk_gpu *idle[GPU_MAX_CONTEXTS];
    int n_idle, n_open;
    device_key *keys;
    device_admission admission;
} gpu_device;

typedef struct {
    cuzk_backend base;
    cuzk_gpu *ceremony_ctx;      /* device 0's context for the ceremony, opened on first use */
    cuzk_ceremony_mul ceremony;  /* its multiplications on that context */
    int keep_streamed;   /* backend_options.gpu_keys_outlive */
    size_t memory_limit; /* backend_options.gpu_memory_limit (0: the whole card) */
    gpu_device dev[GPU_MAX_DEVICES];
} gpu_backend;

static int context_take(gpu_device *d, cuzk_gpu **g, cuzk_error *err)
{
    int rc = CUZK_OK;
    pthread_mutex_lock(&d->lock);
    if (d->n_idle > 0)
        *g = d->idle[--d->n_idle];
    else if (d->n_open >= GPU_MAX_CONTEXTS)
        rc = cuzk_fail(err, CUZK_ERR_ARG, "more than %d workers on GPU %d", GPU_MAX_CONTEXTS, d->index);
    else if ((rc = cuzk_gpu_open(g, d->index, err)) == CUZK_OK) {
        cuzk_gpu_set_key_tables(*g, d->key_tables, NULL); /* fails only without a context */
        d->n_open++;
    }
    pthread_mutex_unlock(&d->lock);
    return rc;
}

static void context_give_back(gpu_device *d, cuzk_gpu *g)
{
    pthread_mutex_lock(&d->lock);
    d->idle[d->n_idle++] = g;
    pthread_mutex_unlock(&d->lock);
}

/* Frees the least recently used idle key; 0 when there is none. Under d->lock. */
static int evict_one_idle_key(gpu_device *d)
{
    device_key **victim = NULL;
    for (device_key **p = &d->keys; *p; p = &(*p)->next)
        if ((*p)->key && (*p)->refs == 0 && !(*p)->only_copy &&
            (!victim || (*p)->last_used < (*victim)->last_used))
            victim = p;
    if (!victim)
        return 0;
    device_key *k = *victim;
    *victim = k->next;
    cuzk_gpu_key_free(k->key);
    free(k);
    return 1;
}

static void unlink_key(gpu_device *d, device_key *k)
{
    for (device_key **p = &d->keys; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            return;
        }
}

/* evict_one_idle_key under d's lock: room for an upload that ran out of
 * device memory; 0 when there was nothing to free */
static int evict_for_room(gpu_device *d)
{
    pthread_mutex_lock(&d->lock);
    int freed = evict_one_idle_key(d);
    pthread_mutex_unlock(&d->lock);
    return freed;
}

/* How a key of one kind (a zkey, a key in bellman's layout) goes to a
 * device: resident, or streamed from its host arrays */
typedef struct {
    int (*upload)(cuzk_gpu *g, const void *key, cuzk_gpu_key **out, cuzk_error *err);
    int (*stream)(cuzk_gpu *g, const void *key, size_t slice, cuzk_gpu_key **out, cuzk_error *err);
} key_kind;

static int zkey_upload(cuzk_gpu *g, const void *key, cuzk_gpu_key **out, cuzk_error *err)
{
    return cuzk_gpu_key_upload(g, key, out, err);
}
static int zkey_stream(cuzk_gpu *g, const void *key, size_t slice, cuzk_gpu_key **out, cuzk_error *err)
{
    return cuzk_gpu_key_stream(g, key, slice, out, err);
}
static int bellman_upload(cuzk_gpu *g, const void *key, cuzk_gpu_key **out, cuzk_error *err)
{
    return cuzk_gpu_key_upload_bellman(g, key, out, err);
}
static int bellman_stream(cuzk_gpu *g, const void *key, size_t slice, cuzk_gpu_key **out, cuzk_error *err)
{
    return cuzk_gpu_key_stream_bellman(g, key, slice, out, err);
}
static const key_kind zkey_kind = {zkey_upload, zkey_stream}, bellman_kind = {bellman_upload, bellman_stream};

/* Uploads key (of `point_bytes`) on g, freeing idle keys while the device
 * is out of memory; streams its points when nothing is left to free, or
 * always with d->stream_slice. */
static int place_key(gpu_device *d, cuzk_gpu *g, const key_kind *kind, const void *key, size_t point_bytes,
                     cuzk_gpu_key **out, cuzk_error *err)
{
    if (d->stream_slice)
        return kind->stream(g, key, d->stream_slice, out, err);
    int rc;
    while ((rc = kind->upload(g, key, out, err)) == CUZK_ERR_NOMEM)
        if (!evict_for_room(d))
            break;
    if (rc != CUZK_ERR_NOMEM)
        return rc;
    if (kind->stream(g, key, 0, out, err) == CUZK_OK)
        return CUZK_OK;
    return cuzk_fail(err, CUZK_ERR_NOMEM,
                     "the proving key (%zu MiB) does not fit in GPU %d's free memory, even with its points "
                     "streamed from host memory",
                     point_bytes >> 20, d->index);
}

/* *out <- the resident copy of z on d, uploaded on first use; holds a
 * reference. */
static int key_take(gpu_device *d, cuzk_gpu *g, const cuzk_zkey *z, device_key **out, cuzk_error *err)
{
    pthread_mutex_lock(&d->lock);
    for (;;) {
        device_key *k = d->keys;
        while (k && k->serial != z->serial)
            k = k->next;
        if (k && !k->key) { /* another worker is uploading it */
            pthread_cond_wait(&d->key_ready, &d->lock);
            continue;
        }
        if (k) {
            k->refs++;
            k->last_used = cuzk_now_s();
            pthread_mutex_unlock(&d->lock);
            *out = k;
            return CUZK_OK;
        }
        break;
    }
    device_key *k = calloc(1, sizeof *k);
    if (!k) {
        pthread_mutex_unlock(&d->lock);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory");
    }
    k->serial = z->serial;
    k->refs = 1;
    k->next = d->keys;
    d->keys = k;
    pthread_mutex_unlock(&d->lock);

    cuzk_gpu_key *uploaded = NULL;
    int rc = place_key(d, g, &zkey_kind, z, cuzk_zkey_point_bytes(z), &uploaded, err);
    pthread_mutex_lock(&d->lock);
    if (rc) {
        unlink_key(d, k);
        free(k);
        k = NULL;
    } else {
        k->key = uploaded;
        k->last_used = cuzk_now_s();
    }
    pthread_cond_broadcast(&d->key_ready);
    pthread_mutex_unlock(&d->lock);
    *out = k;
    return rc;
}

_Static_assert((int)CUZK_GPU_COEF_ONE == (int)CUZK_PCE_COEF_ONE &&
                   (int)CUZK_GPU_COEF_MINUS_ONE == (int)CUZK_PCE_COEF_MINUS_ONE &&
                   (int)CUZK_GPU_COEF_VALUES == (int)CUZK_PCE_COEF_VALUES,
               "the device reads the PCE's coefficient codes");

int backend_gpu_key_rows(cuzk_gpu *g, cuzk_gpu_key *k, const cuzk_zkey *z, const cuzk_pce *given, cuzk_error *err)
{
    cuzk_pce compiled;
    const cuzk_pce *pce = given;
    if (!pce) {
        int rc = cuzk_pce_compile(z, &compiled, err);
        if (rc)
            return rc;
        pce = &compiled;
    }
    const cuzk_gpu_rows rows = {.n_rows = pce->n_rows,
                                .row_start = {pce->row_start[0], pce->row_start[1]},
                                .wire = {pce->wire[0], pce->wire[1]},
                                .coef = {pce->coef[0], pce->coef[1]},
                                .values = pce->values,
                                .n_values = pce->n_values};
    int rc = cuzk_gpu_key_set_rows(g, k, &rows, err);
    if (!given)
        cuzk_pce_free(&compiled);
    return rc;
}

/* Gives k its matrices unless it has them; one worker does it, the others
 * wait. */
static int key_rows_ensure(gpu_device *d, cuzk_gpu *g, device_key *k, const cuzk_zkey *z, const cuzk_pce *pce,
                           cuzk_error *err)
{
    pthread_mutex_lock(&d->lock);
    while (k->rows_loading)
        pthread_cond_wait(&d->key_ready, &d->lock);
    if (cuzk_gpu_key_has_rows(k->key)) {
        pthread_mutex_unlock(&d->lock);
        return CUZK_OK;
    }
    k->rows_loading = 1;
    pthread_mutex_unlock(&d->lock);
    int rc = backend_gpu_key_rows(g, k->key, z, pce, err);
    pthread_mutex_lock(&d->lock);
    k->rows_loading = 0;
    pthread_cond_broadcast(&d->key_ready);
    pthread_mutex_unlock(&d->lock);
    return rc;
}

/* Drops a streamed key with its last proof (it refers to the caller's
 * zkey) unless the caller keeps its zkeys alive (keep_streamed). */
static void key_give_back(gpu_device *d, device_key *k, int keep_streamed)
{
    pthread_mutex_lock(&d->lock);
    int drop = --k->refs == 0 && cuzk_gpu_key_streamed(k->key) && !keep_streamed;
    if (drop)
        unlink_key(d, k);
    pthread_mutex_unlock(&d->lock);
    if (drop) {
        cuzk_gpu_key_free(k->key);
        free(k);
    }
}

static size_t scratch_capacity(void *device)
{
    size_t bytes = 0;
    cuzk_gpu_scratch_capacity(((gpu_device *)device)->index, &bytes, NULL); /* 0 on failure: wait */
    return bytes;
}

/* A key's proof needs its peak and a margin for witnesses whose digits
 * compact less than the one measured. */
static size_t proof_need(const device_key *k)
{
    return k->proof_peak ? k->proof_peak + k->proof_peak / 8 : 0;
}

/* cuzk_gpu_prove once admitted to d's memory; a key's first proof (need
 * unknown) runs alone and leaves its peak with the key. A proof out of
 * device memory next to others is tried again alone (another's peak, a
 * second context's twiddles or a key uploaded meanwhile took its room). */
static int prove_admitted(gpu_device *d, cuzk_gpu *g, device_key *k, const backend_work *w, cuzk_msm_results *m,
                          cuzk_prove_timings *times, cuzk_error *err)
{
    size_t need;
    pthread_mutex_lock(&d->lock);
    need = proof_need(k);
    pthread_mutex_unlock(&d->lock);
    for (;;) {
        admission_enter(&d->admission, need, scratch_capacity, d);
        size_t used0 = 0, high = 0;
        const int measure = need == 0 && cuzk_gpu_pool_usage(g, 1, &used0, &high, NULL) == CUZK_OK;
        int rc = w->packed ? cuzk_gpu_prove_packed(g, k->key, w->packed, m, times, err)
                           : cuzk_gpu_prove(g, k->key, w->abc, w->witness->values, m, times, err);
        if (rc == CUZK_OK && measure && cuzk_gpu_pool_usage(g, 0, &used0, &high, NULL) == CUZK_OK) {
            pthread_mutex_lock(&d->lock);
            if (high - used0 > k->proof_peak)
                k->proof_peak = high - used0;
            pthread_mutex_unlock(&d->lock);
        }
        admission_leave(&d->admission, need);
        if (rc != CUZK_ERR_NOMEM || need == 0)
            return rc;
        need = 0;
    }
}

static int gpu_prove_start(cuzk_backend *b, int device, const backend_work *w, cuzk_msm_results *m,
                           cuzk_prove_timings *times, cuzk_error *err)
{
    gpu_backend *gb = (gpu_backend *)b;
    if (device < 0 || device >= b->n_devices)
        return cuzk_fail(err, CUZK_ERR_ARG, "no GPU %d in this backend (%d)", device, b->n_devices);
    if (!w->key || !w->witness)
        return cuzk_fail(err, CUZK_ERR_ARG, "the GPU backend proves real circuits only");
    gpu_device *d = &gb->dev[device];
    cuzk_gpu *g = NULL;
    device_key *k = NULL;
    int rc = context_take(d, &g, err);
    if (rc)
        return rc;
    const double t0 = cuzk_now_s();
    if ((rc = key_take(d, g, w->key, &k, err)) == CUZK_OK) {
        if (!w->abc)
            rc = key_rows_ensure(d, g, k, w->key, w->pce, err);
        if (times)
            times->key = cuzk_now_s() - t0; /* ~0 once resident */
        if (!rc)
            rc = prove_admitted(d, g, k, w, m, times, err);
        key_give_back(d, k, gb->keep_streamed);
    }
    context_give_back(d, g);
    return rc;
}

/* A development key made on device 0; with o->no_host_points its points
 * stay there as z's resident key, the only copy. */
static int gpu_setup(cuzk_backend *b, const cuzk_r1cs *r, const cuzk_setup_options *o, cuzk_zkey *z,
                     cuzk_error *err)
{
    gpu_device *d = &((gpu_backend *)b)->dev[0];
    cuzk_gpu *g = NULL;
    int rc = context_take(d, &g, err);
    if (rc)
        return rc;
    cuzk_gpu_key *key = NULL;
    device_key *k = o->no_host_points ? calloc(1, sizeof *k) : NULL;
    if (o->no_host_points && !k)
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory");
    else
        rc = cuzk_gpu_setup(g, r, o, z, o->no_host_points ? &key : NULL, err);
    context_give_back(d, g);
    if (rc || !k) {
        free(k);
        return rc;
    }
    *k = (device_key){.serial = z->serial, .key = key, .only_copy = 1, .last_used = cuzk_now_s()};
    pthread_mutex_lock(&d->lock);
    k->next = d->keys;
    d->keys = k;
    pthread_mutex_unlock(&d->lock);
    return CUZK_OK;
}

static void gpu_key_forget(cuzk_backend *b, uint64_t serial)
{
    gpu_device *d = &((gpu_backend *)b)->dev[0]; /* where gpu_setup puts its keys */
    pthread_mutex_lock(&d->lock);
    device_key *k = d->keys;
    while (k && !(k->serial == serial && k->only_copy && k->refs == 0))
        k = k->next;
    if (k)
        unlink_key(d, k);
    pthread_mutex_unlock(&d->lock);
    if (k) {
        cuzk_gpu_key_free(k->key);
        free(k);
    }
}

/* A key in bellman's layout on one device. It is not among the device's
 * zkeys (d->keys): its owner (src/filecoin) keeps it for as long as it
 * wants it; idle zkeys are evicted to make room for it, and when it still
 * does not fit, its points are streamed from the caller's arrays (which
 * outlive the handle: backend.h). */
typedef struct {
    int device;
    cuzk_gpu_key *key;
} bellman_key;

static size_t bellman_point_bytes(const cuzk_bellman_key *key)
{
    const size_t g1 = key->curve == CUZK_CURVE_BN254 ? 64 : 96;
    return g1 * (key->n_a + key->n_b + key->n_aux + key->domain_size - 1) + 2 * g1 * key->n_b;
}

static int gpu_bellman_key_load(cuzk_backend *b, int device, const cuzk_bellman_key *key, void **handle,
                                cuzk_error *err)
{
    gpu_backend *gb = (gpu_backend *)b;
    if (device < 0 || device >= b->n_devices)
        return cuzk_fail(err, CUZK_ERR_ARG, "no GPU %d in this backend (%d)", device, b->n_devices);
    gpu_device *d = &gb->dev[device];
    bellman_key *k = calloc(1, sizeof *k);
    if (!k)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of host memory");
    k->device = device;
    cuzk_gpu *g = NULL;
    int rc = context_take(d, &g, err);
    if (!rc)
        rc = place_key(d, g, &bellman_kind, key, bellman_point_bytes(key), &k->key, err);
    if (g)
        context_give_back(d, g);
    if (rc) {
        free(k);
        return rc;
    }
    *handle = k;
    return CUZK_OK;
}

static int gpu_bellman_prove(cuzk_backend *b, void *handle, const cuzk_bellman_witness *w,
                             const cuzk_bellman_packed *packed, cuzk_msm_results *m, cuzk_prove_timings *times,
                             cuzk_error *err)
{
    const bellman_key *k = handle;
    gpu_device *d = &((gpu_backend *)b)->dev[k->device];
    cuzk_gpu *g = NULL;
    int rc = context_take(d, &g, err);
    if (rc)
        return rc;
    rc = cuzk_gpu_prove_bellman(g, k->key, w, packed, m, times, err);
    context_give_back(d, g);
    return rc;
}

static void gpu_bellman_key_free(cuzk_backend *b, void *handle)
{
    (void)b;
    bellman_key *k = handle;
    if (k) {
        cuzk_gpu_key_free(k->key);
        free(k);
    }
}

/* With a limit, the ballast (the card's size less the limit) is not ours. */
static int gpu_device_memory(cuzk_backend *b, int device, backend_device_memory *m)
{
    gpu_backend *gb = (gpu_backend *)b;
    if (device < 0 || device >= b->n_devices || cuzk_gpu_memory(device, &m->used, &m->total, NULL))
        return CUZK_ERR_ARG;
    if (gb->memory_limit && gb->memory_limit < m->total) {
        const size_t ballast = m->total - gb->memory_limit;
        m->used = m->used > ballast ? m->used - ballast : 0;
        m->total = gb->memory_limit;
    }
    device_admission *a = &gb->dev[device].admission;
    pthread_mutex_lock(&a->lock);
    m->waits = a->waits;
    pthread_mutex_unlock(&a->lock);
    return CUZK_OK;
}

/* The ceremony's multiplications on a context of device 0 kept for them
 * (the ceremony runs on one thread) until the backend is destroyed. */
static const cuzk_ceremony_mul *gpu_ceremony_mul(cuzk_backend *b, cuzk_error *err)
{
    gpu_backend *gb = (gpu_backend *)b;
    if (gb->ceremony_ctx)
        return &gb->ceremony;
    cuzk_gpu *g = NULL;
    if (cuzk_gpu_open(&g, gb->dev[0].index, err))
        return NULL;
    if (cuzk_gpu_ceremony_mul_make(g, 0, &gb->ceremony, err)) {
        cuzk_gpu_close(g);
        return NULL;
    }
    gb->ceremony_ctx = g;
    return &gb->ceremony;
}

static void gpu_destroy(cuzk_backend *b)
{
    gpu_backend *gb = (gpu_backend *)b;
    cuzk_gpu_ceremony_mul_free(&gb->ceremony);
    cuzk_gpu_close(gb->ceremony_ctx);
    for (int i = 0; i < b->n_devices; i++) {
        gpu_device *d = &gb->dev[i];
        while (d->keys) {
            device_key *k = d->keys;
            d->keys = k->next;
            cuzk_gpu_key_free(k->key);
            free(k);
        }
        for (int j = 0; j < d->n_idle; j++)
            cuzk_gpu_close(d->idle[j]);
        cuzk_gpu_ballast_free(d->index, d->ballast);
        pthread_cond_destroy(&d->key_ready);
        pthread_mutex_destroy(&d->lock);
        admission_destroy(&d->admission);
    }
    free(gb);
}

static void *pinned_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    return cuzk_gpu_host_alloc(bytes);
}

static void pinned_free(void *ctx, void *p, size_t bytes)
{
    (void)ctx, (void)bytes;
    cuzk_gpu_host_free(p);
}

int backend_gpu_usable(void)
{
    return cuzk_gpu_device_count() > 0;
}

cuzk_backend *backend_gpu_create(const backend_options *o, cuzk_error *err)
{
    const int max_devices = o->gpu_devices, key_tables = !o->gpu_one_shot;
    const size_t memory_limit = o->gpu_memory_limit;
    int count = cuzk_gpu_device_count();
    if (count <= 0) {
        /* the door's own message says why (no CUDA in the build, no device) */
        cuzk_gpu *g = NULL;
        if (cuzk_gpu_open(&g, 0, err) == CUZK_OK) {
            cuzk_gpu_close(g);
            cuzk_fail(err, CUZK_ERR_IO, "no usable GPU");
        }
        return NULL;
    }
    if (count > GPU_MAX_DEVICES)
        count = GPU_MAX_DEVICES;
    if (max_devices > 0 && max_devices < count)
        count = max_devices;
    gpu_backend *gb = calloc(1, sizeof *gb);
    if (!gb) {
        cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
        return NULL;
    }
    gb->keep_streamed = o->gpu_keys_outlive;
    gb->memory_limit = memory_limit;
    gb->base = (cuzk_backend){.name = "gpu",
                              .n_devices = count,
                              .builds_abc = !o->gpu_one_shot,
                              .host = {pinned_alloc, pinned_free, NULL},
                              .prove_start = gpu_prove_start,
                              .prove_finish = backend_finish_on_cpu,
                              .setup = gpu_setup,
                              .device_memory = gpu_device_memory,
                              .key_forget = gpu_key_forget,
                              .bellman_key_load = gpu_bellman_key_load,
                              .bellman_prove = gpu_bellman_prove,
                              .bellman_key_free = gpu_bellman_key_free,
                              .ceremony_mul = gpu_ceremony_mul,
                              .destroy = gpu_destroy};
    int rc = CUZK_OK;
    for (int i = 0; i < count; i++) {
        gb->dev[i].index = i;
        gb->dev[i].key_tables = key_tables;
        gb->dev[i].stream_slice = o->gpu_stream_slice;
        pthread_mutex_init(&gb->dev[i].lock, NULL);
        admission_init(&gb->dev[i].admission);
        pthread_cond_init(&gb->dev[i].key_ready, NULL);
        if (memory_limit && !rc)
            rc = cuzk_gpu_ballast(i, memory_limit, &gb->dev[i].ballast, err);
    }
    if (rc) {
        gpu_destroy(&gb->base);
        return NULL;
    }
    return &gb->base;
}
