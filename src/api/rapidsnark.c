/* rapidsnark's C API (include/cuzk/rapidsnark/prover.h) over the library's
 * keys and provers: the names, codes and buffer protocol are rapidsnark's,
 * the work is lib_prove_json's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/lib.h"
#include "cuzk/rapidsnark/prover.h"
#include "codec/curve_id.h"
#include "util/err.h"

typedef struct {
    cuzk_key *key;
    cuzk_prover *prover;
} rs_prover;

/* The message, cut to max - 1 bytes and NUL-terminated, where the caller
 * gave room for one. */
static void rs_message(char *msg, unsigned long long max, const char *text)
{
    if (!msg || max == 0) return;
    size_t room = max > SIZE_MAX ? SIZE_MAX : (size_t)max, n = strlen(text);
    if (n >= room) n = room - 1;
    memcpy(msg, text, n);
    msg[n] = '\0';
}

static int rs_fail(char *msg, unsigned long long max, int code, const char *text)
{
    rs_message(msg, max, text);
    return code;
}

/* A size from the caller as a size_t (a larger one cannot be in memory). */
static int rs_size(unsigned long long n, size_t *out)
{
    if (n > SIZE_MAX) return -1;
    *out = (size_t)n;
    return 0;
}

static const char *rs_backend(void)
{
    const char *b = getenv("CUZK_BACKEND");
    return b && *b ? b : "auto";
}

/* A prover object for key (taken), made as cuzk_prover_create does with
 * one_shot as lib_prover_make's. */
static int rs_make(void **prover_object, cuzk_key *key, int one_shot, char *msg, unsigned long long max)
{
    cuzk_error e = {0};
    rs_prover *r = calloc(1, sizeof *r);
    if (!r) {
        cuzk_key_free(key);
        return rs_fail(msg, max, PROVER_ERROR, "out of memory for a prover");
    }
    r->key = key;
    if (lib_prover_make(&r->prover, rs_backend(), 0, one_shot, &e)) {
        cuzk_key_free(key);
        free(r);
        return rs_fail(msg, max, PROVER_ERROR, e.msg);
    }
    *prover_object = r;
    return PROVER_OK;
}

static int rs_create_buf(void **prover_object, const void *zkey_buffer, unsigned long long zkey_size, int one_shot,
                         char *msg, unsigned long long max)
{
    cuzk_error e = {0};
    cuzk_key *key;
    size_t len;
    if (!prover_object) return rs_fail(msg, max, PROVER_ERROR, "Null prover object");
    if (!zkey_buffer) return rs_fail(msg, max, PROVER_ERROR, "Null zkey buffer");
    if (rs_size(zkey_size, &len)) return rs_fail(msg, max, PROVER_ERROR, "zkey size is larger than memory");
    if (cuzk_key_load_memory(&key, zkey_buffer, len, &e)) return rs_fail(msg, max, PROVER_ERROR, e.msg);
    return rs_make(prover_object, key, one_shot, msg, max);
}

static int rs_create_file(void **prover_object, const char *path, int one_shot, char *msg, unsigned long long max)
{
    cuzk_error e = {0};
    cuzk_key *key;
    if (!prover_object) return rs_fail(msg, max, PROVER_ERROR, "Null prover object");
    if (!path) return rs_fail(msg, max, PROVER_ERROR, "Null zkey file path");
    if (cuzk_key_load_file(&key, path, &e)) return rs_fail(msg, max, PROVER_ERROR, e.msg);
    return rs_make(prover_object, key, one_shot, msg, max);
}

CUZK_API int groth16_prover_create(void **prover_object, const void *zkey_buffer, unsigned long long zkey_size,
                                   char *error_msg, unsigned long long error_msg_maxsize)
{
    return rs_create_buf(prover_object, zkey_buffer, zkey_size, 0, error_msg, error_msg_maxsize);
}

CUZK_API int groth16_prover_create_zkey_file(void **prover_object, const char *zkey_file_path, char *error_msg,
                                             unsigned long long error_msg_maxsize)
{
    return rs_create_file(prover_object, zkey_file_path, 0, error_msg, error_msg_maxsize);
}

CUZK_API void groth16_prover_destroy(void *prover_object)
{
    rs_prover *r = prover_object;
    if (!r) return;
    cuzk_prover_destroy(r->prover);
    cuzk_key_free(r->key);
    free(r);
}

/* The texts into the caller's buffers, or the sizes they need. */
static int rs_deliver(const char *proof, const char *pub, char *proof_buffer, unsigned long long *proof_size,
                      char *public_buffer, unsigned long long *public_size, char *msg, unsigned long long max)
{
    unsigned long long need_proof = strlen(proof) + 1, need_public = strlen(pub) + 1;
    if (*proof_size < need_proof || *public_size < need_public) {
        char text[256];
        snprintf(text, sizeof text,
                 "buffers too small: the proof needs %llu bytes (given %llu), the public signals %llu (given %llu)",
                 need_proof, *proof_size, need_public, *public_size);
        *proof_size = need_proof;
        *public_size = need_public;
        return rs_fail(msg, max, PROVER_ERROR_SHORT_BUFFER, text);
    }
    memcpy(proof_buffer, proof, need_proof);
    memcpy(public_buffer, pub, need_public);
    *proof_size = need_proof - 1;
    *public_size = need_public - 1;
    return PROVER_OK;
}

CUZK_API int groth16_prover_prove(void *prover_object, const void *wtns_buffer, unsigned long long wtns_size,
                                  char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
                                  unsigned long long *public_size, char *error_msg,
                                  unsigned long long error_msg_maxsize)
{
    char *msg = error_msg;
    unsigned long long max = error_msg_maxsize;
    rs_prover *r = prover_object;
    const char *null = !r ? "Null prover object" : !wtns_buffer ? "Null witness buffer"
                     : !proof_buffer ? "Null proof buffer" : !proof_size ? "Null proof size"
                     : !public_buffer ? "Null public buffer" : !public_size ? "Null public size" : NULL;
    if (null) return rs_fail(msg, max, PROVER_ERROR, null);
    size_t len;
    if (rs_size(wtns_size, &len)) return rs_fail(msg, max, PROVER_ERROR, "witness size is larger than memory");
    cuzk_error e = {0};
    cuzk_wtns w;
    if (cuzk_wtns_read_memory(&w, wtns_buffer, len, "witness buffer", &e))
        return rs_fail(msg, max, PROVER_ERROR, e.msg);
    if (w.n_witness != r->key->z.n_vars) {
        char text[128];
        snprintf(text, sizeof text, "Invalid witness length. Circuit: %u, witness: %u", r->key->z.n_vars,
                 w.n_witness);
        cuzk_wtns_free(&w);
        return rs_fail(msg, max, PROVER_INVALID_WITNESS_LENGTH, text);
    }
    char *proof, *pub;
    int rc = lib_prove_json(r->prover, r->key, &w, 0, &proof, &pub, &e);
    cuzk_wtns_free(&w);
    if (rc) return rs_fail(msg, max, PROVER_ERROR, e.msg);
    rc = rs_deliver(proof, pub, proof_buffer, proof_size, public_buffer, public_size, msg, max);
    free(proof);
    free(pub);
    return rc;
}

/* The one-shot calls: a prover made for one proof (a GPU then builds no
 * window tables). */
static int rs_prove_once(int rc, void *prover, const void *wtns_buffer, unsigned long long wtns_size,
                         char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
                         unsigned long long *public_size, char *msg, unsigned long long max)
{
    if (rc == PROVER_OK)
        rc = groth16_prover_prove(prover, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer,
                                  public_size, msg, max);
    groth16_prover_destroy(prover);
    return rc;
}

CUZK_API int groth16_prover(const void *zkey_buffer, unsigned long long zkey_size, const void *wtns_buffer,
                            unsigned long long wtns_size, char *proof_buffer, unsigned long long *proof_size,
                            char *public_buffer, unsigned long long *public_size, char *error_msg,
                            unsigned long long error_msg_maxsize)
{
    void *prover = NULL;
    int rc = rs_create_buf(&prover, zkey_buffer, zkey_size, 1, error_msg, error_msg_maxsize);
    return rs_prove_once(rc, prover, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
                         error_msg, error_msg_maxsize);
}

CUZK_API int groth16_prover_zkey_file(const char *zkey_file_path, const void *wtns_buffer,
                                      unsigned long long wtns_size, char *proof_buffer,
                                      unsigned long long *proof_size, char *public_buffer,
                                      unsigned long long *public_size, char *error_msg,
                                      unsigned long long error_msg_maxsize)
{
    void *prover = NULL;
    int rc = rs_create_file(&prover, zkey_file_path, 1, error_msg, error_msg_maxsize);
    return rs_prove_once(rc, prover, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
                         error_msg, error_msg_maxsize);
}

/* ---- sizes: measured on the writers themselves, so they cannot drift
 * from what they write ---- */

/* The length of public.json for n signals of curve's longest value
 * (r - 1): each signal after the first adds the same separator and digits. */
static int rs_public_len(cuzk_curve_id curve, uint32_t n, unsigned long long *len)
{
    uint64_t longest[2][4];
    memcpy(longest[0], cuzk_curve_r(curve), sizeof longest[0]);
    longest[0][0] -= 1; /* r is odd */
    memcpy(longest[1], longest[0], sizeof longest[1]);
    unsigned long long l[3];
    for (uint32_t k = 0; k < 3; k++) {
        char *s = cuzk_public_to_json((const uint64_t(*)[4])longest, k, NULL);
        if (!s) return -1;
        l[k] = strlen(s);
        free(s);
    }
    *len = n == 0 ? l[0] : l[1] + (unsigned long long)(n - 1) * (l[2] - l[1]);
    return 0;
}

/* The longest proof.json of either curve: every coordinate q - 1. */
static unsigned long long rs_proof_len(void)
{
    unsigned long long longest = 0;
    for (int c = 0; c < CUZK_N_CURVES; c++) {
        cuzk_proof p = {.curve = (cuzk_curve_id)c};
        const uint64_t *q = cuzk_curve_q(p.curve);
        uint64_t x[6] = {0};
        memcpy(x, q, sizeof *x * cuzk_curve_q_words(p.curve));
        x[0] -= 1; /* q is odd */
        for (int i = 0; i < 2; i++) {
            memcpy(i ? p.a.y : p.a.x, x, sizeof x);
            memcpy(i ? p.c.y : p.c.x, x, sizeof x);
            memcpy(p.b.x[i], x, sizeof x);
            memcpy(p.b.y[i], x, sizeof x);
        }
        char *s = cuzk_proof_to_json(&p, NULL);
        if (!s) return 0;
        if (strlen(s) > longest) longest = strlen(s);
        free(s);
    }
    return longest;
}

CUZK_API void groth16_proof_size(unsigned long long *proof_size)
{
    if (!proof_size) return;
    unsigned long long len = rs_proof_len();
    /* 0 when memory ran out: the prove call's short-buffer answer then
     * gives the size */
    *proof_size = len ? len + 1 : 0;
}

static int rs_public_size(cuzk_zkey *z, int rc, const cuzk_error *e, unsigned long long *public_size, char *msg,
                          unsigned long long max)
{
    unsigned long long len;
    if (rc) return rs_fail(msg, max, PROVER_ERROR, e->msg);
    rc = rs_public_len(z->curve, z->n_public, &len);
    cuzk_zkey_free(z);
    if (rc) return rs_fail(msg, max, PROVER_ERROR, "out of memory measuring public.json");
    *public_size = len + 1;
    return PROVER_OK;
}

CUZK_API int groth16_public_size_for_zkey_buf(const void *zkey_buffer, unsigned long long zkey_size,
                                              unsigned long long *public_size, char *error_msg,
                                              unsigned long long error_msg_maxsize)
{
    char *msg = error_msg;
    unsigned long long max = error_msg_maxsize;
    size_t len;
    if (!zkey_buffer) return rs_fail(msg, max, PROVER_ERROR, "Null zkey buffer");
    if (!public_size) return rs_fail(msg, max, PROVER_ERROR, "Null public size");
    if (rs_size(zkey_size, &len)) return rs_fail(msg, max, PROVER_ERROR, "zkey size is larger than memory");
    cuzk_error e = {0};
    cuzk_zkey z;
    int rc = cuzk_zkey_read_header_memory(&z, zkey_buffer, len, "zkey buffer", &e);
    return rs_public_size(&z, rc, &e, public_size, msg, max);
}

CUZK_API int groth16_public_size_for_zkey_file(const char *zkey_fname, unsigned long long *public_size,
                                               char *error_msg, unsigned long long error_msg_maxsize)
{
    if (!zkey_fname) return rs_fail(error_msg, error_msg_maxsize, PROVER_ERROR, "Null zkey file name");
    if (!public_size) return rs_fail(error_msg, error_msg_maxsize, PROVER_ERROR, "Null public size");
    cuzk_error e = {0};
    cuzk_zkey z;
    int rc = cuzk_zkey_read_header(&z, zkey_fname, &e);
    return rs_public_size(&z, rc, &e, public_size, error_msg, error_msg_maxsize);
}
