/* A virtual clock for deterministic tests of threaded code (the engine on
 * the simulated backend): time moves only when every participant waits,
 * and then jumps to the earliest deadline, so what a test measures is the
 * model's time, whatever the machine's load. As test_dispatch's model
 * loop, but with the engine's real threads.
 *
 * Participants: the thread that creates the clock, and one more for each
 * vclock_enter (called before starting a thread, which calls vclock_leave
 * as it ends). Every wait of a participant must go through vclock_wait or
 * vclock_sleep and every wake-up through vclock_notify: a participant
 * blocked anywhere else (another condition variable, I/O) holds time
 * still, which for a wait that needs time to pass is a deadlock. */
#ifndef CUZK_UTIL_VCLOCK_H
#define CUZK_UTIL_VCLOCK_H

#include <pthread.h>

typedef struct cuzk_vclock cuzk_vclock;

/* A clock reading `start` seconds, its creator running. NULL: no memory. */
cuzk_vclock *vclock_create(double start);
void vclock_destroy(cuzk_vclock *c);

double vclock_now(cuzk_vclock *c);

/* One participant more (before pthread_create) or less (as a thread ends). */
void vclock_enter(cuzk_vclock *c);
void vclock_leave(cuzk_vclock *c);

/* Waits until the next vclock_notify or until time `until` (< 0: no
 * deadline); may return early, as pthread_cond_wait, so callers recheck
 * their condition. `held` (may be NULL) is unlocked while waiting and
 * locked again before returning; a notifier that holds it when it notifies
 * cannot be missed. */
void vclock_wait(cuzk_vclock *c, pthread_mutex_t *held, double until);

/* Waits until time now + seconds; notifications do not end it. */
void vclock_sleep(cuzk_vclock *c, double seconds);

/* Wakes every vclock_wait. */
void vclock_notify(cuzk_vclock *c);

#endif
