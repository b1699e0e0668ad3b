/* The fork-join loops (src/util/threads.c): cuzk_parallel_for covers
 * [0, n) once in contiguous ranges on at most nthreads threads;
 * cuzk_parallel_pieces covers it once in pieces of the given size (the
 * last shorter), whatever the thread count, the piece size and n, and an
 * empty range calls nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "util/threads.h"

typedef struct {
    atomic_int *hits; /* how often each item was covered */
    size_t n, piece;  /* piece 0: any range; else each call one piece */
    atomic_int calls;
    atomic_int bad_piece;
    atomic_int bad_tid;
    int nthreads;
} cover;

static void mark(void *vctx, size_t begin, size_t end, int tid)
{
    cover *c = vctx;
    atomic_fetch_add(&c->calls, 1);
    if (tid < 0 || tid >= c->nthreads)
        atomic_store(&c->bad_tid, 1);
    if (c->piece && (begin % c->piece || end != (begin + c->piece < c->n ? begin + c->piece : c->n)))
        atomic_store(&c->bad_piece, 1); /* a piece: where pieces start, piece items or up to the end */
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add(&c->hits[i], 1);
}

static void run(int nthreads, size_t n, size_t piece)
{
    cover c = {.n = n, .piece = piece, .nthreads = nthreads < 1 ? 1 : nthreads};
    c.hits = calloc(n ? n : 1, sizeof *c.hits);
    assert_non_null(c.hits);
    if (piece)
        cuzk_parallel_pieces(nthreads, n, piece, mark, &c);
    else
        cuzk_parallel_for(nthreads, n, mark, &c);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(atomic_load(&c.hits[i]), 1);
    assert_int_equal(atomic_load(&c.bad_piece), 0);
    assert_int_equal(atomic_load(&c.bad_tid), 0);
    if (n == 0)
        assert_int_equal(atomic_load(&c.calls), 0);
    else if (piece)
        assert_int_equal(atomic_load(&c.calls), (int)((n + piece - 1) / piece));
    else
        assert_true(atomic_load(&c.calls) <= c.nthreads);
    free(c.hits);
}

static void test_parallel_for(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 7, 1000};
    for (int t = 0; t <= 5; t++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            run(t, sizes[s], 0);
}

static void test_parallel_pieces(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 255, 256, 257, 10000};
    static const size_t pieces[] = {1, 3, 256, 100000};
    for (int t = 1; t <= 5; t++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++)
                run(t, sizes[s], pieces[p]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_for),
        cmocka_unit_test(test_parallel_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
