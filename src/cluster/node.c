#include "cluster/node.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/queue.h"
#include "util/err.h"

/* The name held by c's session (an advisory lock on a 64-bit hash of it:
 * the server lets go of it when the session ends, however the daemon
 * ended), or CUZK_ERR_CONFLICT when another live session holds it. */
static int hold_name(pg_conn *c, const char *node, cuzk_error *err)
{
    const char *v[] = {node};
    long long held = 0;
    int rc = pg_exec_int(c, "SELECT pg_try_advisory_lock(hashtextextended('cuzk_node:' || $1, 0))::int", 1, v,
                         &held, err);
    if (rc || held)
        return rc;
    return cuzk_fail(err, CUZK_ERR_CONFLICT,
                     "another live daemon is node '%s' of this cluster: each daemon needs a name of its own "
                     "([cluster] node; the default is the host name, so two daemons on one host must set it)",
                     node);
}

int node_join(pg_conn *c, const char *node, int capacity, int *requeued, cuzk_error *err)
{
    char cap[24];
    snprintf(cap, sizeof cap, "%d", capacity);
    const char *v[] = {node, cap};
    int rc = hold_name(c, node, err);
    if (rc)
        return rc;
    rc = pg_exec(c,
                     "INSERT INTO cuzk_nodes (name, capacity) VALUES ($1, $2::int)"
                     " ON CONFLICT (name) DO UPDATE SET started_at = now(), last_seen = now(), capacity = $2::int",
                     2, v, NULL, NULL, NULL, err);
    long long count = 0;
    if (!rc)
        rc = pg_exec_int(c,
                         "WITH p AS (UPDATE cuzk_partitions SET state = 'queued', owner = NULL, queued_at = now(),"
                         "  last_error = 'its node ' || $1 || ' restarted'"
                         "  WHERE owner = $1 AND state = 'claimed' RETURNING 1)"
                         "SELECT count(*) FROM p",
                         1, v, &count, err);
    if (rc)
        return rc;
    *requeued = (int)count;
    return *requeued ? pg_exec(c, "SELECT pg_notify('cuzk_work', '')", 0, NULL, NULL, NULL, NULL, err) : CUZK_OK;
}

int node_heartbeat(pg_conn *c, const char *node, cuzk_error *err)
{
    const char *v[] = {node};
    PGresult *r;
    /* the name again: a session made anew after the database came back
     * holds nothing (a lock taken twice by one session is still one) */
    int rc = hold_name(c, node, err);
    if (!rc)
        rc = pg_exec(c, "UPDATE cuzk_nodes SET last_seen = now() WHERE name = $1", 1, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    int found = atoi(cuzk_pq.PQcmdTuples(r)) > 0;
    cuzk_pq.PQclear(r);
    /* a row deleted by hand: made again */
    return found ? CUZK_OK
                 : pg_exec(c, "INSERT INTO cuzk_nodes (name) VALUES ($1) ON CONFLICT DO NOTHING", 1, v, NULL, NULL,
                           NULL, err);
}

static int end_failed_job(pg_conn *c, const reclaimed_partition *p, double lease_s, int max_attempts, cuzk_error *err)
{
    char why[256], silent[64];
    snprintf(silent, sizeof silent, "its node went silent (no heartbeat for %g s)", lease_s);
    snprintf(why, sizeof why, "partition %u: %s on attempt %d of %d", p->idx,
             p->overdue ? "its claim passed its deadline ([cluster] claim_max_s)" : silent, max_attempts, max_attempts);
    int ended;
    return queue_end_job(c, p->job_id, "failed", why, &ended, err);
}

int node_reclaim(pg_conn *c, const char *node, double lease_s, int max_attempts,
                 void (*fn)(void *ctx, const reclaimed_partition *p), void *ctx, int *n, cuzk_error *err)
{
    char lease[32], max[24];
    snprintf(lease, sizeof lease, "%.6g", lease_s);
    snprintf(max, sizeof max, "%d", max_attempts);
    const char *v[] = {lease, node, max};
    PGresult *r;
    *n = 0;
    int rc = pg_exec(c,
                     "UPDATE cuzk_partitions SET"
                     "  state = CASE WHEN attempts >= $3::int THEN 'failed' ELSE 'queued' END,"
                     "  last_error = CASE WHEN claim_deadline < now()"
                     "    THEN 'the claim of node ' || owner || ' passed its deadline'"
                     "    ELSE 'node ' || owner || ' went silent' END,"
                     "  owner = NULL, queued_at = now(), not_before = now()"
                     " WHERE state = 'claimed' AND (claim_deadline < now() OR owner IN (SELECT name FROM cuzk_nodes"
                     "   WHERE last_seen < now() - $1::float8 * interval '1 second' AND name <> $2))"
                     " RETURNING job_id, idx, state, claim_deadline < now()",
                     3, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    *n = cuzk_pq.PQntuples(r);
    for (int i = 0; i < *n && !rc; i++) {
        reclaimed_partition p = {strtoull(cuzk_pq.PQgetvalue(r, i, 0), NULL, 10), (uint32_t)atoi(cuzk_pq.PQgetvalue(r, i, 1)),
                                 !strcmp(cuzk_pq.PQgetvalue(r, i, 2), "failed"), cuzk_pq.PQgetvalue(r, i, 3)[0] == 't'};
        if (p.failed)
            rc = end_failed_job(c, &p, lease_s, max_attempts, err);
        if (fn)
            fn(ctx, &p);
    }
    cuzk_pq.PQclear(r);
    if (!rc && *n)
        rc = pg_exec(c, "SELECT pg_notify('cuzk_work', '')", 0, NULL, NULL, NULL, NULL, err);
    return rc;
}

int node_ended_jobs(pg_conn *c, const uint64_t *job_ids, int n, void (*fn)(void *ctx, uint64_t job_id), void *ctx,
                    cuzk_error *err)
{
    if (n <= 0)
        return CUZK_OK;
    char *list = malloc((size_t)n * 22 + 3), *at = list;
    if (!list)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    *at++ = '{';
    for (int i = 0; i < n; i++)
        at += sprintf(at, "%s%" PRIu64, i ? "," : "", job_ids[i]);
    strcpy(at, "}");
    const char *v[] = {list};
    PGresult *r;
    int rc = pg_exec(c, "SELECT id FROM cuzk_jobs WHERE id = ANY($1::bigint[]) AND state IN ('cancelled', 'failed')", 1, v, NULL,
                     NULL, &r, err);
    free(list);
    if (rc)
        return rc;
    for (int i = 0; i < cuzk_pq.PQntuples(r); i++)
        fn(ctx, strtoull(cuzk_pq.PQgetvalue(r, i, 0), NULL, 10));
    cuzk_pq.PQclear(r);
    return CUZK_OK;
}

int node_other_keys(pg_conn *c, const char *circuits,
                    void (*fn)(void *ctx, const char *circuit, const char *key_hash, long long count), void *ctx,
                    cuzk_error *err)
{
    const char *v[] = {circuits};
    PGresult *r;
    int rc = pg_exec(c,
                     "SELECT circuit, key_hash, count(*) FROM cuzk_partitions"
                     " WHERE state = 'queued' AND key_hash IS NOT NULL AND circuit = ANY($1::text[])"
                     "  AND circuit || '/' || key_hash <> ALL($1::text[])"
                     " GROUP BY 1, 2 ORDER BY 1, 2",
                     1, v, NULL, NULL, &r, err);
    if (rc)
        return rc;
    for (int i = 0; i < cuzk_pq.PQntuples(r); i++)
        fn(ctx, cuzk_pq.PQgetvalue(r, i, 0), cuzk_pq.PQgetvalue(r, i, 1), atoll(cuzk_pq.PQgetvalue(r, i, 2)));
    cuzk_pq.PQclear(r);
    return CUZK_OK;
}

static int read_counts(pg_conn *c, cluster_view *v, cuzk_error *err)
{
    PGresult *r;
    int rc = pg_exec(c,
                     "SELECT priority, count(*) FILTER (WHERE not_before <= now()),"
                     " count(*) FILTER (WHERE not_before > now())"
                     " FROM cuzk_partitions WHERE state = 'queued' GROUP BY priority",
                     0, NULL, NULL, NULL, &r, err);
    if (rc)
        return rc;
    for (int i = 0; i < cuzk_pq.PQntuples(r); i++) {
        int p = atoi(cuzk_pq.PQgetvalue(r, i, 0));
        if (p >= 0 && p < CUZK_N_PRIORITIES)
            v->queued[p] = strtoull(cuzk_pq.PQgetvalue(r, i, 1), NULL, 10);
        v->backing_off += strtoull(cuzk_pq.PQgetvalue(r, i, 2), NULL, 10);
    }
    cuzk_pq.PQclear(r);
    if ((rc = pg_exec(c,
                      "SELECT state, first_claim_at IS NOT NULL, count(*) FROM cuzk_jobs GROUP BY 1, 2", 0, NULL,
                      NULL, NULL, &r, err)))
        return rc;
    static const char *const names[] = {"queued", "queued", "done", "failed", "cancelled"};
    for (int i = 0; i < cuzk_pq.PQntuples(r); i++)
        for (int s = 0; s < 5; s++)
            if (!strcmp(cuzk_pq.PQgetvalue(r, i, 0), names[s])) {
                int running = s == CUZK_JOB_QUEUED && cuzk_pq.PQgetvalue(r, i, 1)[0] == 't';
                v->jobs[running ? CUZK_JOB_RUNNING : s] += strtoull(cuzk_pq.PQgetvalue(r, i, 2), NULL, 10);
                break;
            }
    cuzk_pq.PQclear(r);
    return CUZK_OK;
}

int node_cluster_view(pg_conn *c, cluster_view *v, cuzk_error *err)
{
    memset(v, 0, sizeof *v);
    int rc = read_counts(c, v, err);
    PGresult *r;
    if (rc || (rc = pg_exec(c,
                            "SELECT n.name, extract(epoch FROM now() - n.last_seen), n.capacity,"
                            " (SELECT count(*) FROM cuzk_partitions p WHERE p.owner = n.name AND p.state = 'claimed')"
                            " FROM cuzk_nodes n ORDER BY n.name LIMIT 64",
                            0, NULL, NULL, NULL, &r, err)))
        return rc;
    for (int i = 0; i < cuzk_pq.PQntuples(r) && i < NODE_MAX_LISTED; i++) {
        node_row *n = &v->nodes[v->n_nodes++];
        snprintf(n->name, sizeof n->name, "%s", cuzk_pq.PQgetvalue(r, i, 0));
        n->silent_s = atof(cuzk_pq.PQgetvalue(r, i, 1));
        n->capacity = atoi(cuzk_pq.PQgetvalue(r, i, 2));
        n->claimed = (uint32_t)atoi(cuzk_pq.PQgetvalue(r, i, 3));
        v->claimed += n->claimed;
    }
    cuzk_pq.PQclear(r);
    return CUZK_OK;
}
