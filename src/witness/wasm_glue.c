/* The glue's C source, src/witness/glue/fields.c then entries.c, embedded
 * in the library at build time as one text (the assembler's .incbin; the
 * Makefile makes this object depend on those files): it is compiled at run time, once per
 * circuit, with the circuit's translation, and the command carries it so
 * that nothing but wabt and a C compiler has to be installed. wasm_build.c
 * passes wasm_glue.h's numbers to that compile as -D flags. */
#include "witness/wasm_glue.h"

_Static_assert(WASM_GLUE_INPUTS + 1 == WASM_GLUE_INFO_N, "cuzk_glue_info fills the words in wasm_glue.h's order");

/* The files' bytes, one after the other, and a terminating NUL. The paths
 * are the repository root's, where the build runs. */
__asm__(".section .rodata\n"
        ".global wasm_glue_source\n"
        ".type wasm_glue_source, @object\n"
        "wasm_glue_source:\n"
        ".incbin \"src/witness/glue/fields.c\"\n"
        ".incbin \"src/witness/glue/entries.c\"\n"
        ".byte 0\n"
        ".size wasm_glue_source, . - wasm_glue_source\n"
        ".previous\n");
