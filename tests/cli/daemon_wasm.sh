# Witnesses in the daemon, as a process: a circuit registered with circom's
# wasm (the fixtures' witness_checks, a development key of its own) by
# `cuzk client register --wasm` and one from the config's [keys] circuit
# (mul, with its r1cs); jobs of input JSON files submitted and awaited,
# every proof checked by `cuzk groth16 verify`; a job whose input fails
# circom's assert fails with circom's message while a good job submitted
# beside it is proved, and the failed job's good partition keeps its proof;
# the witness stage in the job's timings, the status and the metrics; bad
# inputs refused with clear messages; a calculation that never ends
# (loops) stopped by a cancel, by the drain's timeout and by a second
# signal. No node needed: the wasm files are fixtures.
source "$(dirname "$0")/../interop/lib.sh"
command -v wasm2c >/dev/null || { echo "wasm2c not installed (Debian's wabt; scripts/install-deps installs it)"; exit 77; }
source "$ROOT/tests/cli/daemon_lib.bash"
FIX=$ROOT/tests/fixtures
export CUZK_CONNECT=unix:$WORK/d.sock

step "a development key for witness_checks; the daemon with mul from its config"
"$CUZK" setup "$FIX/bn128/witness_checks.r1cs" "$WORK/checks.zkey" 2>/dev/null
"$CUZK" zkey export verificationkey "$WORK/checks.zkey" "$WORK/checks_vk.json"
cat >"$WORK/d.ini" <<EOF
[daemon]
listen = $CUZK_CONNECT
[devices]
backend = cpu
[synthesis]
workers = 2
[keys]
wasm_cache_dir = $WORK/wasm
circuit = mul, $FIX/bn128/mul.zkey, $FIX/bn128/mul.r1cs, $FIX/bn128/mul.wasm
EOF
start_daemon d "$CUZK_CONNECT" --config "$WORK/d.ini"

step "register with the wasm through the client"
"$CUZK" client register --wasm "$FIX/bn128/witness_checks.wasm" checks "$WORK/checks.zkey" >"$WORK/reg.json"
[ "$(jget "$WORK/reg.json" 'd["takes_input"]')" = True ] || fail "registered without taking input"
"$CUZK" client status >"$WORK/status.json"
[ "$(jget "$WORK/status.json" '[c["takes_input"] for c in d["circuits"] if c["id"] == "mul"][0]')" = True ] ||
    fail "the config's circuit takes no input"

step "input JSON files proved (mul beside its .wtns), each proof verified by groth16 verify"
mkdir -p "$WORK/out"
"$CUZK" client prove --circuit mul --out "$WORK/out" "$FIX/input.json" "$FIX/bn128/mul.wtns" "$FIX/input.json" \
    >"$WORK/mul.json" || { cat "$WORK/mul.json"; fail "the mul job"; }
for i in 0 1 2; do
    "$CUZK" groth16 verify "$FIX/bn128/verification_key.json" "$WORK/out/public_$i.json" "$WORK/out/proof_$i.json" |
        grep -q 'OK!' || fail "mul partition $i does not verify"
    cmp "$WORK/out/public_$i.json" "$FIX/bn128/public.json" || fail "mul partition $i: other public signals than snarkjs's"
done
python3 - "$WORK/mul.json" <<'PY' || fail "the witness stage is not in the job's timings"
import json, sys
t = json.load(open(sys.argv[1]))["timings"]
assert 0 <= t["witness_s"] <= t["synthesis_s"], t
PY

step "a failing input fails its job with circom's message; a good job beside it is proved"
echo '{"a": 5, "b": [[1, 2], [3, 4]], "d": 3}' >"$WORK/good.json"
echo '{"a": 13, "b": [[1, 2], [3, 4]], "d": 3}' >"$WORK/assert.json"
bad=$("$CUZK" client submit --quiet --circuit checks "$WORK/good.json" "$WORK/assert.json")
good=$("$CUZK" client submit --quiet --circuit checks "$WORK/good.json" "$WORK/good.json")
expect_fail "$CUZK" client await "$bad"
expect_output '"state": "failed"'
expect_output "partition 1: .*Assert Failed (circom error 4): Error in template Checks_0 line: 21"
cp "$WORK/out.txt" "$WORK/bad.json"
mkdir -p "$WORK/good"
"$CUZK" client await --out "$WORK/good" "$good" >"$WORK/good_job.json" || { cat "$WORK/good_job.json"; fail "the good job"; }
for i in 0 1; do
    "$CUZK" groth16 verify "$WORK/checks_vk.json" "$WORK/good/public_$i.json" "$WORK/good/proof_$i.json" | grep -q 'OK!' ||
        fail "the good job's partition $i does not verify"
done

step "the failed job keeps its good partition's proof (and null for the failed one)"
python3 - "$WORK/bad.json" "$WORK/kept_proof.json" "$WORK/kept_public.json" <<'PY' || fail "the failed job's proofs"
import json, sys
text = open(sys.argv[1]).read()
job = json.loads(text[text.index("{"):])
assert job["state"] == "failed" and job["partitions_done"] == 1, job
assert job["proofs"][1] is None and job["public_signals"][1] is None, job
json.dump(job["proofs"][0], open(sys.argv[2], "w"))
json.dump(job["public_signals"][0], open(sys.argv[3], "w"))
PY
"$CUZK" groth16 verify "$WORK/checks_vk.json" "$WORK/kept_public.json" "$WORK/kept_proof.json" | grep -q 'OK!' ||
    fail "the failed job's kept proof does not verify"

step "the witness stage in the status and the metrics"
"$CUZK" client status >"$WORK/status.json"
[ "$(jget "$WORK/status.json" 'd["stages"]["witness"]["count"]')" = 6 ] || fail "status: witness stage count"
"$CUZK" client metrics >"$WORK/metrics.txt"
grep -qx 'cuzk_stage_duration_seconds_count{stage="witness"} 6' "$WORK/metrics.txt" || fail "metrics: the witness stage's count"

step "bad inputs: not JSON, wrong signals, a file of neither kind, input for a circuit without wasm, a wasm not circom's"
echo '{"a": 5,' >"$WORK/broken.json"
expect_fail "$CUZK" client submit --circuit checks "$WORK/broken.json"
expect_output "neither a .wtns witness nor input JSON"
echo '{"a": 5, "b": [[1, 2], [3, 4]], "d": 3, "e": 1}' >"$WORK/extra.json"
expect_fail "$CUZK" client submit --circuit checks "$WORK/extra.json"
expect_output "partition 0: .*the circuit has no input signal 'e'"
echo '{"a": 5, "b": [1, 2, 3], "d": 3}' >"$WORK/short.json"
expect_fail "$CUZK" client submit --circuit checks "$WORK/short.json"
expect_output "input signal 'b' takes 4 values; the input gives only 3"
echo '{"a": "five", "b": [[1, 2], [3, 4]], "d": 3}' >"$WORK/words.json"
expect_fail "$CUZK" client submit --circuit checks "$WORK/words.json"
expect_output "partition 0: input"
"$CUZK" client register plain "$WORK/checks.zkey" >/dev/null
expect_fail "$CUZK" client submit --circuit plain "$WORK/good.json"
expect_output "registered without its wasm"
expect_fail "$CUZK" client register --wasm "$FIX/bn128/mul.zkey" notwasm "$WORK/checks.zkey"
expect_output "not a WebAssembly file"
expect_fail "$CUZK" client register --wasm "$FIX/bn128/mul.wasm" wrongwasm "$WORK/checks.zkey"
expect_output "does not belong to"
expect_fail "$CUZK" client register --wasm "$FIX/bn128/mul.wasm" --development-setup devwasm "$FIX/bn128/mul.r1cs"
expect_output "--wasm goes with a ZKEY"

# until_log N TEXT FILE: waits until FILE has N lines with TEXT (a minute at most)
until_log() {
    for _ in $(seq 1200); do
        [ "$(grep -c "$2" "$3" 2>/dev/null)" -ge "$1" ] && return 0
        sleep 0.05
    done
    fail "$3 has not $1 lines of '$2'"
}
# until_exit NAME: waits for daemon NAME's exit (a minute at most: a wedged
# one is the failure), its status in $rc
until_exit() {
    for _ in $(seq 1200); do
        kill -0 "${PID[$1]}" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "${PID[$1]}" 2>/dev/null && fail "daemon $1 did not stop"
    rc=0
    wait "${PID[$1]}" || rc=$?
    unset "PID[$1]"
}

step "a calculation that never ends: stopped by DELETE, by the drain's timeout and by a second signal"
# loops counts its input down to 0: r - 1 never ends; it logs "spinning" as it starts
"$CUZK" setup "$FIX/bn128/loops.r1cs" "$WORK/loops.zkey" 2>/dev/null
echo '{"n": "21888242871839275222246405745257275088548364400416034343698204186575808495616"}' >"$WORK/forever.json"
echo '{"n": 5}' >"$WORK/five.json"
for drain in 1 0; do
    {
        echo "[daemon]"
        echo "listen = unix:$WORK/l.sock"
        echo "drain_timeout_s = $drain"
        echo "[gpus]"
        echo "backend = cpu"
        echo "[synthesis]"
        echo "workers = 1"
        echo "[keys]"
        echo "wasm_cache_dir = $WORK/wasm"
        echo "circuit = loops, $WORK/loops.zkey, $FIX/bn128/loops.r1cs, $FIX/bn128/loops.wasm"
        echo "[logging]"
        echo "file = $WORK/l$drain.log"
        echo "level = debug"
    } >"$WORK/l.ini"
    start_daemon l "unix:$WORK/l.sock" --config "$WORK/l.ini"
    export CUZK_CONNECT=unix:$WORK/l.sock
    if [ $drain = 1 ]; then
        job=$("$CUZK" client submit --quiet --circuit loops "$WORK/forever.json")
        until_log 1 'line="spinning"' "$WORK/l1.log"
        "$CUZK" client cancel "$job" >/dev/null
        expect_fail "$CUZK" client await --timeout 60 "$job"
        [ "$(jget "$WORK/out.txt" 'd["state"]')" = cancelled ] || fail "the cancelled calculation's job"
        "$CUZK" client prove --circuit loops "$WORK/five.json" >/dev/null || fail "the worker after the cancel"
        "$CUZK" client submit --quiet --circuit loops "$WORK/forever.json" >/dev/null
        until_log 3 'line="spinning"' "$WORK/l1.log"
        kill -TERM "${PID[l]}"
        until_exit l
        [ $rc = 0 ] || fail "the daemon exited $rc after its drain's timeout"
        grep -q 'drain timed out, cancelling' "$WORK/l1.log" || fail "the drain did not time out"
    else
        "$CUZK" client submit --quiet --circuit loops "$WORK/forever.json" >/dev/null
        until_log 1 'line="spinning"' "$WORK/l0.log"
        kill -TERM "${PID[l]}"
        until_log 1 'msg="daemon: draining"' "$WORK/l0.log"
        kill -TERM "${PID[l]}"
        until_exit l
        grep -q 'second stop signal' "$WORK/l0.log" || fail "the second signal was not seen"
    fi
    ! grep -q 'level=error' "$WORK/l$drain.log" || { grep 'level=error' "$WORK/l$drain.log"; fail "an error logged"; }
done
export CUZK_CONNECT=unix:$WORK/d.sock

step "the daemon still proves after all that"
"$CUZK" client prove --circuit checks "$WORK/good.json" >/dev/null || fail "a job after the bad inputs"
kill -TERM "${PID[d]}"
wait "${PID[d]}" || fail "the daemon did not exit 0"
unset 'PID[d]'
echo "daemon wasm: all checks passed"
