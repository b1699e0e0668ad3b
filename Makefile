# cuzk build. `make` builds libcuzk and the cuzk command; `make test` and
# `make demo` first install what is missing (Debian packages, npm peers).
# Sanitizer build: build/debug (address + undefined behaviour, -DCUZK_VERIFY).

CC      ?= cc
NVCC    ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
JOBS    ?= $(shell nproc)

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-function
CFLAGS_COMMON := -std=gnu11 $(WARN) -Iinclude -Isrc -pthread -MMD -MP
REL_CFLAGS := $(CFLAGS_COMMON) -O3 -g -DNDEBUG
DBG_CFLAGS := $(CFLAGS_COMMON) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer -DCUZK_VERIFY
LDLIBS  := -ljansson -lcrypto -lmicrohttpd -linih -lpthread -lm
TEST_LDLIBS := -lcmocka

LIB_SRC  := $(shell find src -name '*.c' ! -path 'src/cli/*' | sort)
CLI_SRC  := $(shell find src/cli -name '*.c' | sort)
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_SUPPORT := $(filter-out $(TEST_SRC),$(wildcard tests/unit/*.c))

define build_tree
$(1)/obj/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) -c $$< -o $$@

$(1)/libcuzk.a: $$(patsubst %.c,$(1)/obj/%.o,$$(LIB_SRC))
	@rm -f $$@
	ar rcs $$@ $$^

$(1)/cuzk: $$(patsubst %.c,$(1)/obj/%.o,$$(CLI_SRC)) $(1)/libcuzk.a
	$$(CC) $(2) $$^ -o $$@ $$(LDLIBS)

$(1)/tests/%: $(1)/obj/tests/unit/%.o $$(patsubst %.c,$(1)/obj/%.o,$$(TEST_SUPPORT)) $(1)/libcuzk.a
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) $$^ -o $$@ $$(TEST_LDLIBS) $$(LDLIBS)

$(1)-all: $(1)/cuzk $$(patsubst tests/unit/%.c,$(1)/tests/%,$$(TEST_SRC))
endef

$(eval $(call build_tree,build,$(REL_CFLAGS)))
$(eval $(call build_tree,build/debug,$(DBG_CFLAGS)))

.PHONY: all deps test unit-test interop-test demo clean constants bench
.DEFAULT_GOAL := all

all: build/cuzk

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

constants:
	python3 tools/gen_constants.py src/ff/constants.h

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
