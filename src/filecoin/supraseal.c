/* supraseal-c2's C ABI over bellperson's prover (contracts in
 * include/cuzk/supraseal.h): on GPU 0 through the gpu backend when one is
 * usable (or CUZK_SUPRASEAL_BACKEND says so), else on the CPU. */
#include "cuzk/supraseal.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/pack_ahead.h"
#include "filecoin/params.h"
#include "filecoin/prove.h"
#include "filecoin/prove_device.h"
#include "util/env.h"
#include "util/threads.h"
#include "util/timer.h"

_Static_assert(sizeof(cuzk_blst_fr) == sizeof(bls12_381_fr), "blst_fr is Fr's 4 words");
_Static_assert(sizeof(cuzk_blst_p1_affine) == sizeof(bls12_381_g1_affine), "blst_p1_affine is x, y");
_Static_assert(sizeof(cuzk_blst_p2_affine) == sizeof(bls12_381_g2_affine), "blst_p2_affine is x, y in Fp2");
_Static_assert(sizeof(cuzk_groth16_proof) == sizeof(fil_proof), "groth16_proof is a, b, c");

/* What a handle points at. */
typedef struct {
    atomic_long refs;
    char *path;
    fil_params params;
    fil_device_key *device_key; /* on the prover's device once a proof needed it (under one_at_a_time) */
} srs_inner;

/* The device prover, chosen once: CUZK_SUPRASEAL_BACKEND = cpu, gpu, or
 * auto (unset: the gpu backend when one is usable, else the CPU).
 * CUZK_SUPRASEAL_GPU_GIB = M: the GPU behaves as a card of M GiB (a key
 * that does not fit is streamed from host memory). */
static pthread_once_t prover_once = PTHREAD_ONCE_INIT;
static cuzk_backend *prover;         /* NULL: the CPU */
static char prover_error[640];      /* why the gpu asked for cannot be had */

static void prover_choose(void)
{
    const char *want = getenv("CUZK_SUPRASEAL_BACKEND");
    if (!want || !*want || !strcmp(want, "auto")) {
        if (!backend_gpu_usable())
            return;
        want = "gpu";
    }
    if (!strcmp(want, "cpu"))
        return;
    cuzk_error err = {0};
    const char *gib = getenv("CUZK_SUPRASEAL_GPU_GIB");
    char *end = NULL;
    const unsigned long limit_gib = gib && *gib ? strtoul(gib, &end, 10) : 0;
    if (strcmp(want, "gpu"))
        snprintf(prover_error, sizeof prover_error, "CUZK_SUPRASEAL_BACKEND=%s: not auto, cpu or gpu", want);
    else if (end && (*end || !limit_gib))
        snprintf(prover_error, sizeof prover_error, "CUZK_SUPRASEAL_GPU_GIB=%s: not a whole number of GiB", gib);
    else if (!(prover = backend_gpu_create(
                   &(backend_options){.gpu_devices = 1, .gpu_memory_limit = (size_t)limit_gib << 30}, &err)))
        snprintf(prover_error, sizeof prover_error, "CUZK_SUPRASEAL_BACKEND=gpu: %s", err.msg);
}

/* The cache: the most recently used first, at most CACHE_SIZE, each
 * holding one reference. */
#define CACHE_SIZE 4
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static srs_inner *cache[CACHE_SIZE];

static cuzk_rust_error ok(void) { return (cuzk_rust_error){0, NULL}; }

static cuzk_rust_error fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cuzk_rust_error fail(int code, const char *fmt, ...)
{
    char buf[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return (cuzk_rust_error){code, strdup(buf)};
}

static int errno_of(int status)
{
    switch (status) {
    case CUZK_ERR_IO: return EIO;
    case CUZK_ERR_FORMAT: return EBADMSG;
    case CUZK_ERR_NOMEM: return ENOMEM;
    default: return EINVAL;
    }
}

static void inner_release(srs_inner *s)
{
    if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
        fil_device_key_free(s->device_key);
        fil_params_free(&s->params);
        free(s->path);
        free(s);
    }
}

static srs_inner *inner_acquire(srs_inner *s)
{
    atomic_fetch_add(&s->refs, 1);
    return s;
}

static cuzk_rust_error inner_read(const char *path, srs_inner **out)
{
    srs_inner *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return fail(ENOMEM, "out of memory for an SRS");
    }
    atomic_init(&s->refs, 1);
    cuzk_error err = {0};
    /* every point on the curve; in the subgroup too with CUZK_SUPRASEAL_CHECK=full */
    const char *check = getenv("CUZK_SUPRASEAL_CHECK");
    const fil_read_options o = {cuzk_cpu_count(), NULL, NULL,
                                check && !strcmp(check, "full") ? FIL_CHECK_ALL : FIL_CHECK_CURVE};
    int rc = fil_params_read(&s->params, path, &o, &err);
    if (rc) {
        free(s->path);
        free(s);
        return fail(errno_of(rc), "%s", err.msg);
    }
    *out = s;
    return ok();
}

/* The cached SRS of path (one reference for the caller), read when absent. */
static cuzk_rust_error cache_lookup(const char *path, srs_inner **out)
{
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < CACHE_SIZE; i++)
        if (cache[i] && !strcmp(cache[i]->path, path)) {
            srs_inner *hit = cache[i];
            memmove(cache + 1, cache, (size_t)i * sizeof *cache); /* to the front */
            cache[0] = hit;
            *out = inner_acquire(hit);
            pthread_mutex_unlock(&cache_lock);
            return ok();
        }
    /* read under the lock, as supraseal-c2 does: two callers of one path
     * read it once */
    srs_inner *s = NULL;
    cuzk_rust_error e = inner_read(path, &s);
    if (!e.code) {
        inner_release(cache[CACHE_SIZE - 1]); /* the least recently used */
        memmove(cache + 1, cache, (CACHE_SIZE - 1) * sizeof *cache);
        cache[0] = s;
        *out = inner_acquire(s);
    }
    pthread_mutex_unlock(&cache_lock);
    return e;
}

cuzk_rust_error create_SRS(cuzk_srs *ret, const char *path, bool cache_it)
{
    if (!ret)
        return fail(EINVAL, "create_SRS: no SRS to fill");
    ret->ptr = NULL;
    if (!path)
        return fail(EINVAL, "create_SRS: no path");
    srs_inner *s = NULL;
    cuzk_rust_error e = cache_it ? cache_lookup(path, &s) : inner_read(path, &s);
    if (!e.code)
        ret->ptr = s;
    return e;
}

void evict_SRS(const cuzk_srs *srs)
{
    if (!srs || !srs->ptr)
        return;
    const srs_inner *s = srs->ptr;
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < CACHE_SIZE; i++)
        if (cache[i] && !strcmp(cache[i]->path, s->path)) {
            srs_inner *gone = cache[i];
            memmove(cache + i, cache + i + 1, (size_t)(CACHE_SIZE - 1 - i) * sizeof *cache);
            cache[CACHE_SIZE - 1] = NULL;
            inner_release(gone);
            break;
        }
    pthread_mutex_unlock(&cache_lock);
}

void drop_SRS(cuzk_srs *srs)
{
    if (!srs)
        return;
    inner_release(srs->ptr);
    srs->ptr = NULL;
}

cuzk_srs clone_SRS(const cuzk_srs *srs)
{
    if (!srs || !srs->ptr)
        return (cuzk_srs){NULL};
    return (cuzk_srs){inner_acquire(srs->ptr)};
}

/* the caller's assignment seen as the prover's (the same fields; pointers
 * only read) */
static fil_assignment view_of(const cuzk_assignment *p)
{
    return (fil_assignment){
        .a_aux = {(uint64_t *)p->a_aux_density, p->a_aux_bit_len, p->a_aux_popcount},
        .b_inp = {(uint64_t *)p->b_inp_density, p->b_inp_bit_len, p->b_inp_popcount},
        .b_aux = {(uint64_t *)p->b_aux_density, p->b_aux_bit_len, p->b_aux_popcount},
        .a = (bls12_381_fr *)p->a,
        .b = (bls12_381_fr *)p->b,
        .c = (bls12_381_fr *)p->c,
        .abc_size = p->abc_size,
        .inputs = (bls12_381_fr *)p->inp_assignment_data,
        .n_inputs = p->inp_assignment_size,
        .aux = (bls12_381_fr *)p->aux_assignment_data,
        .n_aux = p->aux_assignment_size,
    };
}

static int below_r(const cuzk_blst_fr *k)
{
    return bls12_381_fr_is_canonical((const bls12_381_fr *)k);
}

/* CUZK_SUPRASEAL_VERBOSE: a line a circuit on stderr, where its time went */
static void say_times(size_t i, size_t n, const cuzk_bellman_packed *packed, double waited, double wall,
                      const cuzk_prove_timings *t)
{
    const int packs = packed ? !!packed->a.base + !!packed->b.base + !!packed->c.base + !!packed->aux.base : 0;
    fprintf(stderr,
            "cuzk: circuit %zu of %zu: %.3f s (device %.3f: to the device %.3f, quotient %.3f, MSMs a %.3f b1 %.3f "
            "b2 %.3f c %.3f h %.3f); %d of 4 arrays packed, waited %.3f s for them\n",
            i + 1, n, wall, t->device, t->h2d + t->abc, t->ntt, t->msm_a, t->msm_b1, t->msm_b2, t->msm_c, t->msm_h,
            packs, waited);
}

cuzk_rust_error generate_groth16_proofs_c(const cuzk_assignment provers[], size_t num_circuits,
                                          const cuzk_blst_fr r_s[], const cuzk_blst_fr s_s[],
                                          cuzk_groth16_proof proofs[], cuzk_srs *srs)
{
    static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
    if (!srs || !srs->ptr)
        return fail(EINVAL, "generate_groth16_proofs_c: no SRS");
    if (num_circuits && (!provers || !r_s || !s_s || !proofs))
        return fail(EINVAL, "generate_groth16_proofs_c: a NULL array");
    const fil_params *p = &((const srs_inner *)srs->ptr)->params;
    cuzk_error err = {0};
    for (size_t i = 0; i < num_circuits; i++) { /* every input checked before any work */
        fil_assignment as = view_of(&provers[i]);
        if (fil_assignment_check(p, &as, &err))
            return fail(EINVAL, "circuit %zu: %s", i, err.msg);
        if (!below_r(&r_s[i]) || !below_r(&s_s[i]))
            return fail(EINVAL, "circuit %zu: r or s is not below the scalar field's modulus", i);
    }
    pthread_once(&prover_once, prover_choose);
    if (prover_error[0])
        return fail(ENODEV, "%s", prover_error);
    srs_inner *inner = srs->ptr;
    const int verbose = cuzk_env_flag("CUZK_SUPRASEAL_VERBOSE");
    pthread_mutex_lock(&one_at_a_time);
    /* on the device: each circuit packed while the one before it is proved */
    fil_assignment *views = prover ? malloc(num_circuits * sizeof *views) : NULL;
    for (size_t i = 0; views && i < num_circuits; i++)
        views[i] = view_of(&provers[i]);
    fil_pack_ahead *ahead = views ? fil_pack_ahead_start(views, num_circuits, cuzk_cpu_count()) : NULL;
    int rc = CUZK_OK;
    size_t i = 0;
    for (; i < num_circuits && !rc; i++) {
        fil_assignment as = view_of(&provers[i]);
        const bls12_381_fr *r = (const bls12_381_fr *)&r_s[i], *s = (const bls12_381_fr *)&s_s[i];
        if (!prover) {
            rc = fil_prove(p, &as, r, s, cuzk_cpu_count(), (fil_proof *)&proofs[i], &err);
            continue;
        }
        if (inner->device_key && !fil_device_key_fits(inner->device_key, &as)) {
            fil_device_key_free(inner->device_key); /* another circuit's densities: made again */
            inner->device_key = NULL;
        }
        if (!inner->device_key && (rc = fil_device_key_load(&inner->device_key, prover, 0, p, &as, &err))) {
            if (rc == CUZK_ERR_NOMEM)
                snprintf(err.msg + strlen(err.msg), sizeof err.msg - strlen(err.msg),
                         " (CUZK_SUPRASEAL_BACKEND=cpu proves on the CPU)");
            continue;
        }
        const double t0 = cuzk_now_s();
        const cuzk_bellman_packed *packed = ahead ? fil_pack_ahead_next(ahead, i) : NULL;
        const double t1 = cuzk_now_s();
        cuzk_prove_timings t = {0};
        rc = fil_prove_on_packed(inner->device_key, &as, packed, r, s, (fil_proof *)&proofs[i], &t, &err);
        if (!rc && verbose)
            say_times(i, num_circuits, packed, t1 - t0, cuzk_now_s() - t1, &t);
    }
    fil_pack_ahead_stop(ahead);
    free(views);
    pthread_mutex_unlock(&one_at_a_time);
    return rc ? fail(errno_of(rc), "circuit %zu: %s", i - 1, err.msg) : ok();
}
