# Shared set-up for the interop tests: paths to cuzk and the npm peers, a
# scratch directory, and small assertion helpers. Sourced, not run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CUZK=$ROOT/build/cuzk
NODE_BIN=$ROOT/tests/interop/node_modules/.bin
SNARKJS=$NODE_BIN/snarkjs
CIRCOM=$NODE_BIN/circom2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

[ -x "$CUZK" ] || { echo "build/cuzk is missing: run make"; exit 1; }

need_peers() {
    command -v node >/dev/null && [ -x "$SNARKJS" ] && [ -x "$CIRCOM" ] ||
        { echo "snarkjs/circom2 not installed (scripts/install-deps installs them)"; exit 77; }
}

step() { echo "--- $*"; }

# expect_fail CMD...: CMD must exit 1 (a clean failure), never crash.
expect_fail() {
    local rc=0
    "$@" >"$WORK/out.txt" 2>&1 || rc=$?
    cat "$WORK/out.txt"
    if [ $rc -eq 0 ]; then echo "FAIL: expected failure: $*"; exit 1; fi
    if [ $rc -ge 128 ]; then echo "FAIL: crashed (exit $rc): $*"; exit 1; fi
}

# expect_output PATTERN: the last expect_fail's output contains PATTERN.
expect_output() {
    grep -q -- "$1" "$WORK/out.txt" || { echo "FAIL: output lacks '$1'"; exit 1; }
}

snarkjs_verify() { "$SNARKJS" groth16 verify "$@" >"$WORK/sv.txt" 2>&1 || { cat "$WORK/sv.txt"; return 1; }; }

# snarkjs_rejects VK PUBLIC PROOF: snarkjs must refuse the proof; the test
# stops if it accepts (a bare `! cmd` never stops a script under set -e).
snarkjs_rejects() {
    if "$SNARKJS" groth16 verify "$@" >"$WORK/sv.txt" 2>&1; then
        cat "$WORK/sv.txt"; echo "FAIL: snarkjs accepted: $*"; exit 1
    fi
}

# fullprove_both_ways DIR WASM: with DIR/input.json, DIR/c.zkey and
# DIR/vk.json, cuzk groth16 fullprove's proof (DIR/proof.json) is verified
# by snarkjs and cuzk, and snarkjs groth16 fullprove's by cuzk, with the same
# public signals.
fullprove_both_ways() {
    local d=$1 wasm=$2
    "$CUZK" groth16 fullprove "$d/input.json" "$wasm" "$d/c.zkey" "$d/proof.json" "$d/public.json" >/dev/null
    snarkjs_verify "$d/vk.json" "$d/public.json" "$d/proof.json"
    "$CUZK" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" | grep -q 'OK!'
    "$SNARKJS" groth16 fullprove "$d/input.json" "$wasm" "$d/c.zkey" "$d/proof_s.json" "$d/public_s.json" >/dev/null
    "$CUZK" groth16 verify "$d/vk.json" "$d/public_s.json" "$d/proof_s.json" | grep -q 'OK!'
    cmp "$d/public.json" "$d/public_s.json" || { echo "FAIL: the public signals differ"; exit 1; }
}

# A tiny powers-of-tau for curve $1 (bn128 | bls12381), power $2.
make_ptau() {
    "$SNARKJS" powersoftau new "$1" "$2" "$WORK/p0.ptau" >/dev/null
    "$SNARKJS" powersoftau contribute "$WORK/p0.ptau" "$WORK/p1.ptau" --name=test -e=cuzk-test-entropy >/dev/null
    "$SNARKJS" powersoftau prepare phase2 "$WORK/p1.ptau" "$WORK/pot.ptau" >/dev/null
}

# tamper_proof IN OUT MODE: MODE "offcurve" adds 1 to pi_a.x (a point off
# the curve); "negate" replaces pi_a by -pi_a (on the curve, in the group,
# so only the pairing check can catch it).
tamper_proof() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
Q = {"bn128": 21888242871839275222246405745257275088696311157297823662689037894645226208583,
     "bls12381": 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab}
p = json.load(open(sys.argv[1]))
if sys.argv[3] == "offcurve":
    p["pi_a"][0] = str(int(p["pi_a"][0]) + 1)
else:
    p["pi_a"][1] = str(Q[p.get("curve", "bn128")] - int(p["pi_a"][1]))
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
}

tamper_public() {
    python3 - "$1" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p[-1] = str(int(p[-1]) + 1)
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
}
