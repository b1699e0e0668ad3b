/* Fork-join parallel loops over an index range on plain pthreads. */
#ifndef CUZK_UTIL_THREADS_H
#define CUZK_UTIL_THREADS_H

#include <stddef.h>

/* Work on [begin, end) of the range; tid is 0..nthreads-1. */
typedef void (*cuzk_range_fn)(void *ctx, size_t begin, size_t end, int tid);

/* Splits [0, n) into at most nthreads contiguous chunks and runs fn on each,
 * the calling thread taking the first. Returns when all chunks are done.
 * nthreads <= 1 or a failed thread start runs the chunk inline. */
void cuzk_parallel_for(int nthreads, size_t n, cuzk_range_fn fn, void *ctx);

/* cuzk_parallel_for for work whose cost varies along the range: [0, n)
 * in pieces of `piece` items (the last shorter), each thread taking the
 * next piece not yet taken until none is left. fn sees one piece a call;
 * which thread takes which piece varies from run to run. */
void cuzk_parallel_pieces(int nthreads, size_t n, size_t piece, cuzk_range_fn fn, void *ctx);

/* Number of online CPUs (at least 1): the default for --threads. */
int cuzk_cpu_count(void);

#endif
