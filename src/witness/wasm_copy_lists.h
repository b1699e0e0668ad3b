/* circom's copies of constants into consecutive elements, folded.
 *
 * circom writes `var C[n] = POSEIDON_C(t)`, a template's array parameter
 * and every array literal as one Fr_copy call per element, from the
 * constant's address to element k of a local array; wasm2c (wabt 1.0.32)
 * turns each into seven lines of straight code:
 *
 *     w2c_i0 = <k>u;  w2c_i1 = 40u;  w2c_i0 *= w2c_i1;
 *     w2c_i1 = <base>;  w2c_i0 += w2c_i1;  w2c_i1 = <constant>u;
 *     w2c_Fr_copy(instance, w2c_i0, w2c_i1);
 *
 * A Poseidon hash runs ~20,000 of them, megabytes of code run once each:
 * most of a Poseidon witness's time went to fetching that code. A run of
 * such sites with k = k0, k0 + 1, ... and one base becomes a table of the
 * constants' addresses and one call,
 *
 *     cuzk_Fr_copy_list(instance, k0 * 40 + base, table, n)
 *
 * which copies element by element in the same order (the glue's native
 * copies when every one passes Fr_copy's own checks, otherwise each
 * through w2c_Fr_copy, as before). The operand temporaries w2c_i0 and
 * w2c_i1 are dead after each call (wasm2c names them by stack depth and
 * the call empties the stack), so leaving them unset changes nothing. */
#ifndef CUZK_WITNESS_WASM_COPY_LISTS_H
#define CUZK_WITNESS_WASM_COPY_LISTS_H

#include <stddef.h>

/* Runs shorter than this stay as they are. */
enum { COPY_LIST_MIN = 4 };

/* text (len bytes, NUL after; wasm2c's translation of a module named
 * "circuit") with every run folded, the helper declared after the line
 * including circuit.h and defined at the end: a new allocation (text
 * freed) and *len updated, or text itself when there is no run or that
 * include line is not there once; NULL when out of memory (text freed).
 * *lists and *sites: the runs folded and the copy sites they held. */
char *wasm_fold_copy_lists(char *text, size_t *len, size_t *lists, size_t *sites);

#endif
