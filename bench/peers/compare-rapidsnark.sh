#!/usr/bin/env bash
# bench/peers/compare-rapidsnark.sh: issue 18's same-run comparison of a
# one-shot `cuzk groth16 prove` with rapidsnark's `prover` (and snarkjs at
# small sizes) on the CPU, on BN254 synthetic circuits of 2^k rows:
#
#   bench/peers/compare-rapidsnark.sh [K...]          (from anywhere in the repository)
#
# K...           log2 sizes (default: $KS, else 15 16 17 18 19 20 21); a
#                circuit of 2^k - PUBLIC - 1 constraints, so that with its
#                public-input rows the Groth16 domain is 2^k
# RUNS           timed runs of each prover, the median kept (default 3),
#                after one untimed run each (page cache warm); the provers
#                take turns, run by run, so that the machine's load falls on
#                all alike
# SNARKJS_MAX_K  snarkjs groth16 prove is timed at k <= this (default 17)
# SHAPE          the circuit's shape, `cuzk circuit synth --shape` (default
#                random: full-size witness values); PUBLIC its public
#                signals (default 2)
# RAPIDSNARK     the peer (default build/peers/rapidsnark/bin/prover, from
#                bench/peers/build-rapidsnark.sh)
# KEYS           circuits, witnesses and development keys, kept for reruns
#                (default build/peers/keys: a setup of 2^21 takes minutes)
# KEYS_ONLY=1    only make (or find) the keys of every K, and stop
# LOG_DIR        proofs, each run's numbers, failures' output (default
#                build/peers/compare-rapidsnark)
#
# Timed (wall seconds by bash's clock, peak RSS by GNU time), each proof verified after its
# run by `cuzk groth16 verify` with the key's verification key (snarkjs
# verifies rapidsnark's once per size) and every prover's public.json
# compared with cuzk's:
#   cuzk         build/cuzk groth16 prove KEY WTNS proof.json public.json   (the default arithmetic)
#   cuzk no-IFMA the same with CUZK_NO_IFMA=1
#   rapidsnark   prover KEY WTNS proof.json public.json
#   snarkjs      snarkjs groth16 prove KEY WTNS proof.json public.json
# Prints a markdown table; a prover that fails or whose proof does not
# verify is a cell "FAIL", its command and output printed after the table,
# and the exit status 1.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. bench/lib.sh
read -r -a KLIST <<<"${*:-${KS:-15 16 17 18 19 20 21}}"
RUNS=${RUNS:-3}
SNARKJS_MAX_K=${SNARKJS_MAX_K:-17}
SHAPE=${SHAPE:-random}
PUBLIC=${PUBLIC:-2}
RAPIDSNARK=${RAPIDSNARK:-build/peers/rapidsnark/bin/prover}
KEYS=${KEYS:-build/peers/keys}
LOG_DIR=${LOG_DIR:-build/peers/compare-rapidsnark}
CUZK=build/cuzk
SNARKJS=tests/interop/node_modules/.bin/snarkjs
BENCH_WORK=$LOG_DIR/work
for p in "$CUZK" "$RAPIDSNARK" "$SNARKJS"; do
    [ -x "$p" ] || { echo "compare-rapidsnark: no program at $p" >&2; exit 1; }
done
rm -rf "$LOG_DIR" && mkdir -p "$BENCH_WORK" "$KEYS"

# key_dir K: the folder of c.r1cs, w.wtns, c.zkey and vk.json for 2^K,
# made once (built aside, renamed into place when whole)
key_dir() {
    local d=$KEYS/bn128-$SHAPE-p$PUBLIC-k$1 n=$(((1 << $1) - PUBLIC - 1))
    if [ ! -f "$d/vk.json" ]; then
        echo "compare-rapidsnark: making the circuit, witness and key of 2^$1 in $d" >&2
        rm -rf "$d.tmp" && mkdir -p "$d.tmp"
        "$CUZK" circuit synth --curve bn128 --constraints "$n" --shape "$SHAPE" --public "$PUBLIC" --seed 1 \
            "$d.tmp/c.r1cs" "$d.tmp/w.wtns" >"$d.tmp/synth.log" 2>&1 || { cat "$d.tmp/synth.log" >&2; exit 1; }
        /usr/bin/time -f '%e s, %M KiB' -o "$d.tmp/setup.time" "$CUZK" setup --curve bn128 --backend cpu \
            "$d.tmp/c.r1cs" "$d.tmp/c.zkey" >"$d.tmp/setup.log" 2>&1 || { cat "$d.tmp/setup.log" >&2; exit 1; }
        "$CUZK" zkey export verificationkey "$d.tmp/c.zkey" "$d.tmp/vk.json"
        echo "compare-rapidsnark: setup of 2^$1: $(cat "$d.tmp/setup.time")" >&2
        rm -rf "$d" && mv "$d.tmp" "$d"
    fi
    echo "$d"
}

# prover_cmd NAME KEYDIR OUTDIR: CMD, the command line of one prover
prover_cmd() {
    local io=("$2/c.zkey" "$2/w.wtns" "$3/$1.proof.json" "$3/$1.public.json")
    case $1 in
    cuzk) CMD=(env -u CUZK_NO_IFMA "$CUZK" groth16 prove "${io[@]}") ;;
    cuzk-noifma) CMD=(env CUZK_NO_IFMA=1 "$CUZK" groth16 prove "${io[@]}") ;;
    rapidsnark) CMD=("$RAPIDSNARK" "${io[@]}") ;;
    snarkjs) CMD=("$SNARKJS" groth16 prove "${io[@]}") ;;
    esac
}

# run_one NAME K KEYDIR OUTDIR [timed]: one run, its proof verified; a timed
# run's "wall cpu rss" appended to $LOG_DIR/kK.NAME; a failure recorded in
# $LOG_DIR/kK.NAME.fail (command and output) and the prover skipped after
failures=0
run_one() {
    local name=$1 k=$2 kd=$3 od=$4 fail=$LOG_DIR/k$2.$1.fail line rc=0
    [ -f "$fail" ] && return 0
    prover_cmd "$name" "$kd" "$od"
    line=$(bench_timed "${CMD[@]}") || rc=$?
    if ((rc != 0)); then
        { echo "exit status $rc: ${CMD[*]}"; tail -n 40 "$BENCH_WORK/err"; } >"$fail"
    elif ! "$CUZK" groth16 verify "$kd/vk.json" "$od/$name.public.json" "$od/$name.proof.json" >"$BENCH_WORK/verify" 2>&1; then
        { echo "proof does not verify (cuzk groth16 verify): ${CMD[*]}"; cat "$BENCH_WORK/verify"; } >"$fail"
    elif [ "${5:-}" = timed ]; then
        echo "$line" >>"$LOG_DIR/k$k.$name"
    fi
    if [ -f "$fail" ]; then failures=$((failures + 1)); fi
}

# cells K NAME: "wall_s rss_mib" of the median run, or "FAIL FAIL", or "- -"
cells() {
    if [ -f "$LOG_DIR/k$1.$2.fail" ]; then echo "FAIL FAIL"
    elif [ -f "$LOG_DIR/k$1.$2" ]; then bench_median <"$LOG_DIR/k$1.$2" | awk '{printf "%.3f %.0f\n", $1, $3 / 1024}'
    else echo "- -"; fi
}

# public_same K OUTDIR NAME: NAME's public signals are cuzk's
public_same() {
    python3 - "$2/cuzk.public.json" "$2/$3.public.json" <<'PY' || { echo "public signals differ from cuzk's" >"$LOG_DIR/k$1.$3.fail"; failures=$((failures + 1)); }
import json, sys
sys.exit(0 if json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])) else 1)
PY
}

if [ "${KEYS_ONLY:-0}" = 1 ]; then
    for k in "${KLIST[@]}"; do key_dir "$k"; done
    exit 0
fi
START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
TABLE=$LOG_DIR/table.md
for k in "${KLIST[@]}"; do
    kd=$(key_dir "$k")
    od=$LOG_DIR/k$k && mkdir -p "$od"
    names=(cuzk cuzk-noifma rapidsnark)
    ((k <= SNARKJS_MAX_K)) && names+=(snarkjs)
    echo "compare-rapidsnark: 2^$k: ${names[*]}, 1 + $RUNS runs each" >&2
    for name in "${names[@]}"; do run_one "$name" "$k" "$kd" "$od"; done
    for ((r = 0; r < RUNS; r++)); do
        for name in "${names[@]}"; do run_one "$name" "$k" "$kd" "$od" timed; done
    done
    for name in "${names[@]}"; do
        [ -f "$LOG_DIR/k$k.$name.fail" ] || [ -f "$LOG_DIR/k$k.cuzk.fail" ] || [ "$name" = cuzk ] || public_same "$k" "$od" "$name"
    done
    if [ ! -f "$LOG_DIR/k$k.rapidsnark.fail" ] &&
        ! "$SNARKJS" groth16 verify "$kd/vk.json" "$od/rapidsnark.public.json" "$od/rapidsnark.proof.json" >"$BENCH_WORK/sv" 2>&1; then
        { echo "snarkjs groth16 verify refuses rapidsnark's proof"; cat "$BENCH_WORK/sv"; } >"$LOG_DIR/k$k.rapidsnark.fail"
        failures=$((failures + 1))
    fi
    constraints=$(((1 << k) - PUBLIC - 1))
    read -r cw cm < <(cells "$k" cuzk)
    read -r nw nm < <(cells "$k" cuzk-noifma)
    read -r rw rmib < <(cells "$k" rapidsnark)
    read -r sw _ < <(cells "$k" snarkjs)
    echo "| $k | $constraints | $cw | $cm | $nw | $nm | $rw | $rmib | $(bench_ratio "$rw" "$cw") | $(bench_ratio "$rw" "$nw") |" \
        "$(bench_ratio "$rmib" "$cm") | $(bench_ratio "$rmib" "$nm") | $sw | $(bench_ratio "$sw" "$nw" %.1fx) |" >>"$TABLE"
done

echo "# cuzk groth16 prove (one-shot) against rapidsnark's prover, BN254, CPU"
echo
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); cuzk $(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- src include || echo ' (src modified)')"
echo "$(bench_cpu_line | sed 's/; load average: .*//'); load average at the start: $START_LOAD, at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -f "$(dirname "$(dirname "$RAPIDSNARK")")/SOURCES" ] && sed 's/^/peer: /' "$(dirname "$(dirname "$RAPIDSNARK")")/SOURCES"
echo "snarkjs $(node -e 'console.log(require("./tests/interop/node_modules/snarkjs/package.json").version)') on node $(node --version)"
echo "circuits: cuzk circuit synth --curve bn128 --shape $SHAPE --public $PUBLIC --seed 1, 2^k - $((PUBLIC + 1)) constraints (domain 2^k); development keys by cuzk setup"
echo "median of $RUNS runs after one untimed run; wall seconds (bash's microsecond clock around each run) and peak RSS (MiB, GNU time); ratios rapidsnark / cuzk (> 1: cuzk is faster or smaller)"
echo
echo "| k | constraints | cuzk s | cuzk MiB | cuzk no-IFMA s | no-IFMA MiB | rapidsnark s | rapidsnark MiB | wall rs/cuzk | wall rs/no-IFMA | RSS rs/cuzk | RSS rs/no-IFMA | snarkjs s | snarkjs/no-IFMA |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
cat "$TABLE"
echo
echo "every proof verified by cuzk groth16 verify; rapidsnark's also by snarkjs groth16 verify, once per size; public signals the same as cuzk's"
if ((failures > 0)); then
    echo
    echo "## Failures"
    for f in "$LOG_DIR"/*.fail; do
        echo
        echo "$(basename "$f" .fail):"
        echo '```'
        cat "$f"
        echo '```'
    done
    exit 1
fi
