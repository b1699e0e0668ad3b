# cuzk bench pipeline end to end (what `make demo` runs): real proofs
# through the engine on the CPU backend, every one verified, the pool at its
# prewarmed buffers; and, on the sim backend, poll's burst of allocations
# against the semaphore and the pacer. Counts only, never speeds; the sim
# runs are on a virtual clock (--virtual-time), so what they count follows
# the model, not the machine's load.
source "$(dirname "$0")/../interop/lib.sh"

step "cpu backend: 2 jobs x 3 partitions, every proof verified"
"$CUZK" bench pipeline --backend cpu --policy semaphore --curve bn128 --constraints 256 \
    --jobs 2 --partitions 3 --json >"$WORK/cpu.json"
python3 - "$WORK/cpu.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["backend"] == "cpu" and r["proofs"] == 6 and r["proofs_verified"] == 6, r
# the prewarmed buffers (one per permit), then only reuses
assert r["pool_allocations"] == r["max_gpu_queue_depth"] and r["pool_reuses"] == 6, r
assert r["pool_checkins"] == 6 and r["budget_high_water_bytes"] <= r["budget_bytes"], r
PY

step "sim backend: poll allocates a buffer per partition, semaphore and pacer reuse"
for policy in poll semaphore pacer; do
    "$CUZK" bench pipeline --backend sim --policy "$policy" --jobs 4 --partitions 4 \
        --synth-ms 1 --gpu-ms 10 --poll-ms 50 --virtual-time --json >"$WORK/sim-$policy.json"
done
python3 - "$WORK" <<'PY'
import json, sys
r = {p: json.load(open(f"{sys.argv[1]}/sim-{p}.json")) for p in ("poll", "semaphore", "pacer")}
for p, x in r.items():
    assert x["proofs"] == 16 and x["pool_checkins"] == 16, (p, x)
    # the model's times exactly, as only the virtual clock gives them
    assert x["synthesis_p99_s"] == 0.001 and x["gpu_p50_s"] == x["gpu_p99_s"] == 0.01, (p, x)
for p in ("semaphore", "pacer"):
    assert r[p]["pool_allocations"] == r[p]["max_gpu_queue_depth"] == 2, (p, r[p])
# the device busy from the end of the first synthesis (1 ms) to the last of 16 partitions
assert r["semaphore"]["wall_s"] == 0.161 and r["semaphore"]["gpu_busy_fraction_active"] == 1, r["semaphore"]
# poll releases all that is pending at a tick: the 16 partitions go in at
# most two bursts (the first tick may come while the jobs are still being
# submitted), the larger of at least 8, each of its partitions taking a
# buffer at once
assert r["poll"]["pool_allocations"] >= 8, r["poll"]
print({p: (x["pool_allocations"], x["pool_reuses"]) for p, x in r.items()})
PY
