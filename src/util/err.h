/* Errors: every fallible library function returns a cuzk status code and,
 * on failure, fills a caller-supplied cuzk_error with a message that names
 * the file, the section and what was expected. Nothing in the library aborts
 * on bad input. */
#ifndef CUZK_UTIL_ERR_H
#define CUZK_UTIL_ERR_H

#include "cuzk/cuzk.h"

/* Sets e (when non-NULL) to code and the formatted message; returns code. */
int cuzk_fail(cuzk_error *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
