/* Packing a batch one circuit ahead (src/filecoin/pack_ahead.c), on the
 * CPU: every circuit's a, b, c and aux come back packed as
 * cuzk_wtns_pack_as packs them alone, with Montgomery's one as ONE, in
 * order, for batches of 1, 2 and 5 and circuits of different sizes; an
 * array that does not pay to pack comes back unpacked; a batch stopped
 * after its first circuit ends without waiting for the rest. The device
 * side is tests/unit/test_gpu_filecoin.c's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ff/constants.h"
#include "filecoin/pack_ahead.h"
#include "support.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng(void) { return xorshift64(&rng_state); }

/* n scalars: 0, Montgomery's one, or (one in kept_every) another value */
static bls12_381_fr *values(size_t n, unsigned kept_every)
{
    bls12_381_fr *v = calloc(n ? n : 1, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        if (rng() % kept_every == 0)
            for (int k = 0; k < 4; k++)
                v[i].l[k] = rng() >> 3;
        else if (rng() % 2)
            memcpy(v[i].l, bls12_381_fr_R, 32);
    }
    return v;
}

static fil_assignment assignment(size_t abc_size, size_t n_aux, unsigned kept_every)
{
    return (fil_assignment){.a = values(abc_size, kept_every),
                            .b = values(abc_size, kept_every),
                            .c = values(abc_size, 2), /* c does not pay: sent whole */
                            .abc_size = abc_size,
                            .aux = values(n_aux, kept_every),
                            .n_aux = n_aux};
}

static void assignment_free(fil_assignment *as)
{
    free(as->a), free(as->b), free(as->c), free(as->aux);
}

/* got is what cuzk_wtns_pack_as makes of n values alone */
static void assert_packed_as_alone(const cuzk_wtns_packed *got, const bls12_381_fr *v, size_t n)
{
    uint64_t *dst = malloc(cuzk_wtns_pack_room(n) + 8);
    assert_non_null(dst);
    cuzk_wtns_packed want;
    assert_int_equal(cuzk_wtns_pack_as((const uint64_t *)v, n, bls12_381_fr_R, dst, 1, &want), CUZK_OK);
    if (!want.base) {
        assert_null(got->base);
    } else {
        assert_non_null(got->base);
        assert_int_equal(got->n, n);
        assert_int_equal(got->n_kept, want.n_kept);
        assert_int_equal(got->bytes, want.bytes);
        assert_memory_equal(got->base, want.base, want.bytes);
        assert_memory_equal(got->one, bls12_381_fr_R, 32);
    }
    free(dst);
}

static void test_batches(void **state)
{
    (void)state;
    static const size_t counts[] = {1, 2, 5};
    for (size_t t = 0; t < sizeof counts / sizeof *counts; t++) {
        const size_t n = counts[t];
        fil_assignment as[5];
        for (size_t i = 0; i < n; i++) /* sizes differ: the staging fits the largest */
            as[i] = assignment(3000 + 1000 * (i % 3), 5000, 20);
        fil_pack_ahead *p = fil_pack_ahead_start(as, n, 3);
        assert_non_null(p);
        for (size_t i = 0; i < n; i++) {
            const cuzk_bellman_packed *got = fil_pack_ahead_next(p, i);
            assert_non_null(got->a.base);
            assert_null(got->c.base);
            assert_packed_as_alone(&got->a, as[i].a, as[i].abc_size);
            assert_packed_as_alone(&got->b, as[i].b, as[i].abc_size);
            assert_packed_as_alone(&got->c, as[i].c, as[i].abc_size);
            assert_packed_as_alone(&got->aux, as[i].aux, as[i].n_aux);
        }
        fil_pack_ahead_stop(p);
        for (size_t i = 0; i < n; i++)
            assignment_free(&as[i]);
    }
}

static void test_stopped_early(void **state)
{
    (void)state;
    fil_assignment as[6];
    for (size_t i = 0; i < 6; i++)
        as[i] = assignment(20000, 20000, 50);
    fil_pack_ahead *p = fil_pack_ahead_start(as, 6, 2);
    assert_non_null(p);
    assert_packed_as_alone(&fil_pack_ahead_next(p, 0)->aux, as[0].aux, as[0].n_aux);
    fil_pack_ahead_stop(p); /* circuits 2..5 never packed: no wait for them */
    fil_pack_ahead_stop(NULL);
    for (size_t i = 0; i < 6; i++)
        assignment_free(&as[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_stopped_early),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
