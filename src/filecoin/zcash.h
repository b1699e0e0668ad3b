/* BLS12-381 points in the zcash encoding that bellperson's files and proofs
 * use (the serialisation of the pairing / bls12_381 crates):
 *   Fp   48 bytes, big-endian, canonical (< p)
 *   G1   uncompressed x || y (96), compressed x (48)
 *   G2   uncompressed x.c1 || x.c0 || y.c1 || y.c0 (192), compressed
 *        x.c1 || x.c0 (96)
 * The top three bits of byte 0 are flags: 0x80 compressed, 0x40 the point
 * at infinity (every other bit zero), 0x20 (compressed only) y is the
 * larger of y and -y: for Fp by value, for Fp2 by c1, by c0 when c1 = 0.
 * Points here are ec.h's affine points (Montgomery form, all-zero for
 * infinity), which are also blst's affine layout (Fp as 6 little-endian
 * Montgomery words, Fp2 as c0 then c1).
 *
 * The decoders check everything: flags, canonical coordinates, on the
 * curve, in the prime-order subgroup (by the endomorphisms,
 * ec/bls12_381_endo.h), the last unless FIL_CHECK_CURVE says not; a check
 * that fails names itself in the returned fil_point_status. Infinity is refused where bellperson's
 * files never hold it (fil_*_decode) and accepted in compressed proofs
 * only when allow_infinity is set. */
#ifndef CUZK_FILECOIN_ZCASH_H
#define CUZK_FILECOIN_ZCASH_H

#include <stdint.h>

#include "ec/ec.h"

enum {
    FIL_G1_BYTES = 96,
    FIL_G2_BYTES = 192,
    FIL_G1_COMPRESSED_BYTES = 48,
    FIL_G2_COMPRESSED_BYTES = 96,
};

typedef enum {
    FIL_POINT_OK = 0,
    FIL_POINT_BAD_FLAGS,      /* the compression flag or sign bit where they do not belong */
    FIL_POINT_INFINITY,       /* the point at infinity, which these files never hold */
    FIL_POINT_NOT_CANONICAL,  /* a coordinate >= p */
    FIL_POINT_OFF_CURVE,      /* not on the curve (or, compressed, x has no y) */
    FIL_POINT_NOT_IN_SUBGROUP /* on the curve, outside the prime-order subgroup */
} fil_point_status;

/* What the uncompressed decoders check: everything, or everything but
 * subgroup membership, by far the costliest part (a scalar
 * multiplication a point): for a prover's key, whose bad points could
 * only make proofs that verifiers refuse. */
typedef enum { FIL_CHECK_ALL, FIL_CHECK_CURVE } fil_check;

/* "not on the curve", ... for messages. */
const char *fil_point_status_name(fil_point_status s);

/* Uncompressed encodings. The encoders write infinity as the flag 0x40
 * and zeros (the files never hold it: callers refuse it before). */
void fil_g1_encode(uint8_t out[FIL_G1_BYTES], const bls12_381_g1_affine *p);
void fil_g2_encode(uint8_t out[FIL_G2_BYTES], const bls12_381_g2_affine *p);
fil_point_status fil_g1_decode(bls12_381_g1_affine *p, const uint8_t in[FIL_G1_BYTES], fil_check check);
fil_point_status fil_g2_decode(bls12_381_g2_affine *p, const uint8_t in[FIL_G2_BYTES], fil_check check);

/* Compressed encodings (bellperson's proofs). */
void fil_g1_compress(uint8_t out[FIL_G1_COMPRESSED_BYTES], const bls12_381_g1_affine *p);
void fil_g2_compress(uint8_t out[FIL_G2_COMPRESSED_BYTES], const bls12_381_g2_affine *p);
fil_point_status fil_g1_decompress(bls12_381_g1_affine *p, const uint8_t in[FIL_G1_COMPRESSED_BYTES],
                                   int allow_infinity);
fil_point_status fil_g2_decompress(bls12_381_g2_affine *p, const uint8_t in[FIL_G2_COMPRESSED_BYTES],
                                   int allow_infinity);

#endif
