/* The wasm cache's objects and folder, checked before any code is loaded
 * from them (wasm_build.c).
 *
 * Whole: dlopen maps an object and runs its constructors, and a truncated
 * one (a partial copy, a crash before the rename reached the disk) kills
 * the process with SIGBUS rather than failing. So each object is sealed
 * as it is cached: a trailer of 48 bytes appended after the object's own
 * bytes (the loader reads ELF by its headers and never looks there),
 *
 *     "cuzk-so1" | the object's size, 8 bytes little-endian | its SHA-256
 *
 * and the sealed file written with fsync before the rename that puts it in
 * place. One file, renamed whole: a reader sees the old object or the new
 * one, never the seal of one beside the bytes of another. An object whose
 * seal is missing or does not match is not whole, and is built again.
 *
 * Owned: an object runs as the user who loads it, so it and its folder
 * must be that user's and writable by no one else (as ssh insists of its
 * keys); in a shared folder (mode 1777) another user could plant an object
 * under the name cuzk expects. Those are refused with a message saying
 * why, never loaded and never replaced. */
#ifndef CUZK_WITNESS_WASM_CACHE_OBJECT_H
#define CUZK_WITNESS_WASM_CACHE_OBJECT_H

#include "cuzk/cuzk.h"

/* Copies the compiled object at from to to, sealed (mode 0644, fsynced,
 * renamed into place, the folder fsynced). CUZK_OK or CUZK_ERR_IO /
 * CUZK_ERR_NOMEM. */
int wasm_object_seal(const char *from, const char *to, cuzk_error *err);

/* The object at path before it is loaded: CUZK_OK (whole, ours);
 * CUZK_ERR_FORMAT (not whole: build it again; the message says how);
 * CUZK_ERR_IO (not ours, writable by others, not a regular file or
 * unreadable: refused). */
int wasm_object_check(const char *path, cuzk_error *err);

/* The cache folder: a folder of the running user's, writable by no one
 * else. CUZK_OK or CUZK_ERR_IO saying what is wrong and what to do. */
int wasm_folder_check(const char *folder, cuzk_error *err);

#endif
