#!/bin/sh
# bench/peers/c2-porep.sh: issue 49's C2-shaped call, on the GPU machine,
# from the repository root: a PoRep-shaped partition at 2^LOG (default 27:
# 328 inputs, ~130M aux and constraints; `cuzk params synth --shape porep`,
# its key's fixed-base multiplications on the GPU, ~44 GiB .params and a
# compact assignment), then both drivers of supraseal-c2's ABI
# (bench/peers/c2_prove.c, build/peers/supraseal from build-supraseal.sh)
# on one call of COUNT (default 10) partitions sharing one witness:
#   - r = s = 0: both libraries' proofs are the same bytes
#   - random r, s: both libraries' proofs verify
# and prints each call's wall time (create_SRS, first and second call),
# each process's peak host memory (/usr/bin/time -v) and the card's peak
# memory (nvidia-smi, sampled each second); with LIMIT_GIB set, cuzk runs
# once more under that device memory limit (CUZK_SUPRASEAL_GPU_GIB: a key
# too large is streamed from host memory), the same proofs. Exits non-zero
# when a check fails.
# Environment: LOG, COUNT, LIMIT_GIB (default 32; empty: no limited run),
# RANDOM_RS (default 1; 0 skips the random-r, s runs, for a call's time),
# SYNTH_BACKEND (default gpu), CUZK_SUPRASEAL_BACKEND (default gpu), BIN
# (default build/peers/supraseal),
# CUZK (default build/gpu-bundle/cuzk), DIR (default
# build/peers/supraseal/porep; keeps KEY.params and the assignment between
# runs of the same LOG: REUSE=1 skips making them again).
set -u

LOG=${LOG:-27}
COUNT=${COUNT:-10}
LIMIT_GIB=${LIMIT_GIB-32}
CUZK=${CUZK:-build/gpu-bundle/cuzk}
BIN=${BIN:-build/peers/supraseal}
LIB_BACKEND=${CUZK_SUPRASEAL_BACKEND:-gpu}
DIR=${DIR:-$BIN/porep}
for p in "$CUZK" "$BIN/c2-prove-cuzk" "$BIN/c2-prove-supraseal"; do
    [ -x "$p" ] || { echo "c2-porep: no program at $p" >&2; exit 1; }
done
[ -d build/gpu-bundle/lib ] && export LD_LIBRARY_PATH="$PWD/build/gpu-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$DIR"
key=$DIR/porep$LOG.params as=$DIR/porep$LOG.as

# peak_run CMD...: CMD with its peak resident memory said on stderr as GNU
# time -v says it ("Maximum resident set size (kbytes): N"); python3 where
# the machine has no /usr/bin/time
peak_run() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v "$@"
    else
        python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print("Maximum resident set size (kbytes): %d" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(rc)' "$@"
    fi
}

status=0
fail() { echo "FAIL  $1 (log: $DIR/log)"; grep -E 'c2-prove|cuzk:' "$DIR/log" | tail -n 3 | sed 's/^/    | /'; status=1; }
peak_host() { sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "$1" | awk '{printf "%.2f GiB", $1/1048576}'; }
gpu_sample_start() { # the card's used memory each second into $1
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 1000 >"$1" 2>/dev/null &
    sampler=$!
}
gpu_sample_stop() { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null; sort -n "$1" | tail -n 1 | awk '{printf "%.1f GiB", $1/1024}'; }

if [ "${REUSE:-0}" != 1 ] || [ ! -s "$key" ] || [ ! -s "$as" ]; then
    echo "2^$LOG: making the key and the assignment (cuzk params synth --backend ${SYNTH_BACKEND:-gpu})..."
    rm -f "$key" "$as"
    if peak_run "$CUZK" params synth --shape porep --log "$LOG" --backend "${SYNTH_BACKEND:-gpu}" "$key" "$as" >"$DIR/synth.time" 2>&1; then
        echo "2^$LOG: synth $(sed -n 's/.*done in \([0-9.]*\) s.*/\1/p' "$DIR/synth.time") s, peak host $(peak_host "$DIR/synth.time"); $(du -h "$key" | cut -f1) key, $(du -h "$as" | cut -f1) assignment"
    else
        cat "$DIR/synth.time" >>"$DIR/log"; fail "2^$LOG: params synth"; exit 1
    fi
fi

prove() { # tag lib [--random] [env...]: one run of c2-prove-<lib> with COUNT partitions
    tag=$1 lib=$2 flag=$3; shift 3
    gpu_sample_start "$DIR/$tag.gpu"
    if (export "$@"; peak_run "$BIN/c2-prove-$lib" prove "$key" "$as" "$COUNT" "$DIR/$tag.proofs" $flag \
        ) >"$DIR/$tag.out" 2>"$DIR/$tag.time"; then
        echo "2^$LOG x $COUNT, $tag: $(cat "$DIR/$tag.out"); peak host $(peak_host "$DIR/$tag.time"), device $(gpu_sample_stop "$DIR/$tag.gpu")"
    else
        gpu_sample_stop "$DIR/$tag.gpu" >/dev/null
        cat "$DIR/$tag.out" "$DIR/$tag.time" >>"$DIR/log"; fail "2^$LOG x $COUNT: $tag"; return 1
    fi
}
verify() { "$BIN/c2-prove-cuzk" verify "$key" "$as" "$DIR/$1.proofs" >>"$DIR/log" 2>&1 || fail "2^$LOG: $1's proofs verify"; }

for lib in cuzk supraseal; do
    prove "$lib" "$lib" "" CUZK_SUPRASEAL_BACKEND="$LIB_BACKEND" && verify "$lib"
    [ "${RANDOM_RS:-1}" = 0 ] ||
        { prove "$lib-random" "$lib" --random CUZK_SUPRASEAL_BACKEND="$LIB_BACKEND" && verify "$lib-random"; }
done
if cmp -s "$DIR/cuzk.proofs" "$DIR/supraseal.proofs"; then
    echo "2^$LOG x $COUNT: r = s = 0 proofs byte-identical: yes"
else
    echo "2^$LOG x $COUNT: r = s = 0 proofs byte-identical: NO"; status=1
fi
# under a device memory limit: a key that does not fit the card is streamed
# from host memory during each proof; the same proofs
if [ -n "$LIMIT_GIB" ]; then
    tag=cuzk-${LIMIT_GIB}g
    gpu_sample_start "$DIR/$tag.gpu"
    if (export CUZK_SUPRASEAL_BACKEND="$LIB_BACKEND" CUZK_SUPRASEAL_GPU_GIB="$LIMIT_GIB"
        peak_run "$BIN/c2-prove-cuzk" prove "$key" "$as" "$COUNT" "$DIR/$tag.proofs") >"$DIR/$tag.out" 2>"$DIR/$tag.time"; then
        echo "2^$LOG x $COUNT, cuzk under $LIMIT_GIB GiB: $(cat "$DIR/$tag.out"); peak host $(peak_host "$DIR/$tag.time"), device $(gpu_sample_stop "$DIR/$tag.gpu")"
        cmp -s "$DIR/cuzk.proofs" "$DIR/$tag.proofs" || { echo "FAIL  under $LIMIT_GIB GiB: other proofs"; status=1; }
    else
        gpu_sample_stop "$DIR/$tag.gpu" >/dev/null
        cat "$DIR/$tag.out" "$DIR/$tag.time" >>"$DIR/log"; fail "2^$LOG x $COUNT: cuzk under $LIMIT_GIB GiB"
    fi
fi
exit $status
