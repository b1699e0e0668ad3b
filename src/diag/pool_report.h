/* `cuzk diag pool`: what the pinned pool did, from its log lines (the five
 * texts of engine/pinned_pool.h): allocations, reuses, checkins and the
 * reuse ratio, overall and in time buckets, so a pool that stops reusing
 * (and starts allocating: the failure the semaphore policy fixes) shows
 * when it started. */
#ifndef CUZK_DIAG_POOL_REPORT_H
#define CUZK_DIAG_POOL_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "cuzk/cuzk.h"

typedef struct {
    uint64_t allocations;     /* "allocated new buffer": buffers created (prewarm too) */
    uint64_t reuses;          /* "checkout (reuse)" */
    uint64_t alloc_checkouts; /* "checkout (alloc)": checkouts that needed a new buffer */
    uint64_t checkins;        /* "checkin" */
    uint64_t frees;           /* "freed idle buffer" */
} pool_counts;

typedef struct {
    pool_counts total;
    double t_first, t_last; /* of the pool's lines, seconds since the epoch */
    double bucket_s;
    size_t n_buckets;
    pool_counts *buckets; /* bucket i covers [t_first + i bucket_s, + bucket_s) */
    double peak_gib;      /* largest total_gib the pool reported */
    uint64_t peak_buffers;
    uint64_t lines, pool_lines;
} pool_report;

/* Reads the log at path (twice: the first pass finds the time span).
 * bucket_s 0: about 20 buckets of a round length. */
int pool_report_read(const char *path, double bucket_s, pool_report *r, cuzk_error *err);
void pool_report_free(pool_report *r);

/* reuses / (reuses + alloc_checkouts), 0 without checkouts. */
double pool_reuse_ratio(const pool_counts *c);

void pool_report_print(const pool_report *r, FILE *out);

#endif
