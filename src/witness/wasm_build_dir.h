/* The temporary folders the wasm cache's builds run in,
 * <cache>/.build-XXXXXX (wasm_build.c): the wasm, its translation to C
 * (100+ MB for a large circuit), the compiler's output and log.
 *
 * A build holds an exclusive flock on the folder's "lock" file while it
 * runs, and removes the folder when it ends. A build that was killed (the
 * process ended, a machine restart) leaves its folder behind; its lock
 * went with the process. So each new build first sweeps the cache: a
 * build folder whose lock can be taken is nobody's and is removed, as is
 * one with no lock file at all whose last change is older than
 * WASM_BUILD_DIR_ORPHAN_S (a build killed between making its folder and
 * locking it; cuzk before the locks). A build under way elsewhere keeps
 * its lock, and its folder. */
#ifndef CUZK_WITNESS_WASM_BUILD_DIR_H
#define CUZK_WITNESS_WASM_BUILD_DIR_H

#include "cuzk/cuzk.h"

#define WASM_BUILD_DIR_ORPHAN_S 3600
/* A build folder's path: the cache folder's (wasm_build.c's FOLDER_CAP at
 * most) and "/.build-XXXXXX" */
#define WASM_BUILD_DIR_CAP (3800 + 16)

typedef struct {
    char path[WASM_BUILD_DIR_CAP];
    int lock_fd; /* -1: none */
} wasm_build_dir;

/* Makes and locks a build folder in folder. CUZK_OK or CUZK_ERR_IO. */
int wasm_build_dir_make(wasm_build_dir *d, const char *folder, cuzk_error *err);
/* Removes the folder and everything in it, then lets go of its lock. */
void wasm_build_dir_remove(wasm_build_dir *d);
/* Removes the build folders in folder that no build holds; returns how
 * many. */
int wasm_build_dir_sweep(const char *folder);

#endif
