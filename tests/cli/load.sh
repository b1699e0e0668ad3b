# The daemon under load (issue 17): real proofs on the cpu backend of a
# small BN254 key; a warm-up round, then 1,000 jobs submitted by 8 threads
# at once (unix socket and TCP with the token; priorities, request ids some
# submitted 2-4 times at once, inline witnesses, jobs of 2-3 partitions)
# while 40 idle TCP connections without a token from ten other addresses
# press on the listener, an authorized client keeps asking for the status,
# and a cancel storm hits
# jobs right after their submit, while they run and after they are done
# (tests/cli/load_driver.py drives it from one process). Then: nothing
# lost, ids unique, request ids idempotent, each cancel's answer consistent
# with its job's end, every done proof verified by the daemon (100 of them
# by `cuzk groth16 verify`, 3 by snarkjs when installed), status and
# metrics equal to the counts, the daemon's RSS flat, SIGTERM exits 0.
# CUZK_LOAD_JOBS sizes the load; CUZK_LOAD_SEED repeats a run;
# CUZK_LOAD_DAEMON=build/debug/cuzk runs the daemon of the sanitizer build
# (its leak check at exit included).
source "$(dirname "$0")/../interop/lib.sh"
DAEMON_BIN=${CUZK_LOAD_DAEMON:-$CUZK}
have_snarkjs=0
command -v node >/dev/null && [ -x "$SNARKJS" ] && have_snarkjs=1
source "$ROOT/tests/cli/daemon_lib.bash"

step "a circuit of 200 constraints on BN254, its key, a witness"
"$CUZK" circuit synth --curve bn128 --constraints 200 --public 2 "$WORK/c.r1cs" "$WORK/w.wtns" >/dev/null
"$CUZK" setup "$WORK/c.r1cs" "$WORK/c.zkey" 2>/dev/null
"$CUZK" zkey export verificationkey "$WORK/c.zkey" "$WORK/vk.json"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "load-token" >"$WORK/token"
chmod 600 "$WORK/token"
SOCK=unix:$WORK/d.sock
# results_max: every job of both rounds stays fetchable until checked;
# unauthenticated_per_address: the driver's threads open 7 TCP connections
# at once from 127.0.0.1, and one whose thread has not yet sent its request
# (they share one interpreter) is silent, so pushable within a share of 4
DAEMON_ARGS=(--listen "$SOCK" --listen "tcp:127.0.0.1:$PORT" --token-file "$WORK/token" --backend cpu
    --log-file "$WORK/d.log" --set daemon.max_wait_s=30 --set memory.budget_gib=1 --set devices.cpu_threads=1
    --set synthesis.workers=2 --set pipeline.results_max=10000 --set daemon.unauthenticated_per_address=8 --set "keys.circuit=c, $WORK/c.zkey, $WORK/c.r1cs")

step "start the daemon"
start_daemon d "$SOCK" "${DAEMON_ARGS[@]}"
DAEMON=${PID[d]}

step "warm-up, then ${CUZK_LOAD_JOBS:-1000} jobs under idle connections and a cancel storm"
start=$SECONDS
python3 "$ROOT/tests/cli/load_driver.py" --unix "$SOCK" --tcp "tcp:127.0.0.1:$PORT" --token-file "$WORK/token" \
    --pid "$DAEMON" --witness "$WORK/w.wtns" --jobs "${CUZK_LOAD_JOBS:-1000}" --out "$WORK/proofs" \
    $([ "$DAEMON_BIN" = "$CUZK" ] || echo --no-rss-bound) | tee "$WORK/driver.out" ||
    {
        # the daemon's last words, then the driver's verdict last: the test
        # runner shows only a failed log's tail
        grep -v "idle connection without a token" "$WORK/d.log" | tail -n 12
        fail "the load: $(grep '^FAIL' "$WORK/driver.out" || tail -n 1 "$WORK/driver.out")"
    }
echo "  the driver took $((SECONDS - start)) s"
kill -0 "$DAEMON" || fail "the daemon died under the load"
# what the daemon warned of (the idle connections it closed, expected) and
# no error: no partition failed
grep -E 'level=(warn|error)' "$WORK/d.log" | sed -E 's/.*(level=[a-z]+ msg="[^"]*").*/\1/' | sort | uniq -c
! grep -q 'level=error' "$WORK/d.log" || { grep 'level=error' "$WORK/d.log" | head; fail "errors in the log"; }

step "done proofs: a sample verified by cuzk groth16 verify, a few by snarkjs"
# the daemon verified every one (the driver checks "verified": true); a
# process per proof for all of them would double the test's time
start=$SECONDS
n=$(wc -l <"$WORK/proofs/list")
shuf -n 100 "$WORK/proofs/list" >"$WORK/sample"
# two at a time; each prints OK! or fails
xargs -P 2 -I{} sh -c '"$1" groth16 verify "$2" {}.public.json {}.proof.json >/dev/null || echo "bad: {}"' _ \
    "$CUZK" "$WORK/vk.json" <"$WORK/sample" >"$WORK/bad.txt"
[ ! -s "$WORK/bad.txt" ] || { head "$WORK/bad.txt"; fail "$(wc -l <"$WORK/bad.txt") of $(wc -l <"$WORK/sample") proofs do not verify"; }
echo "  $(wc -l <"$WORK/sample") of the $n proofs verified in $((SECONDS - start)) s"
if [ $have_snarkjs = 1 ]; then
    for base in $(head -n 3 "$WORK/sample"); do
        snarkjs_verify "$WORK/vk.json" "$base.public.json" "$base.proof.json" || fail "snarkjs rejects $base"
    done
    echo "  3 of them by snarkjs too"
fi

step "SIGTERM after the load: drains and exits 0"
kill -TERM "$DAEMON"
rc=0
wait "$DAEMON" || rc=$?
unset 'PID[d]'
[ $rc = 0 ] || { cat "$WORK/d.out"; fail "the daemon exited $rc"; }
grep -q 'msg="daemon: stopped"' "$WORK/d.log" || fail "no stop in the log"
echo "load: all passed"
