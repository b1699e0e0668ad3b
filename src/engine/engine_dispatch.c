/* The dispatcher: the thread that moves pending partitions to synthesis
 * when the configured policy says so. */
#include "engine/engine_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void dispatch_one(cuzk_engine *e, partition *p, int with_permit)
{
    p->holds_permit = with_permit;
    if (with_permit)
        e->permits_free--;
    p->state = P_SYNTH_QUEUED;
    engine_queue_push(&e->synth_q, p);
    e->dispatched++;
    engine_wake(e, &e->synth_cv, 0);
}

/* One step of the policy: returns after dispatching or waiting once. */
static void dispatch_step(cuzk_engine *e)
{
    double now = engine_now(e);
    switch (e->cfg.policy) {
    case CUZK_DISPATCH_SEMAPHORE:
        if (e->permits_free <= 0 || !engine_pending_count(e)) {
            engine_wait(e, &e->dispatch_cv, -1);
            return;
        }
        dispatch_one(e, engine_pop_pending(e), 1);
        return;
    case CUZK_DISPATCH_PACER:
        if (e->permits_free <= 0 || !engine_pending_count(e) ||
            !pacer_admits(&e->pace, e->cfg.max_gpu_queue_depth - e->permits_free)) {
            engine_wait(e, &e->dispatch_cv, -1);
            return;
        }
        if (now < e->next_dispatch_at) {
            engine_wait(e, &e->dispatch_cv, e->next_dispatch_at);
            return;
        }
        dispatch_one(e, engine_pop_pending(e), 1);
        e->next_dispatch_at = now + pacer_next_interval(&e->pace, e->gpu_q.len);
        return;
    case CUZK_DISPATCH_POLL:
        /* the legacy throttle: look at the device queue every poll_ms and,
         * when it is short, release everything pending at once */
        if (now < e->next_dispatch_at) {
            engine_wait(e, &e->dispatch_cv, e->next_dispatch_at);
            return;
        }
        e->next_dispatch_at = now + e->cfg.poll_ms / 1000;
        if (e->gpu_q.len < (uint32_t)e->cfg.max_gpu_queue_depth) {
            partition *p;
            while ((p = engine_pop_pending(e)))
                dispatch_one(e, p, 0);
        }
        return;
    }
}

void *engine_dispatcher_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping)
        dispatch_step(e);
    pthread_mutex_unlock(&e->lock);
    engine_thread_end(e);
    return NULL;
}
