#include "backend/host_alloc.h"

#include <stdlib.h>
#include <string.h>

static void *pageable_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    size_t rounded = (bytes + 63) & ~(size_t)63; /* aligned_alloc wants a multiple of the alignment */
    if (bytes == 0 || rounded < bytes)
        return NULL;
    void *p = aligned_alloc(64, rounded);
    if (p)
        memset(p, 0, rounded); /* fault the pages in now, not on the hot path */
    return p;
}

static void pageable_free(void *ctx, void *p, size_t bytes)
{
    (void)ctx;
    (void)bytes;
    free(p);
}

host_allocator host_allocator_pageable(void)
{
    return (host_allocator){pageable_alloc, pageable_free, NULL};
}
