/* Dispatch of the ceremony's calls to the curve's stamp. */
#include "ceremony/ceremony_ops.h"

#include "codec/curve_id.h"
#include <openssl/sha.h>
#include <string.h>

#include "ceremony/blake2b.h"
#include "util/err.h"
#include "util/random.h"

const cuzk_ceremony_ops *cuzk_ceremony_ops_for(cuzk_curve_id curve)
{
#define OPS_ROW_(prefix, PREFIX, snarkjs) [CUZK_CURVE_##PREFIX] = &prefix##_ceremony_ops,
    static const cuzk_ceremony_ops *const ops[CUZK_N_CURVES] = {CUZK_CURVES(OPS_ROW_)};
#undef OPS_ROW_
    return ops[curve];
}

static int cpu_combine(void *ctx, cuzk_curve_id curve, int g2, void *out, size_t n, const uint64_t *start,
                       const cuzk_lc_term *terms, const void *const *tables, const cuzk_ceremony_report *report,
                       cuzk_error *err)
{
    if (!cuzk_curve_valid(curve)) return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve");
    return cuzk_ceremony_ops_for(curve)->cpu_combine(ctx, curve, g2, out, n, start, terms, tables, report, err);
}

static int cpu_scale(void *ctx, cuzk_curve_id curve, int g2, void *pts, size_t n, const uint64_t *first,
                     const uint64_t *inc, const cuzk_ceremony_report *report, cuzk_error *err)
{
    if (!cuzk_curve_valid(curve)) return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve");
    return cuzk_ceremony_ops_for(curve)->cpu_scale(ctx, curve, g2, pts, n, first, inc, report, err);
}

static int cpu_ifft(void *ctx, cuzk_curve_id curve, int g2, void *pts, unsigned log_n, const uint64_t *root_inv,
                    const uint64_t *n_inv, const cuzk_ceremony_report *report, cuzk_error *err)
{
    if (!cuzk_curve_valid(curve)) return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve");
    return cuzk_ceremony_ops_for(curve)->cpu_ifft(ctx, curve, g2, pts, log_n, root_inv, n_inv, report, err);
}

static int cpu_msm(void *ctx, cuzk_curve_id curve, int g2, void *result_jac, const void *bases, const void *scalars,
                   size_t n, cuzk_error *err)
{
    if (!cuzk_curve_valid(curve)) return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve");
    return cuzk_ceremony_ops_for(curve)->cpu_msm(ctx, curve, g2, result_jac, bases, scalars, n, err);
}

void cuzk_ceremony_cpu_mul(cuzk_ceremony_mul *m, int nthreads)
{
    *m = (cuzk_ceremony_mul){(void *)(intptr_t)(nthreads < 1 ? 1 : nthreads), cpu_combine, cpu_scale, cpu_ifft,
                             cpu_msm};
}

int cuzk_ceremony_zkey_new_write(const cuzk_r1cs *r, const cuzk_ptau *p, const cuzk_ceremony_options *o,
                                 const char *path, cuzk_zkey *z, uint8_t cs_hash[CUZK_CEREMONY_HASH_BYTES],
                                 cuzk_error *err)
{
    if (r->curve != p->curve)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the r1cs is over %s, the powers of tau over %s",
                         cuzk_curve_snarkjs_name(r->curve), cuzk_curve_snarkjs_name(p->curve));
    return cuzk_ceremony_ops_for(r->curve)->zkey_new(r, p, o, path, z, cs_hash, err);
}

int cuzk_ceremony_zkey_new(const cuzk_r1cs *r, const cuzk_ptau *p, const cuzk_ceremony_options *o, cuzk_zkey *z,
                           uint8_t cs_hash[CUZK_CEREMONY_HASH_BYTES], cuzk_error *err)
{
    return cuzk_ceremony_zkey_new_write(r, p, o, NULL, z, cs_hash, err);
}

int cuzk_ceremony_zkey_contribute(cuzk_zkey *z, cuzk_mpc *m, cuzk_chacha *rng, const cuzk_mpc_contribution *info,
                                  const cuzk_ceremony_options *o, cuzk_error *err)
{
    return cuzk_ceremony_ops_for(z->curve)->zkey_contribute(z, m, rng, info, o, err);
}

int cuzk_ceremony_zkey_verify(const cuzk_r1cs *r, const cuzk_ptau *p, const cuzk_zkey *z, cuzk_mpc *m,
                              const cuzk_ceremony_options *o, cuzk_error *err)
{
    if (r->curve != z->curve || p->curve != z->curve)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the key is over %s, the r1cs over %s, the powers of tau over %s",
                         cuzk_curve_snarkjs_name(z->curve), cuzk_curve_snarkjs_name(r->curve),
                         cuzk_curve_snarkjs_name(p->curve));
    return cuzk_ceremony_ops_for(z->curve)->zkey_verify(r, p, z, m, o, err);
}

int cuzk_ceremony_entropy_rng(cuzk_chacha *rng, const char *entropy, cuzk_error *err)
{
    uint8_t random[64], seed[CUZK_BLAKE2B_BYTES];
    if (cuzk_random_bytes(random, sizeof random))
        return cuzk_fail(err, CUZK_ERR_IO, "getrandom failed: no entropy for the contribution");
    cuzk_blake2b_state h;
    cuzk_blake2b_init(&h);
    cuzk_blake2b_update(&h, random, sizeof random);
    if (entropy) cuzk_blake2b_update(&h, entropy, strlen(entropy));
    cuzk_blake2b_final(&h, seed);
    cuzk_chacha_init_from_hash(rng, seed);
    cuzk_wipe(random, sizeof random);
    cuzk_wipe(seed, sizeof seed);
    cuzk_wipe(&h, sizeof h);
    return CUZK_OK;
}

int cuzk_ceremony_beacon_rng(cuzk_chacha *rng, const uint8_t *hash, size_t len, unsigned exp,
                             const cuzk_ceremony_options *o, cuzk_error *err)
{
    if (exp < 10 || exp > 63)
        return cuzk_fail(err, CUZK_ERR_ARG, "the beacon's iteration exponent is %u; it must be 10 to 63", exp);
    if (len == 0 || len > CUZK_MPC_BEACON_MAX)
        return cuzk_fail(err, CUZK_ERR_ARG, "the beacon hash is %zu bytes; 1 to %d", len, CUZK_MPC_BEACON_MAX);
    uint8_t cur[SHA256_DIGEST_LENGTH];
    uint64_t n = (uint64_t)1 << exp;
    SHA256(hash, len, cur);
    for (uint64_t i = 1; i < n; i++) {
        SHA256(cur, sizeof cur, cur);
        if (o && o->progress && !(i & ((1u << 20) - 1))) o->progress(o->progress_ctx, "beacon hashes", i, n);
    }
    cuzk_chacha_init_from_hash(rng, cur);
    return CUZK_OK;
}

int cuzk_ceremony_ptau_new(cuzk_curve_id curve, unsigned power, const char *path, cuzk_error *err)
{
    if (!cuzk_curve_valid(curve)) return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve");
    return cuzk_ceremony_ops_for(curve)->ptau_new(power, path, err);
}

int cuzk_ceremony_ptau_contribute(cuzk_ptau *p, const char *out, cuzk_chacha *rng, const cuzk_mpc_contribution *info,
                                  const cuzk_ceremony_options *o, uint8_t response_hash[64], cuzk_error *err)
{
    return cuzk_ceremony_ops_for(p->curve)->ptau_contribute(p, out, rng, info, o, response_hash, err);
}

int cuzk_ceremony_ptau_prepare(cuzk_ptau *p, const char *out, const cuzk_ceremony_options *o, cuzk_error *err)
{
    return cuzk_ceremony_ops_for(p->curve)->ptau_prepare(p, out, o, err);
}

int cuzk_ceremony_ptau_verify(cuzk_ptau *p, const cuzk_ceremony_options *o, uint8_t (*response_hashes)[64],
                              cuzk_error *err)
{
    return cuzk_ceremony_ops_for(p->curve)->ptau_verify(p, o, response_hashes, err);
}
