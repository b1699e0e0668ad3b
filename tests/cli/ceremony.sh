# The ceremony's commands end to end with cuzk alone (no node): phase 1
# (new, contribute, beacon, prepare phase2, verify), phase 2 (zkey new,
# contribute, beacon, verify), a proof with the final key; zkey new the
# same bytes on 1 and 3 threads for a circuit whose ONE wire has more terms
# than one thread should take; usage errors exit 2, bad files exit 1
# naming what is wrong.
source "$(dirname "$0")/../interop/lib.sh"
d=$WORK
for curve in bn128 bls12381; do
    step "$curve: a whole ceremony"
    "$CUZK" circuit synth --curve "$curve" --constraints 50 --public 2 "$d/c.r1cs" "$d/c.wtns" >/dev/null 2>&1
    "$CUZK" powersoftau new "$curve" 7 "$d/0.ptau"
    "$CUZK" powersoftau contribute "$d/0.ptau" "$d/1.ptau" --name=first -e="some text" >/dev/null 2>&1
    "$CUZK" ptc "$d/1.ptau" "$d/2.ptau" >/dev/null 2>&1
    "$CUZK" powersoftau beacon "$d/2.ptau" "$d/3.ptau" 00ff00ff 10 --name=beacon >/dev/null 2>&1
    "$CUZK" powersoftau prepare phase2 "$d/3.ptau" "$d/pot.ptau" 2>/dev/null
    "$CUZK" powersoftau verify "$d/pot.ptau" >"$d/v1.txt" 2>/dev/null
    grep -q "Powers of Tau Ok!" "$d/v1.txt"
    grep -q "Contribution #1: first" "$d/v1.txt"
    "$CUZK" zkey new "$d/c.r1cs" "$d/pot.ptau" "$d/c0.zkey" 2>/dev/null | grep -q "Circuit hash"
    "$CUZK" zkey contribute "$d/c0.zkey" "$d/c1.zkey" -n alice -e entropy 2>/dev/null | grep -q "Contribution Hash"
    "$CUZK" zkey beacon "$d/c1.zkey" "$d/c2.zkey" 1234 10 2>/dev/null | grep -q "Contribution Hash"
    "$CUZK" zkey verify "$d/c.r1cs" "$d/pot.ptau" "$d/c2.zkey" >"$d/v2.txt" 2>/dev/null
    grep -q "ZKey Ok!" "$d/v2.txt"
    grep -q "contribution #1 alice" "$d/v2.txt"
    "$CUZK" zkey export verificationkey "$d/c2.zkey" "$d/vk.json"
    "$CUZK" groth16 prove "$d/c2.zkey" "$d/c.wtns" "$d/proof.json" "$d/public.json"
    "$CUZK" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" | grep -q "OK!"

    step "$curve: the key of one ceremony does not verify against another's powers of tau"
    "$CUZK" powersoftau contribute "$d/0.ptau" "$d/x1.ptau" >/dev/null 2>&1
    "$CUZK" powersoftau prepare phase2 "$d/x1.ptau" "$d/xpot.ptau" 2>/dev/null
    expect_fail "$CUZK" zkey verify "$d/c.r1cs" "$d/xpot.ptau" "$d/c2.zkey"
    expect_output "INVALID"
    step "$curve: a fresh file has no contribution to verify"
    expect_fail "$CUZK" powersoftau verify "$d/0.ptau"
    expect_output "no contribution"
done

step "zkey new on 1 and 3 threads: the same key (the ONE wire's terms shared out over threads)"
"$CUZK" circuit synth --curve bn128 --constraints 1200 --public 2 --shape mixed "$d/m.r1cs" "$d/m.wtns" >/dev/null 2>&1
"$CUZK" powersoftau new bn128 11 "$d/m0.ptau"
"$CUZK" powersoftau contribute "$d/m0.ptau" "$d/m1.ptau" -e="text" >/dev/null 2>&1
"$CUZK" powersoftau prepare phase2 "$d/m1.ptau" "$d/mpot.ptau" 2>/dev/null
for t in 1 3; do
    "$CUZK" zkey new "$d/m.r1cs" "$d/mpot.ptau" "$d/m-$t.zkey" --threads "$t" >/dev/null 2>&1
done
cmp "$d/m-1.zkey" "$d/m-3.zkey" || { echo "FAIL: zkey new differs between 1 and 3 threads"; exit 1; }

step "usage errors exit 2"
for args in "powersoftau new bn128" "powersoftau new nocurve 8 $d/x.ptau" "powersoftau new bn128 zero $d/x.ptau" \
    "zkey beacon $d/c1.zkey $d/x.zkey nothex 10" "zkey beacon $d/c1.zkey $d/x.zkey 1234 9" "zkey new $d/c.r1cs" \
    "powersoftau verify"; do
    rc=0
    # shellcheck disable=SC2086
    "$CUZK" $args >/dev/null 2>&1 || rc=$?
    [ $rc -eq 2 ] || { echo "FAIL: exit $rc, not 2: cuzk $args"; exit 1; }
done

step "bad files exit 1, named"
head -c 2000 "$d/pot.ptau" >"$d/cut.ptau"
expect_fail "$CUZK" powersoftau verify "$d/cut.ptau"
expect_output "cut.ptau"
expect_fail "$CUZK" powersoftau contribute "$d/nope.ptau" "$d/y.ptau"
expect_output "nope.ptau"
expect_fail "$CUZK" zkey contribute "$d/c.r1cs" "$d/y.zkey"
expect_output "c.r1cs"
expect_fail "$CUZK" zkey new "$d/c.r1cs" "$d/0.ptau" "$d/y.zkey"
expect_output "not prepared"
[ ! -e "$d/y.zkey" ] || { echo "FAIL: a key was written"; exit 1; }
echo "ceremony commands: all checks passed"
