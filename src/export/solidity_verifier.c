/* The Groth16 verifier contract (solidity.h), written from a verification
 * key. The check is one product of four pairings,
 *   e(A, B) e(alpha, -beta) e(L, -gamma) e(C, -delta) = 1,
 * which is e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) because
 * e(P, -Q) = e(P, Q)^-1: beta, gamma and delta are negated here, once,
 * so that the contract negates nothing and passes the proof's points to
 * the precompiles as the caller gave them, for them to check.
 *
 * Memory, from the free memory pointer p: the pairing's input, four
 * (G1, G2) pairs, PAIR bytes each (192 for BN254, 384 for BLS12-381):
 *   pair 0: A, B (copied from the call data)
 *   pair 1: alpha, -beta
 *   pair 2: L, -gamma    L is made in place first: IC_0 there, each
 *                        product beside it in the -gamma slot, added back
 *   pair 3: C, -delta
 * For BLS12-381 the signals and their IC points follow, one MSM's input. */
#include "export/solidity.h"

#include "codec/curve_id.h"
#include "export/evm_words.h"
#include "util/err.h"

typedef struct {
    FILE *f;
    cuzk_curve_id curve;
    uint32_t fp;     /* words of an Fp element: 1 or 2 */
    uint32_t g1, g2; /* bytes of a G1 and a G2 point */
    uint32_t pair;   /* bytes of one pairing pair */
    uint32_t n;      /* public signals */
} gen;

/* `uint256 constant NAME_j = 0x...;` for each word of an encoded point. */
static void put_point_constants(gen *g, const char *name, const evm_word *w, uint32_t count)
{
    char hex[EVM_WORD_HEX_CAP];
    for (uint32_t j = 0; j < count; j++) {
        evm_word_hex(&w[j], hex);
        fprintf(g->f, "    uint256 constant %s_%u = %s;\n", name, j, hex);
    }
}

static void put_g1_constants(gen *g, const char *name, const cuzk_g1_plain *p)
{
    evm_word w[EVM_MAX_POINT_WORDS];
    put_point_constants(g, name, w, evm_g1_encode(g->curve, p, w));
}

static void put_neg_g2_constants(gen *g, const char *name, const cuzk_g2_plain *p)
{
    evm_word w[EVM_MAX_POINT_WORDS];
    cuzk_g2_plain neg = *p;
    evm_g2_negate(g->curve, &neg);
    put_point_constants(g, name, w, evm_g2_encode(g->curve, &neg, w));
}

/* mstore(add(base, offset + 32 j), NAME_j) for each of a point's words. */
static void put_store_point(gen *g, const char *indent, const char *base, uint32_t offset, const char *name,
                            uint32_t count)
{
    for (uint32_t j = 0; j < count; j++)
        fprintf(g->f, "%smstore(add(%s, %u), %s_%u)\n", indent, base, offset + 32 * j, name, j);
}

static void put_header(gen *g, const cuzk_vk *vk)
{
    static const char bn254_doc[] =
        "/// Groth16 verifier for one circuit's key over BN254 (alt_bn128), on the precompiles\n"
        "/// of EIP-196 (ecAdd 0x06, ecMul 0x07) and EIP-197 (pairing 0x08).\n"
        "/// verifyProof takes snarkjs's arguments: A = (pA[0], pA[1]), B's coordinates as\n"
        "/// EIP-197 orders Fp2 (pB[0] = [x.c1, x.c0], pB[1] = [y.c1, y.c0]), C = (pC[0], pC[1]).\n";
    static const char bls_doc[] =
        "/// Groth16 verifier for one circuit's key over BLS12-381, on the precompiles of\n"
        "/// EIP-2537 (Prague: G1ADD 0x0b, G1MSM 0x0c, PAIRING_CHECK 0x0f).\n"
        "/// verifyProof takes each point as those precompiles do, in 32-byte words: an Fp\n"
        "/// element as two, its top 128 bits then its low 256 (64 bytes, big-endian);\n"
        "/// pA = [x.hi, x.lo, y.hi, y.lo]; pB = [x.c0, x.c1, y.c0, y.c1], two words each;\n"
        "/// pC as pA. Infinity is all zeros.\n";
    fprintf(g->f,
            "// SPDX-License-Identifier: MIT\n"
            "// Written by cuzk (zkey export solidityverifier) from a Groth16 key over %s with %u public signals.\n"
            "pragma solidity >=0.8.0 <0.9.0;\n\n"
            "%s"
            "/// It returns true when e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta),\n"
            "/// L = IC_0 + sum pubSignals[i] IC_(i+1), checked as one product of four pairings\n"
            "/// with beta, gamma and delta negated below; false for anything else: a signal not\n"
            "/// below r, a coordinate not below q, a point off its curve or outside its subgroup\n"
            "/// (refused by the precompiles, whose failed call keeps the gas it was given).\n"
            "contract Groth16Verifier {\n"
            "    // The scalar field's order: every public signal must be below it.\n",
            cuzk_curve_snarkjs_name(g->curve), vk->n_public, g->curve == CUZK_CURVE_BN254 ? bn254_doc : bls_doc);
    evm_word r;
    evm_word_from_scalar(cuzk_curve_r(g->curve), &r);
    char hex[EVM_WORD_HEX_CAP];
    evm_word_hex(&r, hex);
    fprintf(g->f, "    uint256 constant R = %s;\n\n", hex);
    fprintf(g->f, "    // The verification key, each point's words as the precompiles take them.\n");
    put_g1_constants(g, "ALPHA", &vk->alpha1);
    put_neg_g2_constants(g, "NEG_BETA", &vk->beta2);
    put_neg_g2_constants(g, "NEG_GAMMA", &vk->gamma2);
    put_neg_g2_constants(g, "NEG_DELTA", &vk->delta2);
    char name[32];
    for (uint32_t i = 0; i <= vk->n_public; i++) {
        snprintf(name, sizeof name, "IC%u", i);
        put_g1_constants(g, name, &vk->ic[i]);
    }
}

static void put_signature(gen *g)
{
    if (g->curve == CUZK_CURVE_BN254)
        fprintf(g->f, "\n    function verifyProof(uint256[2] calldata pA, uint256[2][2] calldata pB, "
                      "uint256[2] calldata pC");
    else
        fprintf(g->f, "\n    function verifyProof(uint256[4] calldata pA, uint256[8] calldata pB, "
                      "uint256[4] calldata pC");
    if (g->n)
        fprintf(g->f, ", uint256[%u] calldata pubSignals", g->n);
    fprintf(g->f, ")\n        public view returns (bool valid)\n    {\n        assembly {\n");
}

/* s := the signal i; ok := 0 unless it is below r. */
static void put_load_signal(gen *g, uint32_t i)
{
    fprintf(g->f, "            s := calldataload(add(pubSignals, %u))\n", 32 * i);
    fprintf(g->f, "            ok := and(ok, lt(s, R))\n");
}

/* L = IC_0 + sum s_i IC_(i+1) at p + l: per signal, ecMul into the slot
 * after L (the -gamma slot, filled later) and ecAdd of the two back into
 * L. A signal of 0 adds nothing and one of 1 its point as it is: bits and
 * flags, common public signals, skip the ecMul's 6000 gas. */
static void put_l_bn254(gen *g, uint32_t l)
{
    put_store_point(g, "            ", "p", l, "IC0", 2);
    for (uint32_t i = 0; i < g->n; i++) {
        char ic[32];
        snprintf(ic, sizeof ic, "IC%u", i + 1);
        put_load_signal(g, i);
        fprintf(g->f, "            if s {\n");
        put_store_point(g, "                ", "p", l + 64, ic, 2);
        fprintf(g->f, "                if gt(s, 1) {\n                    mstore(add(p, %u), s)\n", l + 128);
        fprintf(g->f, "                    ok := and(ok, staticcall(gas(), 0x07, add(p, %u), 96, add(p, %u), 64))\n",
                l + 64, l + 64);
        fprintf(g->f, "                }\n");
        fprintf(g->f, "                ok := and(ok, staticcall(gas(), 0x06, add(p, %u), 128, add(p, %u), 64))\n",
                l, l);
        fprintf(g->f, "            }\n");
    }
}

/* L at p + l by one G1MSM of the (IC_(i+1), s_i) pairs, 160 bytes each,
 * laid out at m after the pairing's input, into the slot after L, and a
 * G1ADD of that sum into L. A signal of 0 takes no pair and one of 1 is
 * added by G1ADD (375 gas, where an MSM's pair costs thousands). */
static void put_l_bls12_381(gen *g, uint32_t l)
{
    put_store_point(g, "            ", "p", l, "IC0", 4);
    if (!g->n)
        return;
    fprintf(g->f, "            let m := add(p, %u)\n            let k := 0\n", 4 * g->pair);
    for (uint32_t i = 0; i < g->n; i++) {
        char ic[32];
        snprintf(ic, sizeof ic, "IC%u", i + 1);
        put_load_signal(g, i);
        fprintf(g->f, "            switch s\n            case 0 {}\n            case 1 {\n");
        put_store_point(g, "                ", "p", l + 128, ic, 4);
        fprintf(g->f, "                ok := and(ok, staticcall(gas(), 0x0b, add(p, %u), 256, add(p, %u), 128))\n",
                l, l);
        fprintf(g->f, "            }\n            default {\n                let e := add(m, mul(k, 160))\n");
        put_store_point(g, "                ", "e", 0, ic, 4);
        fprintf(g->f, "                mstore(add(e, 128), s)\n                k := add(k, 1)\n            }\n");
    }
    fprintf(g->f, "            if k {\n");
    fprintf(g->f, "                ok := and(ok, staticcall(gas(), 0x0c, m, mul(k, 160), add(p, %u), 128))\n", l + 128);
    fprintf(g->f, "                ok := and(ok, staticcall(gas(), 0x0b, add(p, %u), 256, add(p, %u), 128))\n", l, l);
    fprintf(g->f, "            }\n");
}

static void put_body(gen *g)
{
    uint32_t P = g->pair, g1 = g->g1, g2 = g->g2, l = 2 * P;
    fprintf(g->f, "            let p := mload(0x40)\n            let ok := 1\n");
    if (g->n)
        fprintf(g->f, "            let s := 0\n");
    fprintf(g->f, "            // L into pair 2's G1 slot\n");
    if (g->curve == CUZK_CURVE_BN254)
        put_l_bn254(g, l);
    else
        put_l_bls12_381(g, l);
    fprintf(g->f, "            // the four pairs: (A, B), (alpha, -beta), (L, -gamma), (C, -delta)\n");
    fprintf(g->f, "            calldatacopy(p, pA, %u)\n", g1);
    fprintf(g->f, "            calldatacopy(add(p, %u), pB, %u)\n", g1, g2);
    put_store_point(g, "            ", "p", P, "ALPHA", 2 * g->fp);
    put_store_point(g, "            ", "p", P + g1, "NEG_BETA", 4 * g->fp);
    put_store_point(g, "            ", "p", 2 * P + g1, "NEG_GAMMA", 4 * g->fp);
    fprintf(g->f, "            calldatacopy(add(p, %u), pC, %u)\n", 3 * P, g1);
    put_store_point(g, "            ", "p", 3 * P + g1, "NEG_DELTA", 4 * g->fp);
    fprintf(g->f, "            ok := and(ok, staticcall(gas(), %s, p, %u, p, 32))\n",
            g->curve == CUZK_CURVE_BN254 ? "0x08" : "0x0f", 4 * P);
    fprintf(g->f, "            valid := and(ok, eq(mload(p), 1))\n        }\n    }\n}\n");
}

int cuzk_solidity_verifier_write(const cuzk_vk *vk, FILE *f, cuzk_error *err)
{
    uint32_t fp = evm_fp_words(vk->curve);
    if (!fp)
        return cuzk_fail(err, CUZK_ERR_ARG, "no Ethereum verifier for curve %s", cuzk_curve_snarkjs_name(vk->curve));
    gen g = {f, vk->curve, fp, 64 * fp, 128 * fp, 192 * fp, vk->n_public};
    put_header(&g, vk);
    put_signature(&g);
    put_body(&g);
    if (fflush(f) || ferror(f))
        return cuzk_fail(err, CUZK_ERR_IO, "writing the contract failed");
    return CUZK_OK;
}
