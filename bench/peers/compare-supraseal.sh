#!/bin/sh
# bench/peers/compare-supraseal.sh: issue 49's oracle, on the GPU machine,
# from the repository root: supraseal-c2 itself and libcuzk, driven through
# the same C ABI by bench/peers/c2_prove.c (build/peers/supraseal, made by
# bench/peers/build-supraseal.sh and carried), on the same .params file and
# the same assignments:
#   - r = s = 0: the proofs of both are the same bytes, a batch of 1 and of
#     BATCH
#   - random r, s: both libraries' proofs verify (pairing check)
# at each of LOGS (default 10,16,20: circuits of 2^k - 8 constraints,
# `cuzk circuit synth --shape mixed`, half of the witness 0 and 1, whose
# every wire is in a constraint, as a .params needs; keys made on the CPU by
# `cuzk setup --format params`). Prints one line a
# size with both calls' seconds; exits non-zero when a check fails.
# Environment: LOGS, BATCH (default 3), CUZK (default
# build/gpu-bundle/cuzk), DIR (default build/peers/supraseal/run).
set -u

LOGS=${LOGS:-10,16,20}
BATCH=${BATCH:-3}
CUZK=${CUZK:-build/gpu-bundle/cuzk}
BIN=build/peers/supraseal
DIR=${DIR:-$BIN/run}
for p in "$CUZK" "$BIN/c2-prove-cuzk" "$BIN/c2-prove-supraseal"; do
    [ -x "$p" ] || { echo "compare-supraseal: no program at $p" >&2; exit 1; }
done
[ -d build/gpu-bundle/lib ] && export LD_LIBRARY_PATH="$PWD/build/gpu-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$DIR"

status=0
check() { # what, command...: runs it, its output to $DIR/log
    what=$1; shift
    if ! "$@" >>"$DIR/log" 2>&1; then
        echo "FAIL  $what (log: $DIR/log)"; tail -n 5 "$DIR/log" | sed 's/^/    | /'; status=1; return 1
    fi
}
seconds() { sed -n 's/.*second call \([0-9.]*\) s.*/\1/p' "$1"; }

for lg in $(echo "$LOGS" | tr , ' '); do
    s=$DIR/$lg
    n=$(( (1 << lg) - 8 ))
    check "2^$lg: circuit" "$CUZK" circuit synth --curve bls12381 --constraints $n --public 4 --shape mixed --seed $lg \
        "$s.r1cs" "$s.wtns" || continue
    check "2^$lg: key" "$CUZK" setup --format params "$s.r1cs" "$s.params" || continue
    check "2^$lg: assignment" "$BIN/c2-prove-cuzk" assignment "$s.r1cs" "$s.wtns" "$s.as" || continue
    for lib in cuzk supraseal; do
        check "2^$lg: $lib, one proof" "$BIN/c2-prove-$lib" prove "$s.params" "$s.as" 1 "$s.$lib.1" &&
        check "2^$lg: $lib, a batch of $BATCH" sh -c "'$BIN/c2-prove-$lib' prove '$s.params' '$s.as' $BATCH '$s.$lib.b' \
            >'$s.$lib.time'" &&
        check "2^$lg: $lib, random r, s" "$BIN/c2-prove-$lib" prove "$s.params" "$s.as" 2 "$s.$lib.r" --random &&
        check "2^$lg: $lib's random proofs verify" "$BIN/c2-prove-cuzk" verify "$s.params" "$s.as" "$s.$lib.r"
    done
    same=yes
    cmp -s "$s.cuzk.1" "$s.supraseal.1" && cmp -s "$s.cuzk.b" "$s.supraseal.b" || { same=NO; status=1; }
    echo "2^$lg: r = s = 0 proofs byte-identical: $same; a batch of $BATCH (second call): cuzk $(seconds "$s.cuzk.time") s," \
        "supraseal-c2 $(seconds "$s.supraseal.time") s"
done
exit $status
