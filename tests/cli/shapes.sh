# Circuit shapes end to end: `circuit synth --shape bits` prints its witness
# mix; its development key (cuzk setup, here on the CPU) proves, and cuzk
# and snarkjs accept the proof; `bench prove --in-memory` makes circuit, key
# and witness in memory and verifies its proofs.
source "$(dirname "$0")/../interop/lib.sh"
need_peers
d=$WORK

step "a bit-heavy circuit and its mix"
"$CUZK" circuit synth --curve bls12381 --constraints 3000 --public 2 --shape bits "$d/c.r1cs" "$d/w.wtns" \
    2>"$d/mix.txt"
cat "$d/mix.txt"
python3 - "$d/mix.txt" <<'PY'
import re, sys
m = re.search(r"([\d.]+) % zeros, ([\d.]+) % ones", open(sys.argv[1]).read())
zeros, ones = float(m.group(1)), float(m.group(2))
assert 50 < zeros < 66 and 30 < ones < 46, (zeros, ones)
PY

step "its key proves; cuzk and snarkjs verify"
"$CUZK" setup --backend auto "$d/c.r1cs" "$d/c.zkey" 2>"$d/setup.txt"
grep -q "H (G1): .* into the setup" "$d/setup.txt" || { cat "$d/setup.txt"; echo "FAIL: no setup progress"; exit 1; }
"$CUZK" zkey export verificationkey "$d/c.zkey" "$d/vk.json"
"$CUZK" groth16 prove --r1cs "$d/c.r1cs" "$d/c.zkey" "$d/w.wtns" "$d/proof.json" "$d/public.json"
"$CUZK" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json"
snarkjs_verify "$d/vk.json" "$d/public.json" "$d/proof.json"

step "bench prove in memory"
"$CUZK" bench prove --in-memory --backend cpu --curve bn128 --constraints 3000 --shape mixed --repeat 1 \
    >"$d/bench.txt" 2>&1 || { cat "$d/bench.txt"; echo "FAIL: bench prove --in-memory"; exit 1; }
grep -q "prove total" "$d/bench.txt" && grep -q "setup (host key)" "$d/bench.txt" && grep -q "witness mix" "$d/bench.txt" ||
    { cat "$d/bench.txt"; echo "FAIL: bench prove --in-memory's report"; exit 1; }
step "bench pipeline with the key the engine makes in memory"
"$CUZK" bench pipeline --in-memory --backend cpu --curve bls12381 --constraints 2000 --shape bits --jobs 2 \
    --partitions 2 >"$d/pipeline.txt" 2>&1 || { cat "$d/pipeline.txt"; echo "FAIL: bench pipeline --in-memory"; exit 1; }
grep -q "proofs (verified) | 4 (4)" "$d/pipeline.txt" && grep -q "key made and registered" "$d/pipeline.txt" ||
    { cat "$d/pipeline.txt"; echo "FAIL: bench pipeline --in-memory's report"; exit 1; }
echo "shapes: all passed"
