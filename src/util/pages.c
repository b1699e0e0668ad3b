#include "util/pages.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void cuzk_pages_release(const void *p, size_t bytes)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), at = (uintptr_t)p;
    const uintptr_t begin = (at + page - 1) / page * page, end = (at + bytes) / page * page;
    if (end > begin) (void)madvise((void *)begin, end - begin, MADV_DONTNEED);
}
