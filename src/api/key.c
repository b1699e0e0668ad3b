/* Proving-key handles: a zkey read whole (a file mapped) and checked, with
 * the verification key its proofs are checked against made once
 * (vk_alphabeta_12 only when the key is exported, cuzk_key_vk_json). */
#include <stdlib.h>

#include "api/lib.h"
#include "util/err.h"

int lib_key_adopt(cuzk_key **out, cuzk_zkey *z, cuzk_error *err)
{
    cuzk_key *k = calloc(1, sizeof *k);
    if (!k) {
        cuzk_zkey_free(z);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a key handle");
    }
    int rc = cuzk_groth16_verifying_key(z, &k->vk, err);
    if (rc) {
        cuzk_zkey_free(z);
        free(k);
        return rc;
    }
    k->z = *z;
    *z = (cuzk_zkey){0};
    *out = k;
    return CUZK_OK;
}

CUZK_API int cuzk_key_load_file(cuzk_key **out, const char *path, cuzk_error *err)
{
    if (!out) return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_key_load_file: out is NULL");
    *out = NULL;
    if (!path) return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_key_load_file: path is NULL");
    cuzk_zkey z;
    int rc = cuzk_zkey_map(&z, path, err);
    return rc ? rc : lib_key_adopt(out, &z, err);
}

CUZK_API int cuzk_key_load_memory(cuzk_key **out, const void *data, size_t len, cuzk_error *err)
{
    if (!out) return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_key_load_memory: out is NULL");
    *out = NULL;
    if (!data && len) return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_key_load_memory: data is NULL");
    cuzk_zkey z;
    int rc = cuzk_zkey_read_memory(&z, data, len, "zkey buffer", err);
    return rc ? rc : lib_key_adopt(out, &z, err);
}

CUZK_API void cuzk_key_free(cuzk_key *key)
{
    if (!key) return;
    cuzk_zkey_free(&key->z);
    cuzk_vk_free(&key->vk);
    free(key);
}

CUZK_API int cuzk_key_get_info(const cuzk_key *key, cuzk_key_info *info, cuzk_error *err)
{
    if (!key || !info) return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_key_get_info: %s is NULL", key ? "info" : "key");
    *info = (cuzk_key_info){key->z.curve, key->z.n_public, key->z.n_vars, key->z.domain_size};
    return CUZK_OK;
}

CUZK_API int cuzk_key_vk_json(const cuzk_key *key, char **vk_json, cuzk_error *err)
{
    if (!vk_json) return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_key_vk_json: vk_json is NULL");
    *vk_json = NULL;
    if (!key) return cuzk_fail(err, CUZK_ERR_ARG, "cuzk_key_vk_json: key is NULL");
    /* the key's own vk lacks vk_alphabeta_12 (lib_key_adopt): made here */
    cuzk_vk vk;
    int rc = cuzk_groth16_export_vk(&key->z, &vk, err);
    if (rc) return rc;
    *vk_json = cuzk_vk_to_json(&vk, err);
    cuzk_vk_free(&vk);
    return *vk_json ? CUZK_OK : err && err->code ? err->code : CUZK_ERR_NOMEM;
}
