#!/usr/bin/env bash
# A daemon whose jobs live in its job store ([daemon] state_dir) killed for
# real and started again on the same folder:
#   - killed with SIGKILL at named points (CUZK_CRASH_AT, util/crash_point.h:
#     a job kept but its submit not answered, a partition synthesizing, one
#     proving, a proof made but not recorded, one just recorded) and from
#     outside with jobs queued: every job ends done, each proof verifies
#     (cuzk groth16 verify), no job is lost or made twice (the store's rows
#     counted), request ids give the same job ids, results read back alike
#   - a witness file deleted while the daemon was down fails its partitions,
#     the message naming it
#   - the sim backend killed while its partitions wait at the device (the
#     sim gate) and restarted without the gate: every job done
#   - circuits registered through the API survive; a second daemon cannot
#     take the folder; a damaged or truncated store, or a folder that cannot
#     be made, refuses the start with a message (never a crash), a backup
#     (sqlite3 .backup) brings the jobs back; a full disk (a small tmpfs,
#     where this machine lets the test mount one) answers submits with 503
#     and the store takes jobs again once there is room; ended jobs go after
#     retain_s.
# Every wait is for an event: a process's death, a status answer, a job's
# state.
source "$(dirname "$0")/../interop/lib.sh"
source "$ROOT/tests/cli/daemon_lib.bash"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 command (scripts/install-deps)"; exit 77; }

SOCK=unix:$WORK/d.sock
STATE=$WORK/state
export CUZK_CONNECT=$SOCK

step "a small circuit, its key and a witness"
"$CUZK" circuit synth --curve bn128 --constraints 100 --public 2 "$WORK/c.r1cs" "$WORK/w.wtns"
"$CUZK" setup "$WORK/c.r1cs" "$WORK/c.zkey" 2>/dev/null
"$CUZK" zkey export verificationkey "$WORK/c.zkey" "$WORK/vk.json"
cat >"$WORK/d.ini" <<EOF
[daemon]
listen = $SOCK
max_wait_s = 30
state_dir = $STATE
[memory]
budget_gib = 1
[devices]
backend = cpu
cpu_threads = 1
[synthesis]
workers = 2
[keys]
circuit = c, $WORK/c.zkey, $WORK/c.r1cs
[logging]
file = $WORK/d.log
EOF

# up [CRASH_AT] [ARGS...]: the daemon on the store, armed to die at a crash
# point when one is named; returns once it answers, or once it died (a crash
# point reached at start: the caller's died_at says).
up() {
    local crash=${1:-}
    shift || true
    CUZK_CRASH_AT=$crash "$CUZK" daemon --config "$WORK/d.ini" "$@" >>"$WORK/d.out" 2>&1 &
    PID[d]=$!
    for _ in $(seq 600); do
        "$CUZK" client status >/dev/null 2>&1 && return 0
        kill -0 "${PID[d]}" 2>/dev/null || return 0
        sleep 0.1
    done
    fail "the daemon did not answer"
}
# died_at POINT: the armed daemon's death, by SIGKILL at POINT.
died_at() {
    local rc=0
    wait "${PID[d]}" || rc=$?
    unset "PID[d]"
    [ $rc = 137 ] || { tail -n 20 "$WORK/d.out"; fail "the daemon exited $rc, not by SIGKILL at $1"; }
    grep -q "crash point $1 reached" "$WORK/d.out" || fail "not killed at $1"
}
kill9() {
    kill -9 "${PID[d]}"
    wait "${PID[d]}" 2>/dev/null || true
    unset "PID[d]"
}
down() {
    kill -TERM "${PID[d]}"
    local rc=0
    wait "${PID[d]}" || rc=$?
    unset "PID[d]"
    [ $rc = 0 ] || fail "the daemon exited $rc after SIGTERM"
}
# submit_all NAME: jobs NAME-1 .. NAME-4 of two partitions each, by request
# id (again after a restart: the same ids); a submit the daemon died in is
# left for the next round.
JOBS=4
submit_all() {
    for i in $(seq $JOBS); do
        "$CUZK" client submit --quiet --circuit c --request-id "$1-$i" "$WORK/w.wtns" "$WORK/w.wtns" \
            >"$WORK/id-$1-$i" 2>/dev/null || rm -f "$WORK/id-$1-$i"
    done
}
# all_done NAME: after a restart, every job of NAME is submitted again
# (nothing new is made), awaited, done, and its proofs verify.
all_done() {
    local first=() i
    for i in $(seq $JOBS); do first[$i]=$(cat "$WORK/id-$1-$i" 2>/dev/null || echo none); done
    submit_all "$1"
    for i in $(seq $JOBS); do
        local id
        id=$(cat "$WORK/id-$1-$i") || fail "$1-$i: not accepted after the restart"
        [ "${first[$i]}" = none ] || [ "${first[$i]}" = "$id" ] || fail "$1-$i: job ${first[$i]} became $id"
        rm -rf "$WORK/out"
        mkdir -p "$WORK/out"
        "$CUZK" client await --timeout 120 --out "$WORK/out" "$id" >"$WORK/await.json" ||
            { cat "$WORK/await.json"; fail "$1-$i: job $id did not end"; }
        [ "$(jget "$WORK/await.json" 'd["state"], d["partitions_done"], d["verified"]')" = "('done', 2, True)" ] ||
            fail "$1-$i: $(cat "$WORK/await.json")"
        for p in 0 1; do
            "$CUZK" groth16 verify "$WORK/vk.json" "$WORK/out/public_$p.json" "$WORK/out/proof_$p.json" |
                grep -q 'OK!' || fail "$1-$i: proof $p does not verify"
        done
    done
}
# store_is_whole ROUNDS: one job per request id, each done with all its
# proofs; nothing left running.
store_is_whole() {
    local want=$(($1 * JOBS))
    local got
    got=$(sqlite3 "$STATE/jobs.sqlite" "SELECT count(*), count(DISTINCT request_id), sum(state = 'done'),
        (SELECT count(*) FROM partitions WHERE state = 'done' AND proof IS NOT NULL),
        (SELECT count(*) FROM partitions WHERE state != 'done') FROM jobs")
    [ "$got" = "$want|$want|$want|$((2 * want))|0" ] || fail "the store holds $got, not $want jobs all done"
}

rounds=0
step "killed at each point (CPU backend), restarted on the same store: every job done, each proof verified"
for point in store:submitted:3 engine:synthesizing:3 engine:proving:4 store:proved:3 store:recorded:2; do
    name=${point//:/-}
    echo "  $point"
    up "$point"
    submit_all "$name"
    died_at "${point%:*}"
    up
    all_done "$name"
    rounds=$((rounds + 1))
    store_is_whole $rounds
    down
done
grep -q 'msg="store: opened".* requeued=[1-9]' "$WORK/d.log" || fail "no running partition was ever queued again"

step "killed from outside with jobs queued in the store"
up
submit_all outside
kill9
up
all_done outside
rounds=$((rounds + 1))
store_is_whole $rounds

step "a witness file gone while the daemon was down fails its partitions, saying which"
down
cp "$WORK/w.wtns" "$WORK/gone.wtns"
up engine:synthesizing:1
gone_id=$("$CUZK" client submit --quiet --circuit c "$WORK/gone.wtns" "$WORK/gone.wtns")
died_at engine:synthesizing
rm "$WORK/gone.wtns"
up
expect_fail "$CUZK" client await --timeout 60 "$gone_id"
[ "$(jget "$WORK/out.txt" 'd["state"]')" = failed ] || fail "job $gone_id did not fail"
jget "$WORK/out.txt" 'd["error"]' | grep -q "gone.wtns" || fail "the error does not name the file"

step "an earlier run's job reads back alike; a circuit registered through the API survives"
id=$(cat "$WORK/id-outside-1")
"$CUZK" client await "$id" >"$WORK/before.json"
"$CUZK" client register c2 "$WORK/c.zkey" >/dev/null
id2=$("$CUZK" client submit --quiet --circuit c2 --inline "$WORK/w.wtns")
kill9
up
"$CUZK" client await "$id" >"$WORK/after.json"
[ "$(jget "$WORK/before.json" 'd["proofs"], d["public_signals"]')" = "$(jget "$WORK/after.json" 'd["proofs"], d["public_signals"]')" ] ||
    fail "job $id reads back otherwise"
"$CUZK" client await --timeout 60 "$id2" >"$WORK/c2.json"
[ "$(jget "$WORK/c2.json" 'd["state"], d["verified"]')" = "('done', True)" ] || fail "the c2 job: $(cat "$WORK/c2.json")"
"$CUZK" client status >"$WORK/status.json"
[ "$(jget "$WORK/status.json" '[c["id"] for c in d["circuits"]].count("c2")')" = 1 ] || fail "c2 is not registered again"
[ "$(jget "$WORK/status.json" 'd["job_store"]["kind"], d["job_store"]["file"]')" = "('sqlite', '$STATE/jobs.sqlite')" ] ||
    fail "status: $(jget "$WORK/status.json" 'd["job_store"]')"
jget "$WORK/status.json" 'd["job_store"]["survives"]' | grep -q "kill -9" || fail "status does not say what survives"

step "a second daemon cannot take the folder"
sed -e "s|$SOCK|unix:$WORK/twin.sock|" "$WORK/d.ini" >"$WORK/twin.ini"
expect_fail "$CUZK" daemon --config "$WORK/twin.ini"
expect_output "is in use by another daemon (pid ${PID[d]})"
"$CUZK" client status >/dev/null || fail "the first daemon was disturbed"

step "a backup, then a damaged store refuses the start; the backup brings the jobs back"
sqlite3 "$STATE/jobs.sqlite" ".backup '$WORK/backup.sqlite'"
down
cp "$STATE/jobs.sqlite" "$WORK/good.sqlite"
head -c 65536 /dev/urandom >"$STATE/jobs.sqlite"
rm -f "$STATE/jobs.sqlite-wal" "$STATE/jobs.sqlite-shm"
expect_fail "$CUZK" daemon --config "$WORK/d.ini"
expect_output "jobs.sqlite is damaged"
head -c $(($(stat -c %s "$WORK/good.sqlite") / 2)) "$WORK/good.sqlite" >"$STATE/jobs.sqlite"
expect_fail "$CUZK" daemon --config "$WORK/d.ini"
expect_output "jobs.sqlite is damaged"
cp "$WORK/backup.sqlite" "$STATE/jobs.sqlite"
up
"$CUZK" client await "$id" >"$WORK/restored.json"
[ "$(jget "$WORK/restored.json" 'd["proofs"]')" = "$(jget "$WORK/before.json" 'd["proofs"]')" ] || fail "the backup lost job $id"
down

step "a folder that cannot be made refuses the start"
touch "$WORK/plain"
expect_fail "$CUZK" daemon --config "$WORK/d.ini" --set "daemon.state_dir=$WORK/plain/state"
expect_output "cannot make the state directory $WORK/plain/state"

step "ended jobs leave after retain_s"
up "" --set daemon.retain_s=0.5
gone=0
for _ in $(seq 300); do # the sweep runs every retain_s / 2
    "$CUZK" client await "$id" >/dev/null 2>"$WORK/gone.txt" || { grep -q "HTTP 404" "$WORK/gone.txt" && gone=1 && break; }
    sleep 0.1
done
[ $gone = 1 ] || fail "job $id was not deleted after retain_s"
down

step "the sim backend killed while its partitions wait at the device; restarted without the gate"
SIM_STATE=$WORK/sim-state
sed -e "s|backend = cpu|backend = sim\nsim_device_ms = 1\nsim_gate = $WORK/gate|" -e "s|state_dir = .*|state_dir = $SIM_STATE|" \
    "$WORK/d.ini" >"$WORK/sim.ini"
start_sim() {
    "$CUZK" daemon --config "$WORK/sim.ini" "$@" >>"$WORK/sim.out" 2>&1 &
    PID[d]=$!
    for _ in $(seq 600); do
        "$CUZK" client status >/dev/null 2>&1 && return 0
        kill -0 "${PID[d]}" 2>/dev/null || { cat "$WORK/sim.out"; fail "the sim daemon died at start"; }
        sleep 0.1
    done
    fail "the sim daemon did not answer"
}
start_sim
sim_ids=()
for i in 1 2 3; do
    sim_ids+=("$("$CUZK" client submit --quiet --circuit c "$WORK/w.wtns" "$WORK/w.wtns" "$WORK/w.wtns")")
done
at_gate=0
for _ in $(seq 600); do # until a partition waits at the device
    "$CUZK" client status >"$WORK/sim-status.json"
    [ "$(jget "$WORK/sim-status.json" 'd["queues"]["on_gpu"]')" -ge 1 ] && at_gate=1 && break
    sleep 0.05
done
[ $at_gate = 1 ] || fail "no partition reached the sim's device"
kill9
start_sim --set devices.sim_gate=
for id in "${sim_ids[@]}"; do
    "$CUZK" client await --timeout 60 "$id" >"$WORK/sim-await.json"
    [ "$(jget "$WORK/sim-await.json" 'd["state"], d["partitions_done"]')" = "('done', 3)" ] ||
        fail "sim job $id: $(cat "$WORK/sim-await.json")"
done
[ "$(sqlite3 "$SIM_STATE/jobs.sqlite" "SELECT count(*), sum(state = 'done') FROM jobs")" = "3|3" ] || fail "sim store"
down

step "a full disk: submits answered 503, the store takes jobs again once there is room"
FULL=$WORK/full
mkdir -p "$FULL"
if mount -t tmpfs -o size=4m tmpfs "$FULL" 2>/dev/null; then
    cleanup_extra() { umount "$FULL" 2>/dev/null || true; }
    up "" --set "daemon.state_dir=$FULL/state"
    "$CUZK" client submit --quiet --circuit c --inline "$WORK/w.wtns" >"$WORK/full-ok"
    dd if=/dev/zero of="$FULL/filler" bs=64k 2>/dev/null || true
    refused=0
    for i in $(seq 200); do # until the store's file cannot grow
        if ! "$CUZK" client submit --circuit c --inline "$WORK/w.wtns" >/dev/null 2>"$WORK/full.txt"; then
            grep -q "HTTP 503.*disk is full" "$WORK/full.txt" || { cat "$WORK/full.txt"; fail "refused otherwise"; }
            refused=1
            break
        fi
    done
    [ $refused = 1 ] || fail "submits were never refused on a full disk"
    "$CUZK" client status >/dev/null || fail "status fails on a full disk"
    rm -f "$FULL/filler"
    late=$("$CUZK" client submit --quiet --circuit c --inline "$WORK/w.wtns")
    "$CUZK" client await --timeout 60 "$late" >"$WORK/late.json"
    [ "$(jget "$WORK/late.json" 'd["state"]')" = done ] || fail "no job after the disk had room again"
    "$CUZK" client await --timeout 60 "$(cat "$WORK/full-ok")" >"$WORK/early.json"
    [ "$(jget "$WORK/early.json" 'd["state"]')" = done ] || fail "the job before the disk filled"
    down
    # a start on a full disk is refused
    up "" --set "daemon.state_dir=$FULL/state"
    down
    dd if=/dev/zero of="$FULL/filler" bs=64k 2>/dev/null || true
    expect_fail "$CUZK" daemon --config "$WORK/d.ini" --set "daemon.state_dir=$FULL/state"
    expect_output "disk is full"
    rm -f "$FULL/filler"
else
    echo "  skipped: this machine does not let the test mount a tmpfs"
fi
echo "daemon restart: all passed"
