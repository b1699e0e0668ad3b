/* The pacer's PI arithmetic (engine/pacer_control.h) alone: the service-time
 * average, each term of the interval, the clamps, and the closed loop on a
 * modelled device (an event simulation in model time, no threads, no
 * clocks), where it must hold the device queue near its target with
 * dispatches spaced by the service time; and the virtual clock
 * (util/vclock.h) on which test_engine runs the engine's threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "engine/pacer_control.h"
#include "util/vclock.h"

#define EPS 1e-12

/* cmocka compares only floats; the pacer's arithmetic is in doubles. */
#define assert_near(a, b, eps) assert_near_at((a), (b), (eps), #a, __LINE__)
static void assert_near_at(double a, double b, double eps, const char *expr, int line)
{
    if (fabs(a - b) > eps)
        fail_msg("line %d: %s = %.15g, expected %.15g within %g", line, expr, a, b, eps);
}

/* No service time measured yet: no spacing (the permits cap what is in
 * flight); the first measurement is taken whole, later ones averaged with
 * weight 0.2. */
static void test_service_time_average(void **state)
{
    (void)state;
    pacer p;
    pacer_init(&p, 0.5, 0.1, 1, 1);
    assert_true(pacer_next_interval(&p, 5) == 0);
    pacer_on_service_time(&p, 2.0);
    assert_near(p.ema_s, 2.0, EPS);
    pacer_on_service_time(&p, 1.0);
    assert_near(p.ema_s, 0.8 * 2.0 + 0.2 * 1.0, EPS);
}

/* Before the first service time, only the device slots and the target
 * queue are let in; after it, the interval spaces dispatches instead. */
static void test_cold_start_admits_slots_and_target(void **state)
{
    (void)state;
    pacer p;
    pacer_init(&p, 0.5, 0.1, 1, 2);
    assert_true(pacer_admits(&p, 0));
    assert_true(pacer_admits(&p, 2));
    assert_false(pacer_admits(&p, 3));
    pacer_on_service_time(&p, 1.0);
    assert_true(pacer_admits(&p, 3));
    assert_true(pacer_admits(&p, 100));
}

/* At the target depth the interval is the service time shared among the
 * device slots; the proportional term stretches it when the queue is
 * longer and shortens it when shorter. */
static void test_proportional_term(void **state)
{
    (void)state;
    pacer p;
    pacer_init(&p, 0.5, 0, 2, 4);
    pacer_on_service_time(&p, 1.0);
    assert_near(pacer_next_interval(&p, 2), 0.25, EPS);
    assert_near(pacer_next_interval(&p, 4), 0.25 * (1 + 0.5 * 2), EPS);
    assert_near(pacer_next_interval(&p, 1), 0.25 * (1 - 0.5), EPS);
    pacer_init(&p, 0.5, 0, 2, 0); /* slots < 1 count as one */
    pacer_on_service_time(&p, 1.0);
    assert_near(pacer_next_interval(&p, 2), 1.0, EPS);
}

/* The integral adds up the error over dispatches and is clamped at +-8, so
 * a long excursion cannot wind it up; the factor stays within [0, 10]. */
static void test_integral_and_clamps(void **state)
{
    (void)state;
    pacer p;
    pacer_init(&p, 0, 0.1, 1, 1);
    pacer_on_service_time(&p, 1.0);
    assert_near(pacer_next_interval(&p, 2), 1 + 0.1 * 1, EPS);
    assert_near(pacer_next_interval(&p, 2), 1 + 0.1 * 2, EPS);
    for (int i = 0; i < 1000; i++)
        pacer_next_interval(&p, 2);
    assert_near(p.integral, 8, EPS);
    assert_near(pacer_next_interval(&p, 1), 1 + 0.1 * 8, EPS);
    /* back below the target, the integral unwinds one error at a time */
    assert_near(pacer_next_interval(&p, 0), 1 + 0.1 * 7, EPS);

    pacer_init(&p, 5, 0, 1, 1);
    pacer_on_service_time(&p, 1.0);
    assert_near(pacer_next_interval(&p, 100), 10.0, EPS);
    assert_near(pacer_next_interval(&p, 0), 0.0, EPS);
}

/* ---- the closed loop ------------------------------------------------------ */

/* The engine's loop in model time: partition i is dispatched at dispatch[i]
 * (at most PERMITS in flight, admitted and spaced by the pacer, which sees
 * the device queue's length), reaches the device queue synth_s later, and
 * is served in order by one device taking SERVICE each. */
#define SERVICE 1.0
#define PERMITS 8
#define N_PARTITIONS 400

typedef struct {
    double mean_interval; /* between dispatches, second half of the run */
    double mean_depth;    /* device queue length averaged over that time */
    int max_depth;
} loop_result;

static loop_result run_loop(double target, double synth_s)
{
    pacer p;
    pacer_init(&p, 0.5, 0.1, target, 1);
    double *dispatch = calloc(N_PARTITIONS, sizeof *dispatch);
    assert_non_null(dispatch);
    int dispatched = 0, arrived = 0, started = 0, completed = 0;
    double now = 0, next_dispatch = 0, device_done = 0, area = 0;
    const int half = N_PARTITIONS / 2;
    loop_result r = {0};
    while (completed < N_PARTITIONS) {
        /* the next event: a completion, then an arrival, then a dispatch */
        double t_complete = started > completed ? device_done : INFINITY;
        double t_arrive = arrived < dispatched ? dispatch[arrived] + synth_s : INFINITY;
        int in_flight = dispatched - completed;
        double t_dispatch = dispatched < N_PARTITIONS && in_flight < PERMITS && pacer_admits(&p, in_flight)
                                ? (next_dispatch > now ? next_dispatch : now)
                                : INFINITY;
        double t = fmin(t_complete, fmin(t_arrive, t_dispatch));
        int depth = arrived - started;
        if (dispatched > half && dispatched < N_PARTITIONS)
            area += depth * (t - now);
        now = t;
        if (t == t_complete) {
            completed++;
            pacer_on_service_time(&p, SERVICE);
        } else if (t == t_arrive) {
            arrived++;
        } else {
            dispatch[dispatched++] = now;
            next_dispatch = now + pacer_next_interval(&p, depth);
        }
        if (started == completed && arrived > started) { /* the device is free: start the next */
            started++;
            device_done = now + SERVICE;
        }
        if (dispatched > half && arrived - started > r.max_depth)
            r.max_depth = arrived - started;
    }
    double span = dispatch[N_PARTITIONS - 1] - dispatch[half];
    r.mean_interval = span / (N_PARTITIONS - 1 - half);
    r.mean_depth = area / span;
    free(dispatch);
    return r;
}

/* Whether synthesis is short or several service times long, the pacer
 * spaces dispatches by the service time (the device never starves and the
 * queue never grows) and holds the queue within one of its target, far
 * below the permits that would otherwise fill it. */
static void test_closed_loop_holds_target(void **state)
{
    (void)state;
    const double synth[] = {0.1, 0.5, 1, 2, 4};
    const double targets[] = {1, 2};
    for (size_t t = 0; t < 2; t++)
        for (size_t s = 0; s < sizeof synth / sizeof synth[0]; s++) {
            loop_result r = run_loop(targets[t], synth[s] * SERVICE);
            print_message("target %.0f, synthesis %.1f x service: interval %.3f, depth mean %.2f max %d\n",
                          targets[t], synth[s], r.mean_interval, r.mean_depth, r.max_depth);
            assert_near(r.mean_interval, SERVICE, 0.05 * SERVICE);
            assert_true(r.mean_depth >= targets[t] - 0.5 && r.mean_depth <= targets[t] + 1);
            assert_true(r.max_depth <= targets[t] + 5);
        }
}

typedef struct {
    cuzk_vclock *clock;
    double seconds, woke_at;
} sleeper;

static void *sleeper_main(void *arg)
{
    sleeper *s = arg;
    vclock_sleep(s->clock, s->seconds);
    s->woke_at = vclock_now(s->clock);
    vclock_leave(s->clock);
    return NULL;
}

/* Time stands while anyone runs, then jumps to the earliest deadline:
 * each sleeper wakes at exactly its own time, whatever the real delays. */
static void test_vclock_jumps_to_deadlines(void **state)
{
    (void)state;
    cuzk_vclock *c = vclock_create(10);
    assert_non_null(c);
    sleeper s[2] = {{c, 0.5, 0}, {c, 0.2, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        vclock_enter(c);
        assert_int_equal(pthread_create(&t[i], NULL, sleeper_main, &s[i]), 0);
    }
    assert_near(vclock_now(c), 10, 0); /* the creator runs: no time has passed */
    vclock_wait(c, NULL, 11);          /* the sleepers' deadlines come first */
    assert_near(vclock_now(c), 11, 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_near(s[0].woke_at, 10.5, EPS);
    assert_near(s[1].woke_at, 10.2, EPS);
    vclock_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_service_time_average),
        cmocka_unit_test(test_cold_start_admits_slots_and_target),
        cmocka_unit_test(test_proportional_term),
        cmocka_unit_test(test_integral_and_clamps),
        cmocka_unit_test(test_closed_loop_holds_target),
        cmocka_unit_test(test_vclock_jumps_to_deadlines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
