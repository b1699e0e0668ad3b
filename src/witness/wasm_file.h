/* What is checked of a wasm file before it is translated: that it is
 * WebAssembly (magic "\0asm", version 1, every section inside the file) and
 * circom 2's witness calculator: it exports every function the protocol
 * calls (circom.c, through the glue) and imports nothing but circom's
 * runtime functions, so that the translation links and loads. */
#ifndef CUZK_WITNESS_WASM_FILE_H
#define CUZK_WITNESS_WASM_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

/* CUZK_OK, or CUZK_ERR_FORMAT naming the file (name) and what is wrong:
 * not WebAssembly, a section past the end, circom 1's calculator (no
 * getVersion), an export of the protocol missing, an import the glue does
 * not provide. */
int wasm_check_circom(const uint8_t *bytes, size_t len, const char *name, cuzk_error *err);

#endif
