# The daemon end to end, as a process: a unix socket and a TCP listener with
# a token; circuits registered from the config and by the client; several
# jobs proved at once (every proof verified by cuzk, and by snarkjs when
# installed); submit, await, cancel; status and metrics parsed; bad
# requests answered with clear JSON errors while another client's job goes
# on; SIGHUP reopens the log; cuzk diag reads the log and the timeline; and
# SIGTERM in the middle of a job drains it and exits 0.
source "$(dirname "$0")/../interop/lib.sh"
PROBE=(python3 "$ROOT/tests/cli/http_probe.py")
have_snarkjs=0
command -v node >/dev/null && [ -x "$SNARKJS" ] && have_snarkjs=1

source "$ROOT/tests/cli/daemon_lib.bash"

# probe_expect STATUS TEXT ARGS...: one raw request; the status must be
# STATUS and the body a JSON {"error": ...} containing TEXT.
probe_expect() {
    local status=$1 text=$2; shift 2
    "${PROBE[@]}" "$@" >"$WORK/probe.txt"
    cat "$WORK/probe.txt"
    [ "$(head -n 1 "$WORK/probe.txt")" = "$status" ] || fail "expected HTTP $status: $*"
    tail -n +2 "$WORK/probe.txt" | python3 -c 'import json, sys; e = json.load(sys.stdin)["error"]; sys.exit(sys.argv[1] not in e)' "$text" ||
        fail "the error lacks '$text'"
}

step "a small circuit, its key, a witness; the witness of another circuit"
"$CUZK" circuit synth --curve bn128 --constraints 100 --public 2 "$WORK/c.r1cs" "$WORK/w.wtns"
"$CUZK" setup "$WORK/c.r1cs" "$WORK/c.zkey" 2>/dev/null
"$CUZK" zkey export verificationkey "$WORK/c.zkey" "$WORK/vk.json"
"$CUZK" circuit synth --curve bn128 --constraints 40 "$WORK/o.r1cs" "$WORK/other.wtns"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "  s3cret-token " >"$WORK/token"
chmod 600 "$WORK/token"
SOCK=unix:$WORK/d.sock
TCP=tcp:127.0.0.1:$PORT
cat >"$WORK/d.ini" <<EOF
[daemon]
listen = $SOCK
listen = $TCP
token_file = $WORK/token
max_body_mib = 1
max_wait_s = 5
[memory]
budget_gib = 1
[devices]
backend = cpu
cpu_threads = 1
[synthesis]
workers = 2
[pipeline]
timeline = $WORK/timeline.jsonl
[keys]
circuit = c, $WORK/c.zkey, $WORK/c.r1cs
[logging]
file = $WORK/d.log
EOF
export CUZK_CONNECT=$SOCK

step "start: the config's circuit is registered and hot; the socket is 0660"
start_daemon d "$SOCK" --config "$WORK/d.ini"
[ "$(stat -c %a "$WORK/d.sock")" = 660 ] || fail "socket mode $(stat -c %a "$WORK/d.sock")"
"$CUZK" client status >"$WORK/status.json"
[ "$(jget "$WORK/status.json" 'd["circuits"][0]["key"]["tier"]')" = hot ] || fail "the key is not hot"
[ "$(jget "$WORK/status.json" 'd["backend"]')" = cpu ] || fail "wrong backend"

step "register a second circuit with the client; a duplicate is refused"
"$CUZK" client register c2 "$WORK/c.zkey" >"$WORK/reg.json"
[ "$(jget "$WORK/reg.json" 'd["n_public"]')" = 2 ] || fail "register"
expect_fail "$CUZK" client register c2 "$WORK/c.zkey"
expect_output "already registered"

step "a development key the daemon makes from an r1cs: its proofs verify with the vk it gives"
"$CUZK" client register --development-setup dev "$WORK/c.r1cs" >"$WORK/reg-dev.json"
[ "$(jget "$WORK/reg-dev.json" 'd["n_public"], d["key"]["tier"]')" = "(2, 'hot')" ] || fail "development register"
"$CUZK" client verificationkey dev >"$WORK/vk-dev.json"
mkdir -p "$WORK/out-dev"
"$CUZK" client prove --circuit dev --out "$WORK/out-dev" "$WORK/w.wtns" >"$WORK/prove-dev.json"
[ "$(jget "$WORK/prove-dev.json" 'd["state"], d["verified"]')" = "('done', True)" ] || fail "development prove"
"$CUZK" groth16 verify "$WORK/vk-dev.json" "$WORK/out-dev/public_0.json" "$WORK/out-dev/proof_0.json" | grep -q 'OK!'
[ $have_snarkjs = 0 ] || snarkjs_verify "$WORK/vk-dev.json" "$WORK/out-dev/public_0.json" "$WORK/out-dev/proof_0.json"
# a key of its own: the file's key's vk refuses the proof
expect_fail "$CUZK" groth16 verify "$WORK/vk.json" "$WORK/out-dev/public_0.json" "$WORK/out-dev/proof_0.json"
expect_fail "$CUZK" client register --development-setup --device-only dev2 "$WORK/c.r1cs"
expect_output "needs a backend with one, not cpu"
expect_fail "$CUZK" client register --development-setup dev2 "$WORK/c.zkey" "$WORK/c.r1cs"
expect_output "a development setup takes ID R1CS"
expect_fail "$CUZK" client register --development-setup dev2 "$WORK/c.zkey"
expect_output "not a .r1cs file"
expect_fail "$CUZK" client verificationkey nosuch
expect_output "HTTP 404: unknown circuit 'nosuch'"
probe_expect 400 'can only be "development"' "$SOCK" POST /v1/circuits --body \
    "{\"id\": \"dev3\", \"r1cs\": \"$WORK/c.r1cs\", \"setup\": \"ceremony\"}"
probe_expect 400 'no "zkey"' "$SOCK" POST /v1/circuits --body \
    "{\"id\": \"dev3\", \"r1cs\": \"$WORK/c.r1cs\", \"zkey\": \"$WORK/c.zkey\", \"setup\": \"development\"}"

step "four jobs at once (one with inline witnesses), every proof verified"
for i in 1 2 3 4; do
    inline=(); [ $i = 4 ] && inline=(--inline)
    mkdir -p "$WORK/out$i"
    "$CUZK" client prove --circuit c "${inline[@]}" --priority high --out "$WORK/out$i" \
        "$WORK/w.wtns" "$WORK/w.wtns" >"$WORK/prove$i.json" 2>&1 &
    PID[prove$i]=$!
done
for i in 1 2 3 4; do
    wait "${PID[prove$i]}" || { cat "$WORK/prove$i.json"; fail "prove $i"; }
    unset "PID[prove$i]"
    [ "$(jget "$WORK/prove$i.json" 'd["state"], d["verified"], len(d["proofs"])')" = "('done', True, 2)" ] ||
        fail "prove $i: $(cat "$WORK/prove$i.json")"
    for p in 0 1; do
        "$CUZK" groth16 verify "$WORK/vk.json" "$WORK/out$i/public_$p.json" "$WORK/out$i/proof_$p.json" | grep -q 'OK!'
        [ $have_snarkjs = 0 ] || snarkjs_verify "$WORK/vk.json" "$WORK/out$i/public_$p.json" "$WORK/out$i/proof_$p.json"
    done
done

step "submit, then await; the same request id gives the same job"
"$CUZK" client submit --circuit c2 --request-id r-1 "$WORK/w.wtns" >"$WORK/sub.json"
id=$(jget "$WORK/sub.json" 'd["job_id"]')
"$CUZK" client submit --circuit c2 --request-id r-1 "$WORK/w.wtns" >"$WORK/sub2.json"
[ "$(jget "$WORK/sub2.json" 'd["job_id"]')" = "$id" ] || fail "request id"
"$CUZK" client await "$id" >"$WORK/await.json"
[ "$(jget "$WORK/await.json" 'd["state"]')" = done ] || fail "await"
# --quiet: the id alone, as await takes it (the same request id: the same job)
[ "$("$CUZK" client submit --quiet --circuit c2 --request-id r-1 "$WORK/w.wtns")" = "$id" ] || fail "submit --quiet"
"$CUZK" client await "$("$CUZK" client submit --quiet --circuit c2 "$WORK/w.wtns")" >"$WORK/await2.json"
[ "$(jget "$WORK/await2.json" 'd["state"]')" = done ] || fail "await of a --quiet submit"

step "bad requests get clear errors while another client's job runs"
"$CUZK" client submit --circuit c $(for _ in $(seq 12); do echo "$WORK/w.wtns"; done) >"$WORK/long.json"
long=$(jget "$WORK/long.json" 'd["job_id"]')
probe_expect 400 "not valid JSON" "$SOCK" POST /v1/jobs --body '{"circuit": "c", "partitions": ['
probe_expect 404 "unknown circuit 'nope'" "$SOCK" POST /v1/jobs --body "{\"circuit\": \"nope\", \"partitions\": [{\"witness\": \"$WORK/w.wtns\"}]}"
probe_expect 400 "partition 0: the witness has" "$SOCK" POST /v1/jobs --body "{\"circuit\": \"c\", \"partitions\": [{\"witness\": \"$WORK/other.wtns\"}]}"
probe_expect 413 "over the limit" "$SOCK" POST /v1/jobs --claim-length 100000000
probe_expect 413 "over the limit" "$SOCK" POST /v1/jobs --spaces 1100000
probe_expect 413 "JSON values" "$SOCK" POST /v1/jobs --body "[$(printf '[],%.0s' $(seq 34000))0]"
probe_expect 400 "2 Content-Length headers" "$SOCK" POST /v1/jobs --body '{}' --second-length 0
probe_expect 401 "Authorization: Bearer" "$TCP" GET /v1/status
probe_expect 401 "Authorization: Bearer" "$TCP" GET /v1/status --token wrong
probe_expect 404 "no such resource" "$SOCK" GET /v1/nothing
probe_expect 405 "allowed" "$SOCK" PUT /v1/status
"${PROBE[@]}" "$SOCK" x x --garbage
"${PROBE[@]}" "$TCP" x x --garbage
"${PROBE[@]}" "$TCP" GET /v1/status --token s3cret-token >"$WORK/tcp.txt"
[ "$(head -n 1 "$WORK/tcp.txt")" = 200 ] || fail "TCP with the token"
CUZK_TOKEN_FILE=$WORK/token "$CUZK" client status --connect "$TCP" >/dev/null
"$CUZK" client await "$long" >"$WORK/long-done.json"
[ "$(jget "$WORK/long-done.json" 'd["state"], d["partitions_done"]')" = "('done', 12)" ] || fail "the long job"

step "idle connections without a token do not lock out authorized clients"
# 80 TCP connections (more than max_connections) that never send a byte
python3 - "$PORT" 80 "$WORK/idle.ready" <<'PY' &
import socket, sys, time
conns = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(int(sys.argv[2]))]
open(sys.argv[3], "w").close()
time.sleep(600)
PY
IDLE=$!
for _ in $(seq 600); do [ -e "$WORK/idle.ready" ] && break; sleep 0.1; done
[ -e "$WORK/idle.ready" ] || fail "the idle connections were not made"
for _ in 1 2 3; do
    CUZK_TOKEN_FILE=$WORK/token timeout 60 "$CUZK" client status --connect "$TCP" >/dev/null ||
        fail "an authorized client was locked out by idle connections"
done
kill "$IDLE"; wait "$IDLE" 2>/dev/null || true

step "keys: evict, preload; an unknown circuit is a 404"
"$CUZK" client evict --drop c2 | grep -q '"tier": "cold"'
"$CUZK" client preload c2 | grep -q '"tier": "hot"'
expect_fail "$CUZK" client preload nope
expect_output "HTTP 404"

step "status and metrics agree"
"$CUZK" client status >"$WORK/status.json"
"$CUZK" client metrics >"$WORK/metrics.txt"
python3 - "$WORK/metrics.txt" "$WORK/status.json" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
status = json.load(open(sys.argv[2]))
types, samples = {}, {}
for line in text.splitlines():
    m = re.match(r"# TYPE (\S+) (counter|gauge|histogram)$", line)
    if m:
        types[m.group(1)] = m.group(2)
        continue
    if line.startswith("#"):
        assert re.match(r"# HELP cuzk_\w+ \S", line), line
        continue
    m = re.match(r'([a-z_]+)(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? (\S+)$', line)
    assert m, "not a sample: " + line
    name, value = m.group(1), float(m.group(4))
    family = re.sub(r"_(bucket|sum|count)$", "", name) if name not in types else name
    assert family in types, "no TYPE for " + name
    assert name.startswith("cuzk_"), name
    if types[family] == "counter":
        assert name.endswith("_total"), name
    samples[name + (m.group(2) or "")] = value
jobs = status["jobs"]
assert samples['cuzk_proofs_total{outcome="done"}'] == jobs["done"] == 8, jobs
assert samples['cuzk_proofs_total{outcome="cancelled"}'] == jobs["cancelled"] == 0
assert samples["cuzk_partitions_proved_total"] == status["partitions"]["proved"]
assert samples['cuzk_budget_used_bytes{category="keys"}'] == status["budget"]["by_category"]["keys"] > 0
assert samples["cuzk_pinned_pool_reuses_total"] == status["pinned_pool"]["reuses"] > 0
assert samples['cuzk_gpu_busy_seconds_total{device="0"}'] > 0
for stage in ("queue", "synthesis", "gpu_queue", "gpu", "finalize", "total"):
    buckets = [v for k, v in samples.items() if k.startswith('cuzk_stage_duration_seconds_bucket{stage="%s"' % stage)]
    assert buckets == sorted(buckets), stage
    assert buckets[-1] == samples['cuzk_stage_duration_seconds_count{stage="%s"}' % stage] == status["partitions"]["proved"]
assert status["http_responses"]["4xx"] >= 9
print("metrics: %d samples, all well formed" % len(samples))
PY

step "SIGHUP reopens the log"
mv "$WORK/d.log" "$WORK/d.log.1"
kill -HUP "${PID[d]}"
for _ in $(seq 300); do grep -q "log reopened" "$WORK/d.log" 2>/dev/null && break; sleep 0.1; done
grep -q "log reopened" "$WORK/d.log" || fail "no new log"

step "diag: the pool's reuse ratio, the timeline and its picture"
"$CUZK" diag pool "$WORK/d.log.1" | tee "$WORK/pool.txt"
grep -q '^reuse ratio: ' "$WORK/pool.txt"
checkins=$(sed -n 's/^checkins: //p' "$WORK/pool.txt")
[ "$checkins" -gt 0 ] || fail "no checkins in the log"
"$CUZK" diag timeline "$WORK/timeline.jsonl" -o "$WORK/timeline.svg" | tee "$WORK/tl.txt"
grep -q '^GPU 0: busy' "$WORK/tl.txt"
head -c 5 "$WORK/timeline.svg" | grep -q '<svg'

step "a second daemon, on the simulated device behind a gate: cancel a job while it runs"
# [devices] sim_gate: every partition waits at the device until the file
# $WORK/gate exists, so a job stays running for as long as the test needs
# (whatever the machine's load) and ends when the test creates the file
sed -e "s|backend = cpu|backend = sim\nsim_device_ms = 1\nsim_gate = $WORK/gate|" -e "s|/d\.|/s.|g" -e "/^listen = tcp/d" \
    -e "/^token_file/d" -e "/^timeline/d" "$WORK/d.ini" >"$WORK/s.ini"
start_daemon s "unix:$WORK/s.sock" --config "$WORK/s.ini"
export CUZK_CONNECT=unix:$WORK/s.sock
"$CUZK" client submit --circuit c --priority low "$WORK/w.wtns" "$WORK/w.wtns" "$WORK/w.wtns" >"$WORK/big.json"
big=$(jget "$WORK/big.json" 'd["job_id"]')
"$CUZK" client cancel "$big" >/dev/null
expect_fail "$CUZK" client await "$big"
[ "$(jget "$WORK/out.txt" 'd["state"], d["partitions_done"]')" = "('cancelled', 0)" ] || fail "not cancelled"
expect_fail "$CUZK" client cancel 999999
expect_output "unknown job 999999"
"$CUZK" client status >"$WORK/s-status.json"
[ "$(jget "$WORK/s-status.json" 'd["jobs"]["cancelled"]')" = 1 ] || fail "the cancel is not counted"
"$CUZK" client metrics >"$WORK/s-metrics.txt"
grep -qx 'cuzk_proofs_total{outcome="cancelled"} 1' "$WORK/s-metrics.txt" || fail "the cancel is not in the metrics"

step "SIGTERM mid-job: new jobs refused, the running one finishes once let through, exit 0"
"$CUZK" client submit --circuit c $(for _ in $(seq 10); do echo "$WORK/w.wtns"; done) >"$WORK/drain.json"
job=$(jget "$WORK/drain.json" 'd["job_id"]')
kill -TERM "${PID[s]}"
refused=0
for _ in $(seq 600); do # until the signal is seen: the gate keeps the daemon draining meanwhile
    if ! "$CUZK" client submit --circuit c "$WORK/w.wtns" >/dev/null 2>"$WORK/refused.txt"; then
        grep -q "HTTP 503.*shutting down" "$WORK/refused.txt" && refused=1 && break
        cat "$WORK/refused.txt"; fail "the submit failed otherwise"
    fi
    sleep 0.05
done
[ $refused = 1 ] || fail "jobs still accepted while draining"
"$CUZK" client status >"$WORK/draining.json"
[ "$(jget "$WORK/draining.json" 'd["jobs"]["done"]')" = 0 ] || fail "a job passed the shut gate"
kill -0 "${PID[s]}" || fail "the daemon stopped before its jobs ended"
touch "$WORK/gate"
rc=0
wait "${PID[s]}" || rc=$?
unset "PID[s]"
[ $rc = 0 ] || { cat "$WORK/s.out"; fail "the daemon exited $rc"; }
grep -q "msg=\"job finished\" job_id=$job state=done partitions=10 " "$WORK/s.log" || fail "the job did not finish"
grep -q 'msg="daemon: draining"' "$WORK/s.log" && grep -q 'msg="daemon: stopped"' "$WORK/s.log" || fail "log"
[ ! -e "$WORK/s.sock" ] || fail "the socket file was left behind"

step "the first daemon drains too"
kill -TERM "${PID[d]}"
rc=0
wait "${PID[d]}" || rc=$?
unset "PID[d]"
[ $rc = 0 ] || fail "the daemon exited $rc"
echo "daemon: all passed"
