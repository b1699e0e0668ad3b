#!/usr/bin/env bash
# The daemon at PoRep scale (issue 16, item 5), run ON the GPU machine from
# the repository root with the programs of `make CUDA=1 gpu-bundle`:
#   bench/porep/daemon.sh [CONSTRAINTS] [JOBS] [PARTITIONS]
# (default 134217720 = 2^27 - 8 constraints, 1 job of 10 partitions;
# DEPTH: the semaphore's permits, partitions synthesized or waiting for
# the device at once, default 2). A
# bit-heavy BLS12-381 circuit and one witness are written to $WORK (default
# build/porep-daemon: ~28 GB at 2^27); a `cuzk daemon` on the GPU backend
# makes the circuit's development key on the device only (no zkey could fit
# the disk), the jobs' partitions all prove that witness, every proof is
# verified here with `cuzk groth16 verify` against the key's vk from the
# daemon, and the daemon's status and metrics are scraped. Results under
# ${OUT:-$WORK}: daemon-status.json, daemon-metrics.txt, daemon-jobs.json,
# daemon-summary.txt, the timeline JSONL and its SVG.
set -euo pipefail
cd "$(dirname "$0")/../.."
constraints=${1:-134217720}
jobs=${2:-1}
partitions=${3:-10}
bundle=${GPU_BUNDLE:-build/gpu-bundle}
[[ -d $bundle || ! -f $bundle.tar.xz ]] || tar -C "$(dirname "$bundle")" -xJf "$bundle.tar.xz"
export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cuzk=$PWD/$bundle/cuzk
work=${WORK:-$PWD/build/porep-daemon}
out=${OUT:-$work}
mkdir -p "$work" "$out"
log() { echo "porep-daemon: $(date +%T) $*" | tee -a "$out/daemon-summary.txt"; }
pid=
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true' EXIT

log "circuit: $constraints constraints, bits shape, BLS12-381"
t0=$SECONDS
"$cuzk" circuit synth --curve bls12381 --constraints "$constraints" --public 3 --shape bits \
    "$work/c.r1cs" "$work/w.wtns" | tee -a "$out/daemon-summary.txt"
log "written in $((SECONDS - t0)) s"

cat >"$work/d.ini" <<INI
[daemon]
listen = unix:$work/d.sock
# jobs in memory, as measured before the job store (issue 52)
state_dir =
[memory]
budget_gib = 100
[scheduler]
max_device_queue_depth = ${DEPTH:-2}
[devices]
backend = gpu
workers_per_device = 2
[synthesis]
workers = 8
[pipeline]
timeline = $out/daemon-timeline.jsonl
[logging]
file = $out/daemon.log
INI
export CUZK_CONNECT=unix:$work/d.sock
"$cuzk" daemon --config "$work/d.ini" >"$out/daemon.out" 2>&1 &
pid=$!
for _ in $(seq 600); do
    "$cuzk" client status >/dev/null 2>&1 && break
    kill -0 "$pid" || { cat "$out/daemon.out"; exit 1; }
    sleep 0.1
done

t0=$SECONDS
"$cuzk" client register --development-setup --device-only porep "$work/c.r1cs" >"$out/daemon-register.json"
log "development key made and registered in $((SECONDS - t0)) s"
"$cuzk" client verificationkey porep >"$work/vk.json"

t0=$SECONDS
ids=()
for j in $(seq "$jobs"); do
    ids+=("$("$cuzk" client submit --quiet --circuit porep $(for _ in $(seq "$partitions"); do echo "$work/w.wtns"; done))")
done
echo '[' >"$out/daemon-jobs.json"
for j in "${!ids[@]}"; do
    mkdir -p "$work/out$j"
    "$cuzk" client await --out "$work/out$j" "${ids[$j]}" >"$work/job$j.json"
    log "job ${ids[$j]} ended at $((SECONDS - t0)) s"
    cat "$work/job$j.json" >>"$out/daemon-jobs.json"
    [ "$j" = $((${#ids[@]} - 1)) ] || echo ',' >>"$out/daemon-jobs.json"
done
echo ']' >>"$out/daemon-jobs.json"
log "$jobs job(s) of $partitions partitions in $((SECONDS - t0)) s"

verified=0
for j in "${!ids[@]}"; do
    for ((p = 0; p < partitions; p++)); do
        "$cuzk" groth16 verify "$work/vk.json" "$work/out$j/public_$p.json" "$work/out$j/proof_$p.json" |
            grep -q 'OK!' && verified=$((verified + 1))
    done
done
log "verified by groth16 verify: $verified of $((jobs * partitions))"
"$cuzk" client status >"$out/daemon-status.json"
"$cuzk" client metrics >"$out/daemon-metrics.txt"
kill -TERM "$pid"
wait "$pid" || true
pid=
"$cuzk" diag timeline "$out/daemon-timeline.jsonl" -o "$out/daemon-timeline.svg" >"$out/daemon-timeline.txt" 2>&1 || true
[ "$verified" = $((jobs * partitions)) ]
