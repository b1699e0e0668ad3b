#!/bin/sh
# bench/peers/compare-sppark.sh: issue 14's same-run comparison of cuzk and
# sppark on one GPU, on the GPU machine, from the repository root:
#
#   bench/peers/compare-sppark.sh [OURS [SPPARK]]
#
# OURS    build/gpu-bundle/gpu-bench (make CUDA=1 gpu-bundle, carried)
# SPPARK  build/peers/sppark-bench (bench/peers/build-sppark.sh, carried)
# Both time the same inputs (bench/gpu/bench_common.cuh) with device-resident
# data, median of RUNS calls after a warm-up: BLS12-381 G1 MSMs at each of
# MSM_LOGS for scalar shapes random and bits, and forward NTTs at NTT_LOGS.
# Environment: MSM_LOGS (default 24,26,27), NTT_LOGS (24,27), RUNS (5),
# TABLE_LOGS (default none: at those MSM sizes cuzk also runs over window
# tables, one more column; a table is ~11-13 times the bases), LOG_DIR
# (default build/peers/compare: both programs' full output).
# Prints one markdown table (sppark / cuzk > 1: cuzk is faster) and the
# sppark correctness checks; exits non-zero when a program or check fails.
set -u

OURS=${1:-build/gpu-bundle/gpu-bench}
SPPARK=${2:-build/peers/sppark-bench}
MSM_LOGS=${MSM_LOGS:-24,26,27}
NTT_LOGS=${NTT_LOGS:-24,27}
RUNS=${RUNS:-5}
TABLE_LOGS=${TABLE_LOGS:-}
LOG_DIR=${LOG_DIR:-build/peers/compare}
for p in "$OURS" "$SPPARK"; do
    [ -x "$p" ] || { echo "compare-sppark: no program at $p" >&2; exit 1; }
done
mkdir -p "$LOG_DIR"
[ -d build/gpu-bundle/lib ] && export LD_LIBRARY_PATH="$PWD/build/gpu-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

status=0
# ours <shape> <ntt logs>: gpu-bench's BLS12-381 G1 rows (and NTT rows)
ours() {
    "$OURS" --curves bls12_381 --runs "$RUNS" --shape "$1" --msm-logs "" --msm-g1-extra "$MSM_LOGS" \
        --ntt-logs "$2" --coset-logs "" --sweep-c "" --table-logs "$TABLE_LOGS" \
        >"$LOG_DIR/cuzk-$1.txt" 2>&1 || { echo "compare-sppark: $OURS --shape $1 failed" >&2; status=1; }
}
ours random "$NTT_LOGS"
ours bits ""
"$SPPARK" --runs "$RUNS" --logs "$MSM_LOGS" --shapes random,bits --ntt-logs "$NTT_LOGS" \
    >"$LOG_DIR/sppark.txt" 2>&1 || { echo "compare-sppark: $SPPARK failed" >&2; status=1; }

head -n 1 "$LOG_DIR/cuzk-random.txt"
head -n 1 "$LOG_DIR/sppark.txt"
echo
# gpu-bench's summary rows: op curve log2n median_ms min_ms runs (6 fields);
# sppark-bench's: sppark op curve log=.. shape=|order=.. ms=.. ...
awk -v msm_logs="$MSM_LOGS" -v ntt_logs="$NTT_LOGS" -v tables="$TABLE_LOGS" '
function val(field) { sub(/^[a-z_]+=/, "", field); return field }
function cell(x) { return x == "" ? "-" : x }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2fx", a / b) }
FNR == 1 { base = FILENAME; sub(/.*\//, "", base) }
base ~ /^cuzk-/ && NF == 6 && $2 == "bls12_381" && $6 ~ /^[0-9]+$/ {
    shape = base == "cuzk-bits.txt" ? "bits" : "random"
    if ($1 == "msm_g1") ours["msm", $3, shape] = $4
    if ($1 == "msm_g1_t") ours_t["msm", $3, shape] = $4
    if ($1 == "ntt") ours["ntt", $3] = $4
}
base == "sppark.txt" && $1 == "sppark" && $2 == "msm_g1" { sp["msm", val($4), val($5)] = val($6) }
base == "sppark.txt" && $1 == "sppark" && $2 == "ntt" { sp["ntt", val($4), val($5)] = val($6) }
base == "sppark.txt" && $1 == "sppark" && $2 == "check" { checks = checks "\n" $0; if ($NF != "ok") failed++ }
END {
    t = tables != ""
    printf "| BLS12-381 | cuzk ms |%s sppark ms | sppark / cuzk |\n", t ? " cuzk, window tables |" : ""
    printf "|---|---|%s---|---|\n", t ? "---|" : ""
    n = split(msm_logs, ml, ",")
    for (s = 1; s <= 2; s++) {
        shape = s == 1 ? "random" : "bits"
        for (i = 1; i <= n; i++) {
            lg = ml[i]; a = ours["msm", lg, shape]; b = sp["msm", lg, shape]
            printf "| G1 MSM 2^%s, %s scalars | %s |%s %s | %s |\n", lg, shape, cell(a),
                   t ? " " cell(ours_t["msm", lg, shape]) " |" : "", cell(b), ratio(b, a)
        }
    }
    n = split(ntt_logs, nl, ",")
    for (i = 1; i <= n; i++) {
        lg = nl[i]; a = ours["ntt", lg]
        printf "| NTT 2^%s, natural order in and out | %s |%s %s | %s |\n", lg, cell(a), t ? " - |" : "",
               cell(sp["ntt", lg, "nn"]), ratio(sp["ntt", lg, "nn"], a)
        printf "| NTT 2^%s, sppark natural in, bit-reversed out | %s |%s %s | %s |\n", lg, cell(a),
               t ? " - |" : "", cell(sp["ntt", lg, "nr"]), ratio(sp["ntt", lg, "nr"], a)
    }
    printf "\nsppark checks (its results against cuzk'"'"'s CPU code):%s\n", checks == "" ? " none ran" : checks
    exit (failed > 0 ? 1 : 0)
}' "$LOG_DIR/cuzk-random.txt" "$LOG_DIR/cuzk-bits.txt" "$LOG_DIR/sppark.txt" || status=1
echo
echo "full output: $LOG_DIR"
exit $status
