/* verifyProof's arguments for a proof, as Solidity array literals
 * (solidity.h). For BN254 this is snarkjs's text to the byte:
 *   ["0xa.x", "0xa.y"],[["0xb.x.c1", "0xb.x.c0"],["0xb.y.c1", "0xb.y.c0"]],["0xc.x", "0xc.y"],["0xs0","0xs1"]
 * (", " between coordinates, "," between signals); for BLS12-381 the same
 * with each point's words in one flat list. */
#include "export/solidity.h"

#include "codec/curve_id.h"
#include "export/evm_words.h"
#include "util/err.h"

/* "[w0<sep>w1...]" */
static void put_list(FILE *f, const evm_word *w, uint32_t n, const char *sep)
{
    char hex[EVM_WORD_HEX_CAP];
    fputc('[', f);
    for (uint32_t i = 0; i < n; i++) {
        evm_word_hex(&w[i], hex);
        fprintf(f, "%s\"%s\"", i ? sep : "", hex);
    }
    fputc(']', f);
}

int cuzk_solidity_calldata_write(const cuzk_proof *proof, const uint64_t (*signals)[4], uint32_t n, FILE *f,
                                 cuzk_error *err)
{
    if (!evm_fp_words(proof->curve))
        return cuzk_fail(err, CUZK_ERR_ARG, "no Ethereum verifier for curve %s",
                         cuzk_curve_snarkjs_name(proof->curve));
    evm_word w[EVM_MAX_POINT_WORDS];
    uint32_t k = evm_g1_encode(proof->curve, &proof->a, w);
    put_list(f, w, k, ", ");
    fputc(',', f);
    k = evm_g2_encode(proof->curve, &proof->b, w);
    if (proof->curve == CUZK_CURVE_BN254) { /* snarkjs's uint256[2][2] */
        fputc('[', f);
        put_list(f, w, 2, ", ");
        fputc(',', f);
        put_list(f, w + 2, 2, ", ");
        fputc(']', f);
    } else {
        put_list(f, w, k, ", ");
    }
    fputc(',', f);
    k = evm_g1_encode(proof->curve, &proof->c, w);
    put_list(f, w, k, ", ");
    fputs(",[", f);
    char hex[EVM_WORD_HEX_CAP];
    for (uint32_t i = 0; i < n; i++) {
        evm_word_from_scalar(signals[i], &w[0]);
        evm_word_hex(&w[0], hex);
        fprintf(f, "%s\"%s\"", i ? "," : "", hex);
    }
    fputs("]\n", f);
    if (fflush(f) || ferror(f))
        return cuzk_fail(err, CUZK_ERR_IO, "writing the call data failed");
    return CUZK_OK;
}
