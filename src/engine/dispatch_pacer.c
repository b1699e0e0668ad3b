/* The pacer policy: the permits as a hard cap, dispatches spaced by the PI
 * pacer (dispatch.h) on the measured device service time, holding the
 * device queue near its target; before the first measurement only the
 * device slots plus the target are let in. */
#include "engine/engine_internal.h"

static void pacer_step(cuzk_engine *e)
{
    double now = engine_now(e);
    if (e->permits_free <= 0 || !engine_pending_count(e) ||
        !pacer_admits(&e->pace, e->cfg.max_device_queue_depth - e->permits_free)) {
        engine_wait(e, &e->dispatch_cv, -1);
        return;
    }
    if (now < e->next_dispatch_at) {
        engine_wait(e, &e->dispatch_cv, e->next_dispatch_at);
        return;
    }
    engine_dispatch_one(e, engine_pop_pending(e), 1);
    e->next_dispatch_at = now + pacer_next_interval(&e->pace, e->device_q.len);
}

static void pacer_service_time(cuzk_engine *e, double seconds)
{
    pacer_on_service_time(&e->pace, seconds);
}

const dispatch_policy dispatch_pacer = {pacer_step, pacer_service_time};
