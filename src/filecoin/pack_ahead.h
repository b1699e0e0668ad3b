/* A batch's assignments packed for the device one circuit ahead of the
 * prover (supraseal.c's generate_groth16_proofs_c): while the device
 * proves circuit i, a thread packs circuit i + 1's a, b, c and aux
 * (synthesis/wtns_pack.h, Montgomery's one as the ONE kind) into the
 * other of two staging buffers. A bit-heavy partition's arrays, 0 and 1
 * for the most part, then cross PCIe in a fraction of their bytes, and
 * the packing's time hides behind the device's work. */
#ifndef CUZK_FILECOIN_PACK_AHEAD_H
#define CUZK_FILECOIN_PACK_AHEAD_H

#include <stddef.h>

#include "filecoin/assignment.h"
#include "synthesis/wtns_pack.h"

typedef struct fil_pack_ahead fil_pack_ahead;

/* Starts packing as[0 .. n) on nthreads threads; as[] and the arrays it
 * points to are read until fil_pack_ahead_stop. NULL when out of memory
 * or no thread can start (then the circuits go unpacked). */
fil_pack_ahead *fil_pack_ahead_start(const fil_assignment *as, size_t n, int nthreads);

/* Circuit i's packed arrays (asked in order: i = 0, 1, ...), waiting for
 * them; those of circuit i - 1 are given back. An array that does not pay
 * to pack has base NULL (it goes whole). Valid until the next call. */
const cuzk_bellman_packed *fil_pack_ahead_next(fil_pack_ahead *p, size_t i);

/* Stops the thread (circuits not yet packed are not) and frees p; NULL is
 * fine. */
void fil_pack_ahead_stop(fil_pack_ahead *p);

#endif
