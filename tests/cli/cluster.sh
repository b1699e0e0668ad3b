# Cluster mode end to end: a private PostgreSQL server (tests/cli/pg_server.bash)
# and daemons sharing its queue: a and c prove on the cpu backend (real
# proofs), b on the simulated device behind a gate ([devices] sim_gate), where
# its claims wait for as long as the test needs. 300 jobs of 3 partitions
# submitted to all three (request ids honoured across nodes); b SIGKILLed
# while it holds claims and c restarted: every job completes, no partition
# is recorded twice, and every proof verifies with `cuzk groth16 verify`.
# A frozen node's claims are reclaimed and its late results discarded; a
# cancel reaches a partition waiting on another node; the database is
# stopped and started under load. Every wait polls for a state with a
# generous deadline: no sleep decides.
source "$(dirname "$0")/../interop/lib.sh"
source "$ROOT/tests/cli/pg_server.bash"
source "$ROOT/tests/cli/daemon_lib.bash"
LOAD=(python3 "$ROOT/tests/cli/cluster_load.py")
cleanup_extra() { pg_stop; }
fail() { echo "FAIL: $*"; for n in a b c d; do [ -f "$WORK/$n.log" ] && grep -E 'level=(error|warn)' "$WORK/$n.log" | tail -n 5; done; exit 1; }

rc=0
pg_start "$WORK" || rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "the database did not start"

# poll_until DEADLINE_S COMMAND...: until the command succeeds
poll_until() {
    local end=$((SECONDS + $1)); shift
    until "$@"; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.1
    done
}
sql_is() { [ "$(pg_sql "$1")" = "$2" ]; }
# status NODE PYTHON-EXPR: the expression over NODE's /v1/status (as d)
status() { "$CUZK" client status --connect "unix:$WORK/$1.sock" |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$2"; }

# node NAME BACKEND: its config
node_ini() {
    cat <<EOF
[daemon]
listen = unix:$WORK/$1.sock
max_wait_s = 5
drain_timeout_s = 60
[memory]
budget_gib = 1
[devices]
backend = $2
sim_device_ms = 1
sim_gate = ${NODE_GATE:-}
cpu_threads = 1
[scheduler]
max_device_queue_depth = ${NODE_DEPTH:-2}
[synthesis]
workers = 1
[keys]
wasm_cache_dir = $WORK/wasm
$([ "${3-}" = none ] || echo "circuit = ${3:-c, $WORK/c.zkey}")
[cluster]
database = $PG_CONNINFO
node = $1
lease_s = 2
claim_max_s = ${NODE_CLAIM_MAX:-3600}
retain_s = ${NODE_RETAIN:-0}
heartbeat_s = 0.25
poll_s = 1
retry_backoff_s = 0.2
max_attempts = 4
inline_witness_max_kib = 16
[logging]
file = $WORK/$1.log
EOF
}
start_node() { # NAME BACKEND [CIRCUIT]
    node_ini "$@" >"$WORK/$1.ini"
    start_daemon "$1" "unix:$WORK/$1.sock" --config "$WORK/$1.ini"
}
healthy() { [ "$(status "$1" 'd["cluster"]["healthy"]')" = "$2" ]; }
late_results() { "$CUZK" client metrics --connect "unix:$WORK/$1.sock" | sed -n 's/^cuzk_cluster_late_results_total //p'; }
has_late() { [ "$(late_results "$1")" -gt 0 ]; }
job_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

step "a circuit, its key and a witness; two nodes proving, one holding its claims at a gate"
"$CUZK" circuit synth --curve bn128 --constraints 100 --public 2 "$WORK/c.r1cs" "$WORK/w.wtns" >/dev/null
"$CUZK" setup "$WORK/c.r1cs" "$WORK/c.zkey" 2>/dev/null
"$CUZK" zkey export verificationkey "$WORK/c.zkey" "$WORK/vk.json"
# b's gate is never opened: what b claims stays claimed until b is killed
NODE_GATE=$WORK/b-never start_node b sim
for n in a c; do start_node $n cpu; done
SOCKS=$WORK/a.sock,$WORK/b.sock,$WORK/c.sock
[ "$(pg_sql 'SELECT max(version) FROM cuzk_schema_version')" = 4 ] || fail "schema version"
[ "$(pg_sql 'SELECT count(*) FROM cuzk_nodes')" = 3 ] || fail "three nodes"

step "a second live daemon under node a's name is refused at start"
node_ini a cpu | sed -e "s|/a\.sock|/twin.sock|" -e "s|/a\.log|/twin.log|" >"$WORK/twin.ini"
if "$CUZK" daemon --config "$WORK/twin.ini" >"$WORK/twin.out" 2>&1; then fail "a twin of node a started"; fi
grep -q "another live daemon is node 'a'" "$WORK/twin.out" || { cat "$WORK/twin.out"; fail "the twin's message"; }

step "300 jobs of 3 partitions; request ids honoured across nodes"
"${LOAD[@]}" submit "$SOCKS" 300 3 "$WORK/w.wtns" job "$WORK/ids.json" --inline-every 10 || fail "submit"
# the same request ids again, at the other nodes: the same jobs
"${LOAD[@]}" submit "$SOCKS" 30 3 "$WORK/w.wtns" job "$WORK/again.json" --inline-every 10 || fail "resubmit"
python3 - "$WORK/ids.json" "$WORK/again.json" <<'PY' || fail "a request id made a second job"
import json, sys
first, again = (json.load(open(p)) for p in sys.argv[1:])
assert all(first[k] == v for k, v in again.items()), "different job ids"
assert len(set(first.values())) == 300
PY
"${LOAD[@]}" post "$WORK/b.sock" /v1/jobs "{\"circuit\": \"c\", \"request_id\": \"job-1\", \"priority\": \"high\", \"partitions\": [{\"witness\": \"$WORK/w.wtns\"}]}" >"$WORK/conflict.txt"
[ "$(head -n 1 "$WORK/conflict.txt")" = 409 ] || fail "another payload under a used request id: $(cat "$WORK/conflict.txt")"
[ "$(pg_sql 'SELECT count(*) FROM cuzk_jobs')" = 300 ] || fail "jobs in the database"

step "SIGKILL node b while it holds claims; restart node c; every proof verifies"
poll_until 60 sql_is "SELECT count(*) FROM cuzk_partitions WHERE owner = 'b'" 2 || fail "b does not hold its two claims"
kill -9 "${PID[b]}"
unset "PID[b]"
kill -TERM "${PID[c]}"
wait "${PID[c]}" || fail "node c did not drain cleanly"
unset "PID[c]"
start_node c cpu
mkdir -p "$WORK/proofs"
"${LOAD[@]}" await "$WORK/a.sock,$WORK/c.sock" "$WORK/ids.json" 150 --out "$WORK/proofs" || fail "not every job completed"
pg_sql "SELECT count(*), sum(parts_done), sum(n_partitions) FROM cuzk_jobs WHERE state = 'done'" >"$WORK/sums.txt"
[ "$(cat "$WORK/sums.txt")" = "300|900|900" ] || fail "jobs, partitions recorded, partitions: $(cat "$WORK/sums.txt")"
[ "$(pg_sql 'SELECT count(*) FROM cuzk_results')" = 900 ] || fail "results"
[ "$(pg_sql "SELECT count(*) FROM cuzk_partitions WHERE state <> 'done'")" = 0 ] || fail "partitions not done"
[ "$(pg_sql "SELECT count(*) > 0 FROM cuzk_partitions WHERE attempts > 1")" = t ] || fail "no partition was reclaimed"
reclaims=$(($(status a 'd["cluster"]["counters"]["reclaims"]') + $(status c 'd["cluster"]["counters"]["reclaims"]')))
[ $reclaims -gt 0 ] || fail "no reclaim counted"
echo "reclaimed from b: $reclaims partitions"
[ "$(pg_sql "SELECT count(*) FROM cuzk_results WHERE verified AND node IN ('a', 'c')")" = 900 ] ||
    fail "not every result was proved and verified by the cpu nodes"
n=0
for proof in "$WORK"/proofs/*.proof.json; do
    "$CUZK" groth16 verify "$WORK/vk.json" "${proof%.proof.json}.public.json" "$proof" >/dev/null ||
        fail "$proof does not verify"
    n=$((n + 1))
done
[ $n = 900 ] || fail "$n proofs fetched, not 900"
echo "verified by groth16 verify: $n proofs"

step "a frozen node loses its claims; its late results are discarded"
NODE_GATE=$WORK/b-frozen start_node b sim
"${LOAD[@]}" submit "$SOCKS" 30 3 "$WORK/w.wtns" frozen "$WORK/frozen.json" || fail "submit"
poll_until 60 sql_is "SELECT count(*) FROM cuzk_partitions WHERE owner = 'b'" 2 || fail "b does not hold its two claims"
kill -STOP "${PID[b]}"
poll_until 60 sql_is "SELECT count(*) FROM cuzk_partitions WHERE owner = 'b'" 0 || fail "b's claims were not reclaimed"
kill -CONT "${PID[b]}"
"${LOAD[@]}" await "$SOCKS" "$WORK/frozen.json" 120 || fail "the frozen node's jobs"
touch "$WORK/b-frozen" # b proves what it had claimed, too late
poll_until 60 has_late b || fail "no late result discarded"
grep -q 'msg="cluster: late result discarded"' "$WORK/b.log" || fail "the discard is not logged"
[ "$(pg_sql "SELECT count(*) FROM cuzk_jobs WHERE parts_done <> n_partitions")" = 0 ] || fail "a partition recorded twice"
[ "$(pg_sql "SELECT count(*) FROM cuzk_results WHERE node = 'b'")" = 0 ] || fail "b recorded a placeholder proof"
kill -TERM "${PID[b]}"
wait "${PID[b]}" || fail "node b did not drain cleanly"

step "cancel reaches a partition waiting on another node"
NODE_GATE=$WORK/b-cancel start_node b sim
"${LOAD[@]}" submit "$WORK/a.sock" 1 200 "$WORK/w.wtns" long "$WORK/long.json" --priority low || fail "submit"
long=$(job_of "$WORK/long.json" long-0)
poll_until 60 sql_is "SELECT count(*) FROM cuzk_partitions WHERE job_id = $long AND owner = 'b'" 2 ||
    fail "b does not hold two of its partitions"
"$CUZK" client cancel --connect "unix:$WORK/a.sock" "$long" >/dev/null
poll_until 60 sql_is "SELECT count(*) FROM cuzk_partitions WHERE job_id = $long AND state IN ('claimed', 'queued')" 0 ||
    fail "the job's partitions still run"
[ "$(pg_sql "SELECT state FROM cuzk_jobs WHERE id = $long")" = cancelled ] || fail "not cancelled"
[ "$(pg_sql "SELECT count(*) > 0 FROM cuzk_partitions WHERE job_id = $long AND state = 'cancelled'")" = t ] ||
    fail "no partition cancelled"
expect_fail "$CUZK" client await --connect "unix:$WORK/c.sock" "$long"
[ "$(status b 'd["cluster"]["counters"]["cancels"]')" = 2 ] || fail "node b did not cancel its two"
kill -TERM "${PID[b]}" # its engine jobs ended with the cancel: the drain is over at once
wait "${PID[b]}" || fail "node b did not drain cleanly"
unset "PID[b]"
SOCKS=$WORK/a.sock,$WORK/c.sock

step "a live node stuck on its claims loses them at their deadline; its late results are discarded"
NODE_GATE=$WORK/e-stuck NODE_CLAIM_MAX=1 start_node e sim
"${LOAD[@]}" submit "$WORK/a.sock" 10 3 "$WORK/w.wtns" stuck "$WORK/stuck.json" || fail "submit"
poll_until 60 sql_is "SELECT count(*) FROM cuzk_partitions WHERE owner = 'e'" 2 || fail "e does not hold its two claims"
poll_until 60 sql_is "SELECT count(*) FROM cuzk_partitions WHERE owner = 'e'" 0 || fail "e's claims outlived their deadline"
"${LOAD[@]}" await "$SOCKS" "$WORK/stuck.json" 120 || fail "the stuck node's jobs"
[ "$(pg_sql "SELECT count(*) FROM cuzk_partitions WHERE last_error = 'the claim of node e passed its deadline'")" = 2 ] ||
    fail "the reclaims are not explained"
[ "$(pg_sql "SELECT extract(epoch FROM now() - last_seen) < 2 FROM cuzk_nodes WHERE name = 'e'")" = t ] ||
    fail "e stopped beating: this was not a stuck live node"
touch "$WORK/e-stuck" # its worker goes on, too late
poll_until 60 has_late e || fail "no late result discarded"
[ "$(pg_sql "SELECT count(*) FROM cuzk_results WHERE node = 'e'")" = 0 ] || fail "e recorded a result it had lost"
kill -TERM "${PID[e]}"
wait "${PID[e]}" || fail "node e did not drain cleanly"
unset "PID[e]"

step "the database stopped and started under load"
"${LOAD[@]}" submit "$SOCKS" 60 3 "$WORK/w.wtns" outage "$WORK/outage.json" || fail "submit"
pg_pause
poll_until 60 healthy a False || fail "node a does not report itself unhealthy"
"${LOAD[@]}" post "$WORK/a.sock" /v1/jobs "{\"circuit\": \"c\", \"partitions\": [{\"witness\": \"$WORK/w.wtns\"}]}" >"$WORK/down.txt"
[ "$(head -n 1 "$WORK/down.txt")" = 503 ] || fail "a submit without the database: $(cat "$WORK/down.txt")"
"$CUZK" client metrics --connect "unix:$WORK/c.sock" | grep -qx 'cuzk_cluster_healthy 0' ||
    poll_until 60 healthy c False || fail "node c does not report itself unhealthy"
pg_resume || fail "the database did not start again"
"${LOAD[@]}" await "$SOCKS" "$WORK/outage.json" 120 || fail "jobs across the outage"
poll_until 60 healthy a True || fail "node a stays unhealthy"
[ "$(pg_sql "SELECT count(*) FROM cuzk_jobs WHERE state = 'done' AND parts_done <> n_partitions")" = 0 ] ||
    fail "recorded twice"

step "inline witnesses over the limit are refused; a witness bad where it is proved fails after max_attempts"
"$CUZK" circuit synth --curve bn128 --constraints 1000 "$WORK/big.r1cs" "$WORK/big.wtns" >/dev/null
"$CUZK" setup "$WORK/big.r1cs" "$WORK/big.zkey" 2>/dev/null
"$CUZK" client register --connect "unix:$WORK/a.sock" big "$WORK/big.zkey" >/dev/null
expect_fail "$CUZK" client submit --connect "unix:$WORK/a.sock" --circuit big --inline "$WORK/big.wtns"
expect_output "inline_witness_max_kib"
# a good header (what the receiving node checks) over a value >= r (what
# the proving node finds when it reads the values): every attempt fails
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[-32:] = b"\xff" * 32; open(sys.argv[2], "wb").write(d)' \
    "$WORK/w.wtns" "$WORK/bad.wtns"
"$CUZK" client submit --connect "unix:$WORK/a.sock" --circuit c --priority critical "$WORK/bad.wtns" >"$WORK/bad.json"
bad=$(job_of "$WORK/bad.json" job_id)
poll_until 60 sql_is "SELECT state FROM cuzk_jobs WHERE id = $bad" failed || fail "the job did not fail"
pg_sql "SELECT error FROM cuzk_jobs WHERE id = $bad" | grep -q "bad.wtns.*(attempt 4 of 4)" ||
    fail "the error: $(pg_sql "SELECT error FROM cuzk_jobs WHERE id = $bad")"
"$CUZK" client metrics --connect "unix:$WORK/a.sock" >"$WORK/metrics.txt"
grep -q '^cuzk_cluster_queue_depth{priority="normal"} ' "$WORK/metrics.txt" || fail "no queue depth in the metrics"
grep -q '^cuzk_cluster_claimed{node="a"} ' "$WORK/metrics.txt" || fail "no claims per node in the metrics"
grep -q '^cuzk_cluster_claim_latency_seconds_count [1-9]' "$WORK/metrics.txt" || fail "no claim latency"

step "ended jobs past [cluster] retain_s are deleted with their partitions and results; a running one stays"
# only r has the circuit held, and r's gate is never opened: its job stays running
NODE_GATE=$WORK/r-never NODE_RETAIN=1 start_node r sim "held, $WORK/c.zkey"
"$CUZK" client submit --connect "unix:$WORK/r.sock" --circuit held "$WORK/w.wtns" >"$WORK/held.json"
held=$(job_of "$WORK/held.json" job_id)
poll_until 60 sql_is "SELECT count(*) FROM cuzk_jobs WHERE state <> 'queued'" 0 || fail "ended jobs were kept"
[ "$(pg_sql "SELECT count(*) FROM cuzk_results")" = 0 ] || fail "results of deleted jobs were kept"
[ "$(pg_sql "SELECT string_agg(DISTINCT job_id::text, ',') FROM cuzk_partitions")" = "$held" ] ||
    fail "partitions other than the running job $held's: $(pg_sql "SELECT job_id, state FROM cuzk_partitions")"
grep -q 'msg="cluster: ended jobs deleted"' "$WORK/r.log" || fail "the sweep is not logged"
"$CUZK" client cancel --connect "unix:$WORK/a.sock" "$held" >/dev/null
poll_until 60 sql_is "SELECT count(*) FROM cuzk_jobs" 0 || fail "the job cancelled last was kept"
kill -TERM "${PID[r]}"
wait "${PID[r]}" || fail "node r did not drain cleanly"
unset "PID[r]"

step "input JSON: queued as its text, the witness calculated by the claiming node from the circuit's wasm"
if command -v wasm2c >/dev/null; then
    FIX=$ROOT/tests/fixtures
    start_node w cpu "m, $FIX/bn128/mul.zkey, $FIX/bn128/mul.r1cs, $FIX/bn128/mul.wasm"
    mkdir -p "$WORK/m"
    "$CUZK" client prove --connect "unix:$WORK/w.sock" --circuit m --out "$WORK/m" "$FIX/input.json" \
        "$FIX/bn128/mul.wtns" "$FIX/input.json" >"$WORK/m.json" || { cat "$WORK/m.json"; fail "the input JSON job"; }
    for i in 0 1 2; do
        "$CUZK" groth16 verify "$FIX/bn128/verification_key.json" "$WORK/m/public_$i.json" "$WORK/m/proof_$i.json" |
            grep -q 'OK!' || fail "partition $i of the input JSON job does not verify"
        cmp -s "$WORK/m/public_$i.json" "$FIX/bn128/public.json" || fail "partition $i: other public signals than snarkjs's"
    done
    [ "$(pg_sql "SELECT count(*) FROM cuzk_partitions WHERE input_json IS NOT NULL AND state = 'done'")" = 2 ] ||
        fail "the inputs were not queued as input JSON"
    python3 -c 'import json; print(json.dumps({"a": "3", "b": "11", "pad": ["0"] * 6000}))' >"$WORK/big_input.json"
    expect_fail "$CUZK" client submit --connect "unix:$WORK/w.sock" --circuit m "$WORK/big_input.json"
    expect_output "inline_witness_max_kib"
    kill -TERM "${PID[w]}"
    wait "${PID[w]}" || fail "node w did not drain cleanly"
    unset "PID[w]"
else
    echo "  skipped: wasm2c not installed (Debian's wabt; scripts/install-deps installs it)"
fi

step "every node drains and exits 0"
for n in a c; do kill -TERM "${PID[$n]}"; done
for n in a c; do
    wait "${PID[$n]}" || fail "node $n exited with an error"
    unset "PID[$n]"
done
echo "cluster: all passed"
