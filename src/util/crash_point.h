/* Fault injection for the tests that kill a daemon for real:
 * CUZK_CRASH_AT=NAME[:N] ends the process with SIGKILL, as kill -9 would,
 * the N-th time (default: the first) any thread passes the point NAME:
 * a place no outside signal can be timed to hit (between a proof and its
 * record). The line "crash point NAME reached" goes to stderr first. Unset,
 * a pass costs one load. */
#ifndef CUZK_UTIL_CRASH_POINT_H
#define CUZK_UTIL_CRASH_POINT_H

void cuzk_crash_point(const char *name);

#endif
