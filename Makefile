# cuzk build. `make` builds libcuzk and the cuzk command; `make test` and
# `make demo` first install what is missing (Debian packages, npm peers).
# Sanitizer build: build/debug (address + undefined behaviour, -DCUZK_VERIFY).
# Fuzzing: `make fuzz` (libFuzzer, clang; mk/fuzz.mk, tests/fuzz).

CC      ?= cc
NVCC    ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
JOBS    ?= $(shell nproc)
# The CUDA backend (src/gpu, mk/cuda.mk): CUDA=auto (default) builds it when
# nvcc is found and a GPU is present, CUDA=1 whenever nvcc is found (to run
# the binaries on a GPU machine), CUDA=0 never (src/gpu/gpu_none.c then).
CUDA    ?= auto
ifeq ($(CUDA),auto)
CUDA_ON := $(if $(NVCC),$(shell nvidia-smi -L 2>/dev/null | grep -q GPU && echo 1))
else ifeq ($(CUDA),1)
CUDA_ON := $(if $(NVCC),1,$(error CUDA=1 but no nvcc found))
else
CUDA_ON :=
endif

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-function
# Every object can go into a shared library: position-independent. The
# release objects are hidden unless marked CUZK_API (include/cuzk/cuzk.h),
# so that calls and data inside libcuzk.so stay direct (no GOT or PLT,
# nothing interposable) and the code is what the executables' default PIE
# makes. The sanitizer tree's keep default visibility: its programs share
# one libcuzk-internal.so (see DBG_LIB).
# libpq (src/cluster): Debian's libpq-dev puts its headers in their own folder
PQ_CFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)
# Debug information without variable tracking (locations of locals in
# optimized code): it gives up on the stamped field and curve templates'
# large functions after trying, and took half the sanitizer tree's compile
# time and a quarter of the release tree's; line tables and types stay.
CFLAGS_COMMON := -std=gnu11 $(WARN) -Iinclude -Isrc $(PQ_CFLAGS) -pthread -MMD -MP -fPIC -g -fno-var-tracking-assignments
REL_CFLAGS := $(CFLAGS_COMMON) -fvisibility=hidden -O3 -DNDEBUG
DBG_CFLAGS := $(CFLAGS_COMMON) -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
              -DCUZK_VERIFY
LDLIBS  := -ljansson -lcrypto -lmicrohttpd -linih -lsqlite3 -lpthread -lm -ldl
TEST_LDLIBS := -lcmocka

# src/witness/glue/ holds the C program compiled with each circom circuit at
# run time (embedded by wasm_glue.c), not library code.
LIB_SRC  := $(shell find src -name '*.c' ! -path 'src/cli/*' ! -path 'src/witness/glue/*' | sort)
# Assembly (x86-64 only): the BMI2/ADX field multiply, src/ff/mont_x86_64.S,
# and the AVX2 four-lane one, src/ff/mont29_x86_64.S.
LIB_ASM  := $(if $(filter x86_64,$(shell uname -m)),$(shell find src -name '*.S' | sort))
CLI_SRC  := $(shell find src/cli -name '*.c' | sort)
TEST_SRC := $(wildcard tests/unit/test_*.c)
# C++ tests: only what needs C++ to run the device code's templates on the
# CPU (tests/unit/test_gpu_ff_host.cpp), with a tree's C flags made C++'s
# (its C-only flags dropped, these added).
TEST_CXX_SRC := $(wildcard tests/unit/test_*.cpp)
CXX_ONLY_FLAGS := -std=gnu++17 -fno-exceptions -fno-rtti -Wno-unknown-pragmas
TEST_SUPPORT := $(filter-out $(TEST_SRC),$(wildcard tests/unit/*.c))

# The release (include/cuzk/cuzk.h's CUZK_VERSION) and the shared
# library's ABI version, which changes when a public function's contract
# does (src/api/libcuzk.map names the same version).
VERSION   := $(shell sed -n 's/^\#define CUZK_VERSION "\(.*\)"/\1/p' include/cuzk/cuzk.h)
SOVERSION := 0

include mk/cuda.mk
LIB_SRC := $(filter-out $(GPU_C_SRC_EXCLUDE),$(LIB_SRC))
LDLIBS  += $(GPU_LDLIBS)
# Switching CUDA on or off rebuilds the archives (their member lists differ).
CONFIG_STAMP := build/config-$(if $(CUDA_ON),cuda,nocuda).stamp
$(CONFIG_STAMP):
	@mkdir -p build && rm -f build/config-*.stamp && touch $@

define build_tree
# The flags a tree's objects were compiled with: rewritten only when they
# change, which rebuilds every object (-fPIC, say, where the old objects
# could not go into libcuzk.so).
$(1)/cflags.stamp: FORCE
	@mkdir -p $(1) && echo '$(2)' | cmp -s - $$@ || echo '$(2)' >$$@

$(1)/obj/%.o: %.c $(1)/cflags.stamp
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) $$(UNIT_TEST_OPT) -c $$< -o $$@

# wasm_glue.c embeds the glue's source with .incbin, out of -MMD's sight.
$(1)/obj/src/witness/wasm_glue.o: src/witness/glue/fields.c src/witness/glue/entries.c

$(1)/obj/%.o: %.cpp $(1)/cflags.stamp
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(filter-out -std=gnu11 -Wstrict-prototypes,$(2)) $$(CXX_ONLY_FLAGS) -c $$< -o $$@

$(1)/obj/%.o: %.S $(1)/cflags.stamp
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) -c $$< -o $$@

# Every library object, internal names included: what the command and the
# tests link.
$(1)/libcuzk-internal.a: $$(patsubst %.c,$(1)/obj/%.o,$$(LIB_SRC)) $$(patsubst %.S,$(1)/obj/%.o,$$(LIB_ASM)) \
                $$(GPU_OBJ) $$(CONFIG_STAMP)
	@rm -f $$@
	ar rcs $$@ $$(filter %.o,$$^)

# The library for embedding: the same objects linked into one, in which
# only the API's names (cuzk_*) stay global, so the module names inside
# (pool_create, http_call, ...) cannot clash with a program's. Programs
# link it with the libraries listed in libcuzk.libs.
# rapidsnark's C API (groth16_*) and supraseal-c2's (create_SRS, evict_SRS,
# drop_SRS, clone_SRS, generate_groth16_proofs_c) are global too.
$(1)/libcuzk.a: $(1)/libcuzk-internal.a
	@rm -f $$@
	ld -r --whole-archive $$< -o $(1)/obj/libcuzk-all.o
	objcopy -w --keep-global-symbol='cuzk_*' --keep-global-symbol='groth16_*' --keep-global-symbol='*_SRS' \
	    --keep-global-symbol=generate_groth16_proofs_c $(1)/obj/libcuzk-all.o $(1)/obj/libcuzk-api.o
	ar rcs $$@ $(1)/obj/libcuzk-api.o
	@echo '$$(LDLIBS)' >$(1)/libcuzk.libs

# The shared library: the same objects, exporting only what
# src/api/libcuzk.map lists (the public headers' functions), under the
# SONAME libcuzk.so.$(SOVERSION); libcuzk.so and libcuzk.so.$(SOVERSION) are
# links to the file.
$(1)/libcuzk.so: $(1)/libcuzk-internal.a src/api/libcuzk.map
	$$(CC) $(2) -shared -Wl,-soname,libcuzk.so.$(SOVERSION) -Wl,--version-script=src/api/libcuzk.map \
	    -Wl,-z,defs -Wl,--whole-archive $$< -Wl,--no-whole-archive -o $(1)/libcuzk.so.$(VERSION) $$(LDLIBS)
	ln -sf libcuzk.so.$(VERSION) $(1)/libcuzk.so.$(SOVERSION)
	ln -sf libcuzk.so.$(SOVERSION) $$@

$(1)/cuzk: $$(patsubst %.c,$(1)/obj/%.o,$$(CLI_SRC)) $(1)/libcuzk-internal.a
	$$(CC) $(2) $$^ -o $$@ $$(LDLIBS)

$(1)/tests/%: $(1)/obj/tests/unit/%.o $$(patsubst %.c,$(1)/obj/%.o,$$(TEST_SUPPORT)) $$($(4)_LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) $$^ -o $$@ $$($(4)_LDFLAGS) $$(TEST_LDLIBS) $$(LDLIBS)

# What the tests run: the unit tests, and what $(3) names.
$(1)-all: $(3) $$(patsubst tests/unit/%.c,$(1)/tests/%,$$(TEST_SRC)) $$(patsubst tests/unit/%.cpp,$(1)/tests/%,$$(TEST_CXX_SRC))
endef

# The release tree's unit tests are compiled at -O1 (a later -O wins): the
# library they test is the -O3 archive, and their own code, which stamps
# the field and curve templates again, compiled in half the time.
# Not test_ctime: it checks that the secret paths compiled as shipped (-O3)
# have no secret-dependent branch or address.
build/obj/tests/unit/%.o: UNIT_TEST_OPT := -O1
build/obj/tests/unit/test_ctime.o: UNIT_TEST_OPT :=
# The sanitizer tree's tests of the arithmetic itself at -O0, instrumented
# at -O1 the slowest objects of the build; unoptimized they run as fast
# (they take the field's C additions there: src/ff/mont.h).
SANITIZE_O0_TESTS := test_ec test_ff test_pairing test_bls12_381_endo test_filecoin_params
$(patsubst %,build/debug/obj/tests/unit/%.o,$(SANITIZE_O0_TESTS)): UNIT_TEST_OPT := -O0

# What a tree's tests link the library's objects from ($(4)_LIB, with
# $(4)_LDFLAGS). The release tests: the archive, the code as shipped. The
# sanitizer tree's tests and fuzz replays: one shared library of every
# object, found beside them at run time; linked statically, each of ~40
# programs carried its own ~100 MB of instrumented code (mostly UBSan's
# check records), ~3 GB a build (CI's disk once ran out). Both keep their
# debug information compressed (half a release test's size).
REL_LIB := build/libcuzk-internal.a
REL_LDFLAGS := -Wl,--compress-debug-sections=zlib
DBG_LIB := build/debug/libcuzk-internal.so
DBG_LDFLAGS := $(REL_LDFLAGS) -Wl,-rpath,'$$ORIGIN:$$ORIGIN/..'

build/debug/libcuzk-internal.so: build/debug/libcuzk-internal.a
	$(CC) $(DBG_CFLAGS) -shared -Wl,-soname,libcuzk-internal.so \
	    -Wl,--whole-archive $< -Wl,--no-whole-archive -o $@ $(LDLIBS)

# The tests run the command and the library of the release build only; the
# sanitizer build's (build/debug/cuzk, build/debug/libcuzk.a) are made on
# request.
$(eval $(call build_tree,build,$(REL_CFLAGS),build/cuzk build/libcuzk.a build/libcuzk.so,REL))
$(eval $(call build_tree,build/debug,$(DBG_CFLAGS),,DBG))
include mk/fuzz.mk

.PHONY: all deps test demo clean constants bench install FORCE
.DEFAULT_GOAL := all

all: build/cuzk build/libcuzk.a build/libcuzk.so

deps:
	@scripts/install-deps

# The whole suite: unit tests (release and sanitizer builds), CLI and
# snarkjs/circom interop tests. Prints one "N passed, N failed" line.
test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build-all build/debug-all
	@tests/run-all

demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build/cuzk
	@scripts/demo

# CPU kernel timings (MSM G1/G2, NTT/iNTT, both curves):
#   build/bench_msm_ntt [threads] [log_min] [log_max]
# Field products, scalar against AVX-512 IFMA: build/bench_ff [iterations]
bench: build/bench_msm_ntt build/bench_ff

build/bench_%: build/obj/tests/bench/bench_%.o build/libcuzk-internal.a
	$(CC) $(REL_CFLAGS) $^ -o $@ $(LDLIBS)

# The GPU microbenchmarks' arithmetic checked on the CPU (bench/gpu/probe_*_check.cpp,
# the device code as C++ with the CUDA runtime emulated; no GPU, no nvcc):
# `make probe-checks` builds and runs them.
PROBE_CHECKS := build/probe-forms-check build/probe-batch-inv-check build/probe-affine-shared-check
.PHONY: probe-checks
probe-checks: $(PROBE_CHECKS)
	@for p in $^; do echo "$$p:"; $$p || exit 1; done
build/probe-%-check: $(wildcard bench/gpu/*.cpp bench/gpu/*.cuh bench/gpu/*.h src/gpu/*.cuh)
	@mkdir -p $(dir $@)
	$(CXX) -O2 -std=c++20 -frounding-math -fno-strict-aliasing -pthread -Iinclude -Isrc -x c++ bench/gpu/probe_$(subst -,_,$*)_check.cpp -o $@

constants:
	python3 tools/gen_constants.py src/ff/constants.h
	python3 tools/gen_mont_asm.py src/ff/mont_x86_64.S src/ff/mont_x86_64.h
	python3 tools/gen_mont29_asm.py src/ff/mont29_x86_64.S
	python3 tools/gen_gpu_constants.py src/ff/constants.h src/gpu/constants.cuh
	python3 tools/gen_glv_constants.py src/ff/constants.h src/gpu/glv_constants.cuh src/ec/glv_constants.c
	python3 tools/gen_first_challenges.py src/ff/constants.h src/ceremony/first_challenges.c

clean:
	rm -rf build

# `make install [PREFIX=/usr/local] [DESTDIR=]`: the command; the static
# library with its link list, and the shared one with its links, and
# librapidsnark.so pointing at it (programs built for rapidsnark link with
# -lrapidsnark unchanged); cuzk.pc for pkg-config; the public headers, with
# rapidsnark's prover.h in include/cuzk/rapidsnark.
PREFIX ?= /usr/local
LIBDIR := $(DESTDIR)$(PREFIX)/lib
install: build/cuzk build/libcuzk.a build/libcuzk.so
	install -d $(DESTDIR)$(PREFIX)/bin $(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include/cuzk/rapidsnark
	install -m 755 build/cuzk $(DESTDIR)$(PREFIX)/bin/cuzk
	install -m 644 build/libcuzk.a build/libcuzk.libs $(LIBDIR)/
	install -m 755 build/libcuzk.so.$(VERSION) $(LIBDIR)/
	ln -sf libcuzk.so.$(VERSION) $(LIBDIR)/libcuzk.so.$(SOVERSION)
	ln -sf libcuzk.so.$(SOVERSION) $(LIBDIR)/libcuzk.so
	ln -sf libcuzk.so $(LIBDIR)/librapidsnark.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS_PRIVATE@|$(strip -lpthread -lm -ldl $(GPU_LDLIBS))|' \
	    mk/cuzk.pc.in >$(LIBDIR)/pkgconfig/cuzk.pc
	install -m 644 include/cuzk/*.h $(DESTDIR)$(PREFIX)/include/cuzk/
	install -m 644 include/cuzk/rapidsnark/prover.h $(DESTDIR)$(PREFIX)/include/cuzk/rapidsnark/

-include $(shell find build -name '*.d' 2>/dev/null)
