/* The per-curve ceremony entry points behind ceremony.h's dispatch; each
 * ceremony_<curve>.c stamps ceremony_curve.inc once. */
#ifndef CUZK_CEREMONY_CEREMONY_OPS_H
#define CUZK_CEREMONY_CEREMONY_OPS_H

#include "ceremony/ceremony.h"
#include "ceremony/chacha.h"

typedef struct {
    int (*zkey_new)(const cuzk_r1cs *r, const cuzk_ptau *p, const cuzk_ceremony_options *o, const char *path,
                    cuzk_zkey *z, uint8_t cs_hash[CUZK_CEREMONY_HASH_BYTES], cuzk_error *err);
    int (*zkey_contribute)(cuzk_zkey *z, cuzk_mpc *m, cuzk_chacha *rng, const cuzk_mpc_contribution *info,
                           const cuzk_ceremony_options *o, cuzk_error *err);
    int (*zkey_verify)(const cuzk_r1cs *r, const cuzk_ptau *p, const cuzk_zkey *z, cuzk_mpc *m,
                       const cuzk_ceremony_options *o, cuzk_error *err);
    int (*ptau_new)(unsigned power, const char *path, cuzk_error *err);
    int (*ptau_contribute)(cuzk_ptau *p, const char *out, cuzk_chacha *rng, const cuzk_mpc_contribution *info,
                           const cuzk_ceremony_options *o, uint8_t response_hash[64], cuzk_error *err);
    int (*ptau_prepare)(cuzk_ptau *p, const char *out, const cuzk_ceremony_options *o, cuzk_error *err);
    int (*ptau_verify)(cuzk_ptau *p, const cuzk_ceremony_options *o, uint8_t (*response_hashes)[64], cuzk_error *err);
    /* a powers-of-tau file's first challenge, hashed (what the table of
     * first_challenges.h holds, for the tests to compare) */
    void (*first_challenge_hashed)(unsigned power, uint8_t out[64]);
    /* cuzk_ceremony_mul's members on the CPU (ctx: the thread count as an integer) */
    int (*cpu_combine)(void *ctx, cuzk_curve_id curve, int g2, void *out, size_t n, const uint64_t *start,
                       const cuzk_lc_term *terms, const void *const *tables, const cuzk_ceremony_report *report,
                       cuzk_error *err);
    int (*cpu_scale)(void *ctx, cuzk_curve_id curve, int g2, void *pts, size_t n, const uint64_t *first,
                     const uint64_t *inc, const cuzk_ceremony_report *report, cuzk_error *err);
    int (*cpu_ifft)(void *ctx, cuzk_curve_id curve, int g2, void *pts, unsigned log_n, const uint64_t *root_inv,
                    const uint64_t *n_inv, const cuzk_ceremony_report *report, cuzk_error *err);
    int (*cpu_msm)(void *ctx, cuzk_curve_id curve, int g2, void *result_jac, const void *bases, const void *scalars,
                   size_t n, cuzk_error *err);
} cuzk_ceremony_ops;

#define CUZK_CEREMONY_OPS_DECLARE_(prefix, PREFIX, snarkjs) extern const cuzk_ceremony_ops prefix##_ceremony_ops;
CUZK_CURVES(CUZK_CEREMONY_OPS_DECLARE_)

const cuzk_ceremony_ops *cuzk_ceremony_ops_for(cuzk_curve_id curve);

#endif
