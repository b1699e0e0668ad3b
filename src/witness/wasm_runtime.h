/* wabt's wasm2c runtime as each circuit's object is built with it: the
 * three files of Debian's wabt 1.0.32 (wasm-rt.h from /usr/include or
 * /usr/src/wasm2c, wasm-rt-impl.h and wasm-rt-impl.c from
 * /usr/share/wabt/wasm2c), read and made safe for calculations on several
 * threads at once.
 *
 * That runtime keeps a trap's state in globals: the setjmp buffer a trap
 * jumps back to (wasm_rt_jmp_buf, and the unwind target pointing at it)
 * and the call depth that bounds recursion (wasm_rt_call_stack_depth,
 * counted up and down by every function of the translation, and the depth
 * saved at each call in). Two threads calling into one object would count
 * each other's calls and a trap on one would jump onto the other's stack.
 * Each of those declarations is rewritten _Thread_local, so every thread
 * has its own; the translation reads them through the same headers (and
 * counts its depth in the instance instead where it can: wasm_build.c, as a
 * thread-local's every access from a loaded object costs a call). The
 * exception-handling state (wasm_rt_throw's) stays global: circom's code
 * never throws. wasm_rt_grow_memory first calls the glue's
 * cuzk_glue_memory_moves (its thread filling the memory's pages stops
 * before realloc can move them). A runtime whose declarations are not
 * those expected is refused rather than built unsafe. */
#ifndef CUZK_WITNESS_WASM_RUNTIME_H
#define CUZK_WITNESS_WASM_RUNTIME_H

#include <stddef.h>

#include "cuzk/cuzk.h"

enum { WASM_RUNTIME_FILES = 3 };

typedef struct {
    const char *name; /* the file's name where the build puts it: "wasm-rt.h", ... */
    char *text;       /* its text, rewritten (NUL-terminated) */
    size_t len;
} wasm_runtime_file;

typedef struct {
    wasm_runtime_file files[WASM_RUNTIME_FILES]; /* the .c last */
} wasm_runtime;

/* Finds, reads and rewrites the runtime into rt (free with
 * wasm_runtime_free). CUZK_OK, or CUZK_ERR_IO: wabt is not installed, a
 * file cannot be read, or one lacks a declaration it should have exactly
 * once (the message names both: another wabt); rt then holds nothing. */
int wasm_runtime_load(wasm_runtime *rt, cuzk_error *err);
void wasm_runtime_free(wasm_runtime *rt);

#endif
