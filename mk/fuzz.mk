# Fuzzing (tests/fuzz): each tests/fuzz/fuzz_<name>.c defines a libFuzzer
# target, LLVMFuzzerTestOneInput, with seeds in tests/fuzz/corpus/<name>.
# Two builds of the same sources:
#  - build/debug/fuzz/<name>: the debug build (gcc, address + undefined,
#    part of build/debug-all) with replay.c's main, which feeds it files;
#    tests/run-all runs it over the corpus (the tests fuzz/<name>).
#  - build/fuzz/<name>: clang -fsanitize=fuzzer,address,undefined over the
#    library compiled the same way (CPU only: gpu_none.c), run by `make fuzz`
#    for FUZZ_SECONDS each (tests/fuzz/run-fuzz; FUZZ_TARGETS picks some).

FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAY  := $(addprefix build/debug/fuzz/,$(FUZZ_NAMES))
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_CFLAGS  := $(DBG_CFLAGS) -fsanitize=fuzzer-no-link
FUZZ_LIB_SRC := $(sort $(LIB_SRC) $(GPU_C_SRC_EXCLUDE))
FUZZ_LDLIBS  := $(filter-out $(GPU_LDLIBS),$(LDLIBS)) -lpthread

build/debug/fuzz/%: build/debug/obj/tests/fuzz/fuzz_%.o build/debug/obj/tests/fuzz/input.o \
                    build/debug/obj/tests/fuzz/replay.o $(DBG_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(DBG_CFLAGS) $^ -o $@ $(DBG_LDFLAGS) $(LDLIBS)

build/debug-all: $(FUZZ_REPLAY)

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

build/fuzz/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

build/fuzz/obj/src/witness/wasm_glue.o: src/witness/glue/fields.c src/witness/glue/entries.c

build/fuzz/libcuzk-fuzz.a: $(patsubst %.c,build/fuzz/obj/%.o,$(FUZZ_LIB_SRC)) $(patsubst %.S,build/fuzz/obj/%.o,$(LIB_ASM))
	@rm -f $@
	ar rcs $@ $^

build/fuzz/%: build/fuzz/obj/tests/fuzz/fuzz_%.o build/fuzz/obj/tests/fuzz/input.o build/fuzz/libcuzk-fuzz.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@ $(FUZZ_LDLIBS)

.PHONY: fuzz fuzz-build
fuzz-build:
	@scripts/install-deps --fuzz
	@$(MAKE) --no-print-directory -j$(JOBS) $(addprefix build/fuzz/,$(FUZZ_TARGETS))

fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run-fuzz $(FUZZ_TARGETS)

# The PCE seeds' maker (tests/fuzz/make-corpus).
build/debug/pce-seed: build/debug/obj/tests/fuzz/pce_seed.o $(DBG_LIB)
	$(CC) $(DBG_CFLAGS) $^ -o $@ $(DBG_LDFLAGS) $(LDLIBS)
