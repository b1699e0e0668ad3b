#!/bin/sh
# bench/peers/build-supraseal.sh: builds the two sides of issue 49's oracle
# (bench/peers/compare-supraseal.sh runs them on the GPU machine), on the
# development machine, for a GPU machine with no network and no compiler:
#   build/peers/supraseal/c2-prove-supraseal  bench/peers/c2_prove.c linked
#       with supraseal-c2 (supranational/supra_seal, c2/cuda/groth16_cuda.cu,
#       compiled as its build.rs compiles it) and its sppark and blst
#   build/peers/supraseal/c2-prove-cuzk       the same driver linked with
#       libcuzk (the CUDA build's libcuzk-internal.a)
#
#   bench/peers/build-supraseal.sh     (from anywhere in the repository)
#
# Needs nvcc (NVCC), cc, make and the fetch tool's snapshots:
#   SUPRASEAL_GIT  default /work/.mirror/supranational+supra_seal/repo
#   SPPARK_GIT     default /work/.mirror/supranational+sppark/repo
#   BLST_GIT       default /work/.mirror/supranational+blst/repo
# CUDA_ARCH (default 90) picks the one GPU code they carry; REUSE=1 builds
# from the trees an earlier run exported. Both are linked with the CUDA
# runtime statically; c2-prove-cuzk needs the libraries the gpu-bundle
# carries (its lib/ on LD_LIBRARY_PATH). Everything lies under
# build/peers/supraseal, which git ignores.
set -eu

cd "$(dirname "$0")/../.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_ARCH=${CUDA_ARCH:-90}
SUPRASEAL_GIT=${SUPRASEAL_GIT:-/work/.mirror/supranational+supra_seal/repo}
SPPARK_GIT=${SPPARK_GIT:-/work/.mirror/supranational+sppark/repo}
BLST_GIT=${BLST_GIT:-/work/.mirror/supranational+blst/repo}
OUT=build/peers/supraseal

git check-ignore -q "$OUT/c2-prove-supraseal" || { echo "build-supraseal: $OUT is not ignored by git" >&2; exit 1; }
[ -x "$NVCC" ] || { echo "build-supraseal: no nvcc at '$NVCC'" >&2; exit 1; }
mkdir -p "$OUT/obj"

. bench/peers/lib.sh
peer_trees supra_seal="$SUPRASEAL_GIT:c2" sppark="$SPPARK_GIT" blst="$BLST_GIT"
peer_blst

# supraseal-c2 as c2/build.rs compiles it: BLS12-381, blst's src/ and
# sppark's root as include paths, full error messages; sppark's GPU
# enumeration (util/all_gpus.cpp) as sppark's own build compiles it
GENCODE="-gencode=arch=compute_${CUDA_ARCH},code=sm_${CUDA_ARCH}"
NVFLAGS="-O3 -std=c++17 $GENCODE -DFEATURE_BLS12_381 -D__BLST_PORTABLE__ -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE \
 -I$OUT/sppark -I$OUT/blst/src -Xcompiler -Wno-subobject-linkage -Xcompiler -Wno-unused-function"
"$NVCC" $NVFLAGS -c "$OUT/supra_seal/c2/cuda/groth16_cuda.cu" -o "$OUT/obj/groth16_cuda.o"
"$NVCC" $NVFLAGS -x cu -c "$OUT/sppark/util/all_gpus.cpp" -o "$OUT/obj/all_gpus.o"
cc -O2 -std=gnu11 -Iinclude -c bench/peers/c2_prove.c -o "$OUT/obj/c2_prove.o"
"$NVCC" $GENCODE "$OUT/obj/c2_prove.o" "$OUT/obj/groth16_cuda.o" "$OUT/obj/all_gpus.o" "$OUT/obj/blst/libblst.a" \
    -o "$OUT/c2-prove-supraseal" -cudart static -lpthread -lm

# ours: the driver with its assignment and verify commands, on the CUDA
# build of the library
${MAKE:-make} --no-print-directory CUDA=1 -j"$(nproc)" build/libcuzk-internal.a
cc -O2 -std=gnu11 -Iinclude -Isrc -DC2_WITH_CUZK -c bench/peers/c2_prove.c -o "$OUT/obj/c2_prove_cuzk.o"
"$NVCC" $GENCODE "$OUT/obj/c2_prove_cuzk.o" build/libcuzk-internal.a -o "$OUT/c2-prove-cuzk" -cudart static \
    -ljansson -lcrypto -lmicrohttpd -linih -lpthread -lm -ldl
strip "$OUT/c2-prove-supraseal" "$OUT/c2-prove-cuzk"
ls -l "$OUT/c2-prove-supraseal" "$OUT/c2-prove-cuzk"
