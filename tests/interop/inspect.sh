#!/usr/bin/env bash
# cuzk r1cs info and cuzk wtns export json against snarkjs's commands of the
# same names: the same counts (snarkjs's lines without its log prefix) and
# the same JSON, byte for byte, on both curves' fixtures and on a synthetic
# circuit whose witness holds full-size values; a file of the wrong kind is
# refused with a message and no output file.
source "$(dirname "$0")/lib.sh"
need_peers

fail() { echo "FAIL: $*"; exit 1; }
# snarkjs's r1cs info without colours and its "[INFO]  snarkJS: " prefix
snarkjs_info() { "$SNARKJS" r1cs info "$1" | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^\[INFO\] *snarkJS: //'; }

"$CUZK" circuit synth --curve bls12381 --constraints 300 --public 3 "$WORK/s.r1cs" "$WORK/s.wtns" 2>/dev/null
for pair in "$ROOT/tests/fixtures/bn128/mul" "$ROOT/tests/fixtures/bls12381/mul" "$WORK/s"; do
    step "r1cs info and wtns export json: ${pair#"$ROOT/"}"
    "$CUZK" r1cs info "$pair.r1cs" >"$WORK/ours.txt"
    snarkjs_info "$pair.r1cs" >"$WORK/theirs.txt"
    diff "$WORK/theirs.txt" "$WORK/ours.txt" || fail "r1cs info differs from snarkjs's"
    "$CUZK" wtns export json "$pair.wtns" "$WORK/ours.json"
    "$SNARKJS" wtns export json "$pair.wtns" "$WORK/theirs.json" >/dev/null
    cmp "$WORK/theirs.json" "$WORK/ours.json" || fail "wtns export json differs from snarkjs's"
done

step "files of the wrong kind"
expect_fail "$CUZK" r1cs info "$ROOT/tests/fixtures/bn128/mul.wtns"
expect_output "reading the r1cs"
rm -f "$WORK/bad.json"
expect_fail "$CUZK" wtns export json "$ROOT/tests/fixtures/bn128/mul.r1cs" "$WORK/bad.json"
expect_output "reading the witness"
[ ! -e "$WORK/bad.json" ] || fail "an output file was left for a failed export"
echo "inspect: OK"
