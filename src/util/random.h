/* Cryptographic randomness from the kernel, and wiping of secrets. */
#ifndef CUZK_UTIL_RANDOM_H
#define CUZK_UTIL_RANDOM_H

#include <stddef.h>

/* Fills buf with len bytes from getrandom(2); returns 0 or -1 on failure. */
int cuzk_random_bytes(void *buf, size_t len);

/* Zeroes len bytes in a way the compiler may not elide. */
void cuzk_wipe(void *buf, size_t len);

#endif
