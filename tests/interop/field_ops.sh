# circom's field helpers, which cuzk runs natively (src/witness/wasm_glue.c),
# against snarkjs running the same wasm: tests/interop/circuits/field_ops's
# witness on edge values (short and long, negative, zero, about (p - 1) / 2
# and p), byte-identical on both curves with the glue's mulx/adx products
# and with its C ones (CUZK_NO_ASM=1), the build saying the helpers were
# native.
source "$(dirname "$0")/lib.sh"
need_peers
command -v wasm2c >/dev/null || { echo "wasm2c not installed (Debian's wabt; scripts/install-deps installs it)"; exit 77; }
export CUZK_WASM_CACHE=$WORK/cache

for curve in bn128 bls12381; do
    step "$curve: field_ops: the same .wtns as snarkjs"
    d=$WORK/$curve
    mkdir -p "$d"
    "$CIRCOM" "$ROOT/tests/interop/circuits/field_ops.circom" --r1cs --wasm --prime $curve \
        -l "$ROOT/tests/interop/node_modules" -o "$d" >/dev/null
    python3 - "$curve" >"$d/input.json" <<'PY'
import json, sys
p = {"bn128": 21888242871839275222246405745257275088548364400416034343698204186575808495617,
     "bls12381": 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001}[sys.argv[1]]
h = (p - 1) // 2
v = [0, 1, 5, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32, 2**64 + 3, -1, -7, h, h + 1, p - 2**40, 2**253, p - 1 + p]
print(json.dumps({"v": [str(x) for x in v]}))
PY
    wasm=$d/field_ops_js/field_ops.wasm
    "$SNARKJS" wtns calculate "$wasm" "$d/input.json" "$d/snarkjs.wtns" >/dev/null
    # CUZK_NO_ASM=1: the glue's C Montgomery rounds, not its mulx/adx ones;
    # the build's report (the first run's) says what was native
    for no_asm in 0 1; do
        CUZK_NO_ASM=$no_asm "$CUZK" wtns calculate "$wasm" "$d/input.json" "$d/cuzk.wtns" 2>"$d/err" || { cat "$d/err"; exit 1; }
        [ $no_asm = 1 ] || grep -q "field helpers native" "$d/err" || { cat "$d/err"; echo "FAIL: the field helpers were not native"; exit 1; }
        cmp "$d/cuzk.wtns" "$d/snarkjs.wtns" || { echo "FAIL: $curve, CUZK_NO_ASM=$no_asm: the witnesses differ"; exit 1; }
    done
done
echo "ok"
