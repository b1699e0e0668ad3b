/* cuzk public C API: status codes, curves, errors. */
#ifndef CUZK_CUZK_H
#define CUZK_CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What libcuzk.so exports: the functions of the public headers carry it
 * (the library is compiled with -fvisibility=hidden, so nothing else is
 * seen from outside; src/api/libcuzk.map lists the same names). */
#if defined(__GNUC__)
#define CUZK_API __attribute__((visibility("default")))
#else
#define CUZK_API
#endif

/* The library's and the command's version (cuzk --version). */
#define CUZK_VERSION "0.9.0"

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
    CUZK_ERR_CANCELLED = 9,     /* a wait ended by cancel, drain or shutdown */
    CUZK_ERR_UNAVAILABLE = 10,  /* a service the call needs (the cluster's database) cannot be reached */
};

typedef struct cuzk_error {
    int code;
    char msg[512];
} cuzk_error;

/* A few words for a status code ("i/o error", "invalid proof"), or
 * "unknown error" for a code not listed above. Thread-safe; the string is
 * static. */
CUZK_API const char *cuzk_status_name(int code);

/* The curves, one row each: X(prefix, PREFIX, snarkjs name), SEP between
 * two rows (what a list puts between two names; nothing elsewhere). The
 * prefix names every per-curve symbol (bn254_fr_mul, bn254_g1_msm,
 * bn254_groth16_ops), PREFIX the constants (BN254_FR_LIMBS) and the id
 * (CUZK_CURVE_BN254). Tables indexed by curve id are made from the rows;
 * docs/ARCHITECTURE.md lists what else a new curve needs. */
#define CUZK_CURVE_ROWS(X, SEP)          \
    X(bn254, BN254, "bn128")             \
    SEP X(bls12_381, BLS12_381, "bls12381")
#define CUZK_CURVES(X) CUZK_CURVE_ROWS(X, )

#define CUZK_CURVE_ENUM_(prefix, PREFIX, name) CUZK_CURVE_##PREFIX,
typedef enum { CUZK_CURVES(CUZK_CURVE_ENUM_) } cuzk_curve_id;
/* How many (not an enumerator: switches over the ids stay complete). */
#define CUZK_CURVE_COUNT_(prefix, PREFIX, name) +1
enum { CUZK_N_CURVES = 0 CUZK_CURVES(CUZK_CURVE_COUNT_) };

#ifdef __cplusplus
}
#endif

#endif
