/* How host memory for the pinned pool is obtained: a backend's choice
 * (page-locked memory from the CUDA runtime on GPU hosts, ordinary pages
 * elsewhere), behind one pair of calls so the pool's code is the same. */
#ifndef CUZK_BACKEND_HOST_ALLOC_H
#define CUZK_BACKEND_HOST_ALLOC_H

#include <stddef.h>

typedef struct {
    void *(*alloc)(void *ctx, size_t bytes); /* NULL on failure */
    void (*free)(void *ctx, void *p, size_t bytes);
    void *ctx;
} host_allocator;

/* malloc-backed pages (64-byte aligned, touched so the cost is paid at allocation). */
host_allocator host_allocator_pageable(void);

#endif
