/* Packed witnesses (src/synthesis/wtns_pack.c), on the CPU:
 *   - bit-heavy mixes at sizes around the 32-value words and 1024-value
 *     blocks, on 1, 3 and 7 threads, in place and into another buffer:
 *     unpacked by the layout's definition they give back the same bytes,
 *     and both ways pack to the same bytes
 *   - a hand-made witness: its kinds, firsts and kept values as laid out
 *   - values that only look like 0 or 1 in their low word are kept
 *   - packing only where it pays: n / 4 kept packs, one more does not,
 *     and then the values are left as they were
 *   - another word as "one" (Montgomery's, as bellman's assignments hold
 *     it): it travels as two bits, the plain 1 is kept, and the packed
 *     bytes fit cuzk_wtns_pack_room exactly allocated. The device side is
 *     tests/unit/test_gpu_prove.c's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cuzk/cuzk.h"
#include "synthesis/wtns_pack.h"
#include "support.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void) { return xorshift64(&rng_state); }

/* n values: kept_every-th full-size or tricky, else 0 or 1 */
static uint64_t *mix(size_t n, unsigned kept_every)
{
    uint64_t *v = calloc(4 * n + 4, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        uint64_t *x = v + 4 * i;
        if (rng() % kept_every == 0) {
            switch (rng() % 4) {
            case 0: x[0] = 2 + rng() % 1000; break;       /* small */
            case 1: x[0] = 1, x[3] = 1; break;            /* low word 1, not one */
            case 2: x[2] = 1 + rng() % 7; break;          /* low word 0, not zero */
            default: for (int k = 0; k < 4; k++) x[k] = rng(); x[3] >>= 3;
            }
        } else {
            x[0] = rng() % 2;
        }
    }
    return v;
}

/* value i of p, by the layout's definition (wtns_pack.h) */
static void unpack_one(const cuzk_wtns_packed *p, size_t i, uint64_t out[4])
{
    const unsigned kind = (unsigned)(p->kinds[i / 32] >> (2 * (i % 32))) & 3;
    memset(out, 0, 32);
    if (kind == CUZK_WTNS_ONE) {
        memcpy(out, p->one, 32);
    } else if (kind == CUZK_WTNS_KEPT) {
        size_t r = p->first[i / CUZK_WTNS_PACK_BLOCK];
        for (size_t j = i - i % CUZK_WTNS_PACK_BLOCK; j < i; j++)
            r += ((p->kinds[j / 32] >> (2 * (j % 32))) & 3) == CUZK_WTNS_KEPT;
        assert_true(r < p->n_kept);
        memcpy(out, p->base + 4 * r, 32);
    } else {
        assert_int_equal(kind, CUZK_WTNS_ZERO);
    }
}

static void assert_unpacks_to(const cuzk_wtns_packed *p, const uint64_t *values, size_t n)
{
    assert_non_null(p->base);
    assert_int_equal(p->n, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t got[4];
        unpack_one(p, i, got);
        assert_memory_equal(got, values + 4 * i, 32);
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 31, 32, 33, 1023, 1024, 1025, 4097, 70001};
    static const int threads[] = {1, 3, 7};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            const size_t n = sizes[s];
            uint64_t *values = mix(n, 20), *copy = malloc(32 * n), *dst = malloc(32 * n);
            assert_non_null(copy);
            assert_non_null(dst);
            memcpy(copy, values, 32 * n);
            cuzk_wtns_packed out, in_place;
            assert_int_equal(cuzk_wtns_pack(values, n, dst, threads[t], &out), CUZK_OK);
            if (!out.base) { /* a tiny witness can draw more than n / 4 kept */
                assert_true(n < 64);
                free(values), free(copy), free(dst);
                continue;
            }
            assert_ptr_equal(out.base, dst);
            assert_memory_equal(values, copy, 32 * n); /* the source is left alone */
            assert_unpacks_to(&out, copy, n);
            assert_int_equal(cuzk_wtns_pack(values, n, values, threads[t], &in_place), CUZK_OK);
            assert_ptr_equal(in_place.base, values);
            assert_int_equal(in_place.bytes, out.bytes);
            assert_int_equal(in_place.n_kept, out.n_kept);
            assert_memory_equal(in_place.base, out.base, out.bytes);
            assert_unpacks_to(&in_place, copy, n);
            free(values), free(copy), free(dst);
        }
}

static void test_layout(void **state)
{
    (void)state;
    const size_t n = 1100; /* two blocks, the second 76 values */
    uint64_t *v = calloc(4 * n, sizeof *v), *dst = malloc(32 * n);
    assert_non_null(v);
    assert_non_null(dst);
    v[4 * 1] = 1;           /* one */
    v[4 * 5] = 7;           /* kept 0 */
    v[4 * 40 + 1] = 1;      /* kept 1: high word only */
    v[4 * 1030] = 1;        /* one, in block 1 */
    v[4 * 1099 + 3] = 5;    /* kept 2, in block 1 */
    cuzk_wtns_packed p;
    assert_int_equal(cuzk_wtns_pack(v, n, dst, 2, &p), CUZK_OK);
    assert_int_equal(p.n_kept, 3);
    assert_int_equal(p.bytes, 3 * 32 + 35 * 8 + 2 * 4); /* kept, (1100 + 31) / 32 words, 2 firsts */
    assert_ptr_equal(p.kinds, dst + 12);
    assert_int_equal(p.kinds[0], (1ULL << 2) | (2ULL << 10));
    assert_int_equal(p.kinds[1], 2ULL << 16);            /* value 40 = word 1, slot 8 */
    assert_int_equal(p.kinds[1030 / 32], 1ULL << (2 * (1030 % 32)));
    assert_int_equal(p.kinds[34], 2ULL << (2 * (1099 % 32)));
    assert_int_equal(p.first[0], 0);
    assert_int_equal(p.first[1], 2);
    assert_int_equal(dst[0], 7);
    assert_int_equal(dst[4 + 1], 1);
    assert_int_equal(dst[8 + 3], 5);
    free(v);
    free(dst);
}

static void test_packs_only_where_it_pays(void **state)
{
    (void)state;
    const size_t n = 4096;
    for (int extra = 0; extra < 2; extra++) {
        uint64_t *v = calloc(4 * n, sizeof *v), *copy = malloc(32 * n);
        assert_non_null(v);
        assert_non_null(copy);
        for (size_t i = 0; i < n / 4 + (size_t)extra; i++)
            v[4 * (i * 3 % n)] = 2 + i; /* distinct slots: 3 is prime to 4096 */
        memcpy(copy, v, 32 * n);
        cuzk_wtns_packed p;
        assert_int_equal(cuzk_wtns_pack(v, n, v, 3, &p), CUZK_OK);
        if (extra) {
            assert_null(p.base);
            assert_int_equal(p.bytes, 0);
            assert_memory_equal(v, copy, 32 * n);
        } else {
            assert_int_equal(p.n_kept, n / 4);
            assert_unpacks_to(&p, copy, n);
        }
        free(v);
        free(copy);
    }
    cuzk_wtns_packed p;
    assert_int_equal(cuzk_wtns_pack(NULL, 0, NULL, 1, &p), CUZK_OK);
    assert_null(p.base);
}

/* bls12-381's R mod r, Montgomery's one */
static const uint64_t mont_one[4] = {0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
                                     0x1824b159acc5056fULL};

static void test_another_one(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 1024, 1025, 70001};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s];
        uint64_t *v = calloc(4 * n, sizeof *v);
        assert_non_null(v);
        size_t plain_ones = 0;
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = rng() % 64;
            if (r < 24)
                memcpy(v + 4 * i, mont_one, 32);
            else if (r == 24 && plain_ones++ < n / 8)
                v[4 * i] = 1; /* the plain 1: not this packing's one */
        }
        uint64_t *dst = malloc(cuzk_wtns_pack_room(n)); /* exactly: the sanitizers see any overrun */
        assert_non_null(dst);
        cuzk_wtns_packed p;
        assert_int_equal(cuzk_wtns_pack_as(v, n, mont_one, dst, 3, &p), CUZK_OK);
        assert_memory_equal(p.one, mont_one, 32);
        assert_int_equal(p.n_kept, plain_ones);
        assert_true(p.bytes <= cuzk_wtns_pack_room(n));
        assert_unpacks_to(&p, v, n);
        free(v);
        free(dst);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_packs_only_where_it_pays),
        cmocka_unit_test(test_another_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
