# Filecoin's parameter files end to end: `cuzk setup --format params` on
# circom's own BLS12-381 r1cs (the fixture) and on a synthetic circuit,
# `params info` (counts alone and --check), `params prove` and `params
# verify` (random and deterministic proofs, the blst layout, the default
# backend's bytes against --backend cpu's), and clean
# failures: a tampered proof, a wrong public input, a truncated key, a
# BN254 circuit, a witness of another circuit; `params synth` (a
# PoRep-shaped key and compact assignment) and its bad options.
source "$(dirname "$0")/../interop/lib.sh"
d=$WORK
FIX=$ROOT/tests/fixtures/bls12381

step "circom's r1cs: key, info, proof, verification"
"$CUZK" setup --format params "$FIX/mul.r1cs" "$d/mul.params" 2>"$d/setup.txt" ||
    { cat "$d/setup.txt"; echo "FAIL: setup --format params"; exit 1; }
[ -s "$d/mul.vk" ] || { echo "FAIL: no mul.vk beside mul.params"; exit 1; }
"$CUZK" params info "$d/mul.params" >"$d/info.txt"
grep -q "inputs (ic)  3 (ONE and 2 public)" "$d/info.txt" && grep -q "domain       2^3" "$d/info.txt" &&
    grep -q "delta_g2.y.c1" "$d/info.txt" || { cat "$d/info.txt"; echo "FAIL: params info"; exit 1; }
"$CUZK" params info --check "$d/mul.params" 2>"$d/check.txt" | grep -q "every point checked" ||
    { cat "$d/check.txt"; echo "FAIL: params info --check"; exit 1; }
"$CUZK" params info "$d/mul.vk" | grep -q "a verifying key (.vk)" || { echo "FAIL: params info on a .vk"; exit 1; }
"$CUZK" params prove "$FIX/mul.r1cs" "$d/mul.params" "$FIX/mul.wtns" "$d/proof" "$d/public.json"
[ "$(stat -c %s "$d/proof")" = 192 ] || { echo "FAIL: a proof is not 192 bytes"; exit 1; }
cmp -s "$d/public.json" "$FIX/public.json" || { cat "$d/public.json"; echo "FAIL: public inputs differ from snarkjs's"; exit 1; }
"$CUZK" params verify "$d/mul.vk" "$d/public.json" "$d/proof" | grep -q "OK!"
"$CUZK" params verify "$d/mul.params" "$d/public.json" "$d/proof" | grep -q "OK!"

step "deterministic proofs: the same bytes twice; the blst layout"
"$CUZK" params prove --deterministic --blst "$d/p.blst" "$FIX/mul.r1cs" "$d/mul.params" "$FIX/mul.wtns" "$d/p1" "$d/pub1.json"
"$CUZK" params prove --deterministic --threads 1 "$FIX/mul.r1cs" "$d/mul.params" "$FIX/mul.wtns" "$d/p2" "$d/pub2.json"
cmp "$d/p1" "$d/p2" || { echo "FAIL: deterministic proofs differ"; exit 1; }
# auto proves on the GPU where one is usable: the CPU's bytes either way
"$CUZK" params prove --deterministic --backend cpu "$FIX/mul.r1cs" "$d/mul.params" "$FIX/mul.wtns" "$d/p3" "$d/pub3.json" \
    2>"$d/p3.txt"
grep -q "(backend cpu)" "$d/p3.txt" || { cat "$d/p3.txt"; echo "FAIL: --backend cpu not used"; exit 1; }
cmp "$d/p1" "$d/p3" || { echo "FAIL: the default backend's proof differs from the CPU's"; exit 1; }
expect_fail "$CUZK" params prove --backend tpu "$FIX/mul.r1cs" "$d/mul.params" "$FIX/mul.wtns" "$d/x" "$d/x.json"
[ "$(stat -c %s "$d/p.blst")" = 384 ] || { echo "FAIL: the blst layout is not 384 bytes"; exit 1; }
"$CUZK" params verify "$d/mul.vk" "$d/pub1.json" "$d/p1" | grep -q "OK!"

step "tampered proof, wrong input, bad files"
python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[47] ^= 1; open(sys.argv[2], 'wb').write(b)" \
    "$d/proof" "$d/tampered"
expect_fail "$CUZK" params verify "$d/mul.vk" "$d/public.json" "$d/tampered"
python3 -c "import json, sys; p = json.load(open(sys.argv[1])); p[0] = str(int(p[0]) + 1); json.dump(p, open(sys.argv[2], 'w'))" \
    "$d/public.json" "$d/wrong.json"
expect_fail "$CUZK" params verify "$d/mul.vk" "$d/wrong.json" "$d/proof"
expect_output "INVALID proof: the pairing check failed"
head -c 1000 "$d/mul.params" >"$d/cut.params"
expect_fail "$CUZK" params prove "$FIX/mul.r1cs" "$d/cut.params" "$FIX/mul.wtns" "$d/x" "$d/x.json"
expect_output "truncated"
expect_fail "$CUZK" params info "$d/cut.params"
expect_output "truncated"
expect_fail "$CUZK" setup --format params "$ROOT/tests/fixtures/bn128/mul.r1cs" "$d/bn.params"
expect_output "BLS12-381"

step "a synthetic circuit: its key, a proof; another circuit's witness refused"
"$CUZK" circuit synth --curve bls12381 --constraints 2000 --public 3 --shape bits --seed 4 "$d/s.r1cs" "$d/s.wtns" 2>/dev/null
"$CUZK" circuit synth --curve bls12381 --constraints 2000 --public 3 --shape bits --seed 5 "$d/t.r1cs" "$d/t.wtns" 2>/dev/null
if "$CUZK" setup --format params "$d/s.r1cs" "$d/s.params" 2>"$d/s_setup.txt"; then
    "$CUZK" params prove "$d/s.r1cs" "$d/s.params" "$d/s.wtns" "$d/s.proof" "$d/s.json"
    "$CUZK" params verify "$d/s.vk" "$d/s.json" "$d/s.proof" | grep -q "OK!"
    expect_fail "$CUZK" params prove "$d/s.r1cs" "$d/s.params" "$d/t.wtns" "$d/x" "$d/x.json"
    expect_output "does not satisfy constraint"
else
    grep -q "is in no constraint" "$d/s_setup.txt" || { cat "$d/s_setup.txt"; echo "FAIL: setup"; exit 1; }
fi
step "params synth: a PoRep-shaped key and assignment; bad options refused"
"$CUZK" params synth --shape porep --log 10 --backend cpu --threads 2 "$d/porep.params" "$d/porep.as" 2>"$d/synth.txt" ||
    { cat "$d/synth.txt"; echo "FAIL: params synth"; exit 1; }
"$CUZK" params info --check "$d/porep.params" >"$d/porep_info.txt" 2>/dev/null
grep -q "inputs (ic)  328 (ONE and 327 public)" "$d/porep_info.txt" && grep -q "domain       2^10" "$d/porep_info.txt" &&
    grep -q "b_g1, b_g2   255, 255" "$d/porep_info.txt" || { cat "$d/porep_info.txt"; echo "FAIL: the PoRep key's counts"; exit 1; }
[ -s "$d/porep.vk" ] && [ "$(head -c 8 "$d/porep.as")" = C2ASSIGC ] || { echo "FAIL: no .vk or compact assignment"; exit 1; }
expect_fail "$CUZK" params synth --shape porep --log 28 "$d/x.params" "$d/x.as"
expect_output "--log takes 10 to 27"
expect_fail "$CUZK" params synth --shape sha "$d/x.params" "$d/x.as"
expect_output "porep only"
expect_fail "$CUZK" params synth --shape porep "$d/x.params" "$d/x.as"
expect_output "--log K is required"
echo "params: all passed"
