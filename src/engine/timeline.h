/* The timeline: one JSON object per line for each partition event,
 *   {"t":1.234567,"event":"GPU_START","job":7,"partition":2,"device":0}
 * t in seconds since the engine started; device -1 where none applies.
 * `cuzk diag timeline` draws these as lanes. */
#ifndef CUZK_ENGINE_TIMELINE_H
#define CUZK_ENGINE_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

/* In a partition's order; WITNESS_START and _END (its witness read or
 * calculated) fall inside its synthesis. */
typedef enum {
    TL_SYNTH_START,
    TL_WITNESS_START,
    TL_WITNESS_END,
    TL_SYNTH_END,
    TL_GPU_QUEUE,
    TL_GPU_START,
    TL_GPU_END,
    TL_DONE
} timeline_event;

const char *timeline_event_name(timeline_event ev);

typedef struct timeline timeline;

/* NULL path: a timeline that records nothing. Returns NULL only when the
 * file cannot be created. */
timeline *timeline_open(const char *path, double t0);
void timeline_close(timeline *tl);
void timeline_emit(timeline *tl, timeline_event ev, uint64_t job, uint32_t partition, int device, double now);

#endif
