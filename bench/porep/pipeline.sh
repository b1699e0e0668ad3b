#!/usr/bin/env bash
# bench pipeline at PoRep scale (issue 16, items 3-4), run ON the GPU machine
# from the repository root with the programs of `make CUDA=1 gpu-bundle`:
#   bench/porep/pipeline.sh [POLICIES] [JOBS] [PARTITIONS] [CONSTRAINTS]
# (defaults "semaphore pacer poll", 2 jobs, 10 partitions, 134217720 =
# 2^27 - 8 constraints). Each policy runs in a process of its own: a
# bit-heavy BLS12-381 circuit, its development key made on the device only
# and one witness, all in memory (lent to every partition), every proof
# verified by the engine. PIPELINE_ARGS adds options (default: 8 synthesis
# workers of 4 threads, 1 device worker, depth 2, budget 100 GiB). Results under
# ${OUT:-build/porep-pipeline}, per policy: the report (JSON), the log and
# `diag pool` of it, the timeline and its SVG and `diag timeline`; and
# free/nvidia-smi samples every 2 s over the whole run (samples.txt).
set -uo pipefail
cd "$(dirname "$0")/../.."
policies=${1:-semaphore pacer poll}
jobs=${2:-2}
partitions=${3:-10}
constraints=${4:-134217720}
args=${PIPELINE_ARGS:---synthesis-workers 8 --synthesis-threads 4 --device-workers 1 --depth 2 --budget-gib 100}
limit=${PIPELINE_TIMEOUT:-420}
bundle=${GPU_BUNDLE:-build/gpu-bundle}
[[ -d $bundle || ! -f $bundle.tar.xz ]] || tar -C "$(dirname "$bundle")" -xJf "$bundle.tar.xz"
export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cuzk=$PWD/$bundle/cuzk
out=${OUT:-build/porep-pipeline}
mkdir -p "$out"

# what memory does meanwhile: the host's (free) and the device's
(while :; do
    echo "== $(date +%T)"
    free -m | sed -n 2p
    nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader 2>/dev/null
    sleep 2
done) >"$out/samples.txt" 2>&1 &
sampler=$!
trap 'kill $sampler 2>/dev/null' EXIT

status=0
for policy in $policies; do
    echo "pipeline: $(date +%T) $policy: $jobs jobs x $partitions partitions of $constraints constraints"
    # shellcheck disable=SC2086 # args is a list of options
    timeout "$limit" "$cuzk" bench pipeline --backend gpu --policy "$policy" --jobs "$jobs" \
        --partitions "$partitions" --constraints "$constraints" --shape bits --device-key $args --json \
        --timeline "$out/$policy-timeline.jsonl" --log "$out/$policy.log" \
        >"$out/$policy.json" 2>"$out/$policy.err"
    rc=$?
    echo "pipeline: $(date +%T) $policy: exit $rc"
    tail -n 3 "$out/$policy.err"
    cat "$out/$policy.json"
    [ "$rc" = 0 ] || status=1
    "$cuzk" diag pool "$out/$policy.log" >"$out/$policy-pool.txt" 2>&1
    "$cuzk" diag timeline "$out/$policy-timeline.jsonl" -o "$out/$policy-timeline.svg" \
        >"$out/$policy-timeline.txt" 2>&1
    head -n 12 "$out/$policy-timeline.txt"
done
exit $status
