# The daemon's limits on TCP connections without the token, end to end: one
# address (IPv4, and IPv6 where the machine has ::1) opening many such
# connections only pushes out its own, never another address's waiting
# connection, and clients with the token are served throughout. Every check
# is an event (a connection closed by the server, a response); the long
# unauthenticated_timeout_s keeps the server's own timeout out of the way.
source "$(dirname "$0")/../interop/lib.sh"
source "$ROOT/tests/cli/daemon_lib.bash"

free_port() { python3 -c 'import socket, sys; s = socket.socket(int(sys.argv[1])); s.bind((sys.argv[2], 0)); print(s.getsockname()[1])' "$@"; }
PORT=$(free_port 2 127.0.0.1)
PORT6=
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
    PORT6=$(free_port 10 ::1)
fi
echo s3cret >"$WORK/token"
chmod 600 "$WORK/token"
PER_ADDRESS=3
{
    echo "[daemon]"
    echo "listen = unix:$WORK/d.sock"
    echo "listen = tcp:127.0.0.1:$PORT"
    [ -n "$PORT6" ] && echo "listen = tcp:[::1]:$PORT6"
    echo "token_file = $WORK/token"
    echo "unauthenticated_per_address = $PER_ADDRESS"
    echo "unauthenticated_timeout_s = 3600"
    echo "[devices]"
    echo "backend = sim"
    echo "[logging]"
    echo "file = $WORK/d.log"
} >"$WORK/d.ini"

step "start a daemon on a unix socket and TCP (IPv4${PORT6:+ and IPv6})"
start_daemon d "unix:$WORK/d.sock" --config "$WORK/d.ini"

FLOOD=(python3 "$ROOT/tests/cli/address_flood.py")
step "40 connections without the token from 127.0.0.2; a bystander from 127.0.0.3"
"${FLOOD[@]}" "127.0.0.1:$PORT" 127.0.0.2 "127.0.0.1:$PORT" 127.0.0.3 s3cret $PER_ADDRESS 40 | tee "$WORK/flood.out"
if [ -n "$PORT6" ]; then
    step "40 from ::1 on the IPv6 listener; a bystander from 127.0.0.4"
    "${FLOOD[@]}" "[::1]:$PORT6" ::1 "127.0.0.1:$PORT" 127.0.0.4 s3cret $PER_ADDRESS 40 | tee -a "$WORK/flood.out"
fi

step "the unix socket is not limited by address"
for _ in 1 2 3 4 5; do "$CUZK" client status --connect "unix:$WORK/d.sock" >/dev/null || fail "the unix socket"; done

step "the log says why each was closed: its address's share, never the total"
floods=1
[ -n "$PORT6" ] && floods=2
# each flood, then the fresh token holder's connection; plus, at most, the
# flood's PER_ADDRESS - 1 connections answered 401: the client reads the
# answer before the server has unlisted them (at its close notification),
# and the speaking pool that comes next may push them out first. More only
# where a speaking pool's try was redone (address_flood.py's "redone
# tries: N"), which may add its own
want=$(((40 - PER_ADDRESS + 1) * floods))
most=$((want + (PER_ADDRESS - 1) * floods))
redone=$(awk '/^redone tries: [0-9]+$/ { n += $3; seen++ } END { print seen ? n : "none" }' "$WORK/flood.out")
[ "$redone" != none ] || fail "address_flood.py did not say how many tries it redid"
got=$(grep -c 'closed an idle connection without a token.*reason=per_address' "$WORK/d.log" || true)
if [ "$redone" -eq 0 ]; then
    [ "$got" -ge "$want" ] && [ "$got" -le "$most" ] ||
        fail "$got connections closed for their address's share, expected $want to $most"
else
    [ "$got" -ge "$want" ] || fail "$got connections closed for their address's share, expected $want at least ($redone tries redone)"
fi
! grep -q 'reason=total' "$WORK/d.log" || fail "a connection was closed for the total, which one address cannot reach"

kill -TERM "${PID[d]}"
wait "${PID[d]}" || fail "the daemon did not exit 0 on SIGTERM"
unset 'PID[d]'
echo "connection limits: OK"
