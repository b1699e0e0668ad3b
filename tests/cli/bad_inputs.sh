# Bad inputs fail cleanly (exit 1, a message naming the file), never crash.
source "$(dirname "$0")/../interop/lib.sh"
d=$WORK
"$CUZK" circuit synth --curve bn128 --constraints 20 "$d/bn.r1cs" "$d/bn.wtns"
"$CUZK" setup "$d/bn.r1cs" "$d/bn.zkey" 2>/dev/null
"$CUZK" circuit synth --curve bls12381 --constraints 20 "$d/bls.r1cs" "$d/bls.wtns"
"$CUZK" circuit synth --curve bn128 --constraints 25 "$d/bn25.r1cs" "$d/bn25.wtns"
"$CUZK" zkey export verificationkey "$d/bn.zkey" "$d/vk.json"
"$CUZK" groth16 prove "$d/bn.zkey" "$d/bn.wtns" "$d/proof.json" "$d/public.json"

step "missing files"
expect_fail "$CUZK" groth16 prove "$d/nope.zkey" "$d/bn.wtns" "$d/p.json" "$d/q.json"
expect_output "nope"
step "truncated key"
head -c 3000 "$d/bn.zkey" >"$d/short.zkey"
expect_fail "$CUZK" groth16 prove "$d/short.zkey" "$d/bn.wtns" "$d/p.json" "$d/q.json"
expect_output "short.zkey"
step "not a key at all"
head -c 5000 /dev/urandom >"$d/junk.zkey"
expect_fail "$CUZK" groth16 prove "$d/junk.zkey" "$d/bn.wtns" "$d/p.json" "$d/q.json"
step "a witness over the other curve"
expect_fail "$CUZK" groth16 prove "$d/bn.zkey" "$d/bls.wtns" "$d/p.json" "$d/q.json"
expect_output "bls12381"
step "a witness of the wrong length"
expect_fail "$CUZK" groth16 prove "$d/bn.zkey" "$d/bn25.wtns" "$d/p.json" "$d/q.json"
expect_output "nVars"
step "a witness for another r1cs"
expect_fail "$CUZK" groth16 prove --r1cs "$d/bn25.r1cs" "$d/bn.zkey" "$d/bn.wtns" "$d/p.json" "$d/q.json"
step "a backend that makes no real proofs, or none at all"
expect_fail "$CUZK" groth16 prove --backend sim "$d/bn.zkey" "$d/bn.wtns" "$d/sim.json" "$d/q.json"
expect_output "placeholder"
[ ! -e "$d/sim.json" ] || { echo "FAIL: the sim backend wrote a proof file"; exit 1; }
expect_fail "$CUZK" groth16 prove --backend nope "$d/bn.zkey" "$d/bn.wtns" "$d/p.json" "$d/q.json"
expect_output "unknown backend"
step "r1cs of the other curve for setup --curve"
expect_fail "$CUZK" setup --curve bls12381 "$d/bn.r1cs" "$d/x.zkey"
step "malformed proof and key JSON"
echo '{"pi_a": ["1", "2"' >"$d/broken.json"
expect_fail "$CUZK" groth16 verify "$d/vk.json" "$d/public.json" "$d/broken.json"
expect_fail "$CUZK" groth16 verify "$d/broken.json" "$d/public.json" "$d/proof.json"
step "a point off the curve"
python3 - "$d/proof.json" "$d/offcurve.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["pi_c"][1] = str(int(p["pi_c"][1]) ^ 2)
json.dump(p, open(sys.argv[2], "w"))
PY
expect_fail "$CUZK" groth16 verify "$d/vk.json" "$d/public.json" "$d/offcurve.json"
expect_output "INVALID"
step "a public signal >= r"
echo '["21888242871839275222246405745257275088548364400416034343698204186575808495618"]' >"$d/big.json"
expect_fail "$CUZK" groth16 verify "$d/vk.json" "$d/big.json" "$d/proof.json"
step "a FIFO as key, witness or JSON input is refused, never waited on"
mkfifo "$d/in.fifo"
expect_fail timeout 60 "$CUZK" groth16 prove "$d/in.fifo" "$d/bn.wtns" "$d/p.json" "$d/q.json"
expect_output "in.fifo: not a regular file (a FIFO)"
expect_fail timeout 60 "$CUZK" groth16 prove "$d/bn.zkey" "$d/in.fifo" "$d/p.json" "$d/q.json"
expect_output "in.fifo: not a regular file (a FIFO)"
expect_fail timeout 60 "$CUZK" groth16 verify "$d/vk.json" "$d/public.json" "$d/in.fifo"
expect_output "in.fifo: not a regular file (a FIFO)"
step "a failed write keeps what stood at the output paths"
echo old >"$d/keep.json"
echo old >"$d/keep_public.json"
# writes past 0 blocks fail with EFBIG (SIGXFSZ ignored): a full disk; the
# messages go through a pipe, out of the limit's reach
expect_fail bash -c 'set -o pipefail; (ulimit -f 0; trap "" XFSZ; exec "$@") 2>&1 | cat' - \
    "$CUZK" groth16 prove "$d/bn.zkey" "$d/bn.wtns" "$d/keep.json" "$d/keep_public.json"
expect_output "keep"
[ "$(cat "$d/keep.json")" = old ] && [ "$(cat "$d/keep_public.json")" = old ] ||
    { echo "FAIL: a failed write changed or removed the old outputs"; exit 1; }
! ls "$d" | grep -q '\.tmp\.' || { echo "FAIL: a temporary file was left behind"; exit 1; }
step "no proof.json when public.json cannot be written"
expect_fail "$CUZK" groth16 prove "$d/bn.zkey" "$d/bn.wtns" "$d/lone.json" "$d/no/such/dir/public.json"
[ ! -e "$d/lone.json" ] || { echo "FAIL: proof.json written without public.json"; exit 1; }
step "a device as output is written in place, never removed"
if mknod "$d/full" c 1 7 2>/dev/null; then # what /dev/full is
    expect_fail "$CUZK" groth16 prove "$d/bn.zkey" "$d/bn.wtns" "$d/full" "$d/q.json"
    [ -c "$d/full" ] || { echo "FAIL: the device node was removed"; exit 1; }
fi
"$CUZK" groth16 prove "$d/bn.zkey" "$d/bn.wtns" /dev/null /dev/null
step "a key with a flipped byte in its C points gives no proof"
python3 - "$d/bn.zkey" "$d/flipped.zkey" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
pos, n = 12, struct.unpack_from("<I", b, 8)[0]
for _ in range(n):
    sid, size = struct.unpack_from("<IQ", b, pos)
    if sid == 8:  # C points: flip the low byte of the first x (stays below q)
        b[pos + 12] ^= 1
    pos += 12 + size
open(sys.argv[2], "wb").write(b)
PY
rm -f "$d/bad.json"
expect_fail "$CUZK" groth16 prove "$d/flipped.zkey" "$d/bn.wtns" "$d/bad.json" "$d/q.json"
expect_output "does not verify"
[ ! -e "$d/bad.json" ] || { echo "FAIL: a proof that does not verify was written"; exit 1; }
"$CUZK" groth16 prove --no-verify "$d/flipped.zkey" "$d/bn.wtns" "$d/bad.json" "$d/q.json"
expect_fail "$CUZK" groth16 verify "$d/vk.json" "$d/q.json" "$d/bad.json"
step "usage errors"
rc=0; "$CUZK" groth16 prove "$d/bn.zkey" >/dev/null 2>&1 || rc=$?; [ $rc -eq 2 ]
rc=0; "$CUZK" frobnicate >/dev/null 2>&1 || rc=$?; [ $rc -eq 2 ]
rc=0; "$CUZK" groth16 prove --threads zero a b c d >/dev/null 2>&1 || rc=$?; [ $rc -eq 2 ]
rc=0; "$CUZK" circuit synth --curve bn128 --constraints 9 --shape sha "$d/s.r1cs" "$d/s.wtns" >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ]
rc=0; "$CUZK" setup --backend tpu "$d/bn.r1cs" "$d/x.zkey" >/dev/null 2>&1 || rc=$?; [ $rc -eq 2 ]
rc=0; "$CUZK" setup --backend sim "$d/bn.r1cs" "$d/x.zkey" >/dev/null 2>&1 || rc=$?; [ $rc -eq 2 ]
rc=0; "$CUZK" bench pipeline --backend tpu >/dev/null 2>&1 || rc=$?; [ $rc -eq 2 ]
rc=0; "$CUZK" bench pipeline --policy fifo >/dev/null 2>&1 || rc=$?; [ $rc -eq 2 ]
rc=0; "$CUZK" bench prove --curve bn128 --constraints 9 --device-key --backend cpu >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ]
rc=0; "$CUZK" bench pipeline --constraints 9 --device-key --backend cpu >"$d/dk.txt" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q "needs a backend with a device" "$d/dk.txt"
for c in "groth16 prove" "groth16 verify" "groth16 fullprove" "wtns calculate" "zkey export verificationkey" setup \
    "circuit synth" "bench prove" "bench pipeline"; do
    $CUZK $c --help | grep -q "usage\|cuzk"
done
# the usage lines list the backend and policy tables' names, as the
# daemon's configuration does (from the same rows, by other code)
$CUZK daemon --print-config >"$d/config.ini"
choices() { grep -B1 "^$1 = " "$d/config.ini" | sed -n 's/^# One of \(.*\)\. Default: .*/\1/p'; }
backends=$(choices backend) policies=$(choices policy)
[ -n "$backends" ]
[ -n "$policies" ]
$CUZK bench pipeline --help >"$d/help.txt"
grep -qF -- "--backend $backends] [--policy $policies]" "$d/help.txt"
for c in setup "bench prove"; do
    $CUZK $c --help >"$d/help.txt"
    grep -qF -- "--backend ${backends/|sim/}]" "$d/help.txt"
done
rc=0; "$CUZK" wtns calculate a.wasm in.json >/dev/null 2>&1 || rc=$?; [ $rc -eq 2 ]
rc=0; "$CUZK" groth16 fullprove in.json a.wasm c.zkey p.json >/dev/null 2>&1 || rc=$?; [ $rc -eq 2 ]
"$CUZK" --version | grep -qx "cuzk [0-9][0-9.]*" || { echo "FAIL: cuzk --version"; exit 1; }
echo "bad inputs: all handled"
