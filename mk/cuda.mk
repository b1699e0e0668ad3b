# mk/cuda.mk -- the CUDA backend (src/gpu), for the top-level Makefile.
#
# What the Makefile needs (four edits):
#   1. after the LIB_SRC line:
#          -include mk/cuda.mk
#          LIB_SRC := $(filter-out $(GPU_C_SRC_EXCLUDE),$(LIB_SRC))
#      (before the two `$(eval $(call build_tree,...))` lines, which expand
#      LIB_SRC when they are read)
#   2. in build_tree, the archive also takes the CUDA objects:
#          $(1)/libcuzk.a: $$(patsubst %.c,$(1)/obj/%.o,$$(LIB_SRC)) $$(GPU_OBJ)
#   3. every link also takes the CUDA runtime:
#          LDLIBS  := -ljansson -lpthread -lm $(GPU_LDLIBS)
#      (or `LDLIBS += $(GPU_LDLIBS)` after the include)
#   4. nothing else: `make gpu-check-bundle` (defined here) builds what
#      scripts/gpu-check runs on the GPU machine
#
# With nvcc (NVCC from the Makefile: `command -v nvcc`, else
# /usr/local/cuda/bin/nvcc): the .cu files of src/gpu are compiled once,
# release flags, into build/obj/src/gpu/*.o and archived into both
# build/libcuzk.a and build/debug/libcuzk.a (device code is not built with
# sanitizers; tests/unit/test_gpu.c skips itself under ASan), and
# src/gpu/gpu_none.c is left out. The CUDA runtime is linked statically
# (libcudart_static), so binaries need only the NVIDIA driver (libcuda.so)
# at run time, not the toolkit's shared runtime of the same version.
# Without nvcc: GPU_OBJ and GPU_LDLIBS are empty and gpu_none.c is the
# backend (cuzk_gpu_device_count() == 0).
#
# For the GPU machine (nvcc and gcc, but no cmocka or jansson headers):
#   make gpu-check-bundle   builds build/tests/test_gpu and build/gpu-bench
#                           and copies the shared libraries that machine
#                           lacks into build/gpu-libs: carry those three
#                           paths and run scripts/gpu-check there;
#   make gpu-deps           copies this machine's cmocka and jansson headers
#                           and libraries into build/gpu-deps: carry it, and
#                           scripts/gpu-check builds everything there.
#
# Knobs: CUDA_ARCH (default sm_90, the H200), NVCC_EXTRA (e.g.
# -DMSM_C_MAX=20, see the knob lists in src/gpu/*.cu and msm.cuh).

GPU_CU_SRC := $(sort $(filter-out src/gpu/bench_gpu.cu,$(wildcard src/gpu/*.cu)))

ifneq ($(strip $(NVCC)),)

CUDA_HOME   ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_ARCH   ?= 90
NVCC_FLAGS  := -O3 -std=c++17 -gencode=arch=compute_$(CUDA_ARCH),code=sm_$(CUDA_ARCH) \
               -Iinclude -Isrc -Xcompiler -fPIC,-Wall,-Wextra -MMD -MP $(NVCC_EXTRA)
GPU_OBJ     := $(patsubst %.cu,build/obj/%.o,$(GPU_CU_SRC))
GPU_LDLIBS  := -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/targets/x86_64-linux/lib \
               -lcudart_static -ldl -lrt -lpthread -lstdc++
GPU_C_SRC_EXCLUDE := src/gpu/gpu_none.c
GPU_BENCH   := build/gpu-bench

build/obj/src/gpu/%.o: src/gpu/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

# The benchmark (src/gpu/bench_gpu.cu): not in the library, linked with it.
build/gpu-bench: build/obj/src/gpu/bench_gpu.o build/libcuzk.a
	$(NVCC) -gencode=arch=compute_$(CUDA_ARCH),code=sm_$(CUDA_ARCH) $^ -o $@ -cudart static -lm -lpthread

# What scripts/gpu-check runs on a GPU machine that cannot build (see top).
.PHONY: gpu-check-bundle
gpu-check-bundle: build/tests/test_gpu build/gpu-bench
	@mkdir -p build/gpu-libs
	@for lib in $$(ldd build/tests/test_gpu | awk '/cmocka|jansson/ {print $$3}'); do cp -L $$lib build/gpu-libs/; done
	@ls -l build/tests/test_gpu build/gpu-bench build/gpu-libs

endif

# Headers and libraries for building on a machine without them (see top).
.PHONY: gpu-deps
gpu-deps:
	@mkdir -p build/gpu-deps/include build/gpu-deps/lib
	cp -L /usr/include/cmocka.h /usr/include/cmocka_pbc.h /usr/include/jansson.h \
	      /usr/include/jansson_config.h build/gpu-deps/include/
	for lib in libcmocka.so.0 libjansson.so.4; do \
	    path=$$(ldconfig -p | awk -v l=$$lib '$$1 == l {print $$NF; exit}'); \
	    cp -L $$path build/gpu-deps/lib/$$lib && cp -L $$path build/gpu-deps/lib/$${lib%.so.*}.so; done

ifeq ($(strip $(NVCC)),)

.PHONY: gpu-check-bundle
gpu-check-bundle:
	@echo "gpu-check-bundle: no nvcc found" >&2; exit 1

GPU_OBJ     :=
GPU_LDLIBS  :=
GPU_C_SRC_EXCLUDE :=
GPU_BENCH   :=

endif
