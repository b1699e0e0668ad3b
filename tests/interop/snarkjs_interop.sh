# Interop with snarkjs and circom2 on both curves, both directions:
#   circom circuit + snarkjs key -> cuzk proves, snarkjs verifies
#   snarkjs proves -> cuzk verifies; tampered proofs/publics rejected by both
#   cuzk's exported verification key == snarkjs's, byte for byte
#   cuzk setup key -> snarkjs proves and verifies with it
source "$(dirname "$0")/lib.sh"
need_peers

for curve in bn128 bls12381; do
    step "$curve: compile circuit, witness, snarkjs key"
    d=$WORK/$curve; mkdir -p "$d"
    "$CIRCOM" "$ROOT/tests/interop/circuits/chain.circom" --r1cs --wasm --prime "$curve" -o "$d" >/dev/null
    echo '{"a": "3", "b": "11", "k": "5"}' >"$d/input.json"
    "$SNARKJS" wtns calculate "$d/chain_js/chain.wasm" "$d/input.json" "$d/w.wtns" >/dev/null
    make_ptau "$curve" 8
    "$SNARKJS" groth16 setup "$d/chain.r1cs" "$WORK/pot.ptau" "$d/s.zkey" >/dev/null
    "$SNARKJS" zkey export verificationkey "$d/s.zkey" "$d/vk_snarkjs.json" >/dev/null

    step "$curve: verification key export matches snarkjs byte for byte"
    "$CUZK" zkey export verificationkey "$d/s.zkey" "$d/vk_cuzk.json"
    python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a!=b)" \
        "$d/vk_cuzk.json" "$d/vk_snarkjs.json" || { diff "$d/vk_cuzk.json" "$d/vk_snarkjs.json" | head; exit 1; }

    step "$curve: cuzk proves (with --r1cs check), snarkjs and cuzk verify"
    "$CUZK" groth16 prove --r1cs "$d/chain.r1cs" "$d/s.zkey" "$d/w.wtns" "$d/proof.json" "$d/public.json"
    snarkjs_verify "$d/vk_snarkjs.json" "$d/public.json" "$d/proof.json"
    "$CUZK" groth16 verify "$d/vk_snarkjs.json" "$d/public.json" "$d/proof.json" | grep -q 'OK!'
    grep -q "\"curve\": \"$curve\"" "$d/proof.json"

    step "$curve: snarkjs proves, cuzk verifies; public signals agree"
    "$SNARKJS" groth16 prove "$d/s.zkey" "$d/w.wtns" "$d/proof_s.json" "$d/public_s.json" >/dev/null
    "$CUZK" groth16 verify "$d/vk_cuzk.json" "$d/public_s.json" "$d/proof_s.json" | grep -q 'OK!'
    cmp "$d/public.json" "$d/public_s.json"

    step "$curve: tampered proof and public signals are rejected by both"
    for which in cuzk snarkjs; do
        p=$d/proof.json; pub=$d/public.json
        [ $which = snarkjs ] && p=$d/proof_s.json && pub=$d/public_s.json
        for mode in offcurve negate; do
            tamper_proof "$p" "$d/bad_proof.json" $mode
            expect_fail "$CUZK" groth16 verify "$d/vk_snarkjs.json" "$pub" "$d/bad_proof.json"
            expect_output "INVALID"
            snarkjs_rejects "$d/vk_snarkjs.json" "$pub" "$d/bad_proof.json"
        done
        expect_output "pairing check failed"
        tamper_public "$pub" "$d/bad_public.json"
        expect_fail "$CUZK" groth16 verify "$d/vk_snarkjs.json" "$d/bad_public.json" "$p"
        expect_output "INVALID"
        snarkjs_rejects "$d/vk_snarkjs.json" "$d/bad_public.json" "$p"
    done

    step "$curve: a key from cuzk setup works in snarkjs"
    "$CUZK" setup --curve "$curve" "$d/chain.r1cs" "$d/c.zkey" 2>/dev/null
    "$CUZK" zkey export verificationkey "$d/c.zkey" "$d/vk_c.json"
    "$SNARKJS" zkey export verificationkey "$d/c.zkey" "$d/vk_c_snarkjs.json" >/dev/null
    python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))" \
        "$d/vk_c.json" "$d/vk_c_snarkjs.json"
    "$SNARKJS" groth16 prove "$d/c.zkey" "$d/w.wtns" "$d/proof_c.json" "$d/public_c.json" >/dev/null
    snarkjs_verify "$d/vk_c.json" "$d/public_c.json" "$d/proof_c.json"
    "$CUZK" groth16 verify "$d/vk_c.json" "$d/public_c.json" "$d/proof_c.json" | grep -q 'OK!'
    "$CUZK" groth16 prove "$d/c.zkey" "$d/w.wtns" "$d/proof_cc.json" "$d/public_cc.json"
    snarkjs_verify "$d/vk_c.json" "$d/public_cc.json" "$d/proof_cc.json"

    step "$curve: a witness that breaks a constraint is refused with --r1cs"
    python3 - "$d/w.wtns" "$d/bad.wtns" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-32] ^= 1  # flip a bit of the last witness value
open(sys.argv[2], "wb").write(b)
PY
    expect_fail "$CUZK" groth16 prove --r1cs "$d/chain.r1cs" "$d/s.zkey" "$d/bad.wtns" "$d/x.json" "$d/y.json"
    expect_output "constraint"
done
echo "snarkjs interop: all checks passed"
