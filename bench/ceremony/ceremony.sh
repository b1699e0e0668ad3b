#!/usr/bin/env bash
# The trusted-setup ceremony on this machine, cuzk beside snarkjs (issue 51,
# item 6): phase 1 to a prepared ptau (powersoftau new, one contribution,
# prepare phase2) at 2^POWER, then zkey new of a synthetic circuit filling
# the domain 2^POWER, and one zkey contribution. snarkjs runs the same
# steps where it finishes within SNARKJS_LIMIT seconds each (its phase 1 at
# 2^16 takes about an hour on two cores): its phase 1 at 2^SNARKJS_POWER,
# and its zkey new at 2^POWER from cuzk's prepared ptau (the same file
# format). Prints a Markdown table; timings are single runs (the phase-1
# steps take minutes).
#   bench/ceremony/ceremony.sh [POWER=16] [CURVE=bn128] [SNARKJS_POWER=12]
# With --backends first, cuzk alone, each step that multiplies timed with
# --backend cpu and --backend gpu (the GPU machine; build/cuzk, or $CUZK,
# built with CUDA): powersoftau contribute, beacon and prepare phase2, zkey
# new, zkey contribute; the deterministic steps' files (beacon, prepare,
# zkey new) compared across the two.
#   bench/ceremony/ceremony.sh --backends [POWER=20] [CURVE=bn128]
# With --gpu first, the whole chain on the GPU machine at 2^POWER (issue 51's
# 2^24 targets), --backend gpu throughout ($BACKEND to change it): powersoftau
# new, contribute, prepare phase2, a synthetic circuit filling the domain,
# zkey new, zkey contribute; each step's wall and CPU time, peak host memory
# and output size, inputs removed once the next step has them (the disk).
# Our own verify checks the outputs where it is cheap: powersoftau verify
# (on the backend; it recomputes the Lagrange bases) up to 2^PTAU_VERIFY_POWER
# (16), zkey verify (a fresh zkey new, on the backend) up to
# 2^ZKEY_VERIFY_POWER (20); above, the table says they were skipped. $WORK
# keeps the files (default: a temporary folder, removed at the end), $LOGS
# gets each step's stderr (the progress lines, with their times), $STEPS
# picks steps (default: all; later steps need earlier ones' files in $WORK).
#   bench/ceremony/ceremony.sh --gpu [POWER=24] [CURVE=bn128]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/bench/lib.sh"
BACKENDS=0 GPU_CHAIN=0
if [ "${1:-}" = --backends ]; then
    BACKENDS=1
    shift
elif [ "${1:-}" = --gpu ]; then
    GPU_CHAIN=1
    shift
fi
DEFAULT_POWER=16
[ $BACKENDS = 0 ] || DEFAULT_POWER=20
[ $GPU_CHAIN = 0 ] || DEFAULT_POWER=24
POWER=${1:-$DEFAULT_POWER}
CURVE=${2:-bn128}
SPOWER=${3:-12}
SNARKJS_LIMIT=${SNARKJS_LIMIT:-3600}
CUZK=${CUZK:-$ROOT/build/cuzk}
SNARKJS=$ROOT/tests/interop/node_modules/.bin/snarkjs
if [ -n "${WORK:-}" ]; then
    mkdir -p "$WORK"
    BENCH_WORK=$WORK
else
    BENCH_WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-bench-ceremony.XXXXXX")
    trap 'rm -rf "$BENCH_WORK"' EXIT
fi
W=$BENCH_WORK

row() { printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4"; }
# timed LABEL CMD...: "wall cpu rss" of one run, or "-" after a failure (its output shown)
timed() {
    local out
    if out=$(bench_timed "$@"); then echo "$out"; else
        echo "FAILED: $* ($(tail -n 2 "$W/err" | tr '\n' ' '))" >&2
        echo "- - -"
    fi
}
snarkjs_timed() { timed timeout "$SNARKJS_LIMIT" "$SNARKJS" "$@"; }
wall() { echo "$1" | cut -d' ' -f1; }
# compare A B WHAT: says on stderr whether the two files are the same bytes
compare() {
    if [ ! -f "$1" ] || [ ! -f "$2" ]; then echo "($3: one side is missing)" >&2
    elif cmp -s "$1" "$2"; then echo "($3: identical, byte for byte)" >&2
    else echo "($3: they DIFFER)" >&2; fi
}

# a circuit filling the domain: constraints + public < 2^POWER
M=$(((1 << POWER) - 1 - 2 - 16))

if [ $GPU_CHAIN = 1 ]; then
    BACKEND=${BACKEND:-gpu}
    STEPS=${STEPS:-new contribute prepare synth zkey-new zkey-contribute verify}
    PTAU_VERIFY_POWER=${PTAU_VERIFY_POWER:-16}
    ZKEY_VERIFY_POWER=${ZKEY_VERIFY_POWER:-20}
    [ -z "${LOGS:-}" ] || mkdir -p "$LOGS"
    echo "# Ceremony on the GPU, $CURVE at 2^$POWER: --backend $BACKEND"
    echo
    bench_cpu_line
    command -v nvidia-smi >/dev/null && echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
    echo "Disk free at the start: $(df -h "$W" | awk 'NR == 2 { print $4 }'); memory: $(free -g | awk '/^Mem:/ { print $2 " GiB" }')"
    echo
    echo "| step | wall (s) | cpu (s) | peak host memory (GiB) | output | size (GiB) |"
    echo "|---|---:|---:|---:|---|---:|"
    total=0
    # step NAME OUTPUT CMD...: one timed row (the step's stderr to $LOGS/NAME.log)
    step() {
        local name=$1 out=$2 res size=-
        shift 2
        res=$(timed "$@")
        [ -z "${LOGS:-}" ] || cp "$W/err" "$LOGS/$name.log"
        [ ! -f "$out" ] || size=$(stat -c %s "$out" | awk '{ printf "%.2f", $1 / 1073741824 }')
        read -r wall cpu rss <<<"$res"
        total=$(awk -v a="$total" -v b="$wall" 'BEGIN { print a + (b == "-" ? 0 : b) }')
        printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$wall" "$cpu" \
            "$(awk -v k="$rss" 'BEGIN { if (k == "-") print "-"; else printf "%.2f", k / 1048576 }')" "${out##*/}" "$size"
        [ "$wall" != - ]
    }
    wants() { [[ " $STEPS " == *" $1 "* ]]; }
    ok=1
    if wants new; then
        step "powersoftau new" "$W/0.ptau" "$CUZK" powersoftau new "$CURVE" "$POWER" "$W/0.ptau" || ok=0
    fi
    if wants contribute && [ $ok = 1 ]; then
        step "powersoftau contribute" "$W/1.ptau" \
            "$CUZK" powersoftau contribute "$W/0.ptau" "$W/1.ptau" -e=bench --backend "$BACKEND" || ok=0
        rm -f "$W/0.ptau"
    fi
    if wants prepare && [ $ok = 1 ]; then
        step "powersoftau prepare phase2" "$W/f.ptau" \
            "$CUZK" powersoftau prepare phase2 "$W/1.ptau" "$W/f.ptau" --backend "$BACKEND" || ok=0
        [ "$POWER" -le "$PTAU_VERIFY_POWER" ] || rm -f "$W/1.ptau"
    fi
    if wants synth && [ $ok = 1 ]; then
        step "circuit synth ($M constraints)" "$W/c.r1cs" \
            "$CUZK" circuit synth --curve "$CURVE" --constraints "$M" --public 2 --shape mixed "$W/c.r1cs" "$W/c.wtns" || ok=0
        rm -f "$W/c.wtns"
    fi
    if wants zkey-new && [ $ok = 1 ]; then
        step "zkey new" "$W/c0.zkey" "$CUZK" zkey new "$W/c.r1cs" "$W/f.ptau" "$W/c0.zkey" --backend "$BACKEND" || ok=0
    fi
    if wants zkey-contribute && [ $ok = 1 ]; then
        step "zkey contribute" "$W/c1.zkey" \
            "$CUZK" zkey contribute "$W/c0.zkey" "$W/c1.zkey" -e=bench --backend "$BACKEND" || ok=0
        rm -f "$W/c0.zkey"
    fi
    echo "| all of the above | $total | | | | |"
    if wants verify && [ $ok = 1 ]; then
        echo
        if [ "$POWER" -le "$PTAU_VERIFY_POWER" ]; then
            if ! step "powersoftau verify (contributed)" - "$CUZK" powersoftau verify "$W/1.ptau" --backend "$BACKEND" ||
                ! step "powersoftau verify (prepared)" - "$CUZK" powersoftau verify "$W/f.ptau" --backend "$BACKEND"; then
                echo "(powersoftau verify FAILED)"
                ok=0
            fi
        else
            echo "(powersoftau verify skipped above 2^$PTAU_VERIFY_POWER: it recomputes the Lagrange bases)"
        fi
        if [ "$POWER" -le "$ZKEY_VERIFY_POWER" ]; then
            step "zkey verify" - "$CUZK" zkey verify "$W/c.r1cs" "$W/f.ptau" "$W/c1.zkey" --backend "$BACKEND" ||
                { echo "(zkey verify FAILED)"; ok=0; }
        else
            echo "(zkey verify skipped above 2^$ZKEY_VERIFY_POWER: a fresh zkey new and C, H checks)"
        fi
    fi
    [ $ok = 1 ] || { echo "(a step FAILED: see above)"; exit 1; }
    exit 0
fi

if [ $BACKENDS = 1 ]; then
    echo "# Ceremony, $CURVE at 2^$POWER: --backend cpu against --backend gpu"
    echo
    bench_cpu_line
    command -v nvidia-smi >/dev/null && echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
    echo
    "$CUZK" circuit synth --curve "$CURVE" --constraints "$M" --public 2 --shape mixed "$W/c.r1cs" "$W/c.wtns" >/dev/null 2>&1
    "$CUZK" powersoftau new "$CURVE" "$POWER" "$W/0.ptau"
    echo "| step | cpu (s) | gpu (s) | cpu / gpu |"
    echo "|---|---|---|---|"
    declare -A t
    for b in cpu gpu; do
        t[con_$b]=$(timed "$CUZK" powersoftau contribute "$W/0.ptau" "$W/1-$b.ptau" -e=bench --backend "$b")
        t[bea_$b]=$(timed "$CUZK" powersoftau beacon "$W/0.ptau" "$W/b-$b.ptau" 00ff00ff 10 --backend "$b")
    done
    compare "$W/b-cpu.ptau" "$W/b-gpu.ptau" "the beacons' files"
    for b in cpu gpu; do
        t[pre_$b]=$(timed "$CUZK" powersoftau prepare phase2 "$W/b-cpu.ptau" "$W/f-$b.ptau" --backend "$b")
    done
    compare "$W/f-cpu.ptau" "$W/f-gpu.ptau" "the prepared files"
    mv "$W/f-cpu.ptau" "$W/f.ptau"
    for b in cpu gpu; do
        t[zn_$b]=$(timed "$CUZK" zkey new "$W/c.r1cs" "$W/f.ptau" "$W/c0-$b.zkey" --backend "$b")
        t[zc_$b]=$(timed "$CUZK" zkey contribute "$W/c0-cpu.zkey" "$W/c1-$b.zkey" -e=bench --backend "$b")
    done
    compare "$W/c0-cpu.zkey" "$W/c0-gpu.zkey" "zkey new's keys"
    for s in "powersoftau contribute:con" "powersoftau beacon (2^10 hashes):bea" "powersoftau prepare phase2:pre" \
        "zkey new ($M constraints):zn" "zkey contribute:zc"; do
        IFS=: read -r name k <<<"$s"
        cw=$(wall "${t[${k}_cpu]}") gw=$(wall "${t[${k}_gpu]}")
        row "$name, 2^$POWER" "$cw" "$gw" "$(bench_ratio "$cw" "$gw")"
    done
    exit 0
fi

echo "# Ceremony, $CURVE: cuzk at 2^$POWER, snarkjs beside"
echo
bench_cpu_line
echo
"$CUZK" circuit synth --curve "$CURVE" --constraints "$M" --public 2 --shape mixed "$W/c.r1cs" "$W/c.wtns" >/dev/null 2>&1

echo "| step | cuzk (s) | snarkjs (s) | snarkjs / cuzk |"
echo "|---|---|---|---|"
c_new=$(timed "$CUZK" powersoftau new "$CURVE" "$POWER" "$W/0.ptau")
c_con=$(timed "$CUZK" powersoftau contribute "$W/0.ptau" "$W/1.ptau" -e=bench)
c_pre=$(timed "$CUZK" powersoftau prepare phase2 "$W/1.ptau" "$W/f.ptau")
s_new=$(snarkjs_timed powersoftau new "$CURVE" "$SPOWER" "$W/s0.ptau")
s_con=$(snarkjs_timed powersoftau contribute "$W/s0.ptau" "$W/s1.ptau" -e=bench)
s_pre=$(snarkjs_timed powersoftau prepare phase2 "$W/s1.ptau" "$W/sf.ptau")
c_small=$(timed "$CUZK" powersoftau new "$CURVE" "$SPOWER" "$W/cs0.ptau")
c_small_con=$(timed "$CUZK" powersoftau contribute "$W/cs0.ptau" "$W/cs1.ptau" -e=bench)
c_small_pre=$(timed "$CUZK" powersoftau prepare phase2 "$W/cs1.ptau" "$W/csf.ptau")
for s in new:c_small:s_new contribute:c_small_con:s_con "prepare phase2":c_small_pre:s_pre; do
    IFS=: read -r name cv sv <<<"$s"
    row "powersoftau $name, 2^$SPOWER" "$(wall "${!cv}")" "$(wall "${!sv}")" "$(bench_ratio "$(wall "${!sv}")" "$(wall "${!cv}")")"
done
row "powersoftau new, 2^$POWER" "$(wall "$c_new")" "-" "-"
row "powersoftau contribute, 2^$POWER" "$(wall "$c_con")" "-" "-"
row "powersoftau prepare phase2, 2^$POWER" "$(wall "$c_pre")" "-" "-"
c_zn=$(timed "$CUZK" zkey new "$W/c.r1cs" "$W/f.ptau" "$W/c0.zkey")
s_zn=$(snarkjs_timed zkey new "$W/c.r1cs" "$W/f.ptau" "$W/s0.zkey")
row "zkey new, 2^$POWER ($M constraints)" "$(wall "$c_zn")" "$(wall "$s_zn")" "$(bench_ratio "$(wall "$s_zn")" "$(wall "$c_zn")")"
if [ -f "$W/s0.zkey" ] && [ -f "$W/c0.zkey" ]; then
    cmp -s "$W/s0.zkey" "$W/c0.zkey" && echo "(the two keys are identical, byte for byte)" >&2 || echo "(the keys DIFFER)" >&2
fi
c_zc=$(timed "$CUZK" zkey contribute "$W/c0.zkey" "$W/c1.zkey" -e=bench)
s_zc=$(snarkjs_timed zkey contribute "$W/c0.zkey" "$W/s1.zkey" -e=bench)
row "zkey contribute, 2^$POWER" "$(wall "$c_zc")" "$(wall "$s_zc")" "$(bench_ratio "$(wall "$s_zc")" "$(wall "$c_zc")")"
