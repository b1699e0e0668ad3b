/* Monotonic wall-clock time for stage timings. */
#ifndef CUZK_UTIL_TIMER_H
#define CUZK_UTIL_TIMER_H

#include <time.h>

static inline double cuzk_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
