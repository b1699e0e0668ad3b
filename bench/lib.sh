# shellcheck shell=bash
# Shared helpers of the benchmark scripts (bench/witness/sha256.sh,
# bench/peers/compare-rapidsnark.sh): one timed run under GNU time, medians,
# the machine's header lines. Sourced, not run; the caller sets BENCH_WORK,
# a scratch folder.

# bench_timed CMD...: runs CMD once under bench_rusage, its stdout dropped
# and its stderr kept in $BENCH_WORK/err; prints "wall_s cpu_s peak_rss_kib"
# (CPU: user + system). The wall time is bash's microsecond clock around
# the run (GNU time's %e has 10 ms steps: 3 % of a 0.3 s proof). When CMD
# fails, prints nothing and returns its exit status (GNU time's: 128 + the
# signal for a crash), the output left in $BENCH_WORK/err for the caller
# to report.
bench_timed() {
    local rc=0 t0=$EPOCHREALTIME t1
    bench_rusage "$BENCH_WORK/time" "$@" >/dev/null 2>"$BENCH_WORK/err" || rc=$?
    t1=$EPOCHREALTIME
    ((rc == 0)) || return $rc
    awk -v t0="$t0" -v t1="$t1" '{printf "%.4f %.3f %d\n", t1 - t0, $1 + $2, $3}' "$BENCH_WORK/time"
}

# bench_rusage FILE CMD...: runs CMD, writing "user_s system_s peak_rss_kib"
# to FILE: GNU time's, or where a machine lacks /usr/bin/time (the bare GPU
# machine) python3's getrusage of its child; CMD's exit status.
bench_rusage() {
    local file=$1
    shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%U %S %M' -o "$file" "$@"
    else
        python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.2f %.2f %d\n" % (u.ru_utime, u.ru_stime, u.ru_maxrss))
sys.exit(rc if rc >= 0 else 128 - rc)' "$file" "$@"
    fi
}

# bench_median: lines of numbers in, one line out: each column's median
# (the lower middle of an even count), every column sorted on its own, the
# value printed as it came in.
bench_median() {
    awk '{ for (i = 1; i <= NF; i++) v[i, NR] = $i; if (NF > nf) nf = NF }
    END {
        for (i = 1; i <= nf; i++) {
            for (r = 1; r <= NR; r++) {
                x = v[i, r]
                for (j = r - 1; j >= 1 && s[j] + 0 > x + 0; j--) s[j + 1] = s[j]
                s[j + 1] = x
            }
            printf "%s%s", (i > 1 ? " " : ""), s[int((NR + 1) / 2)]
        }
        printf "\n"
    }'
}

# bench_repeat N CMD...: N runs of bench_timed CMD, the median of each
# column; stops at the first failure with its status.
bench_repeat() {
    local n=$1 i
    shift
    for ((i = 0; i < n; i++)); do bench_timed "$@" >>"$BENCH_WORK/runs" || { rm -f "$BENCH_WORK/runs"; return 1; }; done
    bench_median <"$BENCH_WORK/runs"
    rm -f "$BENCH_WORK/runs"
}

# bench_ratio A B [FORMAT]: A / B ("-" when either is missing or B is 0)
bench_ratio() {
    awk -v a="$1" -v b="$2" -v f="${3:-%.2fx}" 'BEGIN { if (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0) print "-"; else printf f "\n", a / b }'
}

# bench_cpu_line: the CPU model, cores, AVX-512 IFMA present or not, load
bench_cpu_line() {
    local ifma=no
    grep -qw avx512ifma /proc/cpuinfo && ifma=yes
    echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, avx512ifma: $ifma; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# bench_cpp_missing: why circom's C++ witness generator (circom --c) cannot
# be built here ("" when it can): it needs g++, nasm, make, GMP and
# nlohmann-json; CPP=0 turns it off.
bench_cpp_missing() {
    local why="" t
    for t in g++ nasm make; do command -v "$t" >/dev/null || why="$why missing $t"; done
    [ -f /usr/include/nlohmann/json.hpp ] || why="$why missing nlohmann-json3-dev"
    [ -f /usr/include/gmp.h ] || [ -f /usr/include/x86_64-linux-gnu/gmp.h ] || why="$why missing libgmp-dev"
    [ "${CPP:-1}" = 1 ] || why=" CPP=$CPP"
    echo "$why"
}

# bench_circom NAME CPP_MISSING: compiles tests/interop/NAME.circom (circom2,
# a WASI build, reads only under the working directory: the repository)
# into $BENCH_WORK (r1cs, wasm, and the C++ generator's sources when
# CPP_MISSING is empty), circom's output in $BENCH_WORK/circom.log; prints
# CPP_MISSING again, or why --c failed: circom2's WASI shim can fail to
# open a file once circom's memory is past 2 GiB ("RangeError: Start offset
# -1853863728 is outside the bounds of the buffer", once in two runs of
# SHA-256 of 16384 bits), and --r1cs --wasm alone then still fit.
bench_circom() {
    local name=$1 missing=$2 node=$ROOT/tests/interop/node_modules
    compile() {
        (cd "$ROOT" && "$node/.bin/circom2" "tests/interop/$name.circom" --r1cs --wasm "$@" -l "$node" \
            -o "$BENCH_WORK" >"$BENCH_WORK/circom.log" 2>&1)
    }
    if [ -n "$missing" ]; then
        compile
    elif ! compile --c; then
        missing=" circom2 --c failed: $(grep -m1 Error "$BENCH_WORK/circom.log" || tail -n 1 "$BENCH_WORK/circom.log")"
        rm -rf "$BENCH_WORK/${name}_cpp"
        compile
    fi
    echo "$missing"
}

# bench_circom_size: "C constraints, W wires" from $BENCH_WORK/circom.log
bench_circom_size() {
    sed 's/\x1b\[[0-9;]*m//g' "$BENCH_WORK/circom.log" |
        awk '/non-linear constraints/ {n += $NF} /^linear constraints/ {n += $NF} /^wires:/ {w = $NF}
             END {print n " constraints, " w " wires"}'
}

# bench_run CMD...: one timed run (bench_timed); a failure stops the
# benchmark with CMD's output. bench_med N CMD...: the same for bench_repeat.
bench_run() { bench_timed "$@" || { echo "failed: $*" >&2; cat "$BENCH_WORK/err" >&2; exit 1; }; }
bench_med() { bench_repeat "$@" || { echo "failed: ${*:2}" >&2; cat "$BENCH_WORK/err" >&2; exit 1; }; }
