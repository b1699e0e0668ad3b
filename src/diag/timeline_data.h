/* The engine's timeline (engine/timeline.h: one JSON object per partition
 * event) read back as one record per partition, and what it says about the
 * devices: how long each was busy, and of its idle time how much was spent
 * waiting for synthesis (partitions were being synthesized, none ready)
 * and how much had no work at all. That split answers "why is my GPU
 * idle?": starved by the CPU side, or simply not fed. */
#ifndef CUZK_DIAG_TIMELINE_DATA_H
#define CUZK_DIAG_TIMELINE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "engine/engine.h"

/* Times in seconds since the engine started; NAN where the event is absent
 * (a partition cancelled before the device, a timeline cut short). */
typedef struct {
    uint64_t job;
    uint32_t partition;
    int device; /* -1 until GPU_START */
    double synth_start, witness_start, witness_end, synth_end, gpu_queue, gpu_start, gpu_end, done;
} tl_partition;

typedef struct {
    tl_partition *parts; /* by synth_start */
    size_t n;
    double t_min, t_max;     /* over all events */
    int n_devices;           /* 1 + the largest device seen (at least 1) */
    size_t skipped_lines;    /* not a timeline event */
} timeline_data;

int timeline_read(const char *path, timeline_data *t, cuzk_error *err);
void timeline_free(timeline_data *t);

typedef struct {
    double span_s; /* t_max - t_min */
    double busy_s[CUZK_MAX_DEVICES];
    double idle_synthesizing_s[CUZK_MAX_DEVICES]; /* idle while partitions were in synthesis */
    double idle_queued_s[CUZK_MAX_DEVICES];       /* idle while partitions waited for a device */
    double idle_no_work_s[CUZK_MAX_DEVICES];      /* idle with nothing in flight */
    uint32_t max_synthesizing;                    /* most partitions in synthesis at once */
} timeline_summary;

void timeline_summarize(const timeline_data *t, timeline_summary *s);

#endif
