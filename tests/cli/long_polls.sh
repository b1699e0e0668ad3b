# Requests that wait for a job (GET /v1/jobs/ID?wait_ms=N), end to end: at
# most three quarters of [daemon] max_connections wait at once (the others
# answer at once), so status answers while they wait; and a waiting
# request whose client hangs up ends, its connection freed, long before
# its wait would. Every check is an event: a log line, a response, a
# client's exit (the job is held running by the sim backend's gate).
source "$(dirname "$0")/../interop/lib.sh"
source "$ROOT/tests/cli/daemon_lib.bash"

"$CUZK" circuit synth --curve bn128 --constraints 100 --public 2 "$WORK/c.r1cs" "$WORK/w.wtns"
"$CUZK" setup "$WORK/c.r1cs" "$WORK/c.zkey" 2>/dev/null
cat >"$WORK/d.ini" <<EOF2
[daemon]
listen = unix:$WORK/d.sock
max_connections = 8
max_wait_s = 600
[gpus]
backend = sim
sim_gpu_ms = 1
sim_gate = $WORK/gate
[keys]
circuit = c, $WORK/c.zkey
[logging]
file = $WORK/d.log
level = debug
EOF2
export CUZK_CONNECT=unix:$WORK/d.sock
start_daemon d "$CUZK_CONNECT" --config "$WORK/d.ini"
job=$("$CUZK" client submit --quiet --circuit c "$WORK/w.wtns")

# wait_client N: GET the job with a 600 s wait on a connection of its own,
# printing the status line it gets (if any) to $WORK/wait.N; run with &,
# $! is the client itself (exec), so that killing it closes the connection
wait_client() {
    exec python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(("GET /v1/jobs/%s?wait_ms=600000 HTTP/1.1\r\nHost: d\r\n\r\n" % sys.argv[2]).encode())
print(s.recv(65536).split(b"\r\n")[0].decode(), flush=True)' "$WORK/d.sock" "$job" >"$WORK/wait.$1" 2>&1
}
# log_count TEXT N: waits until the log has N lines with TEXT (a minute at most)
log_count() {
    for _ in $(seq 1200); do
        [ "$(grep -c "$1" "$WORK/d.log")" -ge "$2" ] && return 0
        sleep 0.05
    done
    fail "the log has $(grep -c "$1" "$WORK/d.log") lines of '$1', not $2"
}

step "8 waiting clients on 8 connections: 6 wait, 2 are answered at once"
declare -a CLIENT=()
for i in $(seq 8); do
    wait_client "$i" &
    CLIENT[$i]=$!
done
log_count 'msg="waiting for a job"' 6
# answered_count: the clients that got an answer
answered_count() { cat "$WORK"/wait.* 2>/dev/null | grep -c '^HTTP/1.1 200' || true; }
for _ in $(seq 1200); do [ "$(answered_count)" -ge 2 ] && break; sleep 0.05; done
[ "$(answered_count)" = 2 ] || fail "$(answered_count) clients answered at once, not 2"
for i in $(seq 8); do
    if [ -s "$WORK/wait.$i" ]; then wait "${CLIENT[$i]}"; unset "CLIENT[$i]"; fi
done
[ "${#CLIENT[@]}" = 6 ] || fail "${#CLIENT[@]} clients wait, not 6"

step "status and metrics answer while they wait"
"$CUZK" client status >/dev/null || fail "status"
"$CUZK" client metrics >/dev/null || fail "metrics"

step "the waiting clients hang up: their requests end"
for i in "${!CLIENT[@]}"; do kill "${CLIENT[$i]}"; wait "${CLIENT[$i]}" 2>/dev/null || true; done
log_count 'msg="wait ended: the client hung up"' 6

step "their connections are free: 6 wait again, and the job ends them"
for i in $(seq 11 16); do wait_client "$i" & CLIENT[$i]=$!; done
log_count 'msg="waiting for a job"' 12
touch "$WORK/gate"
for i in $(seq 11 16); do
    wait "${CLIENT[$i]}"
    grep -q '^HTTP/1.1 200' "$WORK/wait.$i" || { cat "$WORK/wait.$i"; fail "client $i after the job ended"; }
done

kill -TERM "${PID[d]}"
wait "${PID[d]}" || fail "the daemon did not exit 0 on SIGTERM"
unset 'PID[d]'
echo "long polls: OK"
