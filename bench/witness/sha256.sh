#!/usr/bin/env bash
# Witness calculators on circomlib's SHA-256 (a benchmark, not a test):
# cuzk wtns calculate, snarkjs wtns calculate and circom's own C++
# generator (circom --c, as the npm circom2, circom compiled to WASI, emits
# it). Usage:
#   bench/witness/sha256.sh [NBITS] [REPEAT]
# NBITS: the message length in bits (default 1024: 3 blocks, 93,881 wires,
# ~2^16.5 constraints; 4096: 9 blocks, ~2^18); REPEAT: runs of each, the
# median kept (default 5). Prints a markdown table: the one-time compiles,
# then cuzk (cached), snarkjs and the C++ generator, wall and CPU seconds
# and peak RSS; the three witnesses compared byte for byte. The C++ needs
# g++, nasm, libgmp-dev and nlohmann-json3-dev (its Makefile is circom's);
# without them (or with CPP=0), or when circom2 fails to write the C++
# (its WASI build can, once its memory is past 2 GiB: at NBITS=16384, 1.03 M
# constraints, once in two runs), its row says why it was not run.
# CUZK: the cuzk binary to time (default build/cuzk), to compare builds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
NBITS=${1:-1024}
REPEAT=${2:-5}
CUZK=${CUZK:-$ROOT/build/cuzk}
NODE=$ROOT/tests/interop/node_modules
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-bench-wtns.XXXXXX")
BENCH_WORK=$WORK
NAME=bench_sha$NBITS # no leading dot: circom's C++ Makefile links *.o
trap 'rm -rf "$WORK" "$ROOT/tests/interop/$NAME.circom"' EXIT
[ -x "$CUZK" ] || { echo "$CUZK is missing: make build/cuzk"; exit 1; }

# row LABEL "wall cpu rss": a table row, with snarkjs's wall over this one
row() {
    local w c r
    read -r w c r <<<"$2"
    echo "| $1 | $w | $c | $((r / 1024)) | $(bench_ratio "$sj_wall" "$w" %.2fx) |"
}

# circom2 (WASI) reads only under the working directory: the repository
cat >"$ROOT/tests/interop/$NAME.circom" <<CIRCOM
pragma circom 2.0.0;
include "circomlib/circuits/sha256/sha256.circom";
component main = Sha256($NBITS);
CIRCOM
cpp_missing=$(bench_cpp_missing) # why the C++ generator is not run, if it is not
cpp_missing=$(bench_circom "$NAME" "$cpp_missing")
wasm=$WORK/${NAME}_js/$NAME.wasm
python3 -c "import json, random; random.seed(7); print(json.dumps({'in': [random.randint(0, 1) for _ in range($NBITS)]}))" \
    >"$WORK/input.json"

export CUZK_WASM_CACHE=$WORK/cache
cold=$(bench_run "$CUZK" wtns calculate "$wasm" "$WORK/input.json" "$WORK/cuzk.wtns")
cuzk=$(bench_med "$REPEAT" "$CUZK" wtns calculate "$wasm" "$WORK/input.json" "$WORK/cuzk.wtns")
sj=$(bench_med "$REPEAT" "$NODE/.bin/snarkjs" wtns calculate "$wasm" "$WORK/input.json" "$WORK/snarkjs.wtns")
sj_wall=${sj%% *}
cmp "$WORK/cuzk.wtns" "$WORK/snarkjs.wtns"

if [ -z "$cpp_missing" ]; then
    cpp_dir=$WORK/${NAME}_cpp
    cpp_build=$(bench_run nice make -C "$cpp_dir" -j"$(nproc)")
    cpp=$(bench_med "$REPEAT" "$cpp_dir/$NAME" "$WORK/input.json" "$WORK/cpp.wtns")
    cmp "$WORK/cpp.wtns" "$WORK/snarkjs.wtns"
fi

echo "SHA-256 of $NBITS bits: $(bench_circom_size); median of $REPEAT runs"
echo "circom2: $("$NODE/.bin/circom2" --version | tr '\n' ' ')"
bench_cpu_line
echo
echo "| witness calculator | wall s | CPU s | peak RSS MiB | snarkjs wall / this wall |"
echo "|---|---|---|---|---|"
row "snarkjs 0.7.6 wtns calculate (node $(node --version))" "$sj"
row "cuzk wtns calculate, first run (wasm2c + cc -O2 + run)" "$cold"
row "cuzk wtns calculate, cached" "$cuzk"
if [ -z "$cpp_missing" ]; then
    row "circom --c: make (g++ -O3 of circom's C++, nasm; once per circuit)" "$cpp_build"
    row "circom --c: the C++ generator (GMP)" "$cpp"
    echo
    echo "The three witnesses are byte-identical."
else
    echo "| circom --c (C++ generator) | not run:$cpp_missing | | | |"
    echo
    echo "The witnesses are byte-identical."
fi
