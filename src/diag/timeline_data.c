#include "diag/timeline_data.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/timeline.h"
#include "util/err.h"

typedef struct {
    double t;
    int event, device;
    uint64_t job;
    uint32_t partition;
} tl_event;

static int parse_event(const char *line, tl_event *ev)
{
    json_t *j = json_loads(line, 0, NULL);
    const char *name = json_string_value(json_object_get(j, "event"));
    json_t *t = json_object_get(j, "t"), *job = json_object_get(j, "job"), *part = json_object_get(j, "partition"),
           *dev = json_object_get(j, "device");
    int ok = name && json_is_number(t) && json_is_integer(job) && json_is_integer(part) && json_is_integer(dev) &&
             json_integer_value(dev) >= -1 && json_integer_value(dev) < CUZK_MAX_DEVICES;
    ev->event = -1;
    for (int e = TL_SYNTH_START; ok && e <= TL_DONE; e++)
        if (!strcmp(name, timeline_event_name((timeline_event)e)))
            ev->event = e;
    if (ok) {
        ev->t = json_number_value(t);
        ev->job = (uint64_t)json_integer_value(job);
        ev->partition = (uint32_t)json_integer_value(part);
        ev->device = (int)json_integer_value(dev);
    }
    json_decref(j);
    return ok && ev->event >= 0 ? 0 : -1;
}

static int by_partition_then_time(const void *a, const void *b)
{
    const tl_event *x = a, *y = b;
    if (x->job != y->job)
        return x->job < y->job ? -1 : 1;
    if (x->partition != y->partition)
        return x->partition < y->partition ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

static int by_synth_start(const void *a, const void *b)
{
    const tl_partition *x = a, *y = b;
    return (x->synth_start > y->synth_start) - (x->synth_start < y->synth_start);
}

static int read_events(const char *path, tl_event **out, size_t *n, size_t *skipped, cuzk_error *err)
{
    size_t cap = 0;
    char line[512];
    *out = NULL;
    *n = *skipped = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    while (fgets(line, sizeof line, f)) {
        if (*n == cap) {
            tl_event *grown = realloc(*out, (cap = cap ? 2 * cap : 1024) * sizeof *grown);
            if (!grown) {
                fclose(f);
                return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
            }
            *out = grown;
        }
        if (parse_event(line, &(*out)[*n]))
            (*skipped)++;
        else
            (*n)++;
    }
    fclose(f);
    return CUZK_OK;
}

/* Folds the sorted events of one partition into its record. */
static void fold(const tl_event *ev, size_t n, tl_partition *p)
{
    *p = (tl_partition){ev[0].job, ev[0].partition, -1, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    /* in timeline_event's order */
    double *slot[] = {&p->synth_start, &p->witness_start, &p->witness_end, &p->synth_end,
                      &p->gpu_queue,   &p->gpu_start,     &p->gpu_end,     &p->done};
    _Static_assert(sizeof slot / sizeof slot[0] == TL_DONE + 1, "a slot for every timeline event");
    for (size_t i = 0; i < n; i++) {
        *slot[ev[i].event] = ev[i].t;
        if (ev[i].event == TL_GPU_START)
            p->device = ev[i].device;
    }
}

int timeline_read(const char *path, timeline_data *t, cuzk_error *err)
{
    memset(t, 0, sizeof *t);
    tl_event *ev;
    size_t n;
    int rc = read_events(path, &ev, &n, &t->skipped_lines, err);
    if (rc || !n) {
        free(ev);
        return rc ? rc : cuzk_fail(err, CUZK_ERR_FORMAT, "%s: no timeline events", path);
    }
    qsort(ev, n, sizeof *ev, by_partition_then_time);
    t->parts = calloc(n, sizeof *t->parts);
    if (!t->parts) {
        free(ev);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    }
    t->t_min = t->t_max = ev[0].t;
    t->n_devices = 1;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && ev[j].job == ev[i].job && ev[j].partition == ev[i].partition; j++) {
            t->t_min = fmin(t->t_min, ev[j].t);
            t->t_max = fmax(t->t_max, ev[j].t);
            if (ev[j].device + 1 > t->n_devices)
                t->n_devices = ev[j].device + 1;
        }
        fold(ev + i, j - i, &t->parts[t->n++]);
    }
    free(ev);
    qsort(t->parts, t->n, sizeof *t->parts, by_synth_start);
    return CUZK_OK;
}

void timeline_free(timeline_data *t)
{
    free(t->parts);
    memset(t, 0, sizeof *t);
}

/* ---------- the sweep: counts are constant between consecutive events ---------- */

enum { C_SYNTH, C_QUEUED, C_BUSY0 }; /* counters: synthesizing, waiting for a device, busy per device */

typedef struct {
    double t;
    int counter, delta;
} tl_step;

/* Ends before starts at the same time: a hand-over is not an overlap. */
static int by_time(const void *a, const void *b)
{
    const tl_step *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return x->delta - y->delta;
}

/* An interval [from, to) of counter, when both ends are known. */
static void add_interval(tl_step *steps, size_t *n, double from, double to, int counter)
{
    if (isnan(from) || isnan(to))
        return;
    steps[(*n)++] = (tl_step){from, counter, +1};
    steps[(*n)++] = (tl_step){to, counter, -1};
}

void timeline_summarize(const timeline_data *t, timeline_summary *s)
{
    memset(s, 0, sizeof *s);
    s->span_s = t->t_max - t->t_min;
    tl_step *steps = malloc(6 * (t->n ? t->n : 1) * sizeof *steps);
    if (!steps)
        return;
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tl_partition *p = &t->parts[i];
        add_interval(steps, &n, p->synth_start, p->synth_end, C_SYNTH);
        add_interval(steps, &n, p->gpu_queue, p->gpu_start, C_QUEUED);
        if (p->device >= 0)
            add_interval(steps, &n, p->gpu_start, p->gpu_end, C_BUSY0 + p->device);
    }
    qsort(steps, n, sizeof *steps, by_time);
    int level[C_BUSY0 + CUZK_MAX_DEVICES] = {0};
    double at = t->t_min;
    for (size_t i = 0; i <= n; i++) {
        double next = i < n ? steps[i].t : t->t_max, dt = next - at;
        for (int d = 0; d < t->n_devices && dt > 0; d++) {
            double *slot = level[C_BUSY0 + d] ? &s->busy_s[d]
                           : level[C_QUEUED]  ? &s->idle_queued_s[d]
                           : level[C_SYNTH]   ? &s->idle_synthesizing_s[d]
                                              : &s->idle_no_work_s[d];
            *slot += dt;
        }
        if (i == n)
            break;
        at = next;
        level[steps[i].counter] += steps[i].delta;
        if (level[C_SYNTH] > 0 && (uint32_t)level[C_SYNTH] > s->max_synthesizing)
            s->max_synthesizing = (uint32_t)level[C_SYNTH];
    }
    free(steps);
}
