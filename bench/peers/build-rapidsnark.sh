#!/usr/bin/env bash
# bench/peers/build-rapidsnark.sh: builds rapidsnark's `prover` command and
# its shared library, the CPU peer of issue 18's same-run comparison
# (bench/peers/compare-rapidsnark.sh), from sources the fetch tool brought;
# nothing is downloaded but ffiasm's own npm dependencies.
#
#   bench/peers/build-rapidsnark.sh [RAPIDSNARK_SRC]      (from anywhere in the repository)
#
# RAPIDSNARK_SRC  (argument or environment) rapidsnark's sources: a git dir
#                 (default /work/.mirror/iden3+rapidsnark/repo, what
#                 `fetch github:iden3/rapidsnark` returns) or an extracted
#                 tree, whose depends/ffiasm is used when FFIASM_SRC is unset
# FFIASM_SRC      ffiasm, the submodule (depends/ffiasm) that holds the curve,
#                 MSM, FFT and thread-pool code and generates the field
#                 assembly: a git dir (default /work/.mirror/iden3+ffiasm/repo)
#                 or a tree
# RAPIDSNARK_COMMIT  with a git dir: the commit to build (default: the newest
#                 commit of rapidsnark's first-parent history whose ffiasm
#                 submodule commit FFIASM_SRC holds, so that the pair is the
#                 one upstream built); FFIASM_COMMIT overrides the pin (a pair
#                 upstream never built: for trying, not for the record)
# FIELDS          committed (default): the field code (fr.asm, fq.asm and
#                 their C++) that rapidsnark commits in build/, generated
#                 upstream by ffiasm's buildzqfield.js, which is what
#                 rapidsnark's CMake compiles; generate: made anew here by
#                 FFIASM_SRC's buildzqfield.js with node (after `npm ci` of
#                 ffiasm's pinned dependencies), the files that differ from
#                 the committed ones named in SOURCES. At 38c832a/b9dce0a
#                 they all differ: the committed copies come from a later
#                 ffiasm (PIC calls in the assembly, str2element's base)
#
# How it builds: rapidsnark's own CMake (Release, its defaults: x86-64
# assembly fields, OpenMP) with Debian's GMP (libgmp-dev: rapidsnark's
# CMake falls back to the system's libgmp when its build_gmp.sh download is
# absent) and Debian's nlohmann-json3-dev in place of the json submodule;
# only the targets prover and rapidsnark (BUILD_TESTS stays at its default,
# ON: at 38c832a, OFF breaks its CMake, which links a test it then omits).
# Needs cmake, g++, nasm, node/npm, libgmp-dev, nlohmann-json3-dev.
#
# Built and measured here (bench/results/2026-12-02-rapidsnark.md):
#   rapidsnark 38c832abceef085dbd5ed4c67e6093eeb5c3427e (2024-10-25, "Add links to README.md (#26)")
#   ffiasm     b9dce0a78a0ee172c23cee2465904383ea43f0ec (2024-09-07), its pinned submodule
# The newest rapidsnark (81eddf1, 2026-04-16) pins ffiasm aa90166, which the
# fetched ffiasm snapshot does not hold (it ends at b9dce0a), and npm's
# ffiasm 0.1.x is an older line without the MSM code: 38c832a is the newest
# commit whose exact pair is here.
#
# Everything it writes lies under build/peers/rapidsnark (RAPIDSNARK_OUT, a
# folder git ignores, for a second build beside it):
# src/ (the exported trees; their code never enters ours), cmake/ (the
# build), bin/prover, lib/librapidsnark.so, SOURCES (the commits built and
# how the fields were made). About a minute on two cores.
set -euo pipefail

cd "$(dirname "$0")/../.."
RAPIDSNARK_SRC=${1:-${RAPIDSNARK_SRC:-/work/.mirror/iden3+rapidsnark/repo}}
FFIASM_SRC=${FFIASM_SRC:-}
FIELDS=${FIELDS:-committed}
OUT=${RAPIDSNARK_OUT:-build/peers/rapidsnark}
JOBS=${JOBS:-2}

die() { echo "build-rapidsnark: $*" >&2; exit 1; }
git check-ignore -q "$OUT/bin/prover" || die "$OUT is not ignored by git"
for t in cmake g++ nasm node npm; do command -v "$t" >/dev/null || die "needs $t"; done
[ -f /usr/include/gmp.h ] || [ -f /usr/include/x86_64-linux-gnu/gmp.h ] || die "needs libgmp-dev"
[ -f /usr/include/nlohmann/json.hpp ] || die "needs nlohmann-json3-dev"

is_git_dir() { git --git-dir="$1" rev-parse --verify -q HEAD >/dev/null 2>&1; }
# pin <rapidsnark git dir> <commit>: the ffiasm commit its submodule names
pin() { git --git-dir="$1" ls-tree "$2" depends/ffiasm | awk '{print $3}'; }

rm -rf "${OUT:?}/src" "$OUT/cmake" && mkdir -p "$OUT/src" "$OUT/bin" "$OUT/lib"
SRC=$OUT/src/rapidsnark
if is_git_dir "$RAPIDSNARK_SRC"; then
    FFIASM_SRC=${FFIASM_SRC:-/work/.mirror/iden3+ffiasm/repo}
    is_git_dir "$FFIASM_SRC" || die "no ffiasm git dir at $FFIASM_SRC (fetch github:iden3/ffiasm)"
    commit=${RAPIDSNARK_COMMIT:-}
    if [ -z "$commit" ]; then
        for c in $(git --git-dir="$RAPIDSNARK_SRC" rev-list --first-parent HEAD); do
            p=$(pin "$RAPIDSNARK_SRC" "$c")
            [ -n "$p" ] && git --git-dir="$FFIASM_SRC" cat-file -e "$p^{commit}" 2>/dev/null && { commit=$c; break; }
        done
        [ -n "$commit" ] || die "no rapidsnark commit pins an ffiasm commit that $FFIASM_SRC holds"
    fi
    commit=$(git --git-dir="$RAPIDSNARK_SRC" rev-parse --verify "$commit^{commit}")
    ffiasm_commit=${FFIASM_COMMIT:-$(pin "$RAPIDSNARK_SRC" "$commit")}
    git --git-dir="$FFIASM_SRC" cat-file -e "$ffiasm_commit^{commit}" 2>/dev/null ||
        die "ffiasm $ffiasm_commit (pinned by rapidsnark $commit) is not in $FFIASM_SRC"
    mkdir -p "$SRC/depends/ffiasm"
    git --git-dir="$RAPIDSNARK_SRC" archive "$commit" | tar -x -C "$SRC"
    git --git-dir="$FFIASM_SRC" archive "$ffiasm_commit" | tar -x -C "$SRC/depends/ffiasm"
    {
        echo "rapidsnark $commit $(git --git-dir="$RAPIDSNARK_SRC" log -1 --format='%ci %s' "$commit")"
        echo "ffiasm $ffiasm_commit $(git --git-dir="$FFIASM_SRC" log -1 --format='%ci %s' "$ffiasm_commit")"
        [ "$ffiasm_commit" = "$(pin "$RAPIDSNARK_SRC" "$commit")" ] || echo "WARNING: ffiasm is not the commit rapidsnark pins"
    } >"$OUT/SOURCES"
else
    [ -f "$RAPIDSNARK_SRC/src/main_prover.cpp" ] || die "$RAPIDSNARK_SRC is neither a git dir nor a rapidsnark tree"
    FFIASM_SRC=${FFIASM_SRC:-$RAPIDSNARK_SRC/depends/ffiasm}
    [ -f "$FFIASM_SRC/c/alt_bn128.cpp" ] || die "no ffiasm tree at $FFIASM_SRC (set FFIASM_SRC)"
    mkdir -p "$SRC"
    (cd "$RAPIDSNARK_SRC" && tar -c --exclude=./depends/ffiasm .) | tar -x -C "$SRC"
    rm -rf "$SRC/depends/ffiasm" && mkdir -p "$SRC/depends/ffiasm"
    (cd "$FFIASM_SRC" && tar -c .) | tar -x -C "$SRC/depends/ffiasm"
    echo "rapidsnark tree $RAPIDSNARK_SRC, ffiasm tree $FFIASM_SRC (commits unknown)" >"$OUT/SOURCES"
fi

# The field code as rapidsnark's tasksfile.js createFieldSources makes it.
case $FIELDS in
generate)
    (cd "$SRC/depends/ffiasm" && npm ci --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
    mkdir -p "$OUT/src/fields"
    (cd "$OUT/src/fields" &&
        node ../rapidsnark/depends/ffiasm/src/buildzqfield.js -q 21888242871839275222246405745257275088696311157297823662689037894645226208583 -n Fq &&
        node ../rapidsnark/depends/ffiasm/src/buildzqfield.js -q 21888242871839275222246405745257275088548364400416034343698204186575808495617 -n Fr)
    differ=
    for f in "$OUT"/src/fields/*; do
        cmp -s "$f" "$SRC/build/${f##*/}" || differ="$differ ${f##*/}"
        cp "$f" "$SRC/build/"
    done
    echo "fields: generated by ffiasm's buildzqfield.js (node $(node --version)); differing from rapidsnark's committed build/:${differ:- none}" >>"$OUT/SOURCES"
    ;;
committed) echo "fields: rapidsnark's committed build/ copies" >>"$OUT/SOURCES" ;;
*) die "FIELDS is generate or committed, not '$FIELDS'" ;;
esac
cat "$OUT/SOURCES"

cmake -S "$SRC" -B "$OUT/cmake" -DCMAKE_BUILD_TYPE=Release >"$OUT/cmake.log" 2>&1 ||
    { cat "$OUT/cmake.log" >&2; die "cmake failed"; }
cmake --build "$OUT/cmake" -j "$JOBS" --target prover rapidsnark >"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log" >&2; die "build failed (all of it: $OUT/build.log)"; }
cp "$OUT/cmake/src/prover" "$OUT/bin/prover"
cp "$OUT/cmake/src/librapidsnark.so" "$OUT/lib/librapidsnark.so"
ldd "$OUT/bin/prover" | grep -q libgmp || die "prover is not linked with the system's libgmp"
ls -l "$OUT/bin/prover" "$OUT/lib/librapidsnark.so"
ldd "$OUT/bin/prover" | grep -E 'gmp|gomp|stdc'
