/* The virtual clock: a count of running participants and a list of
 * waiters. A waiter is counted as running again by whoever wakes it (a
 * notifier, or the clock as its deadline comes), not when it gets the CPU
 * back, so time cannot jump while a woken thread has yet to run. */
#include "util/vclock.h"

#include <math.h>
#include <stdlib.h>

typedef struct waiter {
    double until;  /* < 0: no deadline */
    int on_notify; /* a notification ends the wait */
    int woken;
    struct waiter *next;
} waiter;

struct cuzk_vclock {
    pthread_mutex_t m;
    pthread_cond_t cv; /* broadcast whenever a waiter is woken */
    double now;
    int running;
    waiter *waiters;
};

cuzk_vclock *vclock_create(double start)
{
    cuzk_vclock *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->m, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->now = start;
    c->running = 1;
    return c;
}

void vclock_destroy(cuzk_vclock *c)
{
    if (!c)
        return;
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->m);
    free(c);
}

double vclock_now(cuzk_vclock *c)
{
    pthread_mutex_lock(&c->m);
    double t = c->now;
    pthread_mutex_unlock(&c->m);
    return t;
}

/* Under c->m: wakes the waiters for which wakes(w) holds. */
static void wake_where(cuzk_vclock *c, int (*wakes)(const cuzk_vclock *, const waiter *))
{
    for (waiter **at = &c->waiters; *at;) {
        waiter *w = *at;
        if (wakes(c, w)) {
            *at = w->next;
            w->woken = 1;
            c->running++;
        } else {
            at = &w->next;
        }
    }
    pthread_cond_broadcast(&c->cv);
}

static int is_due(const cuzk_vclock *c, const waiter *w)
{
    return w->until >= 0 && w->until <= c->now;
}

static int wants_notify(const cuzk_vclock *c, const waiter *w)
{
    (void)c;
    return w->on_notify;
}

/* Under c->m: when nobody runs, time jumps to the earliest deadline. */
static void advance_if_idle(cuzk_vclock *c)
{
    if (c->running > 0)
        return;
    double next = INFINITY;
    for (const waiter *w = c->waiters; w; w = w->next)
        if (w->until >= 0 && w->until < next)
            next = w->until;
    if (next == INFINITY)
        return; /* only a notification can end these waits */
    if (next > c->now)
        c->now = next;
    wake_where(c, is_due);
}

void vclock_enter(cuzk_vclock *c)
{
    pthread_mutex_lock(&c->m);
    c->running++;
    pthread_mutex_unlock(&c->m);
}

void vclock_leave(cuzk_vclock *c)
{
    pthread_mutex_lock(&c->m);
    c->running--;
    advance_if_idle(c);
    pthread_mutex_unlock(&c->m);
}

static void wait_until(cuzk_vclock *c, pthread_mutex_t *held, double until, int on_notify)
{
    waiter w = {until, on_notify, 0, NULL};
    pthread_mutex_lock(&c->m);
    if (until >= 0 && until <= c->now) {
        pthread_mutex_unlock(&c->m);
        return;
    }
    w.next = c->waiters;
    c->waiters = &w;
    c->running--;
    if (held)
        pthread_mutex_unlock(held);
    advance_if_idle(c);
    while (!w.woken)
        pthread_cond_wait(&c->cv, &c->m);
    pthread_mutex_unlock(&c->m);
    if (held)
        pthread_mutex_lock(held);
}

void vclock_wait(cuzk_vclock *c, pthread_mutex_t *held, double until)
{
    wait_until(c, held, until, 1);
}

void vclock_sleep(cuzk_vclock *c, double seconds)
{
    wait_until(c, NULL, vclock_now(c) + seconds, 0);
}

void vclock_notify(cuzk_vclock *c)
{
    pthread_mutex_lock(&c->m);
    wake_where(c, wants_notify);
    pthread_mutex_unlock(&c->m);
}
