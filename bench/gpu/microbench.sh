#!/bin/sh
# bench/gpu/microbench.sh: the GPU microbenchmarks of issue 50, each with its
# default arguments, their output in one file ("${OUT:-build}"/gpu-microbench.txt,
# also printed). Built by `make CUDA=1 build/gpu-probe-pipes build/gpu-probe-mul
# build/gpu-probe-inv build/gpu-probe-affine-warp build/gpu-probe-affine-shared`
# (or gpu-bundle, which carries them and this script).
#
#   bench/gpu/microbench.sh            programs from build/ (or this script's
#                                      folder, when it holds them: the bundle)
#   BIN=dir OUT=dir bench/gpu/microbench.sh
#   PROBES="gpu-probe-affine-shared" bench/gpu/microbench.sh   only those
#
# Exits 1 if any program failed (a check that did not hold, or a CUDA error);
# the others still run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${BIN:-}" ]; then
    bin=$BIN
elif [ -x "$here/gpu-probe-mul" ]; then
    bin=$here
else
    bin=build
fi
out=${OUT:-build}
mkdir -p "$out"
log=$out/gpu-microbench.txt
: >"$log"
say() { echo "$@" | tee -a "$log"; }

say "# GPU microbenchmarks (issue 50), $(date -u '+%Y-%m-%d %H:%M UTC'), programs from $bin"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv 2>&1 | tee -a "$log"
fi
status=0
for p in ${PROBES:-gpu-probe-pipes gpu-probe-mul gpu-probe-inv gpu-probe-affine-warp gpu-probe-affine-shared}; do
    say ""
    say "## $p"
    say ""
    "$bin/$p" >"$log.part" 2>&1
    rc=$?
    cat "$log.part" | tee -a "$log"
    rm -f "$log.part"
    if [ "$rc" -ne 0 ]; then
        say "$p FAILED (exit $rc)"
        status=1
    fi
done
if command -v nvidia-smi >/dev/null 2>&1; then
    say ""
    nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv 2>&1 | tee -a "$log"
fi
say ""
say "output in $log"
exit $status
