# mk/cuda.mk -- the CUDA backend (src/gpu), included by the Makefile, which
# sets CUDA_ON (1: build it; see CUDA there) and NVCC.
#
# With CUDA_ON: the .cu files of src/gpu are compiled once, release flags,
# into build/obj/src/gpu/*.o and archived into both build/libcuzk-internal.a
# and build/debug/libcuzk-internal.a (and so into each libcuzk.a; device
# code is not built with sanitizers;
# tests/unit/test_gpu.c skips itself under ASan), and src/gpu/gpu_none.c is
# left out. The CUDA runtime is linked statically (libcudart_static), so
# binaries need only the NVIDIA driver (libcuda.so) at run time.
# Without: GPU_OBJ and GPU_LDLIBS are empty and gpu_none.c is the backend
# (cuzk_gpu_device_count() == 0).
#
# For the GPU machine (nvcc and gcc, but no cmocka or jansson headers):
#   make CUDA=1 gpu-bundle  builds the programs scripts/gpu-check runs, with
#                           the shared libraries that machine lacks, into
#                           build/gpu-bundle, and packs that folder into
#                           build/gpu-bundle.tar.xz (~10 MB against ~60):
#                           carry either; gpu-check unpacks the archive.
#
# Knobs: CUDA_ARCH (default 90, the H200), NVCC_EXTRA (e.g.
# -DMSM_C_MAX=20, see the knob lists in src/gpu/*.cu and msm.cuh).
#
# src/gpu/gpu_bench.h (the raw NTTs, MSMs, window tables, tuning knobs) has
# no stubs in gpu_none.c: the benchmark and probe (bench/gpu) are built
# only with CUDA, and the unit tests that include gpu_bench.h are, without
# CUDA, compiled (to keep them compiling) but stand-ins that skip (exit 77).

GPU_CU_SRC := $(sort $(wildcard src/gpu/*.cu))
GPU_BENCH_TESTS := $(patsubst tests/unit/%.c,%,$(shell grep -l '"gpu/gpu_bench.h"' tests/unit/test_*.c))

ifeq ($(CUDA_ON),1)

CUDA_HOME   ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_ARCH   ?= 90
NVCC_FLAGS  := -O3 -std=c++17 -gencode=arch=compute_$(CUDA_ARCH),code=sm_$(CUDA_ARCH) \
               -Iinclude -Isrc -Xcompiler -fPIC,-Wall,-Wextra -MMD -MP $(NVCC_EXTRA)
GPU_OBJ     := $(patsubst %.cu,build/obj/%.o,$(GPU_CU_SRC))
GPU_LDLIBS  := -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/targets/x86_64-linux/lib \
               -lcudart_static -ldl -lrt -lpthread -lstdc++
GPU_C_SRC_EXCLUDE := src/gpu/gpu_none.c
GPU_BENCH   := build/gpu-bench build/gpu-probe-affine

# The flags the GPU objects were compiled with: rewritten only when they
# change (NVCC_EXTRA's knobs, CUDA_ARCH), which rebuilds every GPU object.
build/obj/src/gpu/nvcc-flags.stamp: FORCE
	@mkdir -p $(dir $@) && echo '$(NVCC_FLAGS)' | cmp -s - $@ || echo '$(NVCC_FLAGS)' >$@

build/obj/src/gpu/%.o: src/gpu/%.cu build/obj/src/gpu/nvcc-flags.stamp
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

build/obj/bench/gpu/%.o: bench/gpu/%.cu build/obj/src/gpu/nvcc-flags.stamp
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

# The benchmark (bench/gpu/bench_gpu.cu): not in the library, linked with it.
build/gpu-bench: build/obj/bench/gpu/bench_gpu.o build/libcuzk-internal.a
	$(NVCC) -gencode=arch=compute_$(CUDA_ARCH),code=sm_$(CUDA_ARCH) $^ -o $@ -cudart static -lm -lpthread

# The batch-affine probe (bench/gpu/probe_affine.cu): the same.
build/gpu-probe-affine: build/obj/bench/gpu/probe_affine.o build/libcuzk-internal.a
	$(NVCC) -gencode=arch=compute_$(CUDA_ARCH),code=sm_$(CUDA_ARCH) $^ -o $@ -cudart static -lm -lpthread

# The microbenchmarks of issue 50 (the field product's forms, the pipes'
# rates, batched inversion, register-resident affine additions, affine
# buckets with one inversion a block), which bench/gpu/microbench.sh runs:
# each one .cu over headers of src/gpu and bench/gpu, no library.
GPU_MICROBENCH := build/gpu-probe-pipes build/gpu-probe-mul build/gpu-probe-inv build/gpu-probe-affine-warp \
                  build/gpu-probe-affine-shared
build/gpu-probe-pipes: bench/gpu/probe_pipes.cu
build/gpu-probe-mul: bench/gpu/probe_mul.cu
build/gpu-probe-inv: bench/gpu/probe_inv.cu
build/gpu-probe-affine-warp: bench/gpu/probe_affine_warp.cu
build/gpu-probe-affine-shared: bench/gpu/probe_affine_shared.cu
$(GPU_MICROBENCH): $(wildcard bench/gpu/*.cuh bench/gpu/*.h src/gpu/*.cuh) build/obj/src/gpu/nvcc-flags.stamp
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) $(filter %.cu,$^) -o $@ -cudart static -lm -lpthread

# What scripts/gpu-check runs on a GPU machine that cannot build: the
# programs, stripped, and the shared libraries they need beyond the C
# library and the driver, in one folder to carry.
.PHONY: gpu-bundle
GPU_TESTS   := $(patsubst tests/unit/%.c,build/tests/%,$(wildcard tests/unit/test_gpu*.c))
gpu-bundle: build/cuzk $(GPU_TESTS) build/gpu-bench build/gpu-probe-affine $(GPU_MICROBENCH)
	@rm -rf build/gpu-bundle && mkdir -p build/gpu-bundle/lib
	@for p in $^; do strip -o build/gpu-bundle/$$(basename $$p) $$p; done
	@cp bench/gpu/microbench.sh build/gpu-bundle/
	@for lib in $$(ldd $^ | awk '$$3 ~ /^\// && $$1 !~ /^(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s)\.so|^ld-linux/ {print $$3}' | sort -u); do \
	    cp -L $$lib build/gpu-bundle/lib/; done
	@du -sh build/gpu-bundle; ls build/gpu-bundle build/gpu-bundle/lib
	tar -C build -cJf build/gpu-bundle.tar.xz gpu-bundle
	@du -sh build/gpu-bundle.tar.xz

endif

ifneq ($(CUDA_ON),1)

.PHONY: gpu-bundle
gpu-bundle:
	@echo "gpu-bundle: needs CUDA=1 and nvcc" >&2; exit 1

GPU_OBJ     :=
GPU_LDLIBS  :=
GPU_C_SRC_EXCLUDE :=
GPU_BENCH   :=

# The tests of gpu_bench.h's entries: in their place a script that skips
# (gpu_none.c has no stubs for those entries). Not compiled either: they
# are large, and the CUDA build (scripts/gpu-check) compiles and runs them.
# Rebuilt when CUDA is switched (the config stamp), as the real ones are.
define gpu_bench_test_standin
$(1)/tests/$(2): build/config-nocuda.stamp
	@mkdir -p $$(dir $$@)
	printf '#!/bin/sh\necho "SKIP: $(2) needs a build with CUDA (make CUDA=1)"\nexit 77\n' >$$@ && chmod +x $$@
endef
$(foreach t,$(GPU_BENCH_TESTS),$(eval $(call gpu_bench_test_standin,build,$(t))) \
    $(eval $(call gpu_bench_test_standin,build/debug,$(t))))

endif
