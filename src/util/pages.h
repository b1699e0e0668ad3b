/* Memory whose contents are no longer needed, handed back to the system
 * while the address range stays the caller's. */
#ifndef CUZK_UTIL_PAGES_H
#define CUZK_UTIL_PAGES_H

#include <stddef.h>

/* Drops the pages lying wholly inside [p, p + bytes) (the partial pages at
 * either end are kept: they may hold a neighbour's data). Afterwards
 * anonymous memory reads as zeros, and a private file mapping that nobody
 * wrote to reads the file again (from the page cache) when next touched.
 * Not resident meanwhile. Memory the system will not drop (locked, pinned
 * for a device) is left as it is. */
void cuzk_pages_release(const void *p, size_t bytes);

/* bytes of memory (free with free()) for an array filled once and kept,
 * such as a key's points: aligned to 2 MiB and, from that size, asked of
 * the system in huge pages (a 44 GiB key is otherwise 11 million page
 * faults as it is first written). NULL when out of memory. */
void *cuzk_pages_alloc_large(size_t bytes);

#endif
