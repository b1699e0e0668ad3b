# The trusted-setup ceremony against snarkjs on both curves:
#   phase 1: powersoftau new and prepare phase2 give snarkjs's bytes; a
#   chain mixing both tools' contributions and a beacon passes both
#   verifiers; a tampered file is refused by both;
#   phase 2: cuzk zkey new == snarkjs zkey new, byte for byte;
#   a chain mixing both tools' contributions and a beacon passes both
#   verifiers; snarkjs's own chain passes ours; a beacon gives both tools
#   the same key; proofs with the final key cross both ways;
#   bad inputs (a ptau too small, not prepared, truncated; a tampered key;
#   a contribution that does not chain) are refused by both.
source "$(dirname "$0")/lib.sh"
need_peers

# flip IN OUT SECTION OFFSET [FROM]: a bit of byte OFFSET (a Python
# expression of n8q, the base field's bytes) of section SECTION's payload;
# with FROM, a G1 point's bytes copied there from offset FROM instead
# (another point of the curve: snarkjs can take very long on one off it)
flip() {
    python3 - "$@" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
pos, secs = 12, {}
while pos < len(b):
    sid, size = struct.unpack_from("<IQ", b, pos)
    secs[sid] = pos + 12
    pos += 12 + size
n8q = struct.unpack_from("<I", b, secs[2 if b[:4] == b"zkey" else 1])[0]
at = secs[int(sys.argv[3])] + eval(sys.argv[4], {"n8q": n8q})
if len(sys.argv) > 5:
    src = secs[int(sys.argv[3])] + eval(sys.argv[5], {"n8q": n8q})
    b[at:at + 2 * n8q] = b[src:src + 2 * n8q]
else:
    b[at] ^= 1
open(sys.argv[2], "wb").write(bytes(b))
PY
}

snarkjs_zkey_verify() { "$SNARKJS" zkey verify "$@" >"$WORK/sv.txt" 2>&1 || { cat "$WORK/sv.txt"; return 1; }; }
snarkjs_zkey_rejects() {
    if "$SNARKJS" zkey verify "$@" >"$WORK/sv.txt" 2>&1; then
        cat "$WORK/sv.txt"; echo "FAIL: snarkjs zkey verify accepted: $*"; exit 1
    fi
}
same_json() {
    python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))" "$1" "$2" ||
        { echo "FAIL: $1 and $2 differ"; exit 1; }
}

for curve in bn128 bls12381; do
    step "$curve: circuit, witness, snarkjs's powers of tau"
    d=$WORK/$curve; mkdir -p "$d"
    "$CIRCOM" "$ROOT/tests/interop/circuits/chain.circom" --r1cs --wasm --prime "$curve" -o "$d" >/dev/null
    echo '{"a": "3", "b": "11", "k": "5"}' >"$d/input.json"
    "$SNARKJS" wtns calculate "$d/chain_js/chain.wasm" "$d/input.json" "$d/w.wtns" >/dev/null
    make_ptau "$curve" 8
    cp "$WORK/pot.ptau" "$d/pot.ptau"; cp "$WORK/p1.ptau" "$d/raw.ptau"

    step "$curve: powersoftau new and prepare phase2 give snarkjs's bytes; we verify snarkjs's file"
    "$CUZK" powersoftau new "$curve" 8 "$d/n0.ptau"
    cmp "$WORK/p0.ptau" "$d/n0.ptau"
    "$CUZK" powersoftau prepare phase2 "$d/raw.ptau" "$d/prep.ptau" 2>/dev/null
    cmp "$d/pot.ptau" "$d/prep.ptau"
    "$CUZK" powersoftau verify "$d/pot.ptau" 2>/dev/null | grep -q "Powers of Tau Ok!"

    step "$curve: a mixed phase-1 chain (cuzk, snarkjs, cuzk's beacon, cuzk's prepare) passes both verifiers"
    "$CUZK" powersoftau contribute "$d/raw.ptau" "$d/q2.ptau" --name=dave -e="cuzk entropy" >/dev/null 2>&1
    "$SNARKJS" powersoftau contribute "$d/q2.ptau" "$d/q3.ptau" --name=erin -e="snarkjs entropy" >/dev/null
    "$CUZK" powersoftau beacon "$d/q3.ptau" "$d/q4.ptau" 0a0b0c0d 10 -n=beacon >/dev/null 2>&1
    "$CUZK" powersoftau prepare phase2 "$d/q4.ptau" "$d/q5.ptau" 2>/dev/null
    "$SNARKJS" powersoftau verify "$d/q5.ptau" >"$WORK/sv.txt" 2>&1 || { cat "$WORK/sv.txt"; exit 1; }
    "$CUZK" powersoftau verify "$d/q5.ptau" >"$d/pv.txt" 2>/dev/null
    grep -q "Powers of Tau Ok!" "$d/pv.txt"
    grep -q "Contribution #4: beacon" "$d/pv.txt"
    "$SNARKJS" zkey new "$d/chain.r1cs" "$d/q5.ptau" "$d/q5s.zkey" >/dev/null
    "$CUZK" zkey new "$d/chain.r1cs" "$d/q5.ptau" "$d/q5c.zkey" >/dev/null 2>&1
    cmp "$d/q5s.zkey" "$d/q5c.zkey"
    flip "$d/q5.ptau" "$d/q5bad.ptau" 2 "3 * 2 * n8q" "2 * 2 * n8q"    # tau^2 G1 where tau^3 G1 was
    expect_fail "$CUZK" powersoftau verify "$d/q5bad.ptau"
    if "$SNARKJS" powersoftau verify "$d/q5bad.ptau" >"$WORK/sv.txt" 2>&1; then
        cat "$WORK/sv.txt"; echo "FAIL: snarkjs accepted a tampered ptau"; exit 1
    fi

    step "$curve: zkey new is snarkjs's, byte for byte (and groth16 setup the same)"
    "$SNARKJS" zkey new "$d/chain.r1cs" "$d/pot.ptau" "$d/s0.zkey" >/dev/null
    "$CUZK" zkey new "$d/chain.r1cs" "$d/pot.ptau" "$d/c0.zkey" >"$d/new.txt" 2>/dev/null
    cmp "$d/s0.zkey" "$d/c0.zkey"
    grep -q "Circuit hash" "$d/new.txt"
    "$CUZK" groth16 setup "$d/chain.r1cs" "$d/pot.ptau" "$d/g0.zkey" >/dev/null 2>&1
    cmp "$d/s0.zkey" "$d/g0.zkey"

    step "$curve: a mixed chain (cuzk, snarkjs, cuzk's beacon) passes both verifiers"
    "$CUZK" zkey contribute "$d/c0.zkey" "$d/c1.zkey" --name=alice -e="cuzk entropy" >/dev/null 2>&1
    "$SNARKJS" zkey contribute "$d/c1.zkey" "$d/c2.zkey" --name=bob -e="snarkjs entropy" >/dev/null
    "$CUZK" zkey beacon "$d/c2.zkey" "$d/c3.zkey" 0102030405060708090a0b0c0d0e0f 10 -n="final beacon" >/dev/null 2>&1
    snarkjs_zkey_verify "$d/chain.r1cs" "$d/pot.ptau" "$d/c3.zkey"
    "$CUZK" zkey verify "$d/chain.r1cs" "$d/pot.ptau" "$d/c3.zkey" >"$d/v.txt" 2>/dev/null
    grep -q "ZKey Ok!" "$d/v.txt"
    grep -q "contribution #3 final beacon" "$d/v.txt"
    grep -q "contribution #1 alice" "$d/v.txt"

    step "$curve: snarkjs's chain (contribution, beacon) passes ours; a beacon gives both tools one key"
    "$SNARKJS" zkey contribute "$d/s0.zkey" "$d/s1.zkey" --name=carol -e="more entropy" >/dev/null
    "$SNARKJS" zkey beacon "$d/s1.zkey" "$d/s2.zkey" 0102030405060708090a0b0c0d0e0f 10 -n="final beacon" >/dev/null
    "$CUZK" zkey verify "$d/chain.r1cs" "$d/pot.ptau" "$d/s2.zkey" 2>/dev/null | grep -q "ZKey Ok!"
    "$CUZK" zkey beacon "$d/s1.zkey" "$d/cs2.zkey" 0102030405060708090a0b0c0d0e0f 10 -n="final beacon" >/dev/null 2>&1
    "$SNARKJS" zkey export verificationkey "$d/s2.zkey" "$d/vk_s2.json" >/dev/null
    "$SNARKJS" zkey export verificationkey "$d/cs2.zkey" "$d/vk_cs2.json" >/dev/null
    same_json "$d/vk_s2.json" "$d/vk_cs2.json"
    "$SNARKJS" zkey export json "$d/s2.zkey" "$d/s2.json" >/dev/null
    "$SNARKJS" zkey export json "$d/cs2.zkey" "$d/cs2.json" >/dev/null
    same_json "$d/s2.json" "$d/cs2.json"

    step "$curve: proofs with the final key cross both ways"
    "$CUZK" zkey export verificationkey "$d/c3.zkey" "$d/vk.json"
    "$CUZK" groth16 prove "$d/c3.zkey" "$d/w.wtns" "$d/proof.json" "$d/public.json"
    snarkjs_verify "$d/vk.json" "$d/public.json" "$d/proof.json"
    "$SNARKJS" groth16 prove "$d/c3.zkey" "$d/w.wtns" "$d/proof_s.json" "$d/public_s.json" >/dev/null
    "$CUZK" groth16 verify "$d/vk.json" "$d/public_s.json" "$d/proof_s.json" | grep -q 'OK!'

    step "$curve: a tampered key and a contribution that does not chain are refused by both"
    flip "$d/c3.zkey" "$d/bad_h.zkey" 9 3    # the first H point's x
    expect_fail "$CUZK" zkey verify "$d/chain.r1cs" "$d/pot.ptau" "$d/bad_h.zkey"
    expect_output "INVALID"
    snarkjs_zkey_rejects "$d/chain.r1cs" "$d/pot.ptau" "$d/bad_h.zkey"
    # section 10: csHash, count, then deltaAfter, g1_s, g1_sx (G1), g2_spx (G2), the transcript
    flip "$d/c3.zkey" "$d/bad_t.zkey" 10 "68 + 3 * 2 * n8q + 4 * n8q + 7"
    expect_fail "$CUZK" zkey verify "$d/chain.r1cs" "$d/pot.ptau" "$d/bad_t.zkey"
    expect_output "INVALID(1)"
    snarkjs_zkey_rejects "$d/chain.r1cs" "$d/pot.ptau" "$d/bad_t.zkey"

    step "$curve: bad powers of tau are clear errors"
    expect_fail "$CUZK" zkey new "$d/chain.r1cs" "$d/raw.ptau" "$d/x.zkey"
    expect_output "not prepared"
    head -c 3000 "$d/pot.ptau" >"$d/cut.ptau"
    expect_fail "$CUZK" zkey new "$d/chain.r1cs" "$d/cut.ptau" "$d/x.zkey"
    expect_output "cut.ptau"
    [ ! -e "$d/x.zkey" ]
done

step "a powers of tau too small for the circuit"
d=$WORK/small; mkdir -p "$d"
"$CIRCOM" "$ROOT/tests/interop/circuits/chain.circom" --r1cs -o "$d" >/dev/null
make_ptau bn128 2
expect_fail "$CUZK" zkey new "$d/chain.r1cs" "$WORK/pot.ptau" "$d/x.zkey"
expect_output "need"
echo "ceremony interop: all checks passed"
