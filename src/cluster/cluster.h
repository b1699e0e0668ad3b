/* Cluster mode: daemons sharing one job queue in PostgreSQL (the [cluster]
 * section; docs/ARCHITECTURE.md, "The cluster"). A node
 *   - answers the job API for any job of the cluster (cluster_jobs): a
 *     submit is checked here (circuit, witnesses, budget) and queued in
 *     the database, a GET reads the database (waiting on NOTIFY
 *     cuzk_job_end), a DELETE cancels there and tells the claimers;
 *   - claims partitions of the circuits its engine has registered, only as
 *     many as its engine has permits (max_device_queue_depth), woken by
 *     NOTIFY cuzk_work with a slow poll (poll_s) as the fallback, proves
 *     each as a one-partition engine job and records the proof, fenced by
 *     its claim (queue.h);
 *   - beats its heartbeat every heartbeat_s, returns to the queue the
 *     partitions of nodes silent for lease_s, and cancels its engine jobs
 *     whose cluster jobs ended elsewhere (NOTIFY cuzk_cancel, or seen at
 *     the heartbeat);
 *   - keeps its running work while the database is away, reports itself
 *     unhealthy, answers the job API with 503 and reconnects with backoff.
 * Threads: a claimer (which also listens), a completer, a heartbeat; each
 * has its own connection, the API's requests share a small pool. */
#ifndef CUZK_CLUSTER_CLUSTER_H
#define CUZK_CLUSTER_CLUSTER_H

#include "jobs/jobs.h"
#include "cluster/node.h"
#include "engine/engine.h"

typedef struct {
    char *database;          /* libpq conninfo; "" (the default): single-machine mode */
    char *node;              /* this daemon's name in the cluster; "": the host name */
    double lease_s;          /* a node silent this long loses its claims */
    double claim_max_s;      /* a claim this old is taken back, its node live or not (0: never) */
    double retain_s;         /* ended jobs this old are deleted (0: never) */
    double heartbeat_s;
    double poll_s;           /* the claimers' fallback poll */
    double retry_backoff_s;  /* first retry's wait, doubling per attempt */
    int max_attempts;
    int inline_witness_max_kib;
    int connections;         /* for the API's requests */
} cluster_config;

typedef struct cluster_node cluster_node;

/* Connects, migrates the schema. Nothing runs yet. */
cluster_node *cluster_create(const cluster_config *cfg, cuzk_logger *log, cuzk_error *err);
/* The engine's job-end hook, to be set in its config before it is made. */
void cluster_hook_engine(cluster_node *n, cuzk_engine_config *ec);
/* Joins the cluster (what this name had claimed before a restart is queued
 * again) and starts claiming for e, whose circuits decide what is claimed. */
int cluster_start(cluster_node *n, cuzk_engine *e, cuzk_error *err);
jobs_api *cluster_jobs(cluster_node *n);
/* Stops the threads; what the engine finished is recorded first (for up to
 * 10 s of database trouble); claims left are the lease's to return. Before
 * the engine is destroyed, after its drain. */
void cluster_destroy(cluster_node *n);

/* What a node has done since it started (status, metrics). */
typedef struct {
    uint64_t claims, completions, retries, failures, reclaims, late_results, requeued_at_start, cancels;
} cluster_counters;

typedef struct {
    const char *node;
    int healthy; /* the last heartbeat reached the database */
    int capacity, claimed_here;
    cluster_counters counters;
    unsigned long reconnects;
    cuzk_stage_histogram claim_latency; /* from claimable to claimed, cuzk_stage_bucket_bounds */
    int view_ok;                        /* the database answered: view is filled */
    cluster_view view;
} cluster_stats;

void cluster_get_stats(cluster_node *n, cluster_stats *s);

#endif
