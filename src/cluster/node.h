/* A node's life in the cluster's database: its row in cuzk_nodes, its
 * heartbeat, and the reclaim of the partitions of nodes that fell silent
 * (any live node does it; the claim's fence makes a silent node's late
 * result harmless). A node's name is held by its heartbeat's database
 * session for its life, so no two live daemons share one; a node that
 * starts under a name the table already holds is that node restarted:
 * what it had claimed is queued again. */
#ifndef CUZK_CLUSTER_NODE_H
#define CUZK_CLUSTER_NODE_H

#include <stdint.h>

#include "cluster/pg.h"
#include "engine/engine.h"

/* The node's row, made or refreshed; its partitions of an earlier life
 * queued again (*requeued: how many). The name is held by c's session
 * while it lasts: a second live daemon joining under it is refused with
 * CUZK_ERR_CONFLICT (and changes nothing), while a daemon restarted after
 * its predecessor died (its session ended with it) joins. */
int node_join(pg_conn *c, const char *node, int capacity, int *requeued, cuzk_error *err);
/* last_seen = now, the name held again first (after a reconnection the
 * session holds nothing): CUZK_ERR_CONFLICT, and no heartbeat, when another
 * live daemon took the name meanwhile. */
int node_heartbeat(pg_conn *c, const char *node, cuzk_error *err);

/* A partition taken back from a silent node or past its claim's deadline:
 * queued again, or failed with its job when that was its last attempt. */
typedef struct {
    uint64_t job_id;
    uint32_t idx;
    int failed;
    int overdue; /* its claim's deadline passed (else its node fell silent) */
} reclaimed_partition;

/* Partitions claimed by nodes other than node whose last heartbeat is
 * older than lease_s, and those of any node, live or not, whose claim's
 * deadline has passed (queue_claim's claim_max_s: a node whose worker is
 * stuck): queued again (the claim's attempt counts), or failed after
 * max_attempts, their jobs failed with the reason. Calls fn for each (fn
 * may be NULL); *n: how many. */
int node_reclaim(pg_conn *c, const char *node, double lease_s, int max_attempts,
                 void (*fn)(void *ctx, const reclaimed_partition *p), void *ctx, int *n, cuzk_error *err);

/* Of the jobs job_ids[0 .. n), those that have ended (cancelled or failed
 * elsewhere; a job done is not one): fn(ctx, id) for each. */
int node_ended_jobs(pg_conn *c, const uint64_t *job_ids, int n, void (*fn)(void *ctx, uint64_t job_id), void *ctx,
                    cuzk_error *err);

/* Partitions queued for a circuit of circuits (registered_circuits'
 * array: ids, and "ID/KEY_HASH" of the node's keys) under a key the node
 * does not have: fn(ctx, circuit, key_hash, count) for each such circuit
 * and key. The node does not claim them; it says so. */
int node_other_keys(pg_conn *c, const char *circuits,
                    void (*fn)(void *ctx, const char *circuit, const char *key_hash, long long count), void *ctx,
                    cuzk_error *err);

/* The cluster as the database sees it now. */
enum { NODE_MAX_LISTED = 64 };
typedef struct {
    char name[128];
    double silent_s; /* since its last heartbeat */
    uint32_t claimed;
    int capacity;
} node_row;
typedef struct {
    uint64_t queued[CUZK_N_PRIORITIES]; /* partitions queued, by priority */
    uint64_t claimed, backing_off;       /* claimed; queued but waiting for their retry */
    uint64_t jobs[5];                    /* by cuzk_job_state (queued counts queued and running) */
    node_row nodes[NODE_MAX_LISTED];
    int n_nodes;
} cluster_view;
int node_cluster_view(pg_conn *c, cluster_view *v, cuzk_error *err);

#endif
