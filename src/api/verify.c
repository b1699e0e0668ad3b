/* Verification from texts or files: the three readers, then the pairing
 * check. The command's `groth16 verify` is cuzk_verify_files. */
#include <stdlib.h>

#include "api/lib.h"
#include "util/err.h"

/* The three inputs, each a path or a text (in_memory). */
typedef struct {
    const char *vk, *pub, *proof;
    int in_memory;
} verify_inputs;

static int verify(verify_inputs in, cuzk_error *err)
{
    if (!in.vk || !in.pub || !in.proof)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: the %s is NULL", in.in_memory ? "cuzk_verify_json" : "cuzk_verify_files",
                         !in.vk ? "verification key" : !in.pub ? "public signals" : "proof");
    cuzk_vk vk;
    cuzk_proof proof;
    uint64_t(*pub)[4] = NULL;
    uint32_t n_pub = 0;
    int rc = in.in_memory ? cuzk_vk_read_json_text(&vk, in.vk, "verification key", err)
                          : cuzk_vk_read_json(&vk, in.vk, err);
    if (rc) return rc;
    rc = in.in_memory ? cuzk_public_read_json_text(&pub, &n_pub, vk.curve, in.pub, "public signals", err)
                      : cuzk_public_read_json(&pub, &n_pub, vk.curve, in.pub, err);
    if (!rc)
        rc = in.in_memory ? cuzk_proof_read_json_text(&proof, in.proof, "proof", err)
                          : cuzk_proof_read_json(&proof, in.proof, err);
    if (!rc) rc = cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, n_pub, &proof, err);
    cuzk_vk_free(&vk);
    free(pub);
    return rc;
}

CUZK_API int cuzk_verify_json(const char *vk_json, const char *public_json, const char *proof_json, cuzk_error *err)
{
    return verify((verify_inputs){vk_json, public_json, proof_json, 1}, err);
}

CUZK_API int cuzk_verify_files(const char *vk_path, const char *public_path, const char *proof_path,
                               cuzk_error *err)
{
    return verify((verify_inputs){vk_path, public_path, proof_path, 0}, err);
}
