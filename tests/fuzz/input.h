/* What the fuzz targets (tests/fuzz/fuzz_*.c) share: each defines
 * LLVMFuzzerTestOneInput, which libFuzzer drives (`make fuzz`: clang,
 * build/fuzz) and replay.c drives over the seed corpus (the debug build,
 * build/debug/fuzz, a test in tests/run-all). A target must free all it
 * allocates: both builds check for leaks. */
#ifndef CUZK_FUZZ_INPUT_H
#define CUZK_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An input as a file, for readers that take a path. */
typedef struct {
    int fd;
    char path[64]; /* /proc/self/fd/N */
} fuzz_file;

/* Puts the size bytes of data in an anonymous in-memory file (memfd: a
 * regular file, nothing left on disk) and names it in f->path. 0, or -1
 * when the file could not be made (the target then skips the input). */
int fuzz_file_open(fuzz_file *f, const uint8_t *data, size_t size);
void fuzz_file_close(fuzz_file *f);

/* A NUL-terminated malloc'd copy of data (NULL when out of memory). */
char *fuzz_strndup(const uint8_t *data, size_t size);

/* A reader and writer in one: what data reads as, written again (malloc'd
 * text), or NULL when the reader refuses data. ctx: the target's own. */
typedef char *(*fuzz_read_write)(const uint8_t *data, size_t size, const void *ctx);
/* The round trip of the JSON readers: when rw accepts data, rw of its text
 * must give the same text again; abort() otherwise. */
void fuzz_round_trip(const uint8_t *data, size_t size, fuzz_read_write rw, const void *ctx);

#endif
