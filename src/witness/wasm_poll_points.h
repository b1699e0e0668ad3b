/* Polls on the loops of a circuit's translation, so that a calculation
 * that never ends (a loop as long as an input) can be stopped.
 *
 * wasm2c (wabt 1.0.32) writes a wasm loop as a label at its top, w2c_L<n>,
 * and each branch back to it (br, br_if, br_table) as `goto w2c_L<n>;`;
 * blocks' labels are w2c_B<n> and w2c_Bfunc, branched to forward only. So
 * every back edge of every loop is a `goto w2c_L`, and each becomes
 *
 *     { CUZK_POLL(); goto w2c_L<n>; }
 *
 * a compound statement, valid wherever the goto was (after an if, as a
 * case of a switch). CUZK_POLL, defined by wasm_build.c's rewrite of the
 * function prologue, counts the instance's poll_in down and asks the host
 * at zero (wasm_glue.h). Together with the prologue's count, every
 * unbounded run of the circuit's code passes a poll: it has to turn a loop
 * or call functions (recursion's depth is bounded). */
#ifndef CUZK_WITNESS_WASM_POLL_POINTS_H
#define CUZK_WITNESS_WASM_POLL_POINTS_H

#include <stddef.h>

/* text (len bytes, NUL after) with a poll before every loop's back edge: a
 * new allocation (text freed) and *len updated, or text itself when there
 * is no loop; NULL when out of memory (text freed). *edges: the back edges
 * polled. */
char *wasm_poll_back_edges(char *text, size_t *len, size_t *edges);

#endif
