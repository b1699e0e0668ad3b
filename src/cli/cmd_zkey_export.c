/* cuzk zkey export solidityverifier / soliditycalldata: Groth16 verifiers
 * on Ethereum for BN254 and BLS12-381 keys (src/export/solidity.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "codec/json_io.h"
#include "export/solidity.h"
#include "groth16/groth16.h"
#include "util/file.h"

/* snarkjs's defaults for the optional file arguments */
static int file_args(const cli_command *cmd, int argc, char **argv, int first, const char *def0, const char *def1,
                     const char **a0, const char **a1)
{
    int n = argc - first;
    if (n > 2)
        return cli_usage_error(cmd, "expected at most 2 file arguments, got %d", n);
    *a0 = n > 0 ? argv[first] : def0;
    *a1 = n > 1 ? argv[first + 1] : def1;
    return CLI_OK;
}

static int run_export_verifier(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_zkey_export_solidityverifier;
    cli_common common;
    const char *key_path, *sol_path;
    int first, rc = cli_parse(argc, argv, cmd, NULL, NULL, NULL, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if ((rc = file_args(cmd, argc, argv, first, "circuit_final.zkey", "verifier.sol", &key_path, &sol_path)))
        return rc;
    cuzk_error err = {0};
    cuzk_zkey z;
    cuzk_vk vk;
    if (cuzk_zkey_read_header(&z, key_path, &err))
        return cli_report("reading the proving key", &err);
    rc = cuzk_groth16_verifying_key(&z, &vk, &err);
    cuzk_zkey_free(&z);
    if (rc)
        return cli_report("reading the verification key", &err);
    cuzk_outfile out;
    rc = cuzk_outfile_open(&out, sol_path, &err);
    if (!rc && (rc = cuzk_solidity_verifier_write(&vk, out.f, &err)))
        cuzk_outfile_abort(&out);
    else if (!rc)
        rc = cuzk_outfile_commit(&out, &err);
    cuzk_vk_free(&vk);
    return rc ? cli_report("writing the verifier", &err) : CLI_OK;
}

static int run_export_calldata(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_zkey_export_soliditycalldata;
    cli_common common;
    const char *public_path, *proof_path;
    int first, rc = cli_parse(argc, argv, cmd, NULL, NULL, NULL, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if ((rc = file_args(cmd, argc, argv, first, "public.json", "proof.json", &public_path, &proof_path)))
        return rc;
    cuzk_error err = {0};
    cuzk_proof proof;
    uint64_t(*signals)[4] = NULL;
    uint32_t n = 0;
    if (cuzk_proof_read_json(&proof, proof_path, &err))
        return cli_report("reading the proof", &err);
    if (cuzk_public_read_json(&signals, &n, proof.curve, public_path, &err))
        return cli_report("reading the public signals", &err);
    rc = cuzk_solidity_calldata_write(&proof, (const uint64_t(*)[4])signals, n, stdout, &err);
    free(signals);
    return rc ? cli_report("writing the call data", &err) : CLI_OK;
}

const cli_command cli_cmd_zkey_export_solidityverifier = {
    "zkey export solidityverifier", "zkesv",
    "cuzk zkey export solidityverifier [circuit_final.zkey] [verifier.sol]\n"
    "  Writes a Solidity contract, Groth16Verifier, whose verifyProof checks proofs of the key:\n"
    "  BN254 keys on the precompiles 0x06-0x08 with snarkjs's arguments (uint256[2] pA,\n"
    "  uint256[2][2] pB, uint256[2] pC, uint256[N] pubSignals); BLS12-381 keys on EIP-2537's\n"
    "  (Prague) with each point as those take it (uint256[4] pA, uint256[8] pB, uint256[4] pC,\n"
    "  uint256[N] pubSignals: an Fp element as two words, its top 128 bits then its low 256;\n"
    "  Fp2 as c0 then c1). Without public signals verifyProof takes pA, pB, pC alone.\n",
    run_export_verifier};

const cli_command cli_cmd_zkey_export_soliditycalldata = {
    "zkey export soliditycalldata", "zkesc",
    "cuzk zkey export soliditycalldata [public.json] [proof.json]\n"
    "  Prints the arguments of the verifier's verifyProof for the proof, as Solidity array\n"
    "  literals: for BN254 exactly what snarkjs prints; for BLS12-381 the words described\n"
    "  under `cuzk zkey export solidityverifier --help`.\n",
    run_export_calldata};
