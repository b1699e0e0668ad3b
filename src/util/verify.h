/* Contracts of the checked build (-DCUZK_VERIFY: build/debug, the
 * sanitizer build the unit tests also run in). CUZK_VERIFY_CHECK(cond)
 * there stops the program with the condition and its place, as
 * libsecp256k1's VERIFY_CHECK, so a broken invariant shows where it
 * breaks; in release builds it compiles to nothing and cond is not
 * evaluated. For invariants only: bad input gets an error code. Header
 * only, so the lowest layers (ff) may use it. */
#ifndef CUZK_UTIL_VERIFY_H
#define CUZK_UTIL_VERIFY_H

#ifdef CUZK_VERIFY
#include <stdio.h>
#include <stdlib.h>

static inline void cuzk_verify_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "%s:%d: contract broken: %s\n", file, line, cond);
    abort();
}

#define CUZK_VERIFY_CHECK(cond) ((cond) ? (void)0 : cuzk_verify_fail(#cond, __FILE__, __LINE__))
#else
#define CUZK_VERIFY_CHECK(cond) ((void)0)
#endif

#endif
