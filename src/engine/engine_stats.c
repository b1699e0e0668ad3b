/* The engine's statistics: stage latency histograms, the ring of latency
 * samples, snapshots for metrics and reports. */
#include "engine/engine_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* From a millisecond to a quarter of an hour: a small test circuit's
 * synthesis to a queue behind many PoRep partitions. */
const double cuzk_stage_bucket_bounds[CUZK_STAGE_BUCKETS] = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000};

void cuzk_stage_histogram_add(cuzk_stage_histogram *h, double seconds)
{
    int i = 0;
    while (i < CUZK_STAGE_BUCKETS && seconds > cuzk_stage_bucket_bounds[i])
        i++;
    h->buckets[i]++;
    h->count++;
    h->sum += seconds;
}

/* 0, or -1 when the ring cannot grow (it then keeps what it has). */
static int grow_samples(cuzk_engine *e)
{
    size_t cap = e->cap_samples ? 2 * e->cap_samples : 256;
    if (cap > CUZK_MAX_LATENCY_SAMPLES)
        cap = CUZK_MAX_LATENCY_SAMPLES;
    for (int s = 0; s < N_STAGES; s++) {
        double *grown = realloc(e->samples[s], cap * sizeof(double));
        if (!grown)
            return -1;
        e->samples[s] = grown;
    }
    e->cap_samples = cap;
    return 0;
}

void engine_add_sample(cuzk_engine *e, const partition *p)
{
    double v[N_STAGES] = {p->t_synth_start - p->job->t_submit, p->t_synth_end - p->t_synth_start,
                          p->t_witness_end - p->t_witness_start, p->t_device_start - p->t_synth_end,
                          p->t_device_end - p->t_device_start, p->t_done - p->t_device_end, p->t_done - p->job->t_submit};
    for (int s = 0; s < N_STAGES; s++)
        cuzk_stage_histogram_add(&e->stage_hist[s], v[s]);
    /* the ring fills slots 0 .. MAX-1 in order before it wraps, so the
     * first n_samples slots are always the valid ones */
    size_t slot = e->samples_next;
    if (slot == e->cap_samples && grow_samples(e))
        return;
    for (int s = 0; s < N_STAGES; s++)
        e->samples[s][slot] = v[s];
    e->samples_next = (slot + 1) % CUZK_MAX_LATENCY_SAMPLES;
    if (e->n_samples < CUZK_MAX_LATENCY_SAMPLES)
        e->n_samples++;
}


void cuzk_engine_get_stats(cuzk_engine *e, cuzk_engine_stats *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&e->lock);
    s->elapsed_s = engine_now(e) - e->t0;
    s->partitions_done = e->partitions_done;
    s->proofs_verified = e->proofs_verified;
    s->jobs_done = e->jobs_done;
    s->jobs_failed = e->jobs_failed;
    s->jobs_cancelled = e->jobs_cancelled;
    s->jobs_active = e->jobs_active;
    s->queued = engine_pending_count(e) + e->synth_q.len;
    s->synthesizing = e->synthesizing;
    s->device_queued = e->device_q.len;
    s->on_device = e->on_device;
    s->n_devices = e->backend->n_devices;
    s->dispatched = e->dispatched;
    memcpy(s->device_busy_s, e->device_busy_s, sizeof s->device_busy_s);
    memcpy(s->device_clock_s, e->device_clock_s, sizeof s->device_clock_s);
    memcpy(s->device_memory_used, e->device_memory_used, sizeof s->device_memory_used);
    memcpy(s->device_memory_high_water, e->device_memory_high, sizeof s->device_memory_high_water);
    memcpy(s->device_memory_total, e->device_memory_total, sizeof s->device_memory_total);
    memcpy(s->device_memory_waits, e->device_memory_waits, sizeof s->device_memory_waits);
    for (int d = 0; d < CUZK_MAX_DEVICES; d++)
        s->device_span_s[d] = e->device_last_end[d] - e->device_first_start[d];
    memcpy(s->stage_hist, e->stage_hist, sizeof s->stage_hist);
    s->n_samples = e->n_samples;
    for (int st = 0; st < N_STAGES; st++) {
        s->samples[st] = malloc((e->n_samples ? e->n_samples : 1) * sizeof(double));
        if (s->samples[st] && e->n_samples)
            memcpy(s->samples[st], e->samples[st], e->n_samples * sizeof(double));
    }
    pthread_mutex_unlock(&e->lock);
    pool_get_stats(e->pool, &s->pool);
    budget_get_stats(e->budget, &s->budget);
}

void cuzk_engine_stats_free(cuzk_engine_stats *s)
{
    for (int st = 0; st < N_STAGES; st++) {
        free(s->samples[st]);
        s->samples[st] = NULL;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cuzk_engine_percentile(double *samples, size_t n, double q)
{
    if (!n || !samples)
        return 0;
    qsort(samples, n, sizeof *samples, cmp_double);
    size_t k = (size_t)(q * (double)(n - 1) + 0.5);
    return samples[k < n ? k : n - 1];
}

void engine_sample_device_memory(cuzk_engine *e, int device)
{
    backend_device_memory m = {0};
    if (!e->backend->device_memory || device < 0 || device >= CUZK_MAX_DEVICES ||
        e->backend->device_memory(e->backend, device, &m))
        return;
    e->device_memory_used[device] = m.used;
    e->device_memory_total[device] = m.total;
    if (m.used > e->device_memory_high[device])
        e->device_memory_high[device] = m.used;
    e->device_memory_waits[device] = m.waits;
}
