#include "util/pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

void cuzk_pages_release(const void *p, size_t bytes)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), at = (uintptr_t)p;
    const uintptr_t begin = (at + page - 1) / page * page, end = (at + bytes) / page * page;
    if (end > begin) (void)madvise((void *)begin, end - begin, MADV_DONTNEED);
}

void *cuzk_pages_alloc_large(size_t bytes)
{
    enum { HUGE_PAGE = 2u << 20 };
    const size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, rounded ? rounded : HUGE_PAGE);
#ifdef MADV_HUGEPAGE
    if (p && rounded)
        (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint: refused, the pages are small */
#endif
    return p;
}
