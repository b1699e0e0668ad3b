/* Device memory admission (backend/device_admission.h): the rule on its own
 * (an idle device takes anything, a proof of unknown need runs alone,
 * known needs run together while their sum fits the capacity), the
 * bookkeeping of enter and leave, and a worker that waits while a proof
 * runs alone and starts when it leaves. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include "backend/device_admission.h"

static size_t fixed_capacity(void *ctx)
{
    return *(const size_t *)ctx;
}

static void test_idle_device_admits_anything(void **state)
{
    (void)state;
    device_admission a;
    admission_init(&a);
    assert_int_equal(admission_fits(&a, 0, 0), 1);
    assert_int_equal(admission_fits(&a, SIZE_MAX, 1), 1); /* a proof larger than the card still gets its try */
    admission_destroy(&a);
}

static void test_known_needs_share_while_they_fit(void **state)
{
    (void)state;
    device_admission a;
    admission_init(&a);
    size_t capacity = 25;
    admission_enter(&a, 10, fixed_capacity, &capacity);
    assert_int_equal(admission_fits(&a, 15, capacity), 1);
    assert_int_equal(admission_fits(&a, 16, capacity), 0);
    assert_int_equal(admission_fits(&a, 0, capacity), 0); /* unknown: waits to run alone */
    admission_enter(&a, 15, fixed_capacity, &capacity);
    assert_int_equal(a.in_flight, 2);
    assert_int_equal(a.admitted, 25);
    assert_int_equal(admission_fits(&a, 1, capacity), 0);
    assert_int_equal(admission_fits(&a, 1, 5), 0); /* capacity shrank below what runs */
    admission_leave(&a, 10);
    assert_int_equal(admission_fits(&a, 10, capacity), 1);
    admission_leave(&a, 15);
    assert_int_equal(a.in_flight, 0);
    assert_int_equal(a.admitted, 0);
    assert_int_equal(a.waits, 0);
    admission_destroy(&a);
}

static void test_alone_blocks_everyone(void **state)
{
    (void)state;
    device_admission a;
    admission_init(&a);
    size_t capacity = 1000;
    admission_enter(&a, 0, fixed_capacity, &capacity);
    assert_int_equal(a.alone, 1);
    assert_int_equal(admission_fits(&a, 1, capacity), 0);
    admission_leave(&a, 0);
    assert_int_equal(a.alone, 0);
    assert_int_equal(admission_fits(&a, 0, capacity), 1);
    admission_destroy(&a);
}

/* The second worker: its capacity callback, asked only while another proof
 * runs, tells the main thread that it has seen the device busy. */
typedef struct {
    device_admission *a;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int asked;       /* the callback ran */
    int first_left;  /* set by the main thread just before its leave */
    int saw_left;    /* first_left as the worker found it once admitted */
} second_worker;

static size_t capacity_telling(void *ctx)
{
    second_worker *w = ctx;
    pthread_mutex_lock(&w->lock);
    w->asked = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    return 1000;
}

static void *second_run(void *arg)
{
    second_worker *w = arg;
    admission_enter(w->a, 5, capacity_telling, w);
    pthread_mutex_lock(&w->lock);
    w->saw_left = w->first_left;
    pthread_mutex_unlock(&w->lock);
    admission_leave(w->a, 5);
    return NULL;
}

static void test_waiter_starts_when_alone_proof_leaves(void **state)
{
    (void)state;
    device_admission a;
    admission_init(&a);
    size_t capacity = 1000;
    second_worker w = {.a = &a};
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.cond, NULL);
    admission_enter(&a, 0, fixed_capacity, &capacity); /* runs alone */
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, second_run, &w), 0);
    pthread_mutex_lock(&w.lock);
    while (!w.asked) /* the worker has found the device busy */
        pthread_cond_wait(&w.cond, &w.lock);
    w.first_left = 1;
    pthread_mutex_unlock(&w.lock);
    admission_leave(&a, 0);
    pthread_join(th, NULL);
    assert_int_equal(w.saw_left, 1);
    assert_int_equal(a.waits, 1);
    assert_int_equal(a.in_flight, 0);
    pthread_cond_destroy(&w.cond);
    pthread_mutex_destroy(&w.lock);
    admission_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_device_admits_anything),
        cmocka_unit_test(test_known_needs_share_while_they_fit),
        cmocka_unit_test(test_alone_blocks_everyone),
        cmocka_unit_test(test_waiter_starts_when_alone_proof_leaves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
