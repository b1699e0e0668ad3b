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

# run CMD...: one timed run, stopping the benchmark when it fails
run() { bench_timed "$@" || { echo "failed: $*" >&2; cat "$WORK/err" >&2; exit 1; }; }
# med CMD...: the median "wall cpu rss" of REPEAT runs
med() { bench_repeat "$REPEAT" "$@" || { echo "failed: $*" >&2; cat "$WORK/err" >&2; exit 1; }; }
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
CPP=${CPP:-1}
cpp_missing= # why the C++ generator is not run, if it is not
for t in g++ nasm make; do command -v "$t" >/dev/null || cpp_missing="$cpp_missing missing $t"; done
[ -f /usr/include/nlohmann/json.hpp ] || cpp_missing="$cpp_missing missing nlohmann-json3-dev"
[ -f /usr/include/gmp.h ] || [ -f /usr/include/x86_64-linux-gnu/gmp.h ] || cpp_missing="$cpp_missing missing libgmp-dev"
[ "$CPP" = 1 ] || cpp_missing=" CPP=$CPP"
# compile [--c]: circom2 into $WORK, its output in $WORK/circom.log
compile() { (cd "$ROOT" && "$NODE/.bin/circom2" "tests/interop/$NAME.circom" --r1cs --wasm "$@" -l "$NODE" -o "$WORK" >"$WORK/circom.log" 2>&1); }
if [ -n "$cpp_missing" ]; then
    compile
elif ! compile --c; then
    # circom2's WASI shim can fail to open a file when circom's memory is
    # past 2 GiB (a negative offset: "RangeError: Start offset -1853863728
    # is outside the bounds of the buffer"): once in two runs of --c at
    # NBITS=16384 (1.03 M constraints); --r1cs --wasm alone then still fit
    cpp_missing=" circom2 --c failed: $(grep -m1 Error "$WORK/circom.log" || tail -n 1 "$WORK/circom.log")"
    rm -rf "$WORK/${NAME}_cpp"
    compile
fi
wasm=$WORK/${NAME}_js/$NAME.wasm
wires=$(grep -o 'wires: [0-9]*' "$WORK/circom.log" | grep -o '[0-9]*')
constraints=$(sed 's/\x1b\[[0-9;]*m//g' "$WORK/circom.log" | awk '/non-linear constraints/ {n += $NF} /^linear constraints/ {n += $NF} END {print n}')
python3 -c "import json, random; random.seed(7); print(json.dumps({'in': [random.randint(0, 1) for _ in range($NBITS)]}))" \
    >"$WORK/input.json"

export CUZK_WASM_CACHE=$WORK/cache
cold=$(run "$CUZK" wtns calculate "$wasm" "$WORK/input.json" "$WORK/cuzk.wtns")
cuzk=$(med "$CUZK" wtns calculate "$wasm" "$WORK/input.json" "$WORK/cuzk.wtns")
sj=$(med "$NODE/.bin/snarkjs" wtns calculate "$wasm" "$WORK/input.json" "$WORK/snarkjs.wtns")
sj_wall=${sj%% *}
cmp "$WORK/cuzk.wtns" "$WORK/snarkjs.wtns"

if [ -z "$cpp_missing" ]; then
    cpp_dir=$WORK/${NAME}_cpp
    cpp_build=$(run nice make -C "$cpp_dir" -j"$(nproc)")
    cpp=$(med "$cpp_dir/$NAME" "$WORK/input.json" "$WORK/cpp.wtns")
    cmp "$WORK/cpp.wtns" "$WORK/snarkjs.wtns"
fi

echo "SHA-256 of $NBITS bits: $constraints constraints, $wires wires; median of $REPEAT runs"
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
