/* The dispatcher: the thread that moves pending partitions to synthesis
 * when the configured policy says so, and the table of policies (one row
 * each in engine.h's CUZK_DISPATCH_ROWS, one file each:
 * dispatch_<name>.c). */
#include "engine/engine_internal.h"

#include <pthread.h>

#define ENGINE_POLICY_ROW_(name, NAME, help) [CUZK_DISPATCH_##NAME] = &dispatch_##name,
static const dispatch_policy *const policies[CUZK_N_DISPATCH_POLICIES] = {
    CUZK_DISPATCH_POLICIES(ENGINE_POLICY_ROW_)};

const dispatch_policy *engine_dispatch_policy(cuzk_dispatch_policy p)
{
    return (unsigned)p < CUZK_N_DISPATCH_POLICIES ? policies[p] : NULL;
}

void engine_dispatch_one(cuzk_engine *e, partition *p, int with_permit)
{
    p->holds_permit = with_permit;
    if (with_permit)
        e->permits_free--;
    p->state = P_SYNTH_QUEUED;
    engine_queue_push(&e->synth_q, p);
    e->dispatched++;
    engine_wake(e, &e->synth_cv, 0);
}

void *engine_dispatcher_main(void *arg)
{
    cuzk_engine *e = arg;
    const dispatch_policy *policy = engine_dispatch_policy(e->cfg.policy);
    pthread_mutex_lock(&e->lock);
    while (!e->stopping)
        policy->step(e);
    pthread_mutex_unlock(&e->lock);
    engine_thread_end(e);
    return NULL;
}
