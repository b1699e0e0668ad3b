/* A circuit's wasm as native code: translated by wabt's wasm2c, compiled
 * with the system's C compiler (cc -O2) into a shared object together with
 * the glue (wasm_glue.h) and wabt's runtime (wasm_runtime.h), once per
 * circuit, and kept in a cache:
 *
 *   <cache>/<SHA-256 of the wasm bytes>-<recipe>.so
 *
 * where <recipe> is the start of a SHA-256 over the glue's source, the
 * compiler's flags, the runtime's files as built (wasm_runtime.h: made
 * thread-local) and the revision of the translation's rewriting, so that a new cuzk or wabt makes new objects instead of
 * loading stale ones. The cache folder is the
 * caller's, else $CUZK_WASM_CACHE, else $XDG_CACHE_HOME/cuzk/wasm, else
 * ~/.cache/cuzk/wasm (made when missing). An object is built in a
 * temporary folder inside the cache and renamed into place when whole, so
 * processes racing to build one circuit each put a whole object there and
 * loaders never see a part. Before it is loaded, an object is checked
 * whole against the seal written with it, and to be the user's own in a
 * folder of the user's that no one else may write (wasm_cache_object.h):
 * one not whole, or that does not load, is built again; one not the
 * user's is refused. The memory of the circuit's code is bounds-checked
 * (no signal handler is installed in the process). */
#ifndef CUZK_WITNESS_WASM_BUILD_H
#define CUZK_WITNESS_WASM_BUILD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

/* One line of progress of the one-time build (no newline). */
typedef void wasm_progress_fn(void *ctx, const char *line);

typedef struct {
    const char *cache_dir;      /* NULL: the default above */
    wasm_progress_fn *progress; /* NULL: quiet */
    void *ctx;
    const atomic_int *cancel;   /* NULL, or a flag that ends a build under way (its tool killed) */
} wasm_build_options;

/* Opens (dlopen) the shared object for the len wasm bytes (name stands for
 * them in messages), building it first when the cache has none. On
 * success *handle is the dlopen handle and *built says whether it was
 * built now (1) or found (0). CUZK_ERR_IO: the cache folder, wasm2c or the
 * compiler failed (the message says which, with the end of the tool's own
 * output, or that wabt is missing), or the cache folder or its object is
 * not the user's own or is writable by others (refused, saying so);
 * CUZK_ERR_CANCELLED (o->cancel was set during a build); CUZK_ERR_NOMEM. */
int wasm_build_open(const uint8_t *bytes, size_t len, const char *name, const wasm_build_options *o,
                    void **handle, int *built, cuzk_error *err);

#endif
