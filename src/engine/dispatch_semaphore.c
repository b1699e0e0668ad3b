/* The semaphore policy: max_device_queue_depth permits; one is taken before a
 * partition goes to synthesis and given back when the device finishes it,
 * so one completion starts one synthesis. */
#include "engine/engine_internal.h"

static void semaphore_step(cuzk_engine *e)
{
    if (e->permits_free <= 0 || !engine_pending_count(e)) {
        engine_wait(e, &e->dispatch_cv, -1);
        return;
    }
    engine_dispatch_one(e, engine_pop_pending(e), 1);
}

const dispatch_policy dispatch_semaphore = {semaphore_step, NULL};
