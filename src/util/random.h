/* Cryptographic randomness from the kernel, wiping of secrets, and a
 * reproducible generator for what needs no secrecy. */
#ifndef CUZK_UTIL_RANDOM_H
#define CUZK_UTIL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* Fills buf with len bytes from getrandom(2); returns 0 or -1 on failure. */
int cuzk_random_bytes(void *buf, size_t len);

/* Zeroes len bytes in a way the compiler may not elide. */
void cuzk_wipe(void *buf, size_t len);

/* splitmix64: the next value of the sequence that *state seeds. For
 * reproducible test data and synthetic circuits, never for secrets. */
static inline uint64_t cuzk_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
