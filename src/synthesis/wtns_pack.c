#include "synthesis/wtns_pack.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/cuzk.h"
#include "util/threads.h"

#define PACK_MAX_THREADS 256

typedef struct {
    const uint64_t *values;
    const uint64_t *one;
    uint64_t *dst;
    size_t n, blocks;
    uint64_t *kinds;  /* scratch: the kinds, later copied into dst */
    uint32_t *first;  /* scratch: each block's count, then its first kept index */
    size_t range[PACK_MAX_THREADS][2]; /* in place: each thread's blocks */
} pack_job;

/* ZERO 0, ONE 1, KEPT 2: (not zero) + (not zero and not one), without
 * branches (the values' kinds are random to a predictor) */
static unsigned kind_of(const uint64_t *v, const uint64_t *one)
{
    const unsigned nonzero = (v[0] | v[1] | v[2] | v[3]) != 0;
    const unsigned not_one = ((v[0] ^ one[0]) | (v[1] ^ one[1]) | (v[2] ^ one[2]) | (v[3] ^ one[3])) != 0;
    return nonzero + (nonzero & not_one);
}

static unsigned kind_at(const uint64_t *kinds, size_t i)
{
    return (unsigned)(kinds[i / 32] >> (2 * (i % 32))) & 3;
}

/* blocks [b0, b1): their kinds and how many values each keeps */
static void pack_count(void *ctx, size_t b0, size_t b1, int tid)
{
    pack_job *j = ctx;
    (void)tid;
    for (size_t b = b0; b < b1; b++) {
        const size_t i0 = b * CUZK_WTNS_PACK_BLOCK;
        const size_t i1 = i0 + CUZK_WTNS_PACK_BLOCK < j->n ? i0 + CUZK_WTNS_PACK_BLOCK : j->n;
        uint32_t kept = 0;
        for (size_t w = i0 / 32; w * 32 < i1; w++) {
            uint64_t word = 0;
            for (size_t i = w * 32; i < w * 32 + 32 && i < i1; i++) {
                const unsigned k = kind_of(j->values + 4 * i, j->one);
                word |= (uint64_t)k << (2 * (i % 32));
                kept += k == CUZK_WTNS_KEPT;
            }
            j->kinds[w] = word;
        }
        j->first[b] = kept;
    }
}

/* the kept values of [i0, i1) to `to`, in order (to may lie at or below
 * values + 4 i0: each value is read before its slot can be written) */
static void pack_move(const pack_job *j, size_t i0, size_t i1, uint64_t *to)
{
    for (size_t i = i0; i < i1; i++)
        if (kind_at(j->kinds, i) == CUZK_WTNS_KEPT) {
            memmove(to, j->values + 4 * i, 32);
            to += 4;
        }
}

/* into another buffer: blocks [b0, b1) straight to their places */
static void pack_copy(void *ctx, size_t b0, size_t b1, int tid)
{
    pack_job *j = ctx;
    (void)tid;
    const size_t i1 = b1 * CUZK_WTNS_PACK_BLOCK < j->n ? b1 * CUZK_WTNS_PACK_BLOCK : j->n;
    pack_move(j, b0 * CUZK_WTNS_PACK_BLOCK, i1, j->dst + 4 * (size_t)j->first[b0]);
}

/* in place: blocks [b0, b1) to the start of their own stretch; the
 * stretches then slide down one after another (pack_slide) */
static void pack_gather(void *ctx, size_t b0, size_t b1, int tid)
{
    pack_job *j = ctx;
    const size_t i1 = b1 * CUZK_WTNS_PACK_BLOCK < j->n ? b1 * CUZK_WTNS_PACK_BLOCK : j->n;
    pack_move(j, b0 * CUZK_WTNS_PACK_BLOCK, i1, j->dst + 4 * b0 * CUZK_WTNS_PACK_BLOCK);
    j->range[tid][0] = b0;
    j->range[tid][1] = b1;
}

/* in place: stretch after stretch, lowest first, to its place: each lands
 * at or below where it lies and above the stretches before it */
static void pack_slide(pack_job *j, int nthreads, size_t n_kept)
{
    for (size_t b = 0; b < j->blocks;) {
        int t = 0;
        while (t < nthreads && j->range[t][0] != b)
            t++;
        const size_t b1 = j->range[t][1];
        const size_t end = b1 < j->blocks ? j->first[b1] : n_kept;
        memmove(j->dst + 4 * (size_t)j->first[b], j->dst + 4 * b * CUZK_WTNS_PACK_BLOCK,
                (end - j->first[b]) * 32);
        b = b1;
    }
}

size_t cuzk_wtns_pack_scratch_bytes(size_t n)
{
    const size_t blocks = (n + CUZK_WTNS_PACK_BLOCK - 1) / CUZK_WTNS_PACK_BLOCK;
    return (n + 31) / 32 * sizeof(uint64_t) + blocks * sizeof(uint32_t);
}

size_t cuzk_wtns_pack_room(size_t n)
{
    const size_t blocks = (n + CUZK_WTNS_PACK_BLOCK - 1) / CUZK_WTNS_PACK_BLOCK;
    return n / 4 * 32 + (n + 31) / 32 * sizeof(uint64_t) + (blocks * sizeof(uint32_t) + 7) / 8 * 8;
}

int cuzk_wtns_pack(const uint64_t *values, size_t n, uint64_t *dst, int nthreads, cuzk_wtns_packed *out)
{
    static const uint64_t plain_one[4] = {1, 0, 0, 0};
    return cuzk_wtns_pack_as(values, n, plain_one, dst, nthreads, out);
}

int cuzk_wtns_pack_as(const uint64_t *values, size_t n, const uint64_t one[4], uint64_t *dst, int nthreads,
                      cuzk_wtns_packed *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n >= ((size_t)1 << 32))
        return CUZK_OK;
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > PACK_MAX_THREADS)
        nthreads = PACK_MAX_THREADS;
    pack_job j = {.values = values, .one = one, .dst = dst, .n = n};
    j.blocks = (n + CUZK_WTNS_PACK_BLOCK - 1) / CUZK_WTNS_PACK_BLOCK;
    const size_t words = (n + 31) / 32;
    j.kinds = malloc(cuzk_wtns_pack_scratch_bytes(n));
    if (!j.kinds)
        return CUZK_ERR_NOMEM;
    j.first = (uint32_t *)(j.kinds + words);
    cuzk_parallel_for(nthreads, j.blocks, pack_count, &j);
    size_t n_kept = 0;
    for (size_t b = 0; b < j.blocks; b++) {
        const uint32_t count = j.first[b];
        j.first[b] = (uint32_t)n_kept;
        n_kept += count;
    }
    if (n_kept > n / 4) {
        free(j.kinds);
        return CUZK_OK;
    }
    if (dst != values) {
        cuzk_parallel_for(nthreads, j.blocks, pack_copy, &j);
    } else {
        for (int t = 0; t < nthreads; t++)
            j.range[t][0] = j.range[t][1] = SIZE_MAX;
        cuzk_parallel_for(nthreads, j.blocks, pack_gather, &j);
        pack_slide(&j, nthreads, n_kept);
    }
    uint64_t *kinds = dst + 4 * n_kept;
    uint32_t *first = (uint32_t *)(kinds + words);
    memcpy(kinds, j.kinds, words * sizeof *kinds);
    memcpy(first, j.first, j.blocks * sizeof *first);
    free(j.kinds);
    *out = (cuzk_wtns_packed){.n = n,
                              .n_kept = n_kept,
                              .base = dst,
                              .bytes = (size_t)((uint8_t *)(first + j.blocks) - (uint8_t *)dst),
                              .kinds = kinds,
                              .first = first,
                              .one = {one[0], one[1], one[2], one[3]}};
    return CUZK_OK;
}
