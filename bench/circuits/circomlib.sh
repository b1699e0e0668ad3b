#!/usr/bin/env bash
# Mid-size circomlib circuits end to end (issue 18's real-circuit benchmark,
# not a test): the witness and the proof, each way a circom user has.
#
#   bench/circuits/circomlib.sh [CIRCUIT...]     (from anywhere in the repository)
#
# CIRCUIT (default: poseidon_merkle mimc_chain sha256):
#   poseidon_merkle  MerkleRoots(N, 20): N Poseidon Merkle proofs of depth 20
#                    (tests/interop/circuits/templates/merkle.circom), N = $MERKLE (24: 249,600 constraints)
#   mimc_chain       MiMCChain(N): a chain of N MiMC sponge hashes (mimc_chain.circom), N = $MIMC (100: 132,100)
#   sha256           Sha256(N bits), N = $SHA_BITS (4096: 281,376; bit-heavy)
# REPEAT   timed runs of each, the median kept (default 3)
# CUZK     the cuzk binary (default build/cuzk); RAPIDSNARK its peer (default
#          build/peers/rapidsnark/bin/prover, bench/peers/build-rapidsnark.sh;
#          its rows are left out when it is missing); CPP=0 leaves out circom's
#          C++ witness generator
#
# Per circuit: circom2 compiles it (and its C++ generator, circom --c), `cuzk
# setup` makes a development key, then, timed (GNU time: wall, CPU, peak RSS):
#   witness  snarkjs wtns calculate | cuzk wtns calculate (cached native code)
#            | circom's C++ generator (GMP)
#   proof    snarkjs groth16 fullprove | cuzk groth16 fullprove
#            | circom's C++ generator + rapidsnark's prover (the sum of their
#              medians: the native pipeline circom users have without cuzk)
#            | cuzk groth16 prove and rapidsnark on the same witness
# The witnesses are compared byte for byte; every proof is verified by
# `cuzk groth16 verify` and cuzk's fullprove proof by snarkjs too, and the
# public signals of every prover compared. Prints a markdown table a circuit.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. bench/lib.sh
read -r -a CIRCUITS <<<"${*:-poseidon_merkle mimc_chain sha256}"
REPEAT=${REPEAT:-3}
MERKLE=${MERKLE:-24}
MIMC=${MIMC:-100}
SHA_BITS=${SHA_BITS:-4096}
CUZK=${CUZK:-$ROOT/build/cuzk}
RAPIDSNARK=${RAPIDSNARK:-$ROOT/build/peers/rapidsnark/bin/prover}
NODE=$ROOT/tests/interop/node_modules
SNARKJS=$NODE/.bin/snarkjs
for p in "$CUZK" "$SNARKJS"; do [ -x "$p" ] || { echo "circomlib.sh: no program at $p" >&2; exit 1; }; done
TOP=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-bench-circomlib.XXXXXX")
SOURCES=() # the generated .circom files under tests/interop (circom2 reads only there)
trap 'rm -rf "$TOP" "${SOURCES[@]}"' EXIT
export CUZK_WASM_CACHE=$TOP/cache

# source_and_input NAME: the circuit's main component under tests/interop and
# its input JSON (seeded) in $BENCH_WORK
source_and_input() {
    local name=$1 src=$ROOT/tests/interop/bench_$1.circom
    SOURCES+=("$src")
    case $name in
    poseidon_merkle)
        printf 'pragma circom 2.0.0;\ninclude "circuits/templates/merkle.circom";\ncomponent main = MerkleRoots(%d, 20);\n' \
            "$MERKLE" >"$src"
        python3 - "$MERKLE" >"$BENCH_WORK/input.json" <<'PY'
import json, random, sys
random.seed(18)
n, p = int(sys.argv[1]), 21888242871839275222246405745257275088696311157297823662689037894645226208583
r = lambda: str(random.randrange(p))
print(json.dumps({"leaf": [r() for _ in range(n)], "pathElements": [[r() for _ in range(20)] for _ in range(n)],
                  "pathIndices": [[random.randint(0, 1) for _ in range(20)] for _ in range(n)]}))
PY
        ;;
    mimc_chain)
        printf 'pragma circom 2.0.0;\ninclude "circuits/templates/mimc_chain.circom";\ncomponent main {public [k]} = MiMCChain(%d);\n' \
            "$MIMC" >"$src"
        echo '{"x": "12345678901234567890", "k": "7"}' >"$BENCH_WORK/input.json"
        ;;
    sha256)
        printf 'pragma circom 2.0.0;\ninclude "circomlib/circuits/sha256/sha256.circom";\ncomponent main = Sha256(%d);\n' \
            "$SHA_BITS" >"$src"
        python3 -c "import json, random; random.seed(7); print(json.dumps({'in': [random.randint(0, 1) for _ in range($SHA_BITS)]}))" \
            >"$BENCH_WORK/input.json"
        ;;
    *)
        echo "circomlib.sh: unknown circuit '$name' (poseidon_merkle, mimc_chain, sha256)" >&2
        exit 2
        ;;
    esac
}

# row LABEL "wall cpu rss" BASE_WALL: a table row, BASE_WALL over this wall
row() {
    local w c r
    read -r w c r <<<"$2"
    echo "| $1 | $w | $c | $((r / 1024)) | $(bench_ratio "$3" "$w" %.1fx) |"
}

# verified VK PUBLIC PROOF: cuzk accepts the proof, and its public signals
# are cuzk fullprove's
verified() {
    "$CUZK" groth16 verify "$1" "$2" "$3" >/dev/null || { echo "circomlib.sh: $3 does not verify" >&2; exit 1; }
    cmp -s "$2" "$BENCH_WORK/cuzk-fp.public.json" || { echo "circomlib.sh: $2: other public signals" >&2; exit 1; }
}

bench_circuit() {
    local name=$1 c=bench_$1
    BENCH_WORK=$TOP/$name
    mkdir -p "$BENCH_WORK"
    source_and_input "$name"
    local cpp_missing rs_missing=""
    cpp_missing=$(bench_cpp_missing)
    cpp_missing=$(bench_circom "$c" "$cpp_missing")
    [ -x "$RAPIDSNARK" ] || rs_missing=" no rapidsnark at $RAPIDSNARK (bench/peers/build-rapidsnark.sh)"
    local w=$BENCH_WORK wasm=$BENCH_WORK/${c}_js/$c.wasm in=$BENCH_WORK/input.json
    local setup
    setup=$(bench_run "$CUZK" setup "$w/$c.r1cs" "$w/c.zkey")
    "$CUZK" zkey export verificationkey "$w/c.zkey" "$w/vk.json"
    bench_run "$CUZK" wtns calculate "$wasm" "$in" "$w/cuzk.wtns" >/dev/null # compiles once, into the cache

    local sj_w cz_w cpp_w="" cpp_build=""
    sj_w=$(bench_med "$REPEAT" "$SNARKJS" wtns calculate "$wasm" "$in" "$w/snarkjs.wtns")
    cz_w=$(bench_med "$REPEAT" "$CUZK" wtns calculate "$wasm" "$in" "$w/cuzk.wtns")
    cmp "$w/cuzk.wtns" "$w/snarkjs.wtns"
    if [ -z "$cpp_missing" ]; then
        cpp_build=$(bench_run nice make -C "$w/${c}_cpp" -j"$(nproc)")
        cpp_w=$(bench_med "$REPEAT" "$w/${c}_cpp/$c" "$in" "$w/cpp.wtns")
        cmp "$w/cpp.wtns" "$w/snarkjs.wtns"
    fi

    local sj_fp cz_fp cz_p rs_p="" snarkjs_ok
    cz_fp=$(bench_med "$REPEAT" "$CUZK" groth16 fullprove "$in" "$wasm" "$w/c.zkey" "$w/cuzk-fp.proof.json" \
        "$w/cuzk-fp.public.json")
    snarkjs_ok=$("$SNARKJS" groth16 verify "$w/vk.json" "$w/cuzk-fp.public.json" "$w/cuzk-fp.proof.json" 2>&1 || true)
    grep -q "OK" <<<"$snarkjs_ok" || { echo "circomlib.sh: snarkjs rejects cuzk's proof: $snarkjs_ok" >&2; exit 1; }
    sj_fp=$(bench_med "$REPEAT" "$SNARKJS" groth16 fullprove "$in" "$wasm" "$w/c.zkey" "$w/sj.proof.json" "$w/sj.public.json")
    verified "$w/vk.json" "$w/sj.public.json" "$w/sj.proof.json"
    cz_p=$(bench_med "$REPEAT" "$CUZK" groth16 prove "$w/c.zkey" "$w/cuzk.wtns" "$w/cuzk.proof.json" "$w/cuzk.public.json")
    verified "$w/vk.json" "$w/cuzk.public.json" "$w/cuzk.proof.json"
    if [ -z "$rs_missing" ]; then
        rs_p=$(bench_med "$REPEAT" "$RAPIDSNARK" "$w/c.zkey" "$w/snarkjs.wtns" "$w/rs.proof.json" "$w/rs.public.json")
        # rapidsnark writes its public signals compactly: compare the values
        python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
            "$w/rs.public.json" "$w/cuzk-fp.public.json" || { echo "circomlib.sh: rapidsnark's public signals differ" >&2; exit 1; }
        "$CUZK" groth16 verify "$w/vk.json" "$w/cuzk-fp.public.json" "$w/rs.proof.json" >/dev/null ||
            { echo "circomlib.sh: rapidsnark's proof does not verify" >&2; exit 1; }
    fi

    local sj_wall=${sj_w%% *} sjfp_wall=${sj_fp%% *}
    echo "### $name: $(bench_circom_size)"
    echo
    echo "Median of $REPEAT runs; key from \`cuzk setup\` ($(cut -d' ' -f1 <<<"$setup") s); witnesses byte-identical, every proof verified."
    echo
    echo "| | wall s | CPU s | peak RSS MiB | against the snarkjs row above it |"
    echo "|---|---|---|---|---|"
    row "witness: snarkjs wtns calculate" "$sj_w" "$sj_wall"
    row "witness: cuzk wtns calculate (cached)" "$cz_w" "$sj_wall"
    if [ -n "$cpp_w" ]; then
        row "witness: circom's C++ generator (make once: $(cut -d' ' -f1 <<<"$cpp_build") s)" "$cpp_w" "$sj_wall"
    else
        echo "| witness: circom's C++ generator | not run:$cpp_missing | | | |"
    fi
    row "proof: snarkjs groth16 fullprove" "$sj_fp" "$sjfp_wall"
    row "proof: cuzk groth16 fullprove" "$cz_fp" "$sjfp_wall"
    if [ -n "$rs_p" ] && [ -n "$cpp_w" ]; then
        local sum
        sum=$(awk -v a="${cpp_w%% *}" -v b="${rs_p%% *}" 'BEGIN {printf "%.3f", a + b}')
        echo "| proof: C++ generator + rapidsnark (sum of the medians) | $sum | | | $(bench_ratio "$sjfp_wall" "$sum" %.1fx) |"
    fi
    row "prove only: cuzk groth16 prove (the witness file)" "$cz_p" "$sjfp_wall"
    if [ -n "$rs_p" ]; then
        row "prove only: rapidsnark prover (the witness file)" "$rs_p" "$sjfp_wall"
    else
        echo "| prove only: rapidsnark | not run:$rs_missing | | | |"
    fi
    echo
}

echo "circom2: $("$NODE/.bin/circom2" --version | tr '\n' ' '); snarkjs 0.7.6 on node $(node --version); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
bench_cpu_line
echo
for name in "${CIRCUITS[@]}"; do bench_circuit "$name"; done
