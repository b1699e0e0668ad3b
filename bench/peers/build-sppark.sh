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

. bench/peers/lib.sh
peer_trees sppark="$SPPARK_GIT" blst="$BLST_GIT"
SPPARK_COMMIT=$(awk '$1 == "sppark" {print substr($2, 1, 12)}' "$OUT/SOURCES")
peer_blst
# cuzk's CPU code the harness needs (bases, the checks' oracle)
peer_our_lib

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
