# The ceremony's --backend: the same files from the CPU and the GPU (a
# beacon's secrets are the same on every run: deterministic, comparable);
# without a usable GPU, --backend gpu fails with a clear error (exit 1, no
# file) and auto falls back to the CPU; a backend that is none of
# auto|cpu|gpu is a usage error (exit 2).
source "$(dirname "$0")/../interop/lib.sh"
d=$WORK
gpu=1
"$CUZK" powersoftau new bn128 6 "$d/0.ptau"
if ! "$CUZK" powersoftau beacon "$d/0.ptau" "$d/probe.ptau" 00ff 10 --backend gpu >/dev/null 2>"$d/probe.txt"; then
    gpu=0
fi
for curve in bn128 bls12381; do
    step "$curve: the same beacons, Lagrange bases and keys with --backend cpu and auto$([ $gpu = 1 ] && echo ' and gpu')"
    "$CUZK" circuit synth --curve "$curve" --constraints 40 --public 2 "$d/c.r1cs" "$d/c.wtns" >/dev/null 2>&1
    "$CUZK" powersoftau new "$curve" 7 "$d/0.ptau"
    backends="cpu auto"
    [ $gpu = 1 ] && backends="cpu auto gpu"
    for b in $backends; do
        "$CUZK" powersoftau beacon "$d/0.ptau" "$d/1-$b.ptau" 00ff00ff 10 --backend "$b" >/dev/null 2>"$d/log.txt"
        [ "$b" != auto ] || [ $gpu = 1 ] || grep -q "multiplications on the CPU" "$d/log.txt" ||
            { cat "$d/log.txt"; echo "FAIL: auto did not say it took the CPU"; exit 1; }
        cmp "$d/1-cpu.ptau" "$d/1-$b.ptau"
    done
    for b in $backends; do
        "$CUZK" powersoftau prepare phase2 "$d/1-cpu.ptau" "$d/pot-$b.ptau" --backend "$b" 2>/dev/null
        cmp "$d/pot-cpu.ptau" "$d/pot-$b.ptau"
    done
    mv "$d/pot-cpu.ptau" "$d/pot.ptau"
    for b in $backends; do
        "$CUZK" zkey new "$d/c.r1cs" "$d/pot.ptau" "$d/c0-$b.zkey" --backend "$b" >/dev/null 2>&1
        cmp "$d/c0-cpu.zkey" "$d/c0-$b.zkey"
        "$CUZK" zkey beacon "$d/c0-$b.zkey" "$d/c1-$b.zkey" 1234 10 --backend "$b" >/dev/null 2>&1
        cmp "$d/c1-cpu.zkey" "$d/c1-$b.zkey"
    done
    for b in $backends; do
        "$CUZK" zkey verify "$d/c.r1cs" "$d/pot.ptau" "$d/c1-cpu.zkey" --backend "$b" 2>/dev/null | grep -q "ZKey Ok!"
        "$CUZK" powersoftau verify "$d/pot.ptau" --backend "$b" 2>/dev/null | grep -q "Powers of Tau Ok!"
    done
done

if [ $gpu = 0 ]; then
    step "without a usable GPU, --backend gpu is a clear error and writes nothing"
    expect_fail "$CUZK" powersoftau contribute "$d/0.ptau" "$d/x.ptau" -e text --backend gpu
    expect_output "GPU\|CUDA"
    expect_fail "$CUZK" zkey new "$d/c.r1cs" "$d/pot.ptau" "$d/x.zkey" --backend gpu
    expect_output "GPU\|CUDA"
    expect_fail "$CUZK" zkey contribute "$d/c0-cpu.zkey" "$d/x.zkey" -e text --backend gpu
    expect_output "GPU\|CUDA"
    expect_fail "$CUZK" zkey verify "$d/c.r1cs" "$d/pot.ptau" "$d/c1-cpu.zkey" --backend gpu
    expect_output "GPU\|CUDA"
    expect_fail "$CUZK" powersoftau prepare phase2 "$d/1-cpu.ptau" "$d/x.ptau" --backend gpu
    expect_output "GPU\|CUDA"
    expect_fail "$CUZK" powersoftau verify "$d/pot.ptau" --backend gpu
    expect_output "GPU\|CUDA"
    [ ! -e "$d/x.ptau" ] && [ ! -e "$d/x.zkey" ] || { echo "FAIL: a file was written"; exit 1; }
fi

step "a backend other than auto, cpu or gpu is a usage error"
for args in "zkey new $d/c.r1cs $d/pot.ptau $d/y.zkey --backend sim" \
    "powersoftau contribute $d/0.ptau $d/y.ptau --backend fast" "zkey beacon $d/c0-cpu.zkey $d/y.zkey 12 10 --backend x" \
    "powersoftau verify $d/pot.ptau --backend y"; do
    rc=0
    # shellcheck disable=SC2086
    "$CUZK" $args >/dev/null 2>&1 || rc=$?
    [ $rc -eq 2 ] || { echo "FAIL: exit $rc, not 2: cuzk $args"; exit 1; }
done
echo "ceremony backends: all checks passed"
