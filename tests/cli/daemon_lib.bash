# Helpers of the daemon tests (daemon.sh, daemon_wasm.sh), sourced after
# tests/interop/lib.sh: daemons started in the background and killed at
# exit, JSON read back, failures said.

declare -A PID=()
cleanup() {
    for p in "${PID[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# jget FILE PYTHON-EXPR: the expression over the JSON in FILE (as d).
jget() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
fail() { echo "FAIL: $*"; exit 1; }
# start_daemon NAME CONFIG: runs the daemon in the background until it answers.
start_daemon() {
    "$CUZK" daemon --config "$2" >"$WORK/$1.out" 2>&1 &
    PID[$1]=$!
    for _ in $(seq 600); do # a generous minute: nothing here measures how long it takes
        "$CUZK" client status --connect "unix:$WORK/$1.sock" >/dev/null 2>&1 && return 0
        kill -0 "${PID[$1]}" 2>/dev/null || { cat "$WORK/$1.out"; fail "the daemon $1 died at start"; }
        sleep 0.1
    done
    fail "the daemon $1 did not answer"
}
