/* Section 10 of a .zkey, the phase-2 ceremony's record (snarkjs's "MPC
 * params"): the circuit hash, then each contribution as
 *   deltaAfter G1, g1_s G1, g1_sx G1, g2_spx G2   (Montgomery LE, affine)
 *   transcript[64], type u32 (0 contribution, 1 beacon),
 *   u32 length, then parameters sorted by tag: 1 name (u8 length, bytes),
 *   2 numIterationsExp (u8), 3 beacon hash (u8 length, bytes).
 * Points are kept as bytes here; the curve's code reads them. */
#ifndef CUZK_CEREMONY_MPC_H
#define CUZK_CEREMONY_MPC_H

#include <stddef.h>
#include <stdint.h>

#include "codec/binfile.h"
#include "cuzk/cuzk.h"

enum { CUZK_MPC_G1_MAX = 96, CUZK_MPC_G2_MAX = 192, CUZK_MPC_NAME_MAX = 255, CUZK_MPC_BEACON_MAX = 255 };
enum { CUZK_MPC_CONTRIBUTION = 0, CUZK_MPC_BEACON = 1 };

typedef struct {
    uint8_t delta_after[CUZK_MPC_G1_MAX], g1_s[CUZK_MPC_G1_MAX], g1_sx[CUZK_MPC_G1_MAX];
    uint8_t g2_spx[CUZK_MPC_G2_MAX];
    uint8_t transcript[64];
    uint32_t type;
    int has_name;
    char name[CUZK_MPC_NAME_MAX + 1]; /* NUL-terminated */
    uint8_t num_iterations_exp;       /* a beacon's */
    uint8_t beacon_len;
    uint8_t beacon_hash[CUZK_MPC_BEACON_MAX];
    uint8_t contribution_hash[64];    /* computed by verify: BLAKE2b of the public key */
} cuzk_mpc_contribution;

typedef struct {
    uint8_t cs_hash[64];
    uint32_t n;
    cuzk_mpc_contribution *c; /* n of them */
    uint32_t g1_bytes, g2_bytes;
} cuzk_mpc;

/* Reads section 10 of the zkey at path; n8q (32 or 48) sizes the points.
 * CUZK_ERR_FORMAT naming what is wrong (a count beyond the section, an
 * unknown or unsorted parameter, bytes left over), CUZK_ERR_IO,
 * CUZK_ERR_NOMEM. */
int cuzk_mpc_read(cuzk_mpc *m, const char *path, uint32_t n8q, cuzk_error *err);

/* Appends room for one more contribution, zeroed; NULL when out of memory. */
cuzk_mpc_contribution *cuzk_mpc_push(cuzk_mpc *m);

/* The section's bytes (malloc'd, *len set); NULL when out of memory. Names
 * longer than 64 bytes are cut to 64, as snarkjs cuts them. */
uint8_t *cuzk_mpc_encode(const cuzk_mpc *m, size_t *len);

void cuzk_mpc_free(cuzk_mpc *m);

/* A contribution's u32 length and parameters (name, beacon), the tail that
 * phase 1's contributions share: read into c (index names it in
 * messages), or encoded at out (at most CUZK_MPC_PARAMS_MAX bytes; the
 * length not included), returning the bytes written. */
enum { CUZK_MPC_PARAMS_MAX = 2 + 64 + 4 + CUZK_MPC_BEACON_MAX };
int cuzk_mpc_read_params(cuzk_bin_reader *r, cuzk_mpc_contribution *c, uint32_t index, cuzk_error *err);
size_t cuzk_mpc_encode_params(const cuzk_mpc_contribution *c, uint8_t *out);

#endif
