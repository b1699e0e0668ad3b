/* The daemon's job store on SQLite (src/jobs/sqlite_store.c, state_lock.c,
 * jobs_sqlite.c):
 *   - a job of three partitions (a path, inline values, input JSON) kept
 *     and read back: claims in priority order, proofs and public signals
 *     bit for bit, the job done with its last proof and not before
 *   - request ids: the same payload gives the same job, another a conflict
 *   - a reopened store (the daemon before killed) queues its running
 *     partitions again with one attempt more; done ones are not taken
 *   - a failed partition fails its job once the others end, naming it,
 *     the other's proof kept; a cancel ends a job and fences its results
 *   - two daemons cannot lock one folder; the message names the holder
 *   - refused at open, never crashing: garbage, a truncated store, another
 *     program's SQLite file, a newer schema
 *   - a full disk (the file capped): submits refused with
 *     CUZK_ERR_UNAVAILABLE, what was kept still read; retention deletes
 *     ended jobs only
 *   - the seam over a sim engine: jobs proved, the store and engine
 *     stopped while partitions wait at the sim's gate, a fresh engine and
 *     store on the same folder finish them; results of the earlier run
 *     read back, circuits registered through the API kept */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobs/jobs_sqlite.h"
#include "jobs/sqlite_store.h"
#include "jobs/state_lock.h"
#include "support.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/cuzk-jobs-sqlite-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    return remove_tree(dir);
}

static sqlite_store *open_ok(long max_pages)
{
    cuzk_error err = {0};
    sqlite_store *s = store_open(dir, max_pages, &err);
    if (!s)
        fail_msg("%s", err.msg);
    return s;
}

/* A proof whose words all differ, from seed. */
static void fake_proof(cuzk_proof *p, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 6; i++)
        p->a.x[i] = seed + (uint64_t)i, p->a.y[i] = seed * 3 + (uint64_t)i, p->c.x[i] = ~seed - (uint64_t)i,
        p->c.y[i] = seed << 7 | (uint64_t)i;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 6; k++)
            p->b.x[i][k] = seed ^ (uint64_t)(i * 6 + k), p->b.y[i][k] = seed + 1000 + (uint64_t)(i * 6 + k);
    p->curve = CUZK_CURVE_BN254;
}

static void record_proof_ok(sqlite_store *s, uint64_t job, uint32_t idx, uint64_t seed, int *job_ended)
{
    cuzk_proof proof;
    fake_proof(&proof, seed);
    uint64_t publics[2][4] = {{seed, 1, 2, 3}, {4, 5, 6, seed}};
    store_proof p = {&proof, (const uint64_t(*)[4])publics, 2, 0.01, 0.02, 0.03, 1};
    int recorded = 0;
    cuzk_error err = {0};
    if (store_record_proof(s, job, idx, &p, &recorded, job_ended, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(recorded, 1);
}

static void test_job_kept_and_read_back(void **state)
{
    (void)state;
    sqlite_store *s = open_ok(0);
    cuzk_wtns w = {CUZK_CURVE_BN254, 3, aligned_alloc(64, 128)};
    for (int i = 0; i < 12; i++)
        w.values[i] = 0x1111111111111111ULL * (uint64_t)(i + 1);
    cuzk_partition_input in[3] = {{.witness_path = "/data/w0.wtns"}, {.witness = &w}, {.input_json = "{\"a\":\"3\"}"}};
    cuzk_job_request req = {"mul", CUZK_PRIORITY_LOW, NULL, 3, in};
    cuzk_job_request urgent = {"mul", CUZK_PRIORITY_CRITICAL, NULL, 1, in};
    uint64_t id = 0, id2 = 0;
    int existing = 1;
    cuzk_error err = {0};
    assert_int_equal(store_submit(s, &req, &id, &existing, &err), CUZK_OK);
    assert_int_equal(existing, 0);
    assert_int_equal(store_submit(s, &urgent, &id2, &existing, &err), CUZK_OK);
    assert_true(id2 > id);

    cuzk_job_result r;
    assert_int_equal(store_read_job(s, id, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_QUEUED);
    assert_int_equal(r.n_partitions, 3);
    cuzk_job_result_free(&r);

    /* the critical job first, then the low one's partitions in order */
    store_partition got[4];
    int n = 0;
    assert_int_equal(store_claim(s, 3, got, &n, &err), CUZK_OK);
    assert_int_equal(n, 3);
    assert_true(got[0].job_id == id2 && got[1].job_id == id && got[1].idx == 0 && got[2].idx == 1);
    assert_string_equal(got[1].witness_path, "/data/w0.wtns");
    assert_string_equal(got[1].circuit, "mul");
    assert_int_equal(got[1].attempt, 1);
    assert_true(got[2].has_witness);
    assert_int_equal(got[2].witness.n_witness, 3);
    assert_memory_equal(got[2].witness.values, w.values, 96);
    assert_int_equal((uintptr_t)got[2].witness.values % 64, 0);
    for (int i = 0; i < n; i++)
        store_partition_free(&got[i]);
    assert_int_equal(store_claim(s, 3, got, &n, &err), CUZK_OK);
    assert_int_equal(n, 1);
    assert_string_equal(got[0].input_json, "{\"a\":\"3\"}");
    store_partition_free(&got[0]);

    int ended = 1;
    record_proof_ok(s, id, 0, 7, &ended);
    assert_int_equal(ended, 0);
    record_proof_ok(s, id, 2, 9, &ended);
    assert_int_equal(ended, 0);
    assert_int_equal(store_read_job(s, id, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_RUNNING);
    assert_int_equal(r.partitions_done, 2);
    assert_null(r.proofs); /* proofs once it has ended */
    cuzk_job_result_free(&r);
    record_proof_ok(s, id, 1, 8, &ended);
    assert_int_equal(ended, 1);

    assert_int_equal(store_read_job(s, id, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    assert_int_equal(r.partitions_done, 3);
    assert_int_equal(r.n_public, 2);
    assert_true(r.verified);
    for (uint32_t i = 0; i < 3; i++) {
        cuzk_proof want;
        fake_proof(&want, 7 + i);
        assert_true(r.proved[i]);
        assert_memory_equal(&r.proofs[i], &want, sizeof want);
        assert_int_equal(r.publics[2 * i][0], 7 + i);
        assert_int_equal(r.publics[2 * i + 1][3], 7 + i);
    }
    cuzk_job_result_free(&r);
    /* a proved partition's witness is not kept */
    sqlite3 *db;
    char path[128];
    snprintf(path, sizeof path, "%s/" SQLITE_STORE_FILE, dir);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM inputs", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 0);
    sqlite3_finalize(st);
    sqlite3_close(db);

    assert_int_equal(store_read_job(s, 12345, &r, &err), CUZK_ERR_ARG);
    free(w.values);
    store_close(s);
}

static void test_request_ids(void **state)
{
    (void)state;
    sqlite_store *s = open_ok(0);
    cuzk_partition_input a = {.witness_path = "/a.wtns"}, b = {.witness_path = "/b.wtns"};
    cuzk_job_request ra = {"c", CUZK_PRIORITY_NORMAL, "sector-1", 1, &a}, rb = {"c", CUZK_PRIORITY_NORMAL, "sector-1", 1, &b};
    uint64_t id = 0, again = 0, other = 0;
    int existing = 0;
    cuzk_error err = {0};
    assert_int_equal(store_submit(s, &ra, &id, &existing, &err), CUZK_OK);
    assert_int_equal(existing, 0);
    assert_int_equal(store_submit(s, &ra, &again, &existing, &err), CUZK_OK);
    assert_int_equal(existing, 1);
    assert_int_equal(again, id);
    assert_int_equal(store_submit(s, &rb, &other, &existing, &err), CUZK_ERR_CONFLICT);
    assert_non_null(strstr(err.msg, "sector-1"));
    store_close(s);
    /* and after a restart */
    s = open_ok(0);
    assert_int_equal(store_submit(s, &ra, &again, &existing, &err), CUZK_OK);
    assert_int_equal(again, id);
    store_close(s);
}

static void test_reopen_requeues_running(void **state)
{
    (void)state;
    sqlite_store *s = open_ok(0);
    cuzk_job_request req = {"sim", CUZK_PRIORITY_NORMAL, NULL, 3, NULL};
    uint64_t id;
    int existing, n, ended;
    cuzk_error err = {0};
    assert_int_equal(store_submit(s, &req, &id, &existing, &err), CUZK_OK);
    store_partition got[3];
    assert_int_equal(store_claim(s, 2, got, &n, &err), CUZK_OK);
    assert_int_equal(n, 2);
    assert_true(!got[0].witness_path && !got[0].has_witness && !got[0].input_json);
    record_proof_ok(s, id, 0, 1, &ended);
    for (int i = 0; i < n; i++)
        store_partition_free(&got[i]);
    store_close(s); /* partition 1 was running: the daemon died */

    s = open_ok(0);
    int requeued = 0;
    assert_int_equal(store_requeue_running(s, &requeued, &err), CUZK_OK);
    assert_int_equal(requeued, 1);
    assert_int_equal(store_claim(s, 3, got, &n, &err), CUZK_OK);
    assert_int_equal(n, 2); /* 1 and 2; 0 is done */
    assert_int_equal(got[0].idx, 1);
    assert_int_equal(got[0].attempt, 2);
    assert_int_equal(got[1].idx, 2);
    assert_int_equal(got[1].attempt, 1);
    /* a release does not count the attempt */
    assert_int_equal(store_release(s, id, 2, &err), CUZK_OK);
    for (int i = 0; i < n; i++)
        store_partition_free(&got[i]);
    assert_int_equal(store_claim(s, 3, got, &n, &err), CUZK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(got[0].attempt, 1);
    store_partition_free(&got[0]);
    record_proof_ok(s, id, 1, 2, &ended);
    assert_int_equal(ended, 0);
    record_proof_ok(s, id, 2, 3, &ended);
    assert_int_equal(ended, 1);
    /* recorded once: a late second result changes nothing */
    cuzk_proof proof;
    fake_proof(&proof, 99);
    uint64_t pub[1][4] = {{0}};
    store_proof p = {&proof, (const uint64_t(*)[4])pub, 1, 0, 0, 0, 1};
    int recorded = 1;
    assert_int_equal(store_record_proof(s, id, 2, &p, &recorded, &ended, &err), CUZK_OK);
    assert_int_equal(recorded, 0);
    cuzk_job_result r;
    assert_int_equal(store_read_job(s, id, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    cuzk_proof want;
    fake_proof(&want, 3);
    assert_memory_equal(&r.proofs[2], &want, sizeof want);
    cuzk_job_result_free(&r);
    store_close(s);
}

static void test_failure_and_cancel(void **state)
{
    (void)state;
    sqlite_store *s = open_ok(0);
    cuzk_job_request req = {"sim", CUZK_PRIORITY_NORMAL, NULL, 2, NULL};
    uint64_t id, id2;
    int existing, n, ended, recorded;
    cuzk_error err = {0};
    assert_int_equal(store_submit(s, &req, &id, &existing, &err), CUZK_OK);
    store_partition got[2];
    assert_int_equal(store_claim(s, 2, got, &n, &err), CUZK_OK);
    for (int i = 0; i < n; i++)
        store_partition_free(&got[i]);
    assert_int_equal(store_record_failure(s, id, 0, "the witness file is gone", &recorded, &ended, &err), CUZK_OK);
    assert_int_equal(recorded, 1);
    assert_int_equal(ended, 0); /* partition 1 goes on */
    record_proof_ok(s, id, 1, 5, &ended);
    assert_int_equal(ended, 1);
    cuzk_job_result r;
    assert_int_equal(store_read_job(s, id, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_FAILED);
    assert_string_equal(r.error, "partition 0: the witness file is gone");
    assert_false(r.proved[0]);
    assert_true(r.proved[1]);
    assert_false(r.verified);
    cuzk_job_result_free(&r);

    /* cancel: queued and running partitions end, a late proof is fenced */
    assert_int_equal(store_submit(s, &req, &id2, &existing, &err), CUZK_OK);
    assert_int_equal(store_claim(s, 1, got, &n, &err), CUZK_OK);
    store_partition_free(&got[0]);
    assert_int_equal(store_cancel_job(s, id2, &ended, &err), CUZK_OK);
    assert_int_equal(ended, 1);
    assert_int_equal(store_cancel_job(s, id2, &ended, &err), CUZK_OK);
    assert_int_equal(ended, 0);
    cuzk_proof proof;
    fake_proof(&proof, 1);
    store_proof p = {&proof, NULL, 0, 0, 0, 0, 1};
    assert_int_equal(store_record_proof(s, id2, 0, &p, &recorded, &ended, &err), CUZK_OK);
    assert_int_equal(recorded, 0);
    assert_int_equal(store_claim(s, 2, got, &n, &err), CUZK_OK);
    assert_int_equal(n, 0);
    assert_int_equal(store_read_job(s, id2, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&r);
    assert_int_equal(store_cancel_job(s, 424242, &ended, &err), CUZK_ERR_ARG);
    store_close(s);
}

static void test_one_daemon_a_folder(void **state)
{
    (void)state;
    int a = -1, b = -1;
    cuzk_error err = {0};
    char nested[128];
    snprintf(nested, sizeof nested, "%s/state/cuzk", dir);
    assert_int_equal(state_lock_take(nested, &a, &err), CUZK_OK);
    assert_int_equal(state_lock_take(nested, &b, &err), CUZK_ERR_CONFLICT);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %d", (int)getpid());
    assert_non_null(strstr(err.msg, "in use by another daemon"));
    assert_non_null(strstr(err.msg, pid));
    state_lock_release(a);
    assert_int_equal(state_lock_take(nested, &b, &err), CUZK_OK);
    state_lock_release(b);
    /* a file where the folder should be */
    char file[160];
    snprintf(file, sizeof file, "%s/plain", dir);
    close(open(file, O_CREAT | O_WRONLY, 0600));
    assert_int_equal(state_lock_take(file, &a, &err), CUZK_ERR_IO);
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void expect_refused(int code, const char *needle)
{
    cuzk_error err = {0};
    sqlite_store *s = store_open(dir, 0, &err);
    assert_null(s);
    assert_int_equal(err.code, code);
    if (!strstr(err.msg, needle))
        fail_msg("'%s' lacks '%s'", err.msg, needle);
}

static void test_damaged_files_refused(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/" SQLITE_STORE_FILE, dir);
    char garbage[8192];
    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (char)(i * 131 + 7);
    write_file(path, garbage, sizeof garbage);
    expect_refused(CUZK_ERR_FORMAT, "is damaged");

    /* a store with jobs, cut in half (the WAL checkpointed first) */
    unlink(path);
    sqlite_store *s = open_ok(0);
    cuzk_job_request req = {"sim", CUZK_PRIORITY_NORMAL, NULL, 40, NULL};
    for (int i = 0; i < 30; i++) {
        uint64_t id;
        int existing;
        cuzk_error err = {0};
        assert_int_equal(store_submit(s, &req, &id, &existing, &err), CUZK_OK);
    }
    store_close(s); /* the last connection checkpoints and removes the WAL */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 8192);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
    expect_refused(CUZK_ERR_FORMAT, "is damaged");

    /* another program's database */
    unlink(path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    expect_refused(CUZK_ERR_FORMAT, "not a cuzk job store");

    /* a newer cuzk's */
    unlink(path);
    store_close(open_ok(0));
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    expect_refused(CUZK_ERR_MISMATCH, "upgrade cuzk");
}

static void test_full_disk_and_retention(void **state)
{
    (void)state;
    sqlite_store *s = open_ok(64); /* 64 pages of 4 KiB */
    cuzk_wtns w = {CUZK_CURVE_BN254, 1024, aligned_alloc(64, 32 * 1024)};
    memset(w.values, 0x5a, 32 * 1024);
    cuzk_partition_input in = {.witness = &w};
    cuzk_job_request req = {"c", CUZK_PRIORITY_NORMAL, NULL, 1, &in};
    cuzk_error err = {0};
    uint64_t first = 0, id = 0;
    int existing, rc = CUZK_OK, kept = 0;
    for (int i = 0; i < 100 && !rc; i++) {
        rc = store_submit(s, &req, &id, &existing, &err);
        if (!rc && !kept++)
            first = id;
    }
    assert_int_equal(rc, CUZK_ERR_UNAVAILABLE);
    assert_non_null(strstr(err.msg, "disk is full"));
    assert_true(kept > 1 && kept < 100);
    cuzk_job_result r;
    assert_int_equal(store_read_job(s, first, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_QUEUED);
    cuzk_job_result_free(&r);

    /* retention: the ended job goes, the queued ones stay */
    store_partition got;
    int n, ended;
    assert_int_equal(store_claim(s, 1, &got, &n, &err), CUZK_OK);
    assert_int_equal(got.job_id, first);
    store_partition_free(&got);
    record_proof_ok(s, first, 0, 1, &ended);
    assert_int_equal(ended, 1);
    int deleted = 0;
    assert_int_equal(store_delete_ended(s, 3600, &deleted, &err), CUZK_OK);
    assert_int_equal(deleted, 0);
    assert_int_equal(store_delete_ended(s, 0, &deleted, &err), CUZK_OK);
    assert_int_equal(deleted, 1);
    assert_int_equal(store_read_job(s, first, &r, &err), CUZK_ERR_ARG);
    store_counts c;
    assert_int_equal(store_count(s, &c, &err), CUZK_OK);
    assert_int_equal(c.queued, (uint64_t)kept - 1);
    /* the room the deleted job left takes a new one */
    assert_int_equal(store_submit(s, &req, &id, &existing, &err), CUZK_OK);
    free(w.values);
    store_close(s);
}

/* ---------- the seam over an engine ---------- */

typedef struct {
    cuzk_engine *engine;
    jobs_sqlite *jobs;
} daemon_parts;

/* A store and a sim engine on dir, as the daemon makes them (gate: a file
 * the sim's partitions wait for, or NULL). */
static daemon_parts start(const char *gate)
{
    daemon_parts d;
    cuzk_error err = {0};
    jobs_sqlite_config sc = {dir, 0, 1 << 20, 0};
    d.jobs = jobs_sqlite_open(&sc, NULL, &err);
    if (!d.jobs)
        fail_msg("%s", err.msg);
    cuzk_engine_config ec;
    cuzk_engine_config_default(&ec);
    ec.synthesis_workers = 2;
    ec.budget_bytes = 256ULL << 20;
    jobs_sqlite_hook_engine(d.jobs, &ec);
    cuzk_backend *b = gate ? backend_sim_create_gated(1, 1, gate, &err) : backend_sim_create(1, 1);
    assert_non_null(b);
    d.engine = cuzk_engine_create(&ec, b, &err);
    assert_non_null(d.engine);
    assert_int_equal(cuzk_engine_register_sim_circuit(d.engine, "sim", 1u << 10, &err), CUZK_OK);
    assert_int_equal(jobs_sqlite_start(d.jobs, d.engine, &err), CUZK_OK);
    return d;
}

/* As the daemon stops: no more fed, the engine's work cancelled and
 * drained, the store closed (what the engine had goes back to the queue). */
static void stop(daemon_parts *d)
{
    jobs_sqlite_stop_feeding(d->jobs);
    cuzk_engine_cancel_all(d->engine);
    cuzk_engine_drain(d->engine, -1);
    jobs_sqlite_destroy(d->jobs);
    cuzk_engine_destroy(d->engine);
}

static void wait_done(jobs_api *api, uint64_t id, uint32_t n)
{
    cuzk_job_result r;
    cuzk_error err = {0};
    assert_int_equal(api->ops->wait(api, id, 60, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_DONE);
    assert_int_equal(r.partitions_done, n);
    for (uint32_t i = 0; i < n; i++)
        assert_true(r.proved[i]);
    cuzk_job_result_free(&r);
}

/* Until the engine holds partitions of the store (a shut gate keeps them
 * there): the store's count, looked at every millisecond for up to 20 s. */
static void wait_running(jobs_sqlite *j)
{
    for (int i = 0; i < 20000; i++) {
        jobs_sqlite_stats st;
        jobs_sqlite_get_stats(j, &st);
        if (st.counts_ok && st.counts.partitions_running > 0)
            return;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    fail_msg("no partition of the store reached the engine");
}

static void test_seam_survives_a_restart(void **state)
{
    (void)state;
    char gate[128];
    snprintf(gate, sizeof gate, "%s/gate", dir);
    daemon_parts d = start(NULL);
    jobs_api *api = jobs_sqlite_api(d.jobs);
    cuzk_job_request req = {"sim", CUZK_PRIORITY_NORMAL, "first", 4, NULL};
    uint64_t first, second, third;
    cuzk_error err = {0};
    assert_int_equal(api->ops->submit(api, &req, &first, &err), CUZK_OK);
    wait_done(api, first, 4);
    stop(&d);

    /* behind a shut gate nothing ends: the store is stopped with its
     * partitions in the engine */
    d = start(gate);
    api = jobs_sqlite_api(d.jobs);
    wait_done(api, first, 4); /* the earlier run's job */
    req.request_id = "second";
    req.n_partitions = 6;
    assert_int_equal(api->ops->submit(api, &req, &second, &err), CUZK_OK);
    cuzk_job_request small = {"sim", CUZK_PRIORITY_LOW, NULL, 2, NULL};
    assert_int_equal(api->ops->submit(api, &small, &third, &err), CUZK_OK);
    wait_running(d.jobs);
    assert_int_equal(api->ops->cancel(api, third, &err), CUZK_OK);
    assert_int_equal(api->ops->cancel(api, 99, &err), CUZK_ERR_ARG);
    cuzk_job_result r;
    assert_int_equal(api->ops->wait(api, third, 0, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&r);
    assert_int_equal(api->ops->wait(api, second, 0, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_RUNNING);
    cuzk_job_result_free(&r);
    /* a second daemon on the folder is refused while this one lives */
    jobs_sqlite_config sc = {dir, 0, 1 << 20, 0};
    assert_null(jobs_sqlite_open(&sc, NULL, &err));
    assert_int_equal(err.code, CUZK_ERR_CONFLICT);
    stop(&d);

    d = start(NULL);
    api = jobs_sqlite_api(d.jobs);
    jobs_sqlite_stats st;
    jobs_sqlite_get_stats(d.jobs, &st);
    assert_int_equal(st.requeued_at_start, 0); /* released at the stop, not left running */
    uint64_t again;
    assert_int_equal(api->ops->submit(api, &req, &again, &err), CUZK_OK);
    assert_int_equal(again, second);
    wait_done(api, second, 6);
    assert_int_equal(api->ops->wait(api, third, 0, &r, &err), CUZK_OK);
    assert_int_equal(r.state, CUZK_JOB_CANCELLED);
    cuzk_job_result_free(&r);
    jobs_sqlite_get_stats(d.jobs, &st);
    assert_int_equal(st.counts.done, 2);
    assert_int_equal(st.counts.cancelled, 1);
    assert_int_equal(st.proofs_recorded, 6);
    stop(&d);
}

typedef struct {
    char ids[4][16];
    int n, dev_ok, a_ok;
} circuits_seen;

static void see_circuit(void *ctx, const store_circuit *c)
{
    circuits_seen *seen = ctx;
    snprintf(seen->ids[seen->n++ & 3], 16, "%s", c->id);
    if (!strcmp(c->id, "dev"))
        seen->dev_ok = c->development && !c->zkey && c->r1cs && !strcmp(c->r1cs, "/k/c.r1cs");
    else
        seen->a_ok = !c->development && !strcmp(c->zkey, "/k/a.zkey") && !c->r1cs && !strcmp(c->wasm, "/k/a.wasm");
}

static void test_circuits_kept(void **state)
{
    (void)state;
    sqlite_store *s = open_ok(0);
    store_circuit a = {"a", "/k/a.zkey", NULL, "/k/a.wasm", 0, 0}, dev = {"dev", NULL, "/k/c.r1cs", NULL, 1, 0};
    cuzk_error err = {0};
    assert_int_equal(store_add_circuit(s, &a, &err), CUZK_OK);
    assert_int_equal(store_add_circuit(s, &dev, &err), CUZK_OK);
    assert_int_equal(store_remove_circuit(s, "a", &err), CUZK_OK);
    assert_int_equal(store_add_circuit(s, &a, &err), CUZK_OK);
    store_close(s);
    s = open_ok(0);
    circuits_seen seen = {0};
    assert_int_equal(store_each_circuit(s, see_circuit, &seen, &err), CUZK_OK);
    assert_int_equal(seen.n, 2);
    assert_string_equal(seen.ids[0], "dev");
    assert_string_equal(seen.ids[1], "a");
    assert_true(seen.dev_ok && seen.a_ok);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_job_kept_and_read_back, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_request_ids, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_reopen_requeues_running, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_failure_and_cancel, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_one_daemon_a_folder, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_damaged_files_refused, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_full_disk_and_retention, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_seam_survives_a_restart, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_circuits_kept, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
