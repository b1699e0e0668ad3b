# The Solidity verifiers of `cuzk zkey export solidityverifier`, compiled
# with solc and run in an EVM at the Prague hardfork (@ethereumjs/evm,
# tests/interop/evm_verify.mjs), both curves:
#   our proofs and snarkjs's for the same key are accepted;
#   tampered proofs (off the curve, negated, swapped, a coordinate not below
#   q, BLS12-381's padding not zero), wrong public signals, a signal not
#   below r and another key's proof are refused;
#   `zkey export soliditycalldata` prints what snarkjs prints for BN254;
#   keys with no public signals and with nine;
#   gas printed beside snarkjs's own verifier's for BN254;
#   bad inputs to both commands are clear errors.
source "$(dirname "$0")/lib.sh"
need_peers
NODE_MODULES=$ROOT/tests/interop/node_modules
[ -d "$NODE_MODULES/solc" ] && [ -d "$NODE_MODULES/@ethereumjs/evm" ] ||
    { echo "solc/@ethereumjs/evm not installed (scripts/install-deps installs them)"; exit 77; }
EVM="node $ROOT/tests/interop/evm_verify.mjs"
FIX=$ROOT/tests/fixtures
GAS=$WORK/gas.txt

# mutate_calldata IN OUT CURVE MODE: the call data IN with one change:
#   signal_r  the last public signal plus r (the same value mod r)
#   coord_q   A's x plus q (the same point, a coordinate not below q)
#   padding   a bit set in the top 16 bytes of A's x (BLS12-381's encoding)
#   swap      A and C exchanged
mutate_calldata() {
    python3 - "$@" <<'PY'
import json, sys
src, dst, curve, mode = sys.argv[1:]
R = {"bn128": 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001,
     "bls12381": 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001}[curve]
Q = {"bn128": 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47,
     "bls12381": 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab}[curve]
a, b, c, pub = json.loads("[" + open(src).read() + "]")
fp = 1 if curve == "bn128" else 2  # words of one Fp element
if mode == "signal_r":
    pub[-1] = hex(int(pub[-1], 16) + R)
elif mode == "coord_q":
    x = sum(int(w, 16) << (256 * (fp - 1 - i)) for i, w in enumerate(a[:fp])) + Q
    a[:fp] = [hex((x >> (256 * (fp - 1 - i))) & (2**256 - 1)) for i in range(fp)]
elif mode == "padding":
    a[0] = hex(int(a[0], 16) | 1 << 255)
elif mode == "swap":
    a, c = c, a
out = ",".join(json.dumps(v) for v in (a, b, c, pub))
open(dst, "w").write(out + "\n")
PY
}

# evm_expect SOL VERDICT:NAME=FILE...: the contract, deployed once, answers
# each call (FILE's arguments) with VERDICT (true or false).
evm_expect() {
    local sol=$1 call calls=(); shift
    for call in "$@"; do calls+=("${call#*:}"); done
    $EVM "$sol" "${calls[@]}" >"$WORK/evm.txt" || { cat "$WORK/evm.txt"; echo "FAIL: the EVM run of $sol failed"; exit 1; }
    cat "$WORK/evm.txt"
    for call in "$@"; do
        call=${call%%=*}
        grep -q "^${call#*:} ${call%%:*} " "$WORK/evm.txt" || { echo "FAIL: ${call#*:}: expected ${call%%:*}"; exit 1; }
    done
}

# gas_of NAME: the gas of the last evm_expect's call NAME.
gas_of() { sed -n "s/^$1 [a-z]* //p" "$WORK/evm.txt"; }

# prove_and_export CURVE DIR ZKEY WTNS: DIR/proof.json, public.json, v.sol, good.txt
prove_and_export() {
    local d=$2
    "$CUZK" groth16 prove "$3" "$4" "$d/proof.json" "$d/public.json"
    "$CUZK" zkey export solidityverifier "$3" "$d/v.sol"
    "$CUZK" zkey export soliditycalldata "$d/public.json" "$d/proof.json" >"$d/good.txt"
}

for curve in bn128 bls12381; do
    d=$WORK/$curve; mkdir -p "$d"
    step "$curve: a key with gamma != delta (cuzk setup), our proof and snarkjs's"
    "$CUZK" setup --curve "$curve" "$FIX/$curve/mul.r1cs" "$d/c.zkey" 2>/dev/null
    prove_and_export "$curve" "$d" "$d/c.zkey" "$FIX/$curve/mul.wtns"
    "$SNARKJS" groth16 prove "$d/c.zkey" "$FIX/$curve/mul.wtns" "$d/proof_s.json" "$d/public_s.json" >/dev/null
    "$CUZK" zkey export soliditycalldata "$d/public_s.json" "$d/proof_s.json" >"$d/snarkjs_proof.txt"
    grep -q "uint256\[2\] calldata pubSignals" "$d/v.sol"

    step "$curve: tampered proofs and wrong public signals"
    for mode in offcurve negate; do
        tamper_proof "$d/proof.json" "$d/proof_$mode.json" $mode
        "$CUZK" zkey export soliditycalldata "$d/public.json" "$d/proof_$mode.json" >"$d/$mode.txt"
    done
    tamper_public "$d/public.json" "$d/public_bad.json"
    "$CUZK" zkey export soliditycalldata "$d/public_bad.json" "$d/proof.json" >"$d/public.txt"
    bad=(false:offcurve="$d/offcurve.txt" false:negate="$d/negate.txt" false:public="$d/public.txt")
    for mode in signal_r coord_q swap $([ $curve = bls12381 ] && echo padding); do
        mutate_calldata "$d/good.txt" "$d/$mode.txt" $curve $mode
        bad+=(false:$mode="$d/$mode.txt")
    done
    # the fixture key's own proof (snarkjs's key and proof): valid, for another key
    "$CUZK" zkey export soliditycalldata "$FIX/$curve/public.json" "$FIX/$curve/proof.json" >"$d/other_key.txt"
    bad+=(false:other_key="$d/other_key.txt")

    step "$curve: the contract accepts both proofs and refuses the rest"
    evm_expect "$d/v.sol" true:ours="$d/good.txt" true:snarkjs="$d/snarkjs_proof.txt" "${bad[@]}"
    echo "$curve 2 $(gas_of ours)" >>"$GAS"

    step "$curve: the fixture key's contract accepts its snarkjs proof"
    "$CUZK" zkey export solidityverifier "$FIX/$curve/mul.zkey" "$d/fixture.sol"
    evm_expect "$d/fixture.sol" true:snarkjs="$d/other_key.txt"

    for c in no_public public_many; do
        step "$curve: $c (circom2, cuzk setup and fullprove)"
        e=$d/$c; mkdir -p "$e"
        "$CIRCOM" "$ROOT/tests/interop/circuits/$c.circom" --r1cs --wasm --prime "$curve" -o "$e" >/dev/null
        if [ $c = no_public ]; then
            echo '{"a": "5", "b": "7"}' >"$e/input.json"
        else # signals 0 and 1 (the contracts' short cuts), then full-size ones: 2^250 - i
            python3 -c 'import json; print(json.dumps({"x": ["0", "1"] + [str(2**250 - i) for i in range(6)], "k": "3"}))' >"$e/input.json"
        fi
        "$CUZK" setup --curve "$curve" "$e/$c.r1cs" "$e/c.zkey" 2>/dev/null
        "$CUZK" groth16 fullprove "$e/input.json" "$e/${c}_js/$c.wasm" "$e/c.zkey" "$e/proof.json" "$e/public.json" >/dev/null
        "$CUZK" zkey export solidityverifier "$e/c.zkey" "$e/v.sol"
        "$CUZK" zkey export soliditycalldata "$e/public.json" "$e/proof.json" >"$e/good.txt"
        n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$e/public.json")
        tamper_proof "$e/proof.json" "$e/proof_negate.json" negate
        "$CUZK" zkey export soliditycalldata "$e/public.json" "$e/proof_negate.json" >"$e/negate.txt"
        calls=(true:ours="$e/good.txt" false:negate="$e/negate.txt")
        if [ $c = no_public ]; then
            grep -q "calldata pubSignals" "$e/v.sol" && { echo "FAIL: a contract without signals takes pubSignals"; exit 1; }
        else
            mutate_calldata "$e/good.txt" "$e/signal_r.txt" $curve signal_r
            calls+=(false:signal_r="$e/signal_r.txt")
        fi
        evm_expect "$e/v.sol" "${calls[@]}"
        echo "$curve $n $(gas_of ours)" >>"$GAS"
    done
done

step "bn128: soliditycalldata prints what snarkjs prints"
d=$WORK/bn128
for p in proof proof_s; do
    pub=public; [ $p = proof_s ] && pub=public_s
    "$SNARKJS" zkey export soliditycalldata "$d/$pub.json" "$d/$p.json" >"$d/snarkjs_cd.txt"
    "$CUZK" zkey export soliditycalldata "$d/$pub.json" "$d/$p.json" >"$d/cuzk_cd.txt"
    cmp "$d/snarkjs_cd.txt" "$d/cuzk_cd.txt" || { cat "$d/snarkjs_cd.txt" "$d/cuzk_cd.txt"; exit 1; }
done

step "bn128: snarkjs's own verifier, for its gas"
for k in "$d/c.zkey $d/good.txt 2" "$d/public_many/c.zkey $d/public_many/good.txt 9"; do
    read -r zkey calldata n <<<"$k"
    "$SNARKJS" zkey export solidityverifier "$zkey" "$WORK/snarkjs.sol" >/dev/null
    evm_expect "$WORK/snarkjs.sol" true:ours="$calldata"
    sed -i "s/^bn128 $n \([0-9]*\)$/bn128 $n \1 $(gas_of ours)/" "$GAS"
done

step "bad inputs to the export commands"
expect_fail "$CUZK" zkey export solidityverifier "$WORK/missing.zkey" "$WORK/v.sol"
expect_output "missing.zkey"
head -c 1000 "$d/c.zkey" >"$WORK/short.zkey"
expect_fail "$CUZK" zkey export solidityverifier "$WORK/short.zkey" "$WORK/v.sol"
expect_output "short.zkey"
expect_fail "$CUZK" zkey export solidityverifier "$d/proof.json" "$WORK/v.sol"
expect_output "proof.json"
expect_fail "$CUZK" zkey export solidityverifier "$d/c.zkey" "$WORK/no/such/folder/v.sol"
expect_output "v.sol"
[ ! -e "$WORK/v.sol" ] || { echo "FAIL: a failed export left a file"; exit 1; }
rc=0; "$CUZK" zkey export solidityverifier a b c >"$WORK/out.txt" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q "at most 2 file arguments" "$WORK/out.txt" || { echo "FAIL: not a usage error"; exit 1; }
for c in solidityverifier soliditycalldata; do
    "$CUZK" zkey export $c --help | grep -q "usage: cuzk zkey export $c"
done
expect_fail "$CUZK" zkey export soliditycalldata "$d/public.json" "$WORK/missing.json"
expect_output "missing.json"
python3 -c 'import sys; print("[\"" + str(int(sys.argv[1], 16)) + "\"]")' \
    0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001 >"$WORK/public_r.json"
expect_fail "$CUZK" zkey export soliditycalldata "$WORK/public_r.json" "$d/proof.json"
expect_output "public_r.json"
echo '{"pi_a": [' >"$WORK/broken.json"
expect_fail "$CUZK" zkey export soliditycalldata "$d/public.json" "$WORK/broken.json"
expect_output "broken.json"
sed 's/"groth16"/"plonk"/' "$d/proof.json" >"$WORK/plonk.json"
expect_fail "$CUZK" zkey export soliditycalldata "$d/public.json" "$WORK/plonk.json"
expect_output "plonk.json"

echo
echo "gas of verifyProof (execution gas, precompiles warm; cuzk's contract beside snarkjs's):"
printf '%-10s %8s %10s %10s\n' curve signals cuzk snarkjs
sort -k1,1 -k2,2n "$GAS" | while read -r c n ours theirs; do printf '%-10s %8s %10s %10s\n' "$c" "$n" "$ours" "${theirs:--}"; done
echo "solidity verifier: all checks passed"
