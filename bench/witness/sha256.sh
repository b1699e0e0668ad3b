#!/usr/bin/env bash
# cuzk wtns calculate against snarkjs wtns calculate on circomlib's SHA-256
# (a benchmark, not a test). Usage:
#   bench/witness/sha256.sh [NBITS] [REPEAT]
# NBITS: the message length in bits (default 1024: 3 blocks, 93,881 wires,
# ~2^16.5 constraints); REPEAT: runs of each, the median kept (default 5).
# CUZK: the cuzk binary to time (default build/cuzk), to compare builds.
# Prints a markdown table: the one-time compile, then cuzk (cached) and
# snarkjs wall and CPU seconds, the witnesses compared byte for byte.
# With a native circom on PATH (`circom`, not the WASI circom2) and
# Debian's nlohmann-json3-dev, libgmp-dev and nasm, circom's own C++
# generator (circom --c) is timed too.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NBITS=${1:-1024}
REPEAT=${2:-5}
CUZK=${CUZK:-$ROOT/build/cuzk}
NODE=$ROOT/tests/interop/node_modules
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-bench-wtns.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
[ -x "$CUZK" ] || { echo "$CUZK is missing: make build/cuzk"; exit 1; }

cat >"$WORK/sha.circom" <<CIRCOM
pragma circom 2.0.0;
include "circomlib/circuits/sha256/sha256.circom";
component main = Sha256($NBITS);
CIRCOM
# circom2 (WASI) reads only under the working directory: the repository
cp "$WORK/sha.circom" "$ROOT/tests/interop/.bench_sha.circom"
(cd "$ROOT" && "$NODE/.bin/circom2" tests/interop/.bench_sha.circom --r1cs --wasm -l "$NODE" -o "$WORK" >"$WORK/circom.log")
rm -f "$ROOT/tests/interop/.bench_sha.circom"
wasm=$WORK/.bench_sha_js/.bench_sha.wasm
wires=$(grep -o 'wires: [0-9]*' "$WORK/circom.log" | grep -o '[0-9]*')
constraints=$(sed 's/\x1b\[[0-9;]*m//g' "$WORK/circom.log" | awk '/non-linear constraints/ {n += $NF} /^linear constraints/ {n += $NF} END {print n}')
python3 -c "import json, random; random.seed(7); print(json.dumps({'in': [random.randint(0, 1) for _ in range($NBITS)]}))" \
    >"$WORK/input.json"

# seconds "wall cpu" of one run of the command
timed() {
    /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err"; exit 1; }
    awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$WORK/time"
}
# median over REPEAT runs: "wall cpu"
median() {
    for _ in $(seq "$REPEAT"); do timed "$@"; done | sort -n | awk '{w[NR] = $1; c[NR] = $2} END {m = int((NR + 1) / 2); print w[m], c[m]}'
}

export CUZK_WASM_CACHE=$WORK/cache
read -r cold_wall cold_cpu < <(timed "$CUZK" wtns calculate "$wasm" "$WORK/input.json" "$WORK/cuzk.wtns")
read -r cuzk_wall cuzk_cpu < <(median "$CUZK" wtns calculate "$wasm" "$WORK/input.json" "$WORK/cuzk.wtns")
read -r sj_wall sj_cpu < <(median "$NODE/.bin/snarkjs" wtns calculate "$wasm" "$WORK/input.json" "$WORK/snarkjs.wtns")
cmp "$WORK/cuzk.wtns" "$WORK/snarkjs.wtns"

cpp_row="| circom --c (C++ generator) | not run: no native circom on PATH (circom2 is the WASI build) | | |"
if command -v circom >/dev/null && ! circom --version 2>&1 | grep -q npm; then
    cp "$WORK/sha.circom" "$ROOT/tests/interop/.bench_sha.circom"
    (cd "$ROOT" && circom tests/interop/.bench_sha.circom --c -l "$NODE" -o "$WORK" >/dev/null)
    rm -f "$ROOT/tests/interop/.bench_sha.circom"
    make -s -C "$WORK/.bench_sha_cpp" >/dev/null
    read -r cpp_wall cpp_cpu < <(median "$WORK/.bench_sha_cpp/.bench_sha" "$WORK/input.json" "$WORK/cpp.wtns")
    cmp "$WORK/cpp.wtns" "$WORK/snarkjs.wtns"
    cpp_row="| circom --c (C++ generator, GMP) | $cpp_wall | $cpp_cpu | $(awk -v a="$sj_wall" -v b="$cpp_wall" 'BEGIN {printf "%.1fx", a / b}') |"
fi

echo "SHA-256 of $NBITS bits: $constraints constraints, $wires wires; median of $REPEAT runs"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| witness calculator | wall s | CPU s | snarkjs wall / this wall |"
echo "|---|---|---|---|"
echo "| snarkjs 0.7.6 wtns calculate (node $(node --version)) | $sj_wall | $sj_cpu | 1.0x |"
echo "| cuzk wtns calculate, first run (wasm2c + cc -O2 + run) | $cold_wall | $cold_cpu | $(awk -v a="$sj_wall" -v b="$cold_wall" 'BEGIN {printf "%.2fx", a / b}') |"
echo "| cuzk wtns calculate, cached | $cuzk_wall | $cuzk_cpu | $(awk -v a="$sj_wall" -v b="$cuzk_wall" 'BEGIN {printf "%.1fx", a / b}') |"
echo "$cpp_row"
echo
echo "The witnesses are byte-identical."
