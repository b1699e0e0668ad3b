#include "engine/timeline.h"

#include <pthread.h>
#include <stdlib.h>

struct timeline {
    FILE *f;
    double t0;
    pthread_mutex_t lock;
};

const char *timeline_event_name(timeline_event ev)
{
    static const char *const names[] = {"SYNTH_START", "WITNESS_START", "WITNESS_END", "SYNTH_END",
                                        "GPU_QUEUE",   "GPU_START",     "GPU_END",     "DONE"};
    return names[ev];
}

timeline *timeline_open(const char *path, double t0)
{
    timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return NULL;
    if (path && !(tl->f = fopen(path, "w"))) {
        free(tl);
        return NULL;
    }
    tl->t0 = t0;
    pthread_mutex_init(&tl->lock, NULL);
    return tl;
}

void timeline_close(timeline *tl)
{
    if (!tl)
        return;
    if (tl->f)
        fclose(tl->f);
    pthread_mutex_destroy(&tl->lock);
    free(tl);
}

void timeline_emit(timeline *tl, timeline_event ev, uint64_t job, uint32_t partition, int device, double now)
{
    if (!tl || !tl->f)
        return;
    pthread_mutex_lock(&tl->lock);
    fprintf(tl->f, "{\"t\":%.6f,\"event\":\"%s\",\"job\":%llu,\"partition\":%u,\"device\":%d}\n", now - tl->t0,
            timeline_event_name(ev), (unsigned long long)job, partition, device);
    fflush(tl->f);
    pthread_mutex_unlock(&tl->lock);
}
