/* Monotonic wall-clock time for stage timings, and sleeping. */
#ifndef CUZK_UTIL_TIMER_H
#define CUZK_UTIL_TIMER_H

#include <errno.h>
#include <time.h>

static inline double cuzk_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleeps s seconds of real time, through signal interruptions. */
static inline void cuzk_sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

#endif
