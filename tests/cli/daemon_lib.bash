# Helpers of the daemon tests (daemon.sh, daemon_wasm.sh, connection_limits.sh,
# load.sh, cluster.sh, daemon_restart.sh), sourced after tests/interop/lib.sh: daemons started
# in the background and killed at exit (stopped ones too), JSON read back,
# failures said. A test may define cleanup_extra (run at exit, before the
# work folder goes); KEEP_WORK=1 keeps that folder.

declare -A PID=()
# Only daemons still running (or stopped) are killed: the number of one that
# ended may since have been given to another process, a test running beside
# this one among them.
cleanup() {
    local live
    live=" $(jobs -rp | tr '\n' ' ') "
    for p in "${PID[@]}"; do
        [[ $live == *" $p "* ]] || continue
        kill -CONT "$p" 2>/dev/null
        kill -9 "$p" 2>/dev/null || true
    done
    if declare -F cleanup_extra >/dev/null; then cleanup_extra; fi
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

# jget FILE PYTHON-EXPR: the expression over the JSON in FILE (as d).
jget() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
fail() { echo "FAIL: $*"; exit 1; }
# start_daemon NAME CONNECT ARGS...: `$DAEMON_BIN daemon ARGS` (default
# $CUZK) in the background, PID[NAME], its output appended to
# $WORK/NAME.out, until it answers a status at CONNECT. Its jobs are kept
# in memory unless ARGS name a job store (--set daemon.state_dir=DIR): the
# default folder, /var/lib/cuzk, takes one daemon, and tests run side by side.
start_daemon() {
    local name=$1 connect=$2
    shift 2
    local memory=(--set daemon.state_dir=)
    [[ " $* " == *" daemon.state_dir="* || " $* " == *" --set=daemon.state_dir="* ]] && memory=()
    "${DAEMON_BIN:-$CUZK}" daemon "$@" "${memory[@]}" >>"$WORK/$name.out" 2>&1 &
    PID[$name]=$!
    for _ in $(seq 600); do # a generous minute: nothing here measures how long it takes
        "$CUZK" client status --connect "$connect" >/dev/null 2>&1 && return 0
        kill -0 "${PID[$name]}" 2>/dev/null || { cat "$WORK/$name.out"; fail "the daemon $name died at start"; }
        sleep 0.1
    done
    fail "the daemon $name did not answer"
}
