/* NTT instances for bn254_fr and bls12_381_fr (template: ntt.inc). */
#include "poly/ntt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ff/field29.h"
#include "ff/field52.h"
#include "util/threads.h"

/* Tuning knobs. A pass's work unit holds at most 2^NTT_TILE_LOG elements
 * (32 bytes each: 2^13 is 256 KiB, within L2); a column group of a later pass
 * is 2^NTT_COLS_LOG consecutive elements (8 = 256 bytes, whole cache lines);
 * bit-reversal tiles are 2^NTT_BITREV_LOG by 2^NTT_BITREV_LOG. Transforms
 * smaller than NTT_SERIAL_BELOW run on the calling thread. */
#ifndef NTT_TILE_LOG
#define NTT_TILE_LOG 13
#endif
#ifndef NTT_COLS_LOG
#define NTT_COLS_LOG 3
#endif
#ifndef NTT_BITREV_LOG
#define NTT_BITREV_LOG 4
#endif
#ifndef NTT_SERIAL_BELOW
#define NTT_SERIAL_BELOW 4096
#endif
_Static_assert(NTT_COLS_LOG + 3 < NTT_TILE_LOG, "a pass needs at least one stage");

/* A unit in vector rows (either engine's) holds 2^NTT_ROWS_LOG rows: an
 * IFMA unit 2^NTT_TILE_LOG elements, an AVX2 unit half of that in about
 * as many bytes (a row of four takes 288). */
#define NTT_ROWS_LOG (NTT_TILE_LOG - 3)
#define NTT_LANE_ROWS ((size_t)1 << NTT_ROWS_LOG)

/* What a pass does to each unit, in this order (ntt.inc). */
enum {
    NTT_OP_DIF = 1,   /* the stages downwards, inverse twiddles */
    NTT_OP_SCALE = 2, /* times n^-1 */
    NTT_OP_DIT = 4,   /* the stages upwards, forward twiddles */
};
_Static_assert(NTT_BITREV_LOG >= 1 && NTT_BITREV_LOG <= 8, "bit-reversal tile size");

/* The low `bits` bits of x in reverse order. */
static inline size_t ntt_reverse_bits(size_t x, unsigned bits)
{
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++, x >>= 1)
        r = r << 1 | (x & 1);
    return r;
}

#define FR_(x) bn254_fr_##x
#define FR_T bn254_fr
#define NTT_TWO_ADICITY BN254_FR_TWO_ADICITY
#include "poly/ntt.inc"

#define FR_(x) bls12_381_fr_##x
#define FR_T bls12_381_fr
#define NTT_TWO_ADICITY BLS12_381_FR_TWO_ADICITY
#include "poly/ntt.inc"
