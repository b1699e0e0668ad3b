/* The cluster's job queue at the SQL level, against a private PostgreSQL
 * server (pg_server.h; skipped where none can run): claim order, two
 * claimers never taking one partition, a stale attempt's result fenced,
 * reclaims of a silent node's claims and of overdue ones, retries with
 * backoff and failure after max_attempts, request ids unique across nodes,
 * a node's name held by one live daemon, claims only under the job's key,
 * finished-job retention, and the migration from schema version 1. Time
 * is never waited for: a test ages rows instead (a heartbeat an hour old,
 * a deadline passed), so what it asserts holds on any machine. Each test
 * has a database of its own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/node.h"
#include "cluster/queue.h"
#include "cluster/schema.h"
#include "pg_server.h"

static pg_server server;
static pg_conn *admin; /* the server's postgres database: databases made and dropped */
static int databases_made;

static const char circuits[] = "{\"c1\"}"; /* what the nodes have registered */

typedef struct {
    char db[32];
    pg_conn *a, *b; /* two connections, for the nodes "a" and "b" */
} fixture;

/* ---- helpers ------------------------------------------------------------ */

static pg_conn *connect_to(const char *db)
{
    char conninfo[320];
    pg_server_conninfo(&server, db, conninfo, sizeof conninfo);
    cuzk_error err = {0};
    pg_conn *c = pg_open(conninfo, NULL, NULL, 1, &err);
    if (!c)
        fail_msg("connecting to %s: %s", db, err.msg);
    return c;
}

static void sql(pg_conn *c, const char *script)
{
    cuzk_error err = {0};
    if (pg_script(c, script, &err))
        fail_msg("%s: %s", script, err.msg);
}

static long long sql_int(pg_conn *c, const char *query)
{
    cuzk_error err = {0};
    long long v = 0;
    if (pg_exec_int(c, query, 0, NULL, &v, &err))
        fail_msg("%s: %s", query, err.msg);
    return v;
}

/* query with one bigint parameter, the job id */
static long long job_int(pg_conn *c, const char *query, uint64_t job)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)job);
    const char *v[] = {id};
    cuzk_error err = {0};
    long long out = 0;
    if (pg_exec_int(c, query, 1, v, &out, &err))
        fail_msg("%s: %s", query, err.msg);
    return out;
}

static const char *const witness_paths[] = {"/w/0.wtns", "/w/1.wtns", "/w/2.wtns", "/w/3.wtns"};
static const cuzk_partition_input inputs[] = {{.witness_path = witness_paths[0]}, {.witness_path = witness_paths[1]},
                                              {.witness_path = witness_paths[2]}, {.witness_path = witness_paths[3]}};
enum { MAX_PARTS = sizeof inputs / sizeof inputs[0] };

static cuzk_job_request request(const char *circuit, cuzk_priority priority, uint32_t n, const char *request_id)
{
    assert_true(n <= MAX_PARTS);
    return (cuzk_job_request){circuit, priority, request_id, n, inputs};
}

static uint64_t submit(pg_conn *c, const char *node, cuzk_priority priority, uint32_t n)
{
    cuzk_job_request req = request("c1", priority, n, NULL);
    uint64_t id = 0;
    cuzk_error err = {0};
    if (queue_submit(c, &req, node, NULL, &id, &err))
        fail_msg("submit: %s", err.msg);
    return id;
}

/* Claims up to max for node: how many, their references in refs. */
static int claim(pg_conn *c, const char *node, int max, double claim_max_s, claim_ref *refs)
{
    claimed_partition got[8];
    assert_true(max <= 8);
    int n = 0;
    cuzk_error err = {0};
    if (queue_claim(c, node, circuits, max, claim_max_s, got, &n, &err))
        fail_msg("claim: %s", err.msg);
    for (int i = 0; i < n; i++) {
        refs[i] = got[i].ref;
        claimed_partition_free(&got[i]);
    }
    return n;
}

static claim_ref claim_one(pg_conn *c, const char *node)
{
    claim_ref ref;
    assert_int_equal(claim(c, node, 1, 0, &ref), 1);
    return ref;
}

/* A placeholder proof, recorded for the claim: whether it was recorded. */
static int record_proof(pg_conn *c, const char *node, const claim_ref *ref, int *job_done)
{
    cuzk_proof proof = {.curve = CUZK_CURVE_BN254};
    const uint64_t publics[2][4] = {{1}, {2}};
    partition_result res = {&proof, publics, 2, 0.5, 0.25, 1};
    int recorded = -1, done = -1;
    cuzk_error err = {0};
    if (queue_record_proof(c, node, ref, &res, &recorded, &done, &err))
        fail_msg("record proof: %s", err.msg);
    if (job_done)
        *job_done = done;
    return recorded;
}

static cuzk_job_result read_job(pg_conn *c, uint64_t job)
{
    cuzk_job_result r;
    cuzk_error err = {0};
    if (queue_read_job(c, job, &r, &err))
        fail_msg("read job %llu: %s", (unsigned long long)job, err.msg);
    return r;
}

/* The node fell silent an hour ago. */
static void age_node(pg_conn *c, const char *node)
{
    const char *v[] = {node};
    cuzk_error err = {0};
    if (pg_exec(c, "UPDATE cuzk_nodes SET last_seen = now() - interval '1 hour' WHERE name = $1", 1, v, NULL, NULL,
                NULL, &err))
        fail_msg("%s", err.msg);
}

typedef struct {
    reclaimed_partition p[8];
    int n;
} reclaimed_list;

static void reclaimed_add(void *ctx, const reclaimed_partition *p)
{
    reclaimed_list *l = ctx;
    if (l->n < 8)
        l->p[l->n++] = *p;
}

/* node's reclaim: what it took back, each seen once by the callback. */
static reclaimed_list reclaim(pg_conn *c, const char *node, double lease_s, int max_attempts)
{
    reclaimed_list l = {0};
    int n = -1;
    cuzk_error err = {0};
    if (node_reclaim(c, node, lease_s, max_attempts, reclaimed_add, &l, &n, &err))
        fail_msg("reclaim: %s", err.msg);
    assert_int_equal(n, l.n);
    return l;
}

/* ---- fixtures ----------------------------------------------------------- */

static int setup_empty(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->db, sizeof f->db, "cuzk_test_%d", ++databases_made);
    char create[64];
    snprintf(create, sizeof create, "CREATE DATABASE %s", f->db);
    sql(admin, create);
    f->a = connect_to(f->db);
    f->b = connect_to(f->db);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    setup_empty(state);
    fixture *f = *state;
    cuzk_error err = {0};
    int requeued;
    if (schema_migrate(f->a, NULL, &err) || node_join(f->a, "a", 2, &requeued, &err) ||
        node_join(f->b, "b", 2, &requeued, &err))
        fail_msg("%s", err.msg);
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pg_close(f->a);
    pg_close(f->b);
    char drop[64];
    snprintf(drop, sizeof drop, "DROP DATABASE %s", f->db);
    sql(admin, drop);
    free(f);
    return 0;
}

/* ---- claim order -------------------------------------------------------- */

/* Priority first (critical before low), then the older job, then the
 * partition's index; another circuit's work is never taken. */
static void test_claim_order(void **state)
{
    fixture *f = *state;
    uint64_t normal_old = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 2);
    uint64_t critical = submit(f->a, "a", CUZK_PRIORITY_CRITICAL, 1);
    uint64_t normal_new = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 1);
    uint64_t high = submit(f->a, "a", CUZK_PRIORITY_HIGH, 2);
    uint64_t low = submit(f->a, "a", CUZK_PRIORITY_LOW, 1);
    cuzk_job_request other = request("c2", CUZK_PRIORITY_CRITICAL, 1, NULL);
    uint64_t other_id;
    cuzk_error err = {0};
    assert_int_equal(queue_submit(f->a, &other, "a", NULL, &other_id, &err), CUZK_OK);

    const claim_ref want[] = {{critical, 0, 1},   {high, 0, 1},       {high, 1, 1}, {normal_old, 0, 1},
                              {normal_old, 1, 1}, {normal_new, 0, 1}, {low, 0, 1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        claim_ref got = claim_one(i % 2 ? f->b : f->a, i % 2 ? "b" : "a");
        assert_int_equal(got.job_id, want[i].job_id);
        assert_int_equal(got.idx, want[i].idx);
        assert_int_equal(got.attempt, 1);
    }
    claim_ref none;
    assert_int_equal(claim(f->a, "a", 1, 0, &none), 0);
    assert_int_equal(job_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE job_id = $1::bigint AND state = 'queued'",
                             other_id),
                     1);
}

/* ---- concurrent claimers ------------------------------------------------ */

enum { RACE_JOBS = 100, RACE_PARTS = MAX_PARTS, RACE_TOTAL = RACE_JOBS * RACE_PARTS };

typedef struct {
    pg_conn *c;
    const char *node;
    pthread_barrier_t *start;
    claim_ref got[RACE_TOTAL];
    int n, rc;
    cuzk_error err;
} claimer;

/* Claims a few at a time until nothing is left to claim. */
static void *claimer_run(void *arg)
{
    claimer *t = arg;
    pthread_barrier_wait(t->start);
    for (;;) {
        claimed_partition p[3];
        int n = 0;
        if ((t->rc = queue_claim(t->c, t->node, circuits, 3, 0, p, &n, &t->err)) || !n)
            return NULL;
        for (int i = 0; i < n; i++) {
            t->got[t->n++] = p[i].ref;
            claimed_partition_free(&p[i]);
        }
    }
}

/* Two nodes claiming at once on two connections: every partition claimed
 * exactly once, by one of them, and the table agrees with what each got. */
static void test_concurrent_claimers_take_disjoint_sets(void **state)
{
    fixture *f = *state;
    uint64_t first = 0;
    for (int j = 0; j < RACE_JOBS; j++) {
        uint64_t id = submit(f->a, "a", (cuzk_priority)(j % CUZK_N_PRIORITIES), RACE_PARTS);
        first = first ? first : id;
    }
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    claimer t[2];
    t[0] = (claimer){.c = f->a, .node = "a", .start = &start};
    t[1] = (claimer){.c = f->b, .node = "b", .start = &start};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, claimer_run, &t[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);

    int times[RACE_TOTAL] = {0};
    for (int i = 0; i < 2; i++) {
        if (t[i].rc)
            fail_msg("claimer %s: %s", t[i].node, t[i].err.msg);
        for (int k = 0; k < t[i].n; k++) {
            uint64_t job = t[i].got[k].job_id - first;
            assert_true(job < RACE_JOBS && t[i].got[k].idx < RACE_PARTS);
            times[job * RACE_PARTS + t[i].got[k].idx]++;
        }
    }
    for (int k = 0; k < RACE_TOTAL; k++)
        if (times[k] != 1)
            fail_msg("partition %d of job %llu claimed %d times", k % RACE_PARTS,
                     (unsigned long long)(first + (uint64_t)(k / RACE_PARTS)), times[k]);
    assert_int_equal(t[0].n + t[1].n, RACE_TOTAL);
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE state = 'claimed' AND owner = 'a'"),
                     t[0].n);
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE state = 'claimed' AND owner = 'b'"),
                     t[1].n);
}

/* ---- fencing ------------------------------------------------------------ */

/* A's claim reclaimed after A fell silent and claimed again by B: A's late
 * proof and failure are discarded, B's proof is the one recorded, once. */
static void test_stale_attempt_fenced(void **state)
{
    fixture *f = *state;
    uint64_t job = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 1);
    claim_ref stale = claim_one(f->a, "a");
    age_node(f->b, "a");
    reclaimed_list back = reclaim(f->b, "b", 60, 3);
    assert_int_equal(back.n, 1);
    claim_ref fresh = claim_one(f->b, "b");
    assert_int_equal(fresh.job_id, job);
    assert_int_equal(fresh.attempt, 2);

    int done = -1, recorded, failed;
    assert_int_equal(record_proof(f->a, "a", &stale, &done), 0);
    assert_int_equal(done, 0);
    cuzk_error err = {0};
    assert_int_equal(queue_record_failure(f->a, "a", &stale, "late", 3, 1, &recorded, &failed, &err), CUZK_OK);
    assert_int_equal(recorded, 0);
    assert_int_equal(job_int(f->b, "SELECT count(*) FROM cuzk_partitions WHERE job_id = $1::bigint AND state = 'claimed'"
                             " AND owner = 'b' AND attempts = 2",
                             job),
                     1);

    assert_int_equal(record_proof(f->b, "b", &fresh, &done), 1);
    assert_int_equal(done, 1);
    assert_int_equal(record_proof(f->b, "b", &fresh, &done), 0);
    assert_int_equal(job_int(f->b, "SELECT count(*) FROM cuzk_results WHERE job_id = $1::bigint", job), 1);
    assert_int_equal(job_int(f->b, "SELECT attempt FROM cuzk_results WHERE job_id = $1::bigint AND node = 'b'", job), 2);
    cuzk_job_result r = read_job(f->a, job);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    assert_int_equal(r.partitions_done, 1);
    assert_int_equal(r.n_public, 2);
    assert_int_equal(r.publics[1][0], 2);
    cuzk_job_result_free(&r);
}

/* The same node restarted (node_join queues its old claims) and claiming
 * again: the attempt alone tells its old result from its new one. */
static void test_stale_attempt_of_same_node_fenced(void **state)
{
    fixture *f = *state;
    uint64_t job = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 1);
    claim_ref before = claim_one(f->a, "a");
    int requeued = 0, done = -1;
    cuzk_error err = {0};
    assert_int_equal(node_join(f->a, "a", 2, &requeued, &err), CUZK_OK);
    assert_int_equal(requeued, 1);
    claim_ref after = claim_one(f->a, "a");
    assert_int_equal(after.attempt, 2);
    assert_int_equal(record_proof(f->a, "a", &before, &done), 0);
    assert_int_equal(done, 0);
    assert_int_equal(record_proof(f->a, "a", &after, &done), 1);
    assert_int_equal(done, 1);
    assert_int_equal(job_int(f->a, "SELECT attempt FROM cuzk_results WHERE job_id = $1::bigint", job), 2);
}

/* ---- reclaims ----------------------------------------------------------- */

/* A silent node's claims go back to the queue once its lease is over, and
 * only then; live nodes' claims stay; a node never reclaims from itself
 * for silence. */
static void test_reclaim_silent_node(void **state)
{
    fixture *f = *state;
    cuzk_error err = {0};
    int requeued;
    assert_int_equal(node_join(f->a, "c", 1, &requeued, &err), CUZK_OK);
    uint64_t job = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 4);
    claim_ref mine[2];
    assert_int_equal(claim(f->a, "a", 2, 0, mine), 2);
    claim_one(f->b, "b");
    claim_one(f->a, "c");
    age_node(f->b, "a");

    assert_int_equal(reclaim(f->b, "b", 7200, 3).n, 0); /* silent 1 h, lease 2 h */
    assert_int_equal(reclaim(f->a, "a", 60, 3).n, 0);   /* b and c are live */
    reclaimed_list back = reclaim(f->b, "b", 60, 3);
    assert_int_equal(back.n, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(back.p[i].job_id, job);
        assert_true(back.p[i].idx == mine[0].idx || back.p[i].idx == mine[1].idx);
        assert_int_equal(back.p[i].failed, 0);
        assert_int_equal(back.p[i].overdue, 0);
    }
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE state = 'queued' AND owner IS NULL"
                                   " AND attempts = 1 AND last_error = 'node a went silent'"),
                     2);
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE state = 'claimed' AND owner IN ('b', 'c')"),
                     2);
    assert_int_equal(reclaim(f->b, "b", 60, 3).n, 0); /* once */
    claim_ref again = claim_one(f->b, "b");
    assert_int_equal(again.attempt, 2);
}

static long long other_key_count;
static char other_key_seen[64];
static void note_other_key(void *ctx, const char *circuit, const char *key_hash, long long count)
{
    (void)ctx;
    snprintf(other_key_seen, sizeof other_key_seen, "%s/%s", circuit, key_hash);
    other_key_count += count;
}

/* A job is proved under the key of the daemon that took it: a node whose
 * circuit of that id has another key claims none of its partitions, and
 * finds them as queued under another key (what it says); a node with the
 * key claims them; a job without a recorded key (an earlier daemon's) is
 * anyone's. */
static void test_claims_match_the_key(void **state)
{
    fixture *f = *state;
    cuzk_error err = {0};
    cuzk_job_request req = request("c1", CUZK_PRIORITY_NORMAL, 2, NULL);
    uint64_t keyed = 0;
    assert_int_equal(queue_submit(f->a, &req, "a", "aaaa", &keyed, &err), CUZK_OK);
    claim_ref got[2];
    static const char other[] = "{\"c1\",\"c1/bbbb\"}", same[] = "{\"c1\",\"c1/aaaa\"}";
    claimed_partition p[2];
    int n = -1;
    assert_int_equal(queue_claim(f->b, "b", other, 2, 0, p, &n, &err), CUZK_OK);
    assert_int_equal(n, 0);
    other_key_count = 0;
    assert_int_equal(node_other_keys(f->b, other, note_other_key, NULL, &err), CUZK_OK);
    assert_int_equal(other_key_count, 2);
    assert_string_equal(other_key_seen, "c1/aaaa");
    other_key_count = 0;
    assert_int_equal(node_other_keys(f->a, same, note_other_key, NULL, &err), CUZK_OK);
    assert_int_equal(other_key_count, 0);

    assert_int_equal(queue_claim(f->a, "a", same, 2, 0, p, &n, &err), CUZK_OK);
    assert_int_equal(n, 2);
    for (int i = 0; i < n; i++) {
        assert_int_equal(p[i].ref.job_id, keyed);
        claimed_partition_free(&p[i]);
    }
    /* no key recorded: claimed by a node that lists the id */
    uint64_t any = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 1);
    assert_int_equal(claim(f->b, "b", 2, 0, got), 1);
    assert_int_equal(got[0].job_id, any);
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_jobs WHERE key_hash = 'aaaa'"), 1);
}

/* A name is one live daemon's: a second session joining under it is
 * refused, saying so, and takes none of its claims; once the holder's
 * session has ended (its daemon killed), a daemon restarted under the
 * name joins and gets its claims queued again. */
static void test_node_name_held_while_live(void **state)
{
    fixture *f = *state;
    cuzk_error err = {0};
    int requeued = -1;
    pg_conn *first = connect_to(f->db);
    assert_int_equal(node_join(first, "twin", 2, &requeued, &err), CUZK_OK);
    submit(first, "twin", CUZK_PRIORITY_NORMAL, 2);
    claim_ref mine[2];
    assert_int_equal(claim(first, "twin", 2, 0, mine), 2);

    assert_int_equal(node_join(f->b, "twin", 2, &requeued, &err), CUZK_ERR_CONFLICT);
    if (!strstr(err.msg, "another live daemon is node 'twin'") || !strstr(err.msg, "[cluster] node"))
        fail_msg("the message: %s", err.msg);
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE state = 'claimed' AND owner = 'twin'"),
                     2);

    /* the first daemon killed: its session ends (pg_terminate_backend
     * with a timeout returns once the backend has exited) */
    long long pid = sql_int(first, "SELECT pg_backend_pid()");
    char kill[96];
    snprintf(kill, sizeof kill, "SELECT pg_terminate_backend(%lld, 60000)::int", pid);
    assert_int_equal(sql_int(f->a, kill), 1);
    pg_close(first);
    err = (cuzk_error){0};
    assert_int_equal(node_join(f->b, "twin", 2, &requeued, &err), CUZK_OK);
    assert_int_equal(requeued, 2);

    /* b's session ends under it (the database restarted): its heartbeat,
     * on the session made anew, holds the name again, and a newcomer is
     * refused still */
    pid = sql_int(f->b, "SELECT pg_backend_pid()");
    snprintf(kill, sizeof kill, "SELECT pg_terminate_backend(%lld, 60000)::int", pid);
    assert_int_equal(sql_int(f->a, kill), 1);
    if (node_heartbeat(f->b, "twin", &err)) /* the first call finds the session gone */
        assert_int_equal(node_heartbeat(f->b, "twin", &err), CUZK_OK);
    pg_conn *late = connect_to(f->db);
    assert_int_equal(node_join(late, "twin", 2, &requeued, &err), CUZK_ERR_CONFLICT);
    assert_int_equal(node_heartbeat(late, "twin", &err), CUZK_ERR_CONFLICT);
    pg_close(late);
}

/* A reclaim on the claim's last attempt fails it, and its job, saying why. */
static void test_reclaim_on_last_attempt_fails_job(void **state)
{
    fixture *f = *state;
    uint64_t job = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 2);
    claim_one(f->a, "a");
    age_node(f->b, "a");
    reclaimed_list back = reclaim(f->b, "b", 60, 1);
    assert_int_equal(back.n, 1);
    assert_int_equal(back.p[0].failed, 1);
    cuzk_job_result r = read_job(f->b, job);
    assert_int_equal(r.state, CUZK_JOB_FAILED);
    assert_non_null(strstr(r.error, "went silent"));
    assert_non_null(strstr(r.error, "attempt 1 of 1"));
    cuzk_job_result_free(&r);
    /* the job's other partition was cancelled with it */
    claim_ref none;
    assert_int_equal(claim(f->b, "b", 1, 0, &none), 0);
}

/* A claim past its deadline (claim_max_s) is taken back from its owner
 * although the owner beats; a claim without a deadline never is. */
static void test_reclaim_overdue_claim(void **state)
{
    fixture *f = *state;
    uint64_t job = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 2);
    claim_ref timed, untimed;
    assert_int_equal(claim(f->a, "a", 1, 3600, &timed), 1);
    assert_int_equal(claim(f->a, "a", 1, 0, &untimed), 1);
    assert_int_equal(job_int(f->a,
                             "SELECT extract(epoch FROM claim_deadline - claimed_at)::int FROM cuzk_partitions"
                             " WHERE job_id = $1::bigint AND idx = 0",
                             job),
                     3600);
    assert_int_equal(reclaim(f->b, "b", 60, 3).n, 0);

    sql(f->a, "UPDATE cuzk_partitions SET claim_deadline = now() - interval '1 second' WHERE claim_deadline IS NOT NULL");
    sql(f->a, "UPDATE cuzk_partitions SET claimed_at = now() - interval '1 day'"); /* long running, no deadline */
    reclaimed_list back = reclaim(f->b, "b", 60, 3);
    assert_int_equal(back.n, 1);
    assert_int_equal(back.p[0].idx, timed.idx);
    assert_int_equal(back.p[0].overdue, 1);
    assert_int_equal(back.p[0].failed, 0);
    assert_int_equal(job_int(f->a,
                             "SELECT count(*) FROM cuzk_partitions WHERE job_id = $1::bigint AND idx = 0 AND"
                             " state = 'queued' AND last_error = 'the claim of node a passed its deadline'",
                             job),
                     1);
    assert_int_equal(record_proof(f->a, "a", &timed, NULL), 0);
    assert_int_equal(record_proof(f->a, "a", &untimed, NULL), 1);
}

/* ---- retries ------------------------------------------------------------ */

/* Each failure counts an attempt and queues the partition again after a
 * backoff doubling from backoff_s (at most a minute), during which nobody
 * claims it; the last attempt fails the job with the last error. */
static void test_retries_back_off_then_fail(void **state)
{
    fixture *f = *state;
    enum { MAX_ATTEMPTS = 3 };
    const int backoff_s[] = {20, 40, 60};
    uint64_t job = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 1);
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        claim_ref ref = claim_one(f->a, "a");
        assert_int_equal(ref.attempt, attempt);
        char why[32];
        snprintf(why, sizeof why, "boom %d", attempt);
        int recorded = -1, job_failed = -1;
        cuzk_error err = {0};
        assert_int_equal(queue_record_failure(f->a, "a", &ref, why, MAX_ATTEMPTS, 20, &recorded, &job_failed, &err),
                         CUZK_OK);
        assert_int_equal(recorded, 1);
        assert_int_equal(job_int(f->a, "SELECT attempts FROM cuzk_partitions WHERE job_id = $1::bigint", job), attempt);
        if (attempt == MAX_ATTEMPTS) {
            assert_int_equal(job_failed, 1);
            break;
        }
        assert_int_equal(job_failed, 0);
        assert_int_equal(job_int(f->a,
                                 "SELECT extract(epoch FROM not_before - queued_at)::int FROM cuzk_partitions"
                                 " WHERE job_id = $1::bigint AND state = 'queued'",
                                 job),
                         backoff_s[attempt - 1]);
        claim_ref none;
        assert_int_equal(claim(f->b, "b", 1, 0, &none), 0);
        double due_in = -1;
        assert_int_equal(queue_next_due(f->a, circuits, &due_in, &err), CUZK_OK);
        assert_true(due_in > 0 && due_in <= backoff_s[attempt - 1]);
        cluster_view view;
        assert_int_equal(node_cluster_view(f->a, &view, &err), CUZK_OK);
        assert_int_equal(view.backing_off, 1);
        sql(f->a, "UPDATE cuzk_partitions SET not_before = now()"); /* the backoff is over */
    }
    assert_int_equal(job_int(f->a,
                             "SELECT count(*) FROM cuzk_partitions WHERE job_id = $1::bigint AND state = 'failed'"
                             " AND last_error = 'boom 3'",
                             job),
                     1);
    cuzk_job_result r = read_job(f->b, job);
    assert_int_equal(r.state, CUZK_JOB_FAILED);
    assert_string_equal(r.error, "partition 0: boom 3 (attempt 3 of 3)");
    cuzk_job_result_free(&r);
    claim_ref none;
    assert_int_equal(claim(f->a, "a", 1, 0, &none), 0);
}

/* ---- request ids -------------------------------------------------------- */

/* One request id makes one job whichever node receives it again; another
 * payload under it is a conflict; jobs without one are never merged. */
static void test_request_id_unique_across_nodes(void **state)
{
    fixture *f = *state;
    cuzk_job_request req = request("c1", CUZK_PRIORITY_HIGH, 2, "order-7");
    uint64_t first = 0, second = 0, other = 0;
    cuzk_error err = {0};
    assert_int_equal(queue_submit(f->a, &req, "a", NULL, &first, &err), CUZK_OK);
    assert_int_equal(queue_submit(f->b, &req, "b", NULL, &second, &err), CUZK_OK);
    assert_int_equal(second, first);
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_jobs WHERE request_id = 'order-7'"), 1);
    assert_int_equal(job_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE job_id = $1::bigint", first), 2);

    cuzk_job_request changed = request("c1", CUZK_PRIORITY_LOW, 2, "order-7");
    assert_int_equal(queue_submit(f->b, &changed, "b", NULL, &other, &err), CUZK_ERR_CONFLICT);
    assert_non_null(strstr(err.msg, "order-7"));
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_jobs"), 1);

    uint64_t plain1 = submit(f->a, "a", CUZK_PRIORITY_HIGH, 2), plain2 = submit(f->b, "b", CUZK_PRIORITY_HIGH, 2);
    assert_true(plain1 != plain2 && plain1 != first && plain2 != first);
}

/* ---- retention ---------------------------------------------------------- */

/* Jobs ended before the limit go with their partitions and results; those
 * ended since and those still running stay, however old. */
static void test_retention_deletes_only_old_ended_jobs(void **state)
{
    fixture *f = *state;
    uint64_t done_old = submit(f->a, "a", CUZK_PRIORITY_CRITICAL, 1);
    claim_ref ref = claim_one(f->a, "a");
    assert_int_equal(record_proof(f->a, "a", &ref, NULL), 1);
    uint64_t cancelled_old = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 2);
    int ended;
    cuzk_error err = {0};
    assert_int_equal(queue_end_job(f->a, cancelled_old, "cancelled", "", &ended, &err), CUZK_OK);
    uint64_t done_new = submit(f->a, "a", CUZK_PRIORITY_CRITICAL, 1);
    ref = claim_one(f->a, "a");
    assert_int_equal(record_proof(f->a, "a", &ref, NULL), 1);
    uint64_t running_old = submit(f->a, "a", CUZK_PRIORITY_NORMAL, 1);
    char age[160];
    snprintf(age, sizeof age,
             "UPDATE cuzk_jobs SET submitted_at = now() - interval '3 hours', ended_at = ended_at - interval '2 hours'"
             " WHERE id IN (%llu, %llu, %llu)",
             (unsigned long long)done_old, (unsigned long long)cancelled_old, (unsigned long long)running_old);
    sql(f->a, age);

    int n = -1;
    assert_int_equal(queue_delete_ended(f->b, 3600, &n, &err), CUZK_OK);
    assert_int_equal(n, 2);
    const uint64_t gone[] = {done_old, cancelled_old}, kept[] = {done_new, running_old};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(job_int(f->a, "SELECT count(*) FROM cuzk_jobs WHERE id = $1::bigint", gone[i]), 0);
        assert_int_equal(job_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE job_id = $1::bigint", gone[i]), 0);
        assert_int_equal(job_int(f->a, "SELECT count(*) FROM cuzk_results WHERE job_id = $1::bigint", gone[i]), 0);
        assert_int_equal(job_int(f->a, "SELECT count(*) FROM cuzk_jobs WHERE id = $1::bigint", kept[i]), 1);
        assert_int_equal(job_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE job_id = $1::bigint", kept[i]), 1);
    }
    assert_int_equal(job_int(f->a, "SELECT count(*) FROM cuzk_results WHERE job_id = $1::bigint", done_new), 1);
    cuzk_job_result r;
    assert_int_equal(queue_read_job(f->a, done_old, &r, &err), CUZK_ERR_ARG);
    assert_int_equal(queue_delete_ended(f->b, 3600, &n, &err), CUZK_OK);
    assert_int_equal(n, 0);
}

/* ---- migration ---------------------------------------------------------- */

static long long deadline_columns(pg_conn *c)
{
    return sql_int(c, "SELECT count(*) FROM information_schema.columns"
                      " WHERE table_name = 'cuzk_partitions' AND column_name = 'claim_deadline'");
}

/* A database left at version 1 by an older release, with a job queued,
 * migrates to version 2 keeping the job, which is then claimed with a
 * deadline; migrating again changes nothing; a newer database and an
 * unknown target are refused. */
/* A partition given as input JSON is queued as its text and claimed back
 * as such, beside one given by its witness's path; a row with none of
 * the three (or two) is refused by the schema. */
static void test_input_json_queued(void **state)
{
    fixture *f = *state;
    static const char input[] = "{\"a\": \"3\", \"b\": [\"1\", \"2\"]}";
    const cuzk_partition_input parts[2] = {{.input_json = input}, {.witness_path = witness_paths[1]}};
    cuzk_job_request req = {"c1", CUZK_PRIORITY_NORMAL, NULL, 2, parts};
    uint64_t id = 0;
    cuzk_error err = {0};
    assert_int_equal(queue_submit(f->a, &req, "a", NULL, &id, &err), CUZK_OK);
    claimed_partition got[2];
    int n = 0;
    assert_int_equal(queue_claim(f->b, "b", circuits, 2, 0, got, &n, &err), CUZK_OK);
    assert_int_equal(n, 2);
    assert_int_equal(got[0].ref.idx, 0);
    assert_string_equal(got[0].input_json, input);
    assert_null(got[0].witness_path);
    assert_int_equal(got[0].has_witness, 0);
    assert_null(got[1].input_json);
    assert_string_equal(got[1].witness_path, witness_paths[1]);
    claimed_partition_free(&got[0]);
    claimed_partition_free(&got[1]);
    char job[24];
    snprintf(job, sizeof job, "%llu", (unsigned long long)id);
    const char *v[] = {job};
    assert_int_equal(pg_exec(f->a, "INSERT INTO cuzk_partitions (job_id, idx, circuit, priority) VALUES ($1::bigint, 5, 'c1', 2)",
                             1, v, NULL, NULL, NULL, &err),
                     CUZK_ERR_IO);
    assert_int_equal(pg_exec(f->a,
                             "INSERT INTO cuzk_partitions (job_id, idx, circuit, priority, witness_path, input_json)"
                             " VALUES ($1::bigint, 6, 'c1', 2, '/w', '{}')",
                             1, v, NULL, NULL, NULL, &err),
                     CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, "cuzk_partitions_one_input"));
}

static void test_migration_from_version_1(void **state)
{
    fixture *f = *state;
    cuzk_error err = {0};
    int from = -1, requeued;
    assert_int_equal(schema_migrate_to(f->a, 1, &from, &err), CUZK_OK);
    assert_int_equal(from, 0);
    assert_int_equal(deadline_columns(f->a), 0);
    assert_int_equal(node_join(f->a, "a", 2, &requeued, &err), CUZK_OK);
    /* a job of 3 partitions as a version-1 daemon queued it (this build's
     * submit writes the columns of the latest version) */
    char insert[256];
    snprintf(insert, sizeof insert,
             "INSERT INTO cuzk_jobs (payload_hash, circuit, priority, n_partitions, submitted_by)"
             " VALUES (0, 'c1', %d, 3, 'a') RETURNING id",
             (int)CUZK_PRIORITY_HIGH);
    uint64_t job = (uint64_t)sql_int(f->a, insert);
    snprintf(insert, sizeof insert,
             "INSERT INTO cuzk_partitions (job_id, idx, circuit, priority, witness_path)"
             " SELECT %llu, g, 'c1', %d, '/w/' || g || '.wtns' FROM generate_series(0, 2) g",
             (unsigned long long)job, (int)CUZK_PRIORITY_HIGH);
    sql(f->a, insert);
    claimed_partition p[1];
    int n;
    assert_int_equal(queue_claim(f->a, "a", circuits, 1, 60, p, &n, &err), CUZK_ERR_IO); /* no claim_deadline yet */

    assert_int_equal(schema_migrate(f->b, &from, &err), CUZK_OK);
    assert_int_equal(from, 1);
    assert_int_equal(deadline_columns(f->a), 1);
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_schema_version WHERE version IN (1, 2)"), 2);
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_nodes WHERE name = 'a'"), 1);
    cuzk_job_result r = read_job(f->a, job);
    assert_int_equal(r.state, CUZK_JOB_QUEUED);
    assert_int_equal(r.n_partitions, 3);
    cuzk_job_result_free(&r);
    claim_ref ref;
    assert_int_equal(claim(f->a, "a", 1, 60, &ref), 1);
    assert_int_equal(ref.job_id, job);
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE claim_deadline IS NOT NULL"), 1);

    assert_int_equal(schema_migrate(f->a, &from, &err), CUZK_OK);
    assert_int_equal(from, schema_version_latest());
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_schema_version"), schema_version_latest());
    /* version 3's check holds on the rows of version 1 */
    assert_int_equal(sql_int(f->a, "SELECT count(*) FROM cuzk_partitions WHERE witness_path IS NOT NULL"), 3);
    assert_int_equal(schema_migrate_to(f->a, schema_version_latest() + 1, &from, &err), CUZK_ERR_ARG);
    sql(f->a, "INSERT INTO cuzk_schema_version (version) VALUES (99)");
    assert_int_equal(schema_migrate(f->a, &from, &err), CUZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "version 99"));
}

int main(void)
{
    int rc = pg_server_start(&server);
    if (rc)
        return rc;
    cuzk_error err = {0};
    if (!(admin = pg_open(server.conninfo, NULL, NULL, 1, &err))) {
        printf("the test server: %s\n", err.msg);
        pg_server_stop(&server);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_claim_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_claimers_take_disjoint_sets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_attempt_fenced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_attempt_of_same_node_fenced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reclaim_silent_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_name_held_while_live, setup, teardown),
        cmocka_unit_test_setup_teardown(test_claims_match_the_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reclaim_on_last_attempt_fails_job, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reclaim_overdue_claim, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retries_back_off_then_fail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_request_id_unique_across_nodes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retention_deletes_only_old_ended_jobs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_input_json_queued, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migration_from_version_1, setup_empty, teardown),
    };
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    pg_close(admin);
    pg_server_stop(&server);
    return rc;
}
