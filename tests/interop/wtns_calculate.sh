# cuzk wtns calculate and groth16 fullprove against snarkjs, on circom 2
# circuits of both curves (tests/interop/circuits: witness_checks, and
# circomlib's Poseidon and SHA-256; memory_grow, whose memory grows):
#   the .wtns byte-identical to snarkjs wtns calculate's (values as
#   decimal and hex strings, negative, larger than p, nested arrays)
#   fullprove's proof verified by snarkjs and cuzk; snarkjs fullprove's by cuzk
#   circom's run-time errors (a failed assert, inputs missing, unknown, of
#   the wrong size or not numbers, a trap) as messages and exit 1
#   the compiled-circuit cache: a second run compiles nothing, a broken
#   cached object is built again, two processes racing both succeed
source "$(dirname "$0")/lib.sh"
need_peers
command -v wasm2c >/dev/null || { echo "wasm2c not installed (Debian's wabt; scripts/install-deps installs it)"; exit 77; }
export CUZK_WASM_CACHE=$WORK/cache
CIRCUITS=$ROOT/tests/interop/circuits

compile() { # circuit name, curve, folder
    mkdir -p "$3"
    "$CIRCOM" "$CIRCUITS/$1.circom" --r1cs --wasm --prime "$2" -l "$ROOT/tests/interop/node_modules" -o "$3" >/dev/null
}

# same_witness WASM INPUT TAG: cuzk's .wtns equals snarkjs's, byte for byte
same_witness() {
    "$CUZK" wtns calculate "$1" "$2" "$WORK/$3.wtns" >"$WORK/$3.out" 2>"$WORK/$3.err" || { cat "$WORK/$3.err"; exit 1; }
    "$SNARKJS" wtns calculate "$1" "$2" "$WORK/$3.snarkjs.wtns" >/dev/null
    cmp "$WORK/$3.wtns" "$WORK/$3.snarkjs.wtns" || { echo "FAIL: $3: the witnesses differ"; exit 1; }
}

count_objects() { find "$CUZK_WASM_CACHE" -name '*.so' | wc -l; }

INPUT='{"a": "0x3", "b": [["-1", "0x1f"], [5, "123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890"]], "d": " 3 "}'
for curve in bn128 bls12381; do
    d=$WORK/$curve
    step "$curve: witness_checks: the same .wtns as snarkjs, circom's log() on stdout"
    compile witness_checks $curve "$d"
    wasm=$d/witness_checks_js/witness_checks.wasm
    echo "$INPUT" >"$d/input.json"
    same_witness "$wasm" "$d/input.json" "checks_$curve"
    grep -q "compiling the circuit" "$WORK/checks_$curve.err"
    grep -q "field products native" "$WORK/checks_$curve.err"
    grep -qx "a is 3" "$WORK/checks_$curve.out"

    step "$curve: a second run compiles nothing"
    "$CUZK" wtns calculate "$wasm" "$d/input.json" "$d/again.wtns" >/dev/null 2>"$WORK/again.err"
    if grep -q "compiling" "$WORK/again.err"; then cat "$WORK/again.err"; echo "FAIL: compiled again"; exit 1; fi
    cmp "$d/again.wtns" "$WORK/checks_$curve.wtns"

    step "$curve: fullprove verifies with snarkjs and cuzk; snarkjs fullprove with cuzk"
    make_ptau $curve 6
    "$SNARKJS" groth16 setup "$d/witness_checks.r1cs" "$WORK/pot.ptau" "$d/c.zkey" >/dev/null
    "$SNARKJS" zkey export verificationkey "$d/c.zkey" "$d/vk.json" >/dev/null
    fullprove_both_ways "$d" "$wasm"
done

step "circomlib Poseidon and SHA-256: the same .wtns as snarkjs"
compile poseidon_hash bn128 "$WORK/poseidon"
echo '{"inputs": ["1", "-2"]}' >"$WORK/poseidon.json"
same_witness "$WORK/poseidon/poseidon_hash_js/poseidon_hash.wasm" "$WORK/poseidon.json" poseidon
compile sha256_bytes bn128 "$WORK/sha"
python3 -c 'import json; print(json.dumps({"in": [int(b) for b in "".join(format(c, "08b") for c in b"abc")]}))' \
    >"$WORK/sha.json"
same_witness "$WORK/sha/sha256_bytes_js/sha256_bytes.wasm" "$WORK/sha.json" sha

step "a function's frame past the circuit's first memory: the memory grows, the same .wtns as snarkjs"
compile memory_grow bn128 "$WORK/grow"
echo '{"x": "5"}' >"$WORK/grow.json"
same_witness "$WORK/grow/memory_grow_js/memory_grow.wasm" "$WORK/grow.json" grow
[ "$(count_objects)" -eq 5 ] || { echo "FAIL: $(count_objects) objects cached, expected 5"; exit 1; }
[ -z "$(find "$CUZK_WASM_CACHE" -name '.build-*')" ] || { echo "FAIL: a build folder was left in the cache"; exit 1; }

wasm=$WORK/bn128/witness_checks_js/witness_checks.wasm
step "circom's run-time errors: messages and exit 1"
bad() { # JSON, expected text
    echo "$1" >"$WORK/bad.json"
    expect_fail "$CUZK" wtns calculate "$wasm" "$WORK/bad.json" "$WORK/bad.wtns"
    expect_output "$2"
    [ ! -e "$WORK/bad.wtns" ] || { echo "FAIL: a witness was written"; exit 1; }
}
B='"b": [[1, 2], [3, 4]]'
bad "{\"a\": 13, $B, \"d\": 1}" "Assert Failed (circom error 4): Error in template Checks_0 line: 21"
bad "{\"a\": 1, $B}" "sets 5 of the circuit's 6 input values: an input signal is missing"
bad "{\"a\": 1, $B, \"d\": 1, \"zz\": 2}" "the circuit has no input signal 'zz'"
bad "{\"a\": 1, \"b\": [[1, 2], [3, 4], [5]], \"d\": 1}" "input signal 'b' takes 4 values; the input gives 5"
bad "{\"a\": 1, \"b\": [[1, 2], [3]], \"d\": 1}" "input signal 'b' takes 4 values; the input gives only 3"
bad "{\"a\": \"12abc\", $B, \"d\": 1}" "input signal 'a', value 0: not an integer"
bad "{\"a\": 1, \"b\": [[1, 2.5], [3, 4]], \"d\": 1}" "input signal 'b', value 1: not an integer"
bad "{\"a\": null, $B, \"d\": 1}" "null is not a number"
bad "{\"a\": 1e20, $B, \"d\": 1}" "beyond 2^53"
bad "{\"a\": {\"x\": 1}, $B, \"d\": 1}" "an object is not a number"
bad "{\"a\": 1, $B, \"d\": 1" "not JSON"
bad "{\"a\": 1, $B, \"d\": 1000000}" "the circuit's code trapped as input 'd'\[0\] was set: Out-of-bounds access"
step "files that are not circom 2's wasm"
expect_fail "$CUZK" wtns calculate "$WORK/bad.json" "$WORK/bad.json" "$WORK/bad.wtns"
expect_output "not a WebAssembly file"
printf '\0asm\1\0\0\0' >"$WORK/empty.wasm"
expect_fail "$CUZK" wtns calculate "$WORK/empty.wasm" "$WORK/bad.json" "$WORK/bad.wtns"
expect_output "not circom 2's witness calculator (it exports no getVersion"
head -c 3000 "$wasm" >"$WORK/cut.wasm"
expect_fail "$CUZK" wtns calculate "$WORK/cut.wasm" "$WORK/bad.json" "$WORK/bad.wtns"
expect_output "truncated"
step "input JSON given to groth16 prove as a witness: a hint"
expect_fail "$CUZK" groth16 prove "$WORK/bn128/c.zkey" "$WORK/bn128/input.json" "$WORK/p.json" "$WORK/q.json"
expect_output "cuzk wtns calculate"

step "the cache: a broken object is built again; --wasm-cache; two processes racing"
for so in "$CUZK_WASM_CACHE"/*.so; do : >"$so"; done
"$CUZK" wtns calculate "$wasm" "$WORK/bn128/input.json" "$WORK/rebuilt.wtns" >/dev/null 2>"$WORK/rebuilt.err"
grep -q "does not load" "$WORK/rebuilt.err" && grep -q "compiling the circuit" "$WORK/rebuilt.err"
cmp "$WORK/rebuilt.wtns" "$WORK/checks_bn128.wtns"
"$CUZK" wtns calculate --wasm-cache "$WORK/race" "$wasm" "$WORK/bn128/input.json" "$WORK/r0.wtns" >/dev/null 2>&1 &
p1=$!
"$CUZK" wtns calculate --wasm-cache "$WORK/race" "$wasm" "$WORK/bn128/input.json" "$WORK/r1.wtns" >/dev/null 2>&1 &
p2=$!
wait $p1 && wait $p2
cmp "$WORK/r0.wtns" "$WORK/checks_bn128.wtns" && cmp "$WORK/r1.wtns" "$WORK/checks_bn128.wtns"
[ "$(find "$WORK/race" -name '*.so' | wc -l)" -eq 1 ] && [ -z "$(find "$WORK/race" -name '.build-*')" ]
echo "wtns calculate: all checks passed"
