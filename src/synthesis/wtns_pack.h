/* A witness packed for its trip to a device. A bit-heavy witness (SHA-256
 * circuits, PoRep: ~60 % zeros, ~38 % ones) is mostly the values 0 and 1;
 * sent as two bits each, with the other values whole, a bit-heavy
 * witness crosses PCIe in about a thirtieth of the bytes
 * (bench/results/2026-12-04-h200-packed-witness.md). The device restores
 * the exact bytes (src/gpu/unpack.cu).
 *
 * Layout, one contiguous run of bytes from `base`:
 *   kept[n_kept][4]   the values that are neither 0 nor 1, in order
 *   kinds[(n + 31) / 32]  2 bits a value: value i in bits 2 (i mod 32) of
 *                     word i / 32; 0: the value 0, 1: the value 1, 2: kept
 *   first[blocks]     for each block of CUZK_WTNS_PACK_BLOCK values, the
 *                     index in kept of its first kept value
 * "0" is the 32-byte word (0,0,0,0); "1" is `one`: (1,0,0,0), the plain
 * integer as a .wtns holds it, or another word (Montgomery's one, R mod r,
 * for bellman's assignments). */
#ifndef CUZK_SYNTHESIS_WTNS_PACK_H
#define CUZK_SYNTHESIS_WTNS_PACK_H

#include <stddef.h>
#include <stdint.h>

/* values a block (the device unpacks a block per thread block) */
#define CUZK_WTNS_PACK_BLOCK 1024u

typedef struct {
    size_t n;                 /* values */
    size_t n_kept;            /* values kept whole */
    const uint64_t *base;     /* the packed bytes: kept, kinds, first */
    size_t bytes;             /* their length */
    const uint64_t *kinds;    /* inside base */
    const uint32_t *first;    /* inside base */
    uint64_t one[4];          /* the value kind CUZK_WTNS_ONE stands for */
} cuzk_wtns_packed;

/* A bellman witness (groth16/bellman.h) packed for the device: its a, b, c
 * and aux arrays, each packed or (base NULL) sent whole. */
typedef struct {
    cuzk_wtns_packed a, b, c, aux;
} cuzk_bellman_packed;

/* The kind codes of `kinds` */
enum { CUZK_WTNS_ZERO = 0, CUZK_WTNS_ONE = 1, CUZK_WTNS_KEPT = 2 };

/* Packs n values (4 words each) into dst, which may be values itself (then
 * packed in place: the values are gone once *out is filled), on nthreads
 * threads. Packs only where it pays: at most n / 4 values kept (the packed
 * bytes then < 27 % of the values'), and n < 2^32; otherwise *out is
 * zeroed (base NULL) and dst untouched. Returns CUZK_OK, or CUZK_ERR_NOMEM
 * (no scratch: nothing touched). dst, when not values, has room for n
 * values. */
int cuzk_wtns_pack(const uint64_t *values, size_t n, uint64_t *dst, int nthreads, cuzk_wtns_packed *out);

/* cuzk_wtns_pack with `one` as the value the ONE kind stands for (values
 * equal to it are sent as two bits). */
int cuzk_wtns_pack_as(const uint64_t *values, size_t n, const uint64_t one[4], uint64_t *dst, int nthreads,
                      cuzk_wtns_packed *out);

/* The bytes a separate dst needs at most for n values when they pack (at
 * most n / 4 kept): 8-byte aligned. */
size_t cuzk_wtns_pack_room(size_t n);

/* The host memory cuzk_wtns_pack takes for a while for n values (its
 * scratch: the kinds and each block's count). */
size_t cuzk_wtns_pack_scratch_bytes(size_t n);

#endif
