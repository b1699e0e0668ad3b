# circomlib circuits end to end on bn128 (tests/interop/circuits): two
# Poseidon Merkle inclusion proofs of depth 6 and a chain of two MiMC
# sponge hashes, each with a development key from cuzk setup (and a
# circuit without public signals, its public.json byte for byte):
#   cuzk wtns calculate's .wtns byte-identical to snarkjs's (Poseidon's
#   with its copies of constants folded into lists)
#   cuzk groth16 fullprove's proof verified by snarkjs and cuzk,
#   snarkjs groth16 fullprove's (on cuzk's key) by cuzk, the same public signals
#   a changed public signal refused by cuzk
# The mid-size instances of these circuits are benchmarks: bench/circuits/circomlib.sh.
source "$(dirname "$0")/lib.sh"
need_peers
command -v wasm2c >/dev/null || { echo "wasm2c not installed (Debian's wabt; scripts/install-deps installs it)"; exit 77; }
export CUZK_WASM_CACHE=$WORK/cache

# circuit name, input JSON
end_to_end() {
    local c=$1 d=$WORK/$1
    step "$c: compile, cuzk setup, the same .wtns as snarkjs"
    mkdir -p "$d"
    "$CIRCOM" "$ROOT/tests/interop/circuits/$c.circom" --r1cs --wasm -l "$ROOT/tests/interop/node_modules" -o "$d" >/dev/null
    local wasm=$d/${c}_js/$c.wasm
    echo "$2" >"$d/input.json"
    "$CUZK" setup "$d/$c.r1cs" "$d/c.zkey" >/dev/null 2>"$d/setup.err" || { cat "$d/setup.err"; exit 1; }
    "$CUZK" zkey export verificationkey "$d/c.zkey" "$d/vk.json"
    "$CUZK" wtns calculate "$wasm" "$d/input.json" "$d/cuzk.wtns" 2>"$d/wtns.err" || { cat "$d/wtns.err"; exit 1; }
    # Poseidon's constants arrive through runs of copies the build folds
    # (src/witness/wasm_copy_lists.h): the witness below checks them
    if [ "$c" = poseidon_merkle ] && ! grep -Eq "[1-9][0-9]* copies of constants in [1-9]" "$d/wtns.err"; then
        cat "$d/wtns.err"
        echo "FAIL: $c: no copies of constants folded"
        exit 1
    fi
    "$SNARKJS" wtns calculate "$wasm" "$d/input.json" "$d/snarkjs.wtns" >/dev/null
    cmp "$d/cuzk.wtns" "$d/snarkjs.wtns" || { echo "FAIL: $c: the witnesses differ"; exit 1; }

    step "$c: cuzk fullprove verified by snarkjs and cuzk; snarkjs fullprove by cuzk"
    fullprove_both_ways "$d" "$wasm"

    step "$c: a changed public signal is refused"
    tamper_public "$d/public.json" "$d/public_bad.json"
    expect_fail "$CUZK" groth16 verify "$d/vk.json" "$d/public_bad.json" "$d/proof.json"
}

merkle_input=$(python3 - <<'PY'
import json, random
random.seed(18)
p = 21888242871839275222246405745257275088696311157297823662689037894645226208583
r = lambda: str(random.randrange(p))
print(json.dumps({"leaf": [r(), r()],
                  "pathElements": [[r() for _ in range(6)] for _ in range(2)],
                  "pathIndices": [[random.randint(0, 1) for _ in range(6)] for _ in range(2)]}))
PY
)
end_to_end poseidon_merkle "$merkle_input"
end_to_end mimc_chain '{"x": "12345678901234567890", "k": "7"}'

step "no_public: no public signals, public.json as snarkjs writes it"
d=$WORK/no_public
mkdir -p "$d"
"$CIRCOM" "$ROOT/tests/interop/circuits/no_public.circom" --r1cs --wasm -o "$d" >/dev/null
echo '{"a": 5, "b": 7}' >"$d/input.json"
"$CUZK" setup "$d/no_public.r1cs" "$d/c.zkey" >/dev/null 2>&1
"$CUZK" zkey export verificationkey "$d/c.zkey" "$d/vk.json"
fullprove_both_ways "$d" "$d/no_public_js/no_public.wasm"

step "a path bit that is not a bit fails the circuit's constraint"
echo "$merkle_input" | python3 -c 'import json, sys; d = json.load(sys.stdin); d["pathIndices"][0][3] = 2; print(json.dumps(d))' \
    >"$WORK/bad.json"
expect_fail "$CUZK" wtns calculate "$WORK/poseidon_merkle/poseidon_merkle_js/poseidon_merkle.wasm" "$WORK/bad.json" "$WORK/bad.wtns"
expect_output "Assert Failed"
