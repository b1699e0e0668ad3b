// Runs a Groth16 verifier contract in an EVM (tests/interop/solidity_verifier.sh):
//   node evm_verify.mjs verifier.sol NAME=calldata.txt ...
// compiles verifier.sol with solc (optimizer on, EVM version Prague), deploys
// its contract in @ethereumjs/evm at the Prague hardfork (BN254's 0x06-0x08
// and EIP-2537's 0x0b-0x11 precompiles), calls verifyProof with each file's
// arguments (`zkey export soliditycalldata` text: JSON arrays of "0x" words)
// and prints one line per call:
//   NAME true|false|reverted GAS
// GAS is the call's execution gas as in a transaction (the precompiles warm;
// without the transaction's 21000 and its call data). The first line is "deployed BYTES" (the runtime code's size).
// Exits 1 when the contract does not compile or deploy.
import fs from "node:fs";
import solc from "solc";
import { createEVM } from "@ethereumjs/evm";
import { Common, Mainnet, Hardfork } from "@ethereumjs/common";
import { hexToBytes, bytesToHex } from "@ethereumjs/util";

const [source, ...calls] = process.argv.slice(2);
if (!source) {
    console.error("usage: node evm_verify.mjs verifier.sol NAME=calldata.txt ...");
    process.exit(2);
}

function compile(path) {
    const input = {
        language: "Solidity",
        sources: { "verifier.sol": { content: fs.readFileSync(path, "utf8") } },
        settings: {
            optimizer: { enabled: true, runs: 200 },
            evmVersion: "prague",
            outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.methodIdentifiers"] } },
        },
    };
    const out = JSON.parse(solc.compile(JSON.stringify(input)));
    const errors = (out.errors || []).filter((e) => e.severity === "error");
    if (errors.length) {
        for (const e of errors) console.error(e.formattedMessage);
        process.exit(1);
    }
    const contracts = out.contracts["verifier.sol"];
    const name = Object.keys(contracts)[0];
    const c = contracts[name];
    const fn = c.abi.find((f) => f.name === "verifyProof");
    const signature = Object.keys(c.evm.methodIdentifiers).find((s) => s.startsWith("verifyProof("));
    return { bytecode: c.evm.bytecode.object, selector: c.evm.methodIdentifiers[signature], nArgs: fn.inputs.length };
}

// The arguments' words in order: every argument is a static array of
// uint256, which the ABI lays out as its words one after another.
function encodeArgs(text, nArgs) {
    const args = JSON.parse("[" + text + "]").slice(0, nArgs);
    const words = args.flat(Infinity).map((w) => BigInt(w).toString(16).padStart(64, "0"));
    return words.join("");
}

const verifier = compile(source);
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const evm = await createEVM({ common });
const gasLimit = 30_000_000n;
const deployed = await evm.runCall({ data: hexToBytes("0x" + verifier.bytecode), gasLimit });
if (deployed.execResult.exceptionError || !deployed.createdAddress) {
    console.error("deploying failed:", deployed.execResult.exceptionError);
    process.exit(1);
}
const code = await evm.stateManager.getCode(deployed.createdAddress);
console.log(`deployed ${code.length}`);
// A transaction starts with the precompiles warm (EIP-2929), runCall alone does not.
for (const address of evm.precompiles.keys()) evm.journal.addAlwaysWarmAddress(address);

for (const call of calls) {
    const eq = call.indexOf("=");
    const name = call.slice(0, eq), file = call.slice(eq + 1);
    const data = hexToBytes("0x" + verifier.selector + encodeArgs(fs.readFileSync(file, "utf8"), verifier.nArgs));
    const r = await evm.runCall({ to: deployed.createdAddress, data, gasLimit });
    const ret = bytesToHex(r.execResult.returnValue);
    let verdict = "reverted";
    if (!r.execResult.exceptionError)
        verdict = BigInt(ret) === 1n ? "true" : BigInt(ret) === 0n ? "false" : `odd:${ret}`;
    console.log(`${name} ${verdict} ${r.execResult.executionGasUsed}`);
}
