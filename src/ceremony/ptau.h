/* Powers-of-tau files (.ptau, version 1) as snarkjs and the Hermez
 * ceremony write them. Sections (points affine, coordinates Montgomery LE,
 * as a zkey's; sG1 = 2 n8q, sG2 = 4 n8q bytes; N = 2^power):
 *   1  header: n8q u32, q, power u32, ceremonyPower u32
 *   2  tau^i G1, i < 2N - 1          3  tau^i G2, i < N
 *   4  alpha tau^i G1, i < N         5  beta tau^i G1, i < N
 *   6  beta G2 (one point)           7  contributions (u32 count, then each)
 *  12..15 (after `prepare phase2`): the same four in the Lagrange basis of
 *   every domain 2^k, k = 0..power, one after the other (2^k points at
 *   point offset 2^k - 1), so 2^(power+1) - 1 points each; section 12 also
 *   k = power + 1 (2^(power+2) - 1 points), made from section 2's 2N - 1
 *   points and infinity in place of the missing tau^(2N-1) G1: the H
 *   points of a circuit of domain 2^power.
 * The reader maps the file and checks the table: every section present
 * once, each exactly its size; the points are checked by their users
 * (ceremony_curve.inc) where they read them. */
#ifndef CUZK_CEREMONY_PTAU_H
#define CUZK_CEREMONY_PTAU_H

#include <stdint.h>

#include "ceremony/mpc.h"
#include "codec/binfile.h"
#include "cuzk/cuzk.h"

enum {
    PTAU_SEC_HEADER = 1,
    PTAU_SEC_TAU_G1 = 2,
    PTAU_SEC_TAU_G2 = 3,
    PTAU_SEC_ALPHA_TAU_G1 = 4,
    PTAU_SEC_BETA_TAU_G1 = 5,
    PTAU_SEC_BETA_G2 = 6,
    PTAU_SEC_CONTRIBUTIONS = 7,
    PTAU_SEC_LAGRANGE_TAU_G1 = 12,
    PTAU_SEC_LAGRANGE_TAU_G2 = 13,
    PTAU_SEC_LAGRANGE_ALPHA_G1 = 14,
    PTAU_SEC_LAGRANGE_BETA_G1 = 15,
};

typedef struct {
    cuzk_binfile bf; /* mapped */
    cuzk_curve_id curve;
    uint32_t n8q, power, ceremony_power;
    uint32_t g1_bytes, g2_bytes;
    int prepared; /* sections 12..15 present */
    const uint8_t *sec[16]; /* each present section's payload in the mapping, by id */
} cuzk_ptau;

/* One contribution of section 7, points as bytes (Montgomery LE, affine):
 * the new tau G1, tau G2, alpha G1, beta G1, beta G2, the public key
 * (g1_s, g1_sx of tau, alpha, beta; then g2_spx of each), the response
 * hasher's state before the key (216 bytes), the next challenge hash, and
 * the type, name and beacon as a zkey's contributions keep them. */
typedef struct {
    uint8_t tau_g1[CUZK_MPC_G1_MAX], tau_g2[CUZK_MPC_G2_MAX], alpha_g1[CUZK_MPC_G1_MAX], beta_g1[CUZK_MPC_G1_MAX];
    uint8_t beta_g2[CUZK_MPC_G2_MAX];
    uint8_t key_g1[6][CUZK_MPC_G1_MAX], key_g2[3][CUZK_MPC_G2_MAX];
    uint8_t partial_hash[216], next_challenge[64];
    cuzk_mpc_contribution info;
} cuzk_ptau_contribution;

/* Section 7 of p: *n contributions into *out (free() it). CUZK_ERR_FORMAT
 * naming what is wrong, CUZK_ERR_NOMEM. */
int cuzk_ptau_read_contributions(cuzk_ptau *p, cuzk_ptau_contribution **out, uint32_t *n, cuzk_error *err);

/* Section 7's payload for n contributions (malloc'd, *len set), NULL when
 * out of memory. */
uint8_t *cuzk_ptau_encode_contributions(const cuzk_ptau_contribution *c, uint32_t n, uint32_t n8q, size_t *len);

/* Opens and maps path, reads the header and checks the section table
 * (CUZK_ERR_FORMAT naming the file, section and sizes; CUZK_ERR_IO). */
int cuzk_ptau_open(cuzk_ptau *p, const char *path, cuzk_error *err);
void cuzk_ptau_close(cuzk_ptau *p);

/* Point i of section id (no bound check: callers stay below the sizes the
 * header implies, which open checked). */
static inline const uint8_t *cuzk_ptau_point(const cuzk_ptau *p, uint32_t id, uint64_t i)
{
    uint32_t bytes = (id == PTAU_SEC_TAU_G2 || id == PTAU_SEC_BETA_G2 || id == PTAU_SEC_LAGRANGE_TAU_G2)
                         ? p->g2_bytes
                         : p->g1_bytes;
    return p->sec[id] + i * bytes;
}

/* The first point of the Lagrange basis of the domain 2^k in section id
 * (12..15), k <= power (power + 1 in section 12). */
static inline const uint8_t *cuzk_ptau_lagrange(const cuzk_ptau *p, uint32_t id, unsigned k)
{
    return cuzk_ptau_point(p, id, ((uint64_t)1 << k) - 1);
}

#endif
