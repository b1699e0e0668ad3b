/* The poll policy, the legacy throttle kept to reproduce the original's
 * failure: look at the device queue every poll_ms and, when it is shorter
 * than max_device_queue_depth, release everything pending at once (no
 * permits). */
#include "engine/engine_internal.h"

static void poll_step(cuzk_engine *e)
{
    double now = engine_now(e);
    if (now < e->next_dispatch_at) {
        engine_wait(e, &e->dispatch_cv, e->next_dispatch_at);
        return;
    }
    e->next_dispatch_at = now + e->cfg.poll_ms / 1000;
    if (e->device_q.len < (uint32_t)e->cfg.max_device_queue_depth) {
        partition *p;
        while ((p = engine_pop_pending(e)))
            engine_dispatch_one(e, p, 0);
    }
}

const dispatch_policy dispatch_poll = {poll_step, NULL};
