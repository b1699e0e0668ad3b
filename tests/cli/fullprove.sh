# cuzk groth16 fullprove on the fixtures' mul circuit (no node): the proof
# verifies; --timings names the witness, the key's load and the
# verification; the key, loaded on a thread beside the witness, is
# waited for and dropped when the witness fails (the input's message, not
# the key's) and reported when it alone fails; nothing is written on a
# failure.
source "$(dirname "$0")/../interop/lib.sh"
command -v wasm2c >/dev/null || { echo "wasm2c not installed (Debian's wabt; scripts/install-deps installs it)"; exit 77; }
FIX=$ROOT/tests/fixtures/bn128
export CUZK_WASM_CACHE=$WORK/wasm
fullprove() { "$CUZK" groth16 fullprove --backend cpu "$@"; }
no_proof() { [ ! -e "$WORK/p.json" ] && [ ! -e "$WORK/pub.json" ] || { echo "FAIL: a proof file was written"; exit 1; }; }

step "a proof that verifies; --timings"
fullprove --timings "$ROOT/tests/fixtures/input.json" "$FIX/mul.wasm" "$FIX/mul.zkey" "$WORK/p.json" "$WORK/pub.json" \
    >/dev/null 2>"$WORK/timings.txt"
"$CUZK" groth16 verify "$FIX/verification_key.json" "$WORK/pub.json" "$WORK/p.json" | grep -q 'OK!'
cmp "$WORK/pub.json" "$FIX/public.json"
for stage in witness load ntt msm_h total verify; do
    grep -q "^$stage  *[0-9.]*$" "$WORK/timings.txt" || { cat "$WORK/timings.txt"; echo "FAIL: no $stage line"; exit 1; }
done
rm "$WORK/p.json" "$WORK/pub.json"

step "a bad input and no key: the input's message"
echo '{"a": "3"}' >"$WORK/short.json"
expect_fail fullprove "$WORK/short.json" "$FIX/mul.wasm" "$WORK/none.zkey" "$WORK/p.json" "$WORK/pub.json"
expect_output "an input signal is missing"
if grep -q "proving key" "$WORK/out.txt"; then echo "FAIL: the key's failure reported first"; exit 1; fi
no_proof

step "a good input and a key that is not one: the key's message"
head -c 2000 "$FIX/mul.zkey" >"$WORK/cut.zkey"
expect_fail fullprove "$ROOT/tests/fixtures/input.json" "$FIX/mul.wasm" "$WORK/cut.zkey" "$WORK/p.json" "$WORK/pub.json"
expect_output "reading the proving key"
no_proof

step "no circuit, a good key: the circuit's message"
expect_fail fullprove "$ROOT/tests/fixtures/input.json" "$WORK/none.wasm" "$FIX/mul.zkey" "$WORK/p.json" "$WORK/pub.json"
expect_output "loading the circuit"
no_proof

step "groth16 prove: the key beside the witness's reading"
"$CUZK" groth16 prove --backend cpu --timings "$FIX/mul.zkey" "$FIX/mul.wtns" "$WORK/p.json" "$WORK/pub.json" \
    2>"$WORK/timings.txt"
grep -q "^witness  *[0-9.]*$" "$WORK/timings.txt"
cmp "$WORK/pub.json" "$FIX/public.json"
rm "$WORK/p.json" "$WORK/pub.json"
expect_fail "$CUZK" groth16 prove "$WORK/none.zkey" "$WORK/none.wtns" "$WORK/p.json" "$WORK/pub.json"
expect_output "reading the witness"
if grep -q "proving key" "$WORK/out.txt"; then echo "FAIL: the key's failure reported first"; exit 1; fi
no_proof
echo "fullprove: all checks passed"
