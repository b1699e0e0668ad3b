/* cuzk public C API: status codes, curves, errors. */
#ifndef CUZK_CUZK_H
#define CUZK_CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CUZK_OK = 0,
    CUZK_ERR_IO = 1,            /* a file could not be opened, read or written */
    CUZK_ERR_FORMAT = 2,        /* a file is truncated, corrupt or of the wrong kind */
    CUZK_ERR_MISMATCH = 3,      /* inputs disagree (witness length, prime, curve) */
    CUZK_ERR_ARG = 4,           /* bad argument from the caller */
    CUZK_ERR_NOMEM = 5,         /* an allocation failed */
    CUZK_ERR_UNSATISFIED = 6,   /* the witness does not satisfy the r1cs */
    CUZK_ERR_INVALID_PROOF = 7, /* verification ran and the proof is not valid */
    CUZK_ERR_CONFLICT = 8,      /* an idempotency key reused for a different request */
};

typedef struct cuzk_error {
    int code;
    char msg[512];
} cuzk_error;

const char *cuzk_status_name(int code);

typedef enum {
    CUZK_CURVE_BN254 = 0,     /* snarkjs "bn128" */
    CUZK_CURVE_BLS12_381 = 1, /* snarkjs "bls12381" */
} cuzk_curve_id;

#ifdef __cplusplus
}
#endif

#endif
