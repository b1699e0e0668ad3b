#include "daemon/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One unlabelled sample of its own family. */
typedef struct {
    const char *name, *type, *help;
    double value;
} metrics_scalar;

static void scalars(FILE *f, const metrics_scalar *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        family(f, m[i].name, m[i].type, m[i].help);
        fprintf(f, "%s %.17g\n", m[i].name, m[i].value);
    }
}

/* One histogram's samples; label ("stage=\"gpu\"," or "") leads each set. */
static void histogram_samples(FILE *f, const char *name, const char *label, const cuzk_stage_histogram *h)
{
    uint64_t below = 0;
    for (int i = 0; i < CUZK_STAGE_BUCKETS; i++) {
        below += h->buckets[i];
        fprintf(f, "%s_bucket{%sle=\"%g\"} %llu\n", name, label, cuzk_stage_bucket_bounds[i], (unsigned long long)below);
    }
    fprintf(f, "%s_bucket{%sle=\"+Inf\"} %llu\n", name, label, (unsigned long long)h->count);
    size_t len = strlen(label);
    /* _sum and _count take the label without its trailing comma */
    fprintf(f, "%s_sum%s%.*s%s %.17g\n%s_count%s%.*s%s %llu\n", name, len ? "{" : "", len ? (int)len - 1 : 0, label,
            len ? "}" : "", h->sum, name, len ? "{" : "", len ? (int)len - 1 : 0, label, len ? "}" : "",
            (unsigned long long)h->count);
}

static void stage_histograms(FILE *f, const cuzk_engine_stats *s)
{
    static const char name[] = "cuzk_stage_duration_seconds";
    family(f, name, "histogram",
           "Time partitions spent in each stage (queue: submit to synthesis; total: submit to done).");
    for (int st = 0; st < N_STAGES; st++) {
        char label[64];
        snprintf(label, sizeof label, "stage=\"%s\",", engine_stage_name((engine_stage)st));
        histogram_samples(f, name, label, &s->stage_hist[st]);
    }
}

/* The cluster's families: this node's counters, and the queue and nodes as
 * the database saw them (left out when it did not answer). */
static void cluster_families(FILE *f, const cluster_stats *c, double lease_s)
{
    const metrics_scalar m[] = {
        {"cuzk_cluster_healthy", "gauge", "1 while this node's heartbeat reaches the database.", c->healthy},
        {"cuzk_cluster_capacity", "gauge", "Partitions this node claims at most at once (its permits).", c->capacity},
        {"cuzk_cluster_claimed_here", "gauge", "Partitions this node holds claimed now.", c->claimed_here},
        {"cuzk_cluster_claims_total", "counter", "Partitions this node claimed.", (double)c->counters.claims},
        {"cuzk_cluster_completions_total", "counter", "Partition proofs this node recorded.", (double)c->counters.completions},
        {"cuzk_cluster_retries_total", "counter", "Failed attempts of this node queued again for a retry.",
         (double)c->counters.retries},
        {"cuzk_cluster_failures_total", "counter", "Partitions that failed their job on their last attempt here.",
         (double)c->counters.failures},
        {"cuzk_cluster_reclaims_total", "counter", "Partitions this node took back from silent nodes.",
         (double)c->counters.reclaims},
        {"cuzk_cluster_late_results_total", "counter", "Results of this node discarded: their claim was lost.",
         (double)c->counters.late_results},
        {"cuzk_cluster_cancels_total", "counter", "Claimed partitions cancelled here for a job ended elsewhere.",
         (double)c->counters.cancels},
        {"cuzk_cluster_reconnects_total", "counter", "Database reconnections of this node.", (double)c->reconnects},
    };
    scalars(f, m, sizeof m / sizeof m[0]);
    family(f, "cuzk_cluster_claim_latency_seconds", "histogram",
           "From a partition being claimable (queued, backoff over) to its claim by this node.");
    histogram_samples(f, "cuzk_cluster_claim_latency_seconds", "", &c->claim_latency);
    if (!c->view_ok)
        return;
    const cluster_view *v = &c->view;
    family(f, "cuzk_cluster_queue_depth", "gauge", "Partitions queued in the cluster and claimable, by priority.");
    for (int p = 0; p < CUZK_N_PRIORITIES; p++)
        fprintf(f, "cuzk_cluster_queue_depth{priority=\"%s\"} %llu\n", cuzk_priority_name((cuzk_priority)p),
                (unsigned long long)v->queued[p]);
    family(f, "cuzk_cluster_backing_off", "gauge", "Partitions queued but waiting for their retry backoff.");
    fprintf(f, "cuzk_cluster_backing_off %llu\n", (unsigned long long)v->backing_off);
    family(f, "cuzk_cluster_claimed", "gauge", "Partitions claimed now, by node.");
    for (int i = 0; i < v->n_nodes; i++)
        fprintf(f, "cuzk_cluster_claimed{node=\"%s\"} %u\n", v->nodes[i].name, v->nodes[i].claimed);
    family(f, "cuzk_cluster_node_alive", "gauge", "1 for a node heard from within the lease.");
    for (int i = 0; i < v->n_nodes; i++)
        fprintf(f, "cuzk_cluster_node_alive{node=\"%s\"} %d\n", v->nodes[i].name, v->nodes[i].silent_s < lease_s);
    family(f, "cuzk_cluster_jobs", "gauge", "Jobs in the cluster's database, by state.");
    for (int st = CUZK_JOB_QUEUED; st <= CUZK_JOB_CANCELLED; st++)
        fprintf(f, "cuzk_cluster_jobs{state=\"%s\"} %llu\n", cuzk_job_state_name((cuzk_job_state)st),
                (unsigned long long)v->jobs[st]);
}

static void labelled(FILE *f, const cuzk_engine_stats *s, const metrics_input *in)
{
    family(f, "cuzk_proofs_total", "counter", "Jobs (one proof of N partitions each) that ended, by outcome.");
    fprintf(f, "cuzk_proofs_total{outcome=\"done\"} %llu\ncuzk_proofs_total{outcome=\"failed\"} %llu\n"
               "cuzk_proofs_total{outcome=\"cancelled\"} %llu\n",
            (unsigned long long)s->jobs_done, (unsigned long long)s->jobs_failed,
            (unsigned long long)s->jobs_cancelled);

    family(f, "cuzk_queue_depth", "gauge", "Partitions now in each place of the pipeline.");
    fprintf(f, "cuzk_queue_depth{stage=\"queued\"} %u\ncuzk_queue_depth{stage=\"synthesizing\"} %u\n"
               "cuzk_queue_depth{stage=\"gpu_queued\"} %u\ncuzk_queue_depth{stage=\"on_gpu\"} %u\n",
            s->queued, s->synthesizing, s->device_queued, s->on_device);

    family(f, "cuzk_gpu_busy_seconds_total", "counter", "Seconds each device spent proving partitions.");
    for (int d = 0; d < s->n_devices; d++)
        fprintf(f, "cuzk_gpu_busy_seconds_total{device=\"%d\"} %.17g\n", d, s->device_busy_s[d]);
    family(f, "cuzk_gpu_device_seconds_total", "counter",
           "Of the busy seconds, those on the device's own clock (the rest: waits for the driver).");
    for (int d = 0; d < s->n_devices; d++)
        fprintf(f, "cuzk_gpu_device_seconds_total{device=\"%d\"} %.17g\n", d, s->device_clock_s[d]);

    family(f, "cuzk_device_memory_bytes", "gauge",
           "Device memory after the last proof (used), the most seen so (high_water), the card (total).");
    for (int d = 0; d < s->n_devices; d++)
        fprintf(f,
                "cuzk_device_memory_bytes{device=\"%d\",kind=\"used\"} %llu\n"
                "cuzk_device_memory_bytes{device=\"%d\",kind=\"high_water\"} %llu\n"
                "cuzk_device_memory_bytes{device=\"%d\",kind=\"total\"} %llu\n",
                d, (unsigned long long)s->device_memory_used[d], d, (unsigned long long)s->device_memory_high_water[d],
                d, (unsigned long long)s->device_memory_total[d]);

    family(f, "cuzk_device_memory_waits_total", "counter",
           "Proofs that waited for room in a device's memory before they started.");
    for (int d = 0; d < s->n_devices; d++)
        fprintf(f, "cuzk_device_memory_waits_total{device=\"%d\"} %llu\n", d,
                (unsigned long long)s->device_memory_waits[d]);

    family(f, "cuzk_pinned_pool_buffers", "gauge", "Pinned buffers in the pool, idle or checked out.");
    fprintf(f, "cuzk_pinned_pool_buffers{state=\"idle\"} %llu\ncuzk_pinned_pool_buffers{state=\"checked_out\"} %llu\n",
            (unsigned long long)s->pool.buffers_idle,
            (unsigned long long)(s->pool.buffers_total - s->pool.buffers_idle));

    family(f, "cuzk_budget_used_bytes", "gauge", "Bytes of the memory budget in use, by category.");
    for (int c = 0; c < BUDGET_N_CATEGORIES; c++)
        fprintf(f, "cuzk_budget_used_bytes{category=\"%s\"} %llu\n", budget_category_name((budget_category)c),
                (unsigned long long)s->budget.by_category[c]);

    uint64_t tiers[3] = {0};
    for (size_t i = 0; i < in->n_circuits; i++)
        if (!in->circuits[i].simulated)
            tiers[in->circuits[i].key.tier]++;
    family(f, "cuzk_keys", "gauge", "Proving keys by tier (hot: parsed in memory; warm: mapped; cold: on disk).");
    for (int t = KEY_HOT; t >= KEY_COLD; t--)
        fprintf(f, "cuzk_keys{tier=\"%s\"} %llu\n", key_tier_name((key_tier)t), (unsigned long long)tiers[t]);

    family(f, "cuzk_http_responses_total", "counter", "API responses sent, by status class.");
    for (int c = 1; c <= 5; c++)
        fprintf(f, "cuzk_http_responses_total{code=\"%dxx\"} %llu\n", c, (unsigned long long)in->http_by_class[c]);
}

char *metrics_render(const metrics_input *in)
{
    const cuzk_engine_stats *s = in->engine;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    const metrics_scalar m[] = {
        {"cuzk_uptime_seconds", "gauge", "Seconds since the daemon started.", in->uptime_s},
        {"cuzk_jobs_active", "gauge", "Jobs submitted and not yet ended.", (double)s->jobs_active},
        {"cuzk_partitions_proved_total", "counter", "Partition proofs completed.", (double)s->partitions_done},
        {"cuzk_partitions_verified_total", "counter", "Partition proofs verified before their job completed.",
         (double)s->proofs_verified},
        {"cuzk_partitions_dispatched_total", "counter", "Partitions released by the dispatcher to synthesis.",
         (double)s->dispatched},
        {"cuzk_pinned_pool_allocations_total", "counter", "Pinned buffers allocated (prewarm and checkouts).",
         (double)s->pool.allocations},
        {"cuzk_pinned_pool_reuses_total", "counter", "Checkouts served by an idle buffer of the same size.",
         (double)s->pool.reuses},
        {"cuzk_pinned_pool_checkins_total", "counter", "Buffers returned to the pool.", (double)s->pool.checkins},
        {"cuzk_pinned_pool_frees_total", "counter", "Idle buffers freed after the idle timeout.",
         (double)s->pool.frees},
        {"cuzk_pinned_pool_allocation_failures_total", "counter", "Pinned allocations that failed.",
         (double)s->pool.alloc_failures},
        {"cuzk_pinned_pool_bytes", "gauge", "Bytes of pinned buffers, idle or checked out.",
         (double)s->pool.bytes_total},
        {"cuzk_pinned_pool_peak_bytes", "gauge", "The most bytes of pinned buffers held at once.",
         (double)s->pool.bytes_peak},
        {"cuzk_budget_limit_bytes", "gauge", "The memory budget.", (double)s->budget.limit},
        {"cuzk_budget_high_water_bytes", "gauge", "The most of the budget used at once.",
         (double)s->budget.high_water},
        {"cuzk_budget_waiters", "gauge", "Callers waiting for room in the budget.", (double)s->budget.waiters},
    };
    scalars(f, m, sizeof m / sizeof m[0]);
    labelled(f, s, in);
    stage_histograms(f, s);
    if (in->cluster)
        cluster_families(f, in->cluster, in->cluster_lease_s);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}
