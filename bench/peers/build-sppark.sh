#!/bin/sh
# bench/peers/build-sppark.sh: builds build/peers/sppark-bench, the sppark
# side of issue 14's same-run comparison (bench/peers/sppark_bench.cu says
# what it measures; bench/peers/compare-sppark.sh runs it beside gpu-bench),
# on the development machine, for a GPU machine with no network and no
# compiler.
#
#   bench/peers/build-sppark.sh        (from anywhere in the repository)
#
# Needs nvcc (NVCC, default: on PATH or /usr/local/cuda/bin/nvcc), cc, make, and
# the snapshots the fetch tool brings (github:supranational/sppark and, for
# sppark's host-side field arithmetic, github:supranational/blst):
#   SPPARK_GIT  default /work/.mirror/supranational+sppark/repo
#   BLST_GIT    default /work/.mirror/supranational+blst/repo
# CUDA_ARCH (default 90, the H200) picks the one GPU code it carries.
# REUSE=1 builds from the trees an earlier run exported (below).
#
# Everything it writes lies under build/peers, which git ignores: sppark/
# and blst/ (each mirror's newest commit, exported; their code never enters
# our tree), obj/, SOURCES (the commits built), and sppark-bench, linked
# with the CUDA runtime statically, so that at run time it needs only the
# C and C++ runtimes and the driver (libcuda.so): glibc 2.34 and, for
# sppark's thread pool, libstdc++ of GCC 12 or later (GLIBCXX_3.4.30). A
# static libstdc++ would instead need glibc 2.36. If the GPU machine's
# libraries are older, carry build/peers and run REUSE=1 this script there.
# A build takes ~1.5 minutes on two cores.
set -eu

cd "$(dirname "$0")/../.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CC=${CC:-cc}
CUDA_ARCH=${CUDA_ARCH:-90}
SPPARK_GIT=${SPPARK_GIT:-/work/.mirror/supranational+sppark/repo}
BLST_GIT=${BLST_GIT:-/work/.mirror/supranational+blst/repo}
OUT=build/peers

if git rev-parse --git-dir >/dev/null 2>&1; then
    git check-ignore -q "$OUT/sppark-bench" || { echo "build-sppark: $OUT is not ignored by git" >&2; exit 1; }
fi
[ -x "$NVCC" ] || { echo "build-sppark: no nvcc at '$NVCC'" >&2; exit 1; }
mkdir -p "$OUT/obj"

# export <git dir> <folder>: the mirror's HEAD, fresh, into $OUT/<folder>;
# with REUSE=1 the trees an earlier run exported stay (to rebuild on a
# machine that has nvcc but not the mirrors: carry build/peers there).
export_tree() {
    git --git-dir="$1" rev-parse --verify -q HEAD >/dev/null ||
        { echo "build-sppark: no git snapshot at $1 (fetch github:supranational/$2)" >&2; exit 1; }
    rm -rf "${OUT:?}/$2" && mkdir -p "$OUT/$2"
    git --git-dir="$1" archive HEAD | tar -x -C "$OUT/$2"
    echo "$2 $(git --git-dir="$1" rev-parse HEAD)"
}
if [ "${REUSE:-0}" = 1 ] && [ -f "$OUT/SOURCES" ] && [ -d "$OUT/sppark" ] && [ -d "$OUT/blst" ]; then
    echo "build-sppark: reusing the trees of $OUT/SOURCES"
else
    { export_tree "$SPPARK_GIT" sppark; export_tree "$BLST_GIT" blst; } >"$OUT/SOURCES"
fi
cat "$OUT/SOURCES"
SPPARK_COMMIT=$(awk '$1 == "sppark" {print substr($2, 1, 12)}' "$OUT/SOURCES")

# blst by its own script; __BLST_PORTABLE__: both multiply paths, chosen by
# cpuid at run time, so the binary runs on any x86-64 host.
rm -rf "$OUT/obj/blst" && mkdir -p "$OUT/obj/blst"
(cd "$OUT/obj/blst" && CC="$CC" sh ../../blst/build.sh -D__BLST_PORTABLE__ >build.log 2>&1) ||
    { cat "$OUT/obj/blst/build.log" >&2; exit 1; }

# cuzk's CPU code the harness needs (bases, the checks' oracle): the
# Makefile's release library, from which the linker takes the members the
# harness reaches (a list of our files here went stale as they moved).
# CUDA=0: the library's CPU objects only (no nvcc build of src/gpu). A
# copy stays in $OUT/obj for REUSE=1 on a machine that cannot build it.
OUR_LIB=$OUT/obj/libcuzk-internal.a
if [ "${REUSE:-0}" = 1 ] && [ -f "$OUR_LIB" ]; then
    echo "build-sppark: reusing $OUR_LIB"
else
    ${MAKE:-make} --no-print-directory CUDA=0 -j"$(nproc)" build/libcuzk-internal.a
    cp build/libcuzk-internal.a "$OUR_LIB"
fi

# sppark as its Rust build compiles it (rust/src/build.rs, poc/msm-cuda and
# poc/ntt-cuda build.rs): the curve as a define, its root and blst's src/ as
# include paths, util/all_gpus.cpp as CUDA, full error messages.
GENCODE="-gencode=arch=compute_${CUDA_ARCH},code=sm_${CUDA_ARCH}"
NVFLAGS="-O3 -std=c++17 $GENCODE -DFEATURE_BLS12_381 -D__BLST_PORTABLE__ -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE \
 -I$OUT/sppark -I$OUT/blst/src -Iinclude -Isrc -Xcompiler -Wno-unused-function"
"$NVCC" $NVFLAGS -x cu -c "$OUT/sppark/util/all_gpus.cpp" -o "$OUT/obj/all_gpus.o"
"$NVCC" $NVFLAGS -DSPPARK_COMMIT="\"$SPPARK_COMMIT\"" -c bench/peers/sppark_bench.cu -o "$OUT/obj/sppark_bench.o"
"$NVCC" $GENCODE "$OUT/obj/sppark_bench.o" "$OUT/obj/all_gpus.o" "$OUR_LIB" "$OUT/obj/blst/libblst.a" \
    -o "$OUT/sppark-bench" -cudart static -lpthread -lm

ls -l "$OUT/sppark-bench"
ldd "$OUT/sppark-bench" || true
