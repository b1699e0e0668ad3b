/* The helpers of input.h. */
#define _GNU_SOURCE
#include "input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int fuzz_file_open(fuzz_file *f, const uint8_t *data, size_t size)
{
    f->fd = memfd_create("cuzk-fuzz", MFD_CLOEXEC);
    if (f->fd < 0)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(f->fd, data + done, size - done);
        if (n <= 0) {
            fuzz_file_close(f);
            return -1;
        }
        done += (size_t)n;
    }
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
    return 0;
}

void fuzz_file_close(fuzz_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = 0;
    }
    return s;
}

void fuzz_round_trip(const uint8_t *data, size_t size, fuzz_read_write rw, const void *ctx)
{
    char *once = rw(data, size, ctx);
    if (!once)
        return;
    char *twice = rw((const uint8_t *)once, strlen(once), ctx);
    if (!twice || strcmp(once, twice) != 0)
        abort();
    free(once);
    free(twice);
}
