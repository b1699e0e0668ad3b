/* Provers: a backend kept for many proofs, and one proof through it,
 * checked against the key's own verification key. The command's `groth16
 * prove` runs the same calls (lib_prover_make, lib_prove). */
#include <stdlib.h>
#include <string.h>

#include "api/lib.h"
#include "util/err.h"
#include "util/threads.h"

enum { LIB_MAX_THREADS = 1024 };

int lib_prover_make(cuzk_prover **out, const char *backend, int threads, int one_shot, cuzk_error *err)
{
    if (!out) return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_prover_create: out is NULL");
    *out = NULL;
    if (!backend) return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_prover_create: backend is NULL");
    if (threads < 0 || threads > LIB_MAX_THREADS)
        return cuzk_fail(err, CUZK_ERR_ARG, "threads must be 0 (all CPUs) to %d, not %d", LIB_MAX_THREADS, threads);
    /* a backend whose proofs are placeholders (sim) is refused here, before
     * a key is copied anywhere, as backend_prove would refuse it */
    if (!backend_is_choice(backend, 1))
        return cuzk_fail(err, CUZK_ERR_ARG,
                         backend_is_choice(backend, 0)
                             ? "the %s backend makes placeholder proofs: prove with one of " CUZK_BACKEND_PROVERS
                             : "unknown backend '%s' (one of " CUZK_BACKEND_PROVERS ")",
                         backend);
    cuzk_prover *p = calloc(1, sizeof *p);
    if (!p) return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a prover");
    p->threads = threads ? threads : cuzk_cpu_count();
    p->b = backend_create(backend, &(backend_options){.cpu_threads = p->threads, .gpu_one_shot = one_shot}, err);
    if (!p->b) {
        free(p);
        return err && err->code ? err->code : CUZK_ERR_NOMEM;
    }
    *out = p;
    return CUZK_OK;
}

CUZK_API int cuzk_prover_create(cuzk_prover **out, const char *backend, int threads, cuzk_error *err)
{
    return lib_prover_make(out, backend, threads, 0, err);
}

CUZK_API const char *cuzk_prover_backend(const cuzk_prover *p) { return p ? p->b->name : NULL; }

CUZK_API void cuzk_prover_destroy(cuzk_prover *p)
{
    if (!p) return;
    p->b->destroy(p->b);
    free(p);
}

int lib_prove(cuzk_prover *p, const cuzk_key *key, const cuzk_wtns *w, unsigned flags, cuzk_proof *proof,
              uint64_t (*pub)[4], cuzk_prove_timings *t, cuzk_error *err)
{
    const unsigned known = (unsigned)CUZK_PROVE_NO_VERIFY | LIB_PROVE_WITNESS_CHECKED;
    if (flags & ~known)
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown prove flags 0x%x", flags & ~known);
    int rc = backend_prove(p->b, &key->z, w, p->threads, proof, pub, t, err);
    /* a proof that fails (a witness that does not satisfy the circuit, a
     * corrupt key) is never handed out as if it were good: the engine
     * checks each of its proofs the same way */
    if (!rc && !(flags & CUZK_PROVE_NO_VERIFY))
        rc = cuzk_groth16_verify_own(&key->vk, (const uint64_t(*)[4])pub, key->z.n_public, proof,
                                     !!(flags & LIB_PROVE_WITNESS_CHECKED), err);
    return rc;
}

int lib_prove_json(cuzk_prover *p, const cuzk_key *key, const cuzk_wtns *w, unsigned flags, char **proof_json,
                   char **public_json, cuzk_error *err)
{
    *proof_json = *public_json = NULL;
    cuzk_proof proof;
    uint64_t(*pub)[4] = calloc((size_t)key->z.n_public + 1, sizeof *pub);
    if (!pub) return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for %u public signals", key->z.n_public);
    int rc = lib_prove(p, key, w, flags, &proof, pub, NULL, err);
    if (!rc && !(*proof_json = cuzk_proof_to_json(&proof, err))) rc = err && err->code ? err->code : CUZK_ERR_NOMEM;
    if (!rc && !(*public_json = cuzk_public_to_json((const uint64_t(*)[4])pub, key->z.n_public, err))) {
        rc = err && err->code ? err->code : CUZK_ERR_NOMEM;
        free(*proof_json);
        *proof_json = NULL;
    }
    free(pub);
    return rc;
}

/* What both prove calls check before reading the witness (given: whether
 * it was). */
static int prove_args(const cuzk_prover *p, const cuzk_key *key, int given, char **proof_json, char **public_json,
                      const char *fn, cuzk_error *err)
{
    if (proof_json) *proof_json = NULL;
    if (public_json) *public_json = NULL;
    const char *missing = !p ? "p" : !key ? "key" : !given ? "the witness" : !proof_json ? "proof_json"
                                                         : !public_json ? "public_json" : NULL;
    return missing ? cuzk_fail(err, CUZK_ERR_ARG, "%s: %s is NULL", fn, missing) : CUZK_OK;
}

/* The proof of w read with status rc; w freed. */
static int prove_read(cuzk_prover *p, const cuzk_key *key, cuzk_wtns *w, int rc, unsigned flags, char **proof_json,
                      char **public_json, cuzk_error *err)
{
    if (!rc) rc = lib_prove_json(p, key, w, flags, proof_json, public_json, err);
    cuzk_wtns_free(w);
    return rc;
}

CUZK_API int cuzk_prove_wtns_memory(cuzk_prover *p, const cuzk_key *key, const void *wtns, size_t wtns_len,
                                    unsigned flags, char **proof_json, char **public_json, cuzk_error *err)
{
    int rc = prove_args(p, key, wtns || !wtns_len, proof_json, public_json, "cuzk_prove_wtns_memory", err);
    if (rc) return rc;
    cuzk_wtns w;
    rc = cuzk_wtns_read_memory(&w, wtns, wtns_len, "witness buffer", err);
    return prove_read(p, key, &w, rc, flags, proof_json, public_json, err);
}

CUZK_API int cuzk_prove_wtns_file(cuzk_prover *p, const cuzk_key *key, const char *wtns_path, unsigned flags,
                                  char **proof_json, char **public_json, cuzk_error *err)
{
    int rc = prove_args(p, key, wtns_path != NULL, proof_json, public_json, "cuzk_prove_wtns_file", err);
    if (rc) return rc;
    cuzk_wtns w;
    rc = cuzk_wtns_read(&w, wtns_path, err);
    return prove_read(p, key, &w, rc, flags, proof_json, public_json, err);
}
