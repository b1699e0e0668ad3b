#include "jobs/sqlite_store.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "codec/proof_words.h"
#include "util/err.h"

/* Statements kept prepared (by their text) for the store's life: a
 * prepare costs as much as the statement's work. */
enum { STORE_STATEMENTS = 48 };

struct sqlite_store {
    sqlite3 *db;
    struct {
        char *sql;
        sqlite3_stmt *st;
    } kept[STORE_STATEMENTS];
    int n_kept;
    pthread_mutex_t lock;
    int synchronous; /* the level set now: SYNC_FULL or SYNC_NORMAL */
    char path[4096];
};

/* 'cuzk' in ASCII: a SQLite file of another program is refused, not changed */
/* The wall clock in seconds, with fractions (unixepoch's 'subsec' is newer
 * than Debian 12's SQLite) */
#define NOW_SQL "((julianday('now') - 2440587.5) * 86400.0)"

enum { STORE_APPLICATION_ID = 0x63757a6b, STORE_SCHEMA_VERSION = 1 };

static const char schema[] =
    "CREATE TABLE jobs ("
    "  id INTEGER PRIMARY KEY,"
    "  request_id TEXT UNIQUE,"
    "  payload_hash INTEGER NOT NULL,"
    "  circuit TEXT NOT NULL,"
    "  priority INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),"
    "  n_partitions INTEGER NOT NULL CHECK (n_partitions > 0),"
    "  parts_done INTEGER NOT NULL DEFAULT 0,"
    "  parts_ended INTEGER NOT NULL DEFAULT 0,"
    "  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done', 'failed', 'cancelled')),"
    "  error TEXT NOT NULL DEFAULT '',"
    "  submitted_at REAL NOT NULL,"
    "  started_at REAL,"
    "  ended_at REAL,"
    "  CHECK (state != 'done' OR parts_done = n_partitions));"
    "CREATE INDEX jobs_ended ON jobs (ended_at) WHERE ended_at IS NOT NULL;"
    "CREATE TABLE partitions ("
    "  job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  priority INTEGER NOT NULL,"
    "  state TEXT NOT NULL DEFAULT 'queued'"
    "    CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),"
    "  witness_path TEXT,"
    "  attempts INTEGER NOT NULL DEFAULT 0,"
    "  error TEXT NOT NULL DEFAULT '',"
    "  proof BLOB,"
    "  publics BLOB,"
    "  witness_s REAL NOT NULL DEFAULT 0,"
    "  synth_s REAL NOT NULL DEFAULT 0,"
    "  device_s REAL NOT NULL DEFAULT 0,"
    "  verified INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (job_id, idx),"
    "  CHECK ((state = 'done') = (proof IS NOT NULL AND publics IS NOT NULL)));"
    /* inline witnesses and inputs apart from the partitions' rows, which
     * change at each claim and result: a row rewritten is rewritten whole */
    "CREATE TABLE inputs ("
    "  job_id INTEGER NOT NULL,"
    "  idx INTEGER NOT NULL,"
    "  witness BLOB,"
    "  witness_curve INTEGER,"
    "  input_json TEXT,"
    "  PRIMARY KEY (job_id, idx),"
    "  FOREIGN KEY (job_id, idx) REFERENCES partitions ON DELETE CASCADE,"
    "  CHECK ((witness IS NULL) <> (input_json IS NULL)));"
    "CREATE INDEX partitions_queued ON partitions (priority, job_id, idx) WHERE state = 'queued';"
    "CREATE INDEX partitions_running ON partitions (job_id) WHERE state = 'running';"
    "CREATE TABLE circuits ("
    "  seq INTEGER PRIMARY KEY,"
    "  id TEXT NOT NULL UNIQUE,"
    "  zkey TEXT, r1cs TEXT, wasm TEXT,"
    "  development INTEGER NOT NULL DEFAULT 0,"
    "  device_only INTEGER NOT NULL DEFAULT 0);";

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A SQLite result code as the store's error. */
static int db_fail(sqlite_store *s, int rc, const char *what, cuzk_error *err)
{
    const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    /* a write or an open that found no room is SQLite's I/O error */
    if (s->db && sqlite3_system_errno(s->db) == ENOSPC)
        rc = SQLITE_FULL;
    switch (rc & 0xff) {
    case SQLITE_FULL:
        return cuzk_fail(err, CUZK_ERR_UNAVAILABLE,
                         "the job store %s cannot grow: its disk is full (%s); free space there", s->path, what);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "the job store %s is damaged (%s: %s): move it aside to start with an empty one, or put "
                         "a backup in its place",
                         s->path, what, msg);
    case SQLITE_NOMEM:
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory (%s)", what);
    default:
        return cuzk_fail(err, CUZK_ERR_IO, "the job store %s: %s: %s", s->path, what, msg);
    }
}

/* sql, what it does for messages */
static int exec_as(sqlite_store *s, const char *sql, const char *what, cuzk_error *err)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? CUZK_OK : db_fail(s, rc, what, err);
}

static int exec(sqlite_store *s, const char *sql, cuzk_error *err) { return exec_as(s, sql, sql, err); }

/* st for sql: the one kept, or a new one (kept while there is room);
 * given back with finish. Under the store's lock. */
static int prepare(sqlite_store *s, const char *sql, sqlite3_stmt **st, cuzk_error *err)
{
    for (int i = 0; i < s->n_kept; i++)
        if (!strcmp(s->kept[i].sql, sql)) {
            *st = s->kept[i].st;
            return CUZK_OK;
        }
    int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, rc, "prepare", err);
    if (s->n_kept < STORE_STATEMENTS && (s->kept[s->n_kept].sql = strdup(sql)))
        s->kept[s->n_kept++].st = *st;
    return CUZK_OK;
}

/* st is done with: reset for its next use when kept, else finalized. */
static void finish(sqlite_store *s, sqlite3_stmt *st)
{
    for (int i = 0; i < s->n_kept; i++)
        if (s->kept[i].st == st) {
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            return;
        }
    finish(s, st);
}

/* Steps st to its end (a statement without rows) and finalizes it. */
static int step_done(sqlite_store *s, sqlite3_stmt *st, const char *what, cuzk_error *err)
{
    int rc = sqlite3_step(st);
    finish(s, st);
    return rc == SQLITE_DONE ? CUZK_OK : db_fail(s, rc, what, err);
}

/* One integer of a one-row query (0 when it has no row). */
static int query_int(sqlite_store *s, const char *sql, long long *out, cuzk_error *err)
{
    sqlite3_stmt *st;
    int rc = prepare(s, sql, &st, err);
    if (rc)
        return rc;
    int r = sqlite3_step(st);
    *out = r == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    finish(s, st);
    return r == SQLITE_ROW || r == SQLITE_DONE ? CUZK_OK : db_fail(s, r, sql, err);
}

/* How durable a commit is, in WAL mode:
 *   SYNC_FULL    on the disk before the commit returns (an fsync of the
 *                WAL): what a client is told was kept (a submit, a
 *                cancel, a circuit) survives a power cut;
 *   SYNC_NORMAL  in the operating system's cache: survives the process's
 *                death however it dies (kill -9, a crash), not a power
 *                cut, and costs no fsync. Claims and results: a result
 *                lost to a power cut is a partition proved again; the next
 *                FULL commit takes the NORMAL ones before it to the disk. */
enum { SYNC_NORMAL = 1, SYNC_FULL = 2 };

/* fn inside BEGIN IMMEDIATE ... COMMIT at the durability sync, with the
 * store's lock; rolled back when it fails. */
static int transaction(sqlite_store *s, int sync, int (*fn)(sqlite_store *s, void *ctx, cuzk_error *err), void *ctx,
                       cuzk_error *err)
{
    pthread_mutex_lock(&s->lock);
    int rc = CUZK_OK;
    if (s->synchronous != sync) {
        rc = exec(s, sync == SYNC_FULL ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL", err);
        s->synchronous = rc ? 0 : sync;
    }
    if (!rc)
        rc = exec(s, "BEGIN IMMEDIATE", err);
    if (!rc)
        rc = fn(s, ctx, err);
    if (!rc)
        rc = exec(s, "COMMIT", err);
    if (rc && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---------- opening ---------- */

/* The file is SQLite's, whole, and ours (or new: then made ours). */
static int check_and_migrate(sqlite_store *s, cuzk_error *err)
{
    long long app = 0, version = 0, tables = 0;
    int rc = query_int(s, "PRAGMA application_id", &app, err);
    if (!rc)
        rc = query_int(s, "PRAGMA user_version", &version, err);
    if (!rc)
        rc = query_int(s, "SELECT count(*) FROM sqlite_schema", &tables, err);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    if ((rc = prepare(s, "PRAGMA quick_check", &st, err)))
        return rc;
    int r = sqlite3_step(st);
    char why[256] = "";
    if (r == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "ok"))
        snprintf(why, sizeof why, "%s", (const char *)sqlite3_column_text(st, 0));
    finish(s, st);
    if (r != SQLITE_ROW)
        return db_fail(s, r, "PRAGMA quick_check", err);
    if (why[0])
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "the job store %s is damaged (quick_check: %s): move it aside to start with an empty one, "
                         "or put a backup in its place",
                         s->path, why);
    if (tables && app != STORE_APPLICATION_ID)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s is a SQLite file of another program (application_id %lld), "
                         "not a cuzk job store", s->path, app);
    if (version > STORE_SCHEMA_VERSION)
        return cuzk_fail(err, CUZK_ERR_MISMATCH, "the job store %s is of schema version %lld, newer than this "
                         "daemon's (%d): upgrade cuzk", s->path, version, STORE_SCHEMA_VERSION);
    char sql[sizeof schema + 128];
    if (version == STORE_SCHEMA_VERSION)
        /* a write at every start: a store that cannot be written refuses now */
        snprintf(sql, sizeof sql, "BEGIN IMMEDIATE; PRAGMA user_version = %d; COMMIT", STORE_SCHEMA_VERSION);
    else
        snprintf(sql, sizeof sql, "BEGIN IMMEDIATE; %s PRAGMA application_id = %d; PRAGMA user_version = %d; COMMIT",
                 schema, STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
    rc = exec_as(s, sql, "writing it", err);
    if (rc && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

sqlite_store *store_open(const char *dir, long max_pages, cuzk_error *err)
{
    sqlite_store *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    pthread_mutex_init(&s->lock, NULL);
    snprintf(s->path, sizeof s->path, "%s/%s", dir, SQLITE_STORE_FILE);
    int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        cuzk_fail(err, CUZK_ERR_IO, "cannot open the job store %s: %s", s->path,
                  s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        store_close(s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, 5000);
    char pragmas[256];
    /* WAL: readers do not wait for the writer, and a commit without an
     * fsync (SYNC_NORMAL) still survives the process's death */
    rc = exec_as(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", "opening it",
                 err);
    s->synchronous = SYNC_FULL;
    if (!rc && max_pages > 0) {
        snprintf(pragmas, sizeof pragmas, "PRAGMA max_page_count = %ld", max_pages);
        rc = exec(s, pragmas, err);
    }
    if (!rc)
        rc = check_and_migrate(s, err);
    if (rc) {
        store_close(s);
        return NULL;
    }
    return s;
}

void store_close(sqlite_store *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_kept; i++) {
        sqlite3_finalize(s->kept[i].st);
        free(s->kept[i].sql);
    }
    sqlite3_close(s->db);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

const char *store_path(const sqlite_store *s) { return s->path; }

uint64_t store_bytes(const sqlite_store *s)
{
    char wal[sizeof s->path + 8];
    snprintf(wal, sizeof wal, "%s-wal", s->path);
    struct stat a, b;
    return (stat(s->path, &a) ? 0 : (uint64_t)a.st_size) + (stat(wal, &b) ? 0 : (uint64_t)b.st_size);
}

/* ---------- submit ---------- */

typedef struct {
    const cuzk_job_request *req;
    uint64_t *job_id;
    int *existing;
} submit_args;

/* The request id's job, when there is one: *found, and a conflict when
 * its payload differs. */
static int find_request(sqlite_store *s, const cuzk_job_request *req, int64_t hash, uint64_t *job_id, int *found,
                        cuzk_error *err)
{
    sqlite3_stmt *st;
    int rc = prepare(s, "SELECT id, payload_hash FROM jobs WHERE request_id = ?1", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, req->request_id, -1, SQLITE_STATIC);
    int r = sqlite3_step(st);
    *found = r == SQLITE_ROW;
    if (*found) {
        *job_id = (uint64_t)sqlite3_column_int64(st, 0);
        if (sqlite3_column_int64(st, 1) != hash)
            rc = cuzk_fail(err, CUZK_ERR_CONFLICT, "request id '%s' was already used for a different job (%" PRIu64 ")",
                           req->request_id, *job_id);
    } else if (r != SQLITE_DONE) {
        rc = db_fail(s, r, "find a request id", err);
    }
    finish(s, st);
    return rc;
}

/* Partition i's row, and its inline witness or input's (st: the two
 * inserts). */
static int insert_partition(sqlite_store *s, sqlite3_stmt *st[2], uint64_t job_id, uint32_t i,
                            const cuzk_job_request *req, cuzk_error *err)
{
    const cuzk_partition_input *in = req->partitions ? &req->partitions[i] : NULL;
    for (int k = 0; k < 2; k++) {
        sqlite3_reset(st[k]);
        sqlite3_clear_bindings(st[k]);
        sqlite3_bind_int64(st[k], 1, (sqlite3_int64)job_id);
        sqlite3_bind_int(st[k], 2, (int)i);
    }
    sqlite3_bind_int(st[0], 3, (int)req->priority);
    if (in && in->witness_path)
        sqlite3_bind_text(st[0], 4, in->witness_path, -1, SQLITE_STATIC);
    int r = sqlite3_step(st[0]);
    if (r != SQLITE_DONE)
        return db_fail(s, r, "insert a partition", err);
    if (!in || (!in->witness && !in->input_json))
        return CUZK_OK;
    if (in->witness) {
        /* the values as they lie in memory: little-endian words, as the
         * cluster's queue keeps them */
        sqlite3_bind_blob64(st[1], 3, in->witness->values, (sqlite3_uint64)in->witness->n_witness * 32,
                            SQLITE_STATIC);
        sqlite3_bind_int(st[1], 4, (int)in->witness->curve);
    } else {
        sqlite3_bind_text(st[1], 5, in->input_json, -1, SQLITE_STATIC);
    }
    r = sqlite3_step(st[1]);
    return r == SQLITE_DONE ? CUZK_OK : db_fail(s, r, "keep a partition's witness", err);
}

static int submit_in_tx(sqlite_store *s, void *ctx, cuzk_error *err)
{
    submit_args *a = ctx;
    const cuzk_job_request *req = a->req;
    int64_t hash = (int64_t)cuzk_job_request_hash(req);
    int found = 0, rc = CUZK_OK;
    *a->existing = 0;
    if (req->request_id && ((rc = find_request(s, req, hash, a->job_id, &found, err)) || found)) {
        *a->existing = found;
        return rc;
    }
    long long last = 0;
    if ((rc = query_int(s, "SELECT max(id) FROM jobs", &last, err)))
        return rc;
    double now = wall_now();
    uint64_t id = (uint64_t)(now * 1e6);
    if (id <= (uint64_t)last)
        id = (uint64_t)last + 1;
    sqlite3_stmt *st;
    if ((rc = prepare(s,
                      "INSERT INTO jobs (id, request_id, payload_hash, circuit, priority, n_partitions, submitted_at)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                      &st, err)))
        return rc;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
    if (req->request_id)
        sqlite3_bind_text(st, 2, req->request_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, hash);
    sqlite3_bind_text(st, 4, req->circuit, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, (int)req->priority);
    sqlite3_bind_int64(st, 6, req->n_partitions);
    sqlite3_bind_double(st, 7, now);
    if ((rc = step_done(s, st, "insert a job", err)))
        return rc;
    sqlite3_stmt *two[2] = {NULL, NULL};
    if ((rc = prepare(s, "INSERT INTO partitions (job_id, idx, priority, witness_path) VALUES (?1, ?2, ?3, ?4)",
                      &two[0], err)) ||
        (rc = prepare(s,
                      "INSERT INTO inputs (job_id, idx, witness, witness_curve, input_json) VALUES (?1, ?2, ?3, ?4, ?5)",
                      &two[1], err))) {
        finish(s, two[0]);
        return rc;
    }
    for (uint32_t i = 0; i < req->n_partitions && !rc; i++)
        rc = insert_partition(s, two, id, i, req, err);
    finish(s, two[0]);
    finish(s, two[1]);
    *a->job_id = id;
    return rc;
}

int store_submit(sqlite_store *s, const cuzk_job_request *req, uint64_t *job_id, int *existing, cuzk_error *err)
{
    if (!req->n_partitions)
        return cuzk_fail(err, CUZK_ERR_ARG, "a job has at least one partition");
    submit_args a = {req, job_id, existing};
    return transaction(s, SYNC_FULL, submit_in_tx, &a, err);
}

typedef struct {
    const char *sql;
    uint64_t job_id;
    uint32_t idx;
    int *changed;
} update_args;

/* One statement of ?1 = job, ?2 = idx (both optional) in a transaction. */
static int update_in_tx(sqlite_store *s, void *ctx, cuzk_error *err)
{
    update_args *a = ctx;
    sqlite3_stmt *st;
    int rc = prepare(s, a->sql, &st, err);
    if (rc)
        return rc;
    if (sqlite3_bind_parameter_count(st) >= 1)
        sqlite3_bind_int64(st, 1, (sqlite3_int64)a->job_id);
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_int(st, 2, (int)a->idx);
    rc = step_done(s, st, a->sql, err);
    if (!rc && a->changed)
        *a->changed = sqlite3_changes(s->db);
    return rc;
}

/* ---------- claims ---------- */

void store_partition_free(store_partition *p)
{
    free(p->witness_path);
    free(p->input_json);
    if (p->has_witness)
        cuzk_wtns_free(&p->witness);
    memset(p, 0, sizeof *p);
}

static char *dup_column(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? strdup((const char *)t) : NULL;
}

/* The claim's row (job, idx, attempts, circuit, priority, path) into p,
 * and its inline witness or input from the inputs table (in: that
 * query). */
static int take_partition(sqlite_store *s, sqlite3_stmt *st, sqlite3_stmt *in, store_partition *p, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    p->job_id = (uint64_t)sqlite3_column_int64(st, 0);
    p->idx = (uint32_t)sqlite3_column_int(st, 1);
    p->attempt = sqlite3_column_int(st, 2);
    snprintf(p->circuit, sizeof p->circuit, "%s", (const char *)sqlite3_column_text(st, 3));
    p->priority = (cuzk_priority)sqlite3_column_int(st, 4);
    if (sqlite3_column_type(st, 5) != SQLITE_NULL)
        return (p->witness_path = dup_column(st, 5)) ? CUZK_OK : cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    sqlite3_reset(in);
    sqlite3_bind_int64(in, 1, (sqlite3_int64)p->job_id);
    sqlite3_bind_int(in, 2, (int)p->idx);
    int r = sqlite3_step(in), nomem = 0;
    if (r == SQLITE_DONE)
        return CUZK_OK; /* a simulated circuit's: nothing */
    if (r != SQLITE_ROW)
        return db_fail(s, r, "read a partition's witness", err);
    if (sqlite3_column_type(in, 2) != SQLITE_NULL) {
        nomem = !(p->input_json = dup_column(in, 2));
    } else {
        size_t len = (size_t)sqlite3_column_bytes(in, 0);
        /* the engine's witnesses are 64-byte aligned */
        p->witness.values = aligned_alloc(64, (len + 63) / 64 * 64 + 64);
        if (!(nomem = !p->witness.values)) {
            memcpy(p->witness.values, sqlite3_column_blob(in, 0), len);
            p->witness.curve = (cuzk_curve_id)sqlite3_column_int(in, 1);
            p->witness.n_witness = (uint32_t)(len / 32);
            p->has_witness = 1;
        }
    }
    return nomem ? cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory") : CUZK_OK;
}

typedef struct {
    int max;
    store_partition *out;
    int *n;
} claim_args;

static int claim_in_tx(sqlite_store *s, void *ctx, cuzk_error *err)
{
    claim_args *a = ctx;
    sqlite3_stmt *st, *in;
    int rc = prepare(s, "SELECT witness, witness_curve, input_json FROM inputs WHERE job_id = ?1 AND idx = ?2", &in,
                     err);
    if (rc)
        return rc;
    if ((rc = prepare(s,
                      "UPDATE partitions SET state = 'running', attempts = attempts + 1"
                      " WHERE rowid IN (SELECT rowid FROM partitions WHERE state = 'queued'"
                      "   ORDER BY priority, job_id, idx LIMIT ?1)"
                      " RETURNING job_id, idx, attempts, (SELECT circuit FROM jobs WHERE id = job_id), priority,"
                      "   witness_path",
                      &st, err))) {
        finish(s, in);
        return rc;
    }
    sqlite3_bind_int(st, 1, a->max);
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW && !rc && *a->n < a->max)
        if (!(rc = take_partition(s, st, in, &a->out[*a->n], err)))
            (*a->n)++;
    finish(s, st);
    finish(s, in);
    if (!rc && r != SQLITE_DONE && r != SQLITE_ROW)
        rc = db_fail(s, r, "claim partitions", err);
    for (int i = 0; !rc && i < *a->n; i++) {
        update_args started = {"UPDATE jobs SET started_at = " NOW_SQL " WHERE id = ?1 AND started_at IS NULL",
                               a->out[i].job_id, 0, NULL};
        rc = update_in_tx(s, &started, err);
    }
    if (rc) {
        for (int i = 0; i < *a->n; i++)
            store_partition_free(&a->out[i]);
        *a->n = 0;
    }
    return rc;
}

/* Claim order: priority, then job, then index (RETURNING's rows come in
 * no particular order). */
static int claim_order(const void *pa, const void *pb)
{
    const store_partition *a = pa, *b = pb;
    if (a->priority != b->priority)
        return a->priority < b->priority ? -1 : 1;
    if (a->job_id != b->job_id)
        return a->job_id < b->job_id ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int store_claim(sqlite_store *s, int max, store_partition *out, int *n, cuzk_error *err)
{
    *n = 0;
    if (max <= 0)
        return CUZK_OK;
    claim_args a = {max, out, n};
    int rc = transaction(s, SYNC_NORMAL, claim_in_tx, &a, err);
    if (!rc)
        qsort(out, (size_t)*n, sizeof *out, claim_order);
    return rc;
}

/* ---------- results ---------- */

typedef struct {
    uint64_t job_id;
    uint32_t idx;
    const store_proof *proof; /* NULL: a failure */
    const char *error;
    int *recorded, *job_ended;
} record_args;

/* The job's end, when (job_id)'s partitions have all ended. */
static int end_job_if_complete(sqlite_store *s, uint64_t job_id, int *ended, cuzk_error *err)
{
    sqlite3_stmt *st;
    int rc = prepare(s,
                     "UPDATE jobs SET state = CASE WHEN parts_done = n_partitions THEN 'done' ELSE 'failed' END,"
                     " ended_at = " NOW_SQL ""
                     " WHERE id = ?1 AND state = 'queued' AND parts_ended = n_partitions",
                     &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)job_id);
    rc = step_done(s, st, "end a job", err);
    *ended = !rc && sqlite3_changes(s->db) > 0;
    return rc;
}

static int record_in_tx(sqlite_store *s, void *ctx, cuzk_error *err)
{
    record_args *a = ctx;
    const store_proof *p = a->proof;
    sqlite3_stmt *st;
    int rc = prepare(s,
                     p ? "UPDATE partitions SET state = 'done', proof = ?3, publics = ?4, witness_s = ?5, synth_s = ?6,"
                         " device_s = ?7, verified = ?8 WHERE job_id = ?1 AND idx = ?2 AND state = 'running'"
                       : "UPDATE partitions SET state = 'failed', error = ?3"
                         " WHERE job_id = ?1 AND idx = ?2 AND state = 'running'",
                     &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)a->job_id);
    sqlite3_bind_int(st, 2, (int)a->idx);
    unsigned char proof[CUZK_PROOF_BYTES];
    unsigned char *pub = NULL;
    if (p) {
        size_t words = (size_t)p->n_public * 4;
        if (!(pub = malloc(words * 8 + 1))) {
            finish(s, st);
            return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
        }
        cuzk_proof_to_words(p->proof, proof);
        cuzk_words_to_bytes((const uint64_t *)p->publics, words, pub);
        sqlite3_bind_blob(st, 3, proof, CUZK_PROOF_BYTES, SQLITE_STATIC);
        sqlite3_bind_blob(st, 4, pub, (int)(words * 8), SQLITE_STATIC);
        sqlite3_bind_double(st, 5, p->witness_s);
        sqlite3_bind_double(st, 6, p->synth_s);
        sqlite3_bind_double(st, 7, p->device_s);
        sqlite3_bind_int(st, 8, p->verified);
    } else {
        sqlite3_bind_text(st, 3, a->error, -1, SQLITE_STATIC);
    }
    rc = step_done(s, st, p ? "record a proof" : "record a failure", err);
    free(pub);
    *a->recorded = !rc && sqlite3_changes(s->db) > 0;
    if (rc || !*a->recorded)
        return rc;
    if ((rc = prepare(s,
                      p ? "UPDATE jobs SET parts_done = parts_done + 1, parts_ended = parts_ended + 1 WHERE id = ?1"
                        : "UPDATE jobs SET parts_ended = parts_ended + 1,"
                          " error = CASE WHEN error = '' THEN 'partition ' || ?2 || ': ' || ?3 ELSE error END"
                          " WHERE id = ?1",
                      &st, err)))
        return rc;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)a->job_id);
    if (!p) {
        sqlite3_bind_int(st, 2, (int)a->idx);
        sqlite3_bind_text(st, 3, a->error, -1, SQLITE_STATIC);
    }
    if ((rc = step_done(s, st, "count a partition", err)))
        return rc;
    /* its witness is not needed any more */
    update_args drop = {"DELETE FROM inputs WHERE job_id = ?1 AND idx = ?2", a->job_id, a->idx, NULL};
    if ((rc = update_in_tx(s, &drop, err)))
        return rc;
    return end_job_if_complete(s, a->job_id, a->job_ended, err);
}

int store_record_proof(sqlite_store *s, uint64_t job_id, uint32_t idx, const store_proof *p, int *recorded,
                       int *job_ended, cuzk_error *err)
{
    *recorded = *job_ended = 0;
    record_args a = {job_id, idx, p, NULL, recorded, job_ended};
    return transaction(s, SYNC_NORMAL, record_in_tx, &a, err);
}

int store_record_failure(sqlite_store *s, uint64_t job_id, uint32_t idx, const char *error, int *recorded,
                         int *job_ended, cuzk_error *err)
{
    *recorded = *job_ended = 0;
    record_args a = {job_id, idx, NULL, error, recorded, job_ended};
    return transaction(s, SYNC_NORMAL, record_in_tx, &a, err);
}

int store_release(sqlite_store *s, uint64_t job_id, uint32_t idx, cuzk_error *err)
{
    update_args a = {"UPDATE partitions SET state = 'queued', attempts = attempts - 1"
                     " WHERE job_id = ?1 AND idx = ?2 AND state = 'running'",
                     job_id, idx, NULL};
    return transaction(s, SYNC_NORMAL, update_in_tx, &a, err);
}

int store_requeue_running(sqlite_store *s, int *n, cuzk_error *err)
{
    *n = 0;
    update_args a = {"UPDATE partitions SET state = 'queued' WHERE state = 'running'", 0, 0, n};
    return transaction(s, SYNC_NORMAL, update_in_tx, &a, err);
}

static int cancel_in_tx(sqlite_store *s, void *ctx, cuzk_error *err)
{
    update_args *a = ctx;
    long long known = 0;
    sqlite3_stmt *st;
    int rc = prepare(s, "SELECT count(*) FROM jobs WHERE id = ?1", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)a->job_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        known = sqlite3_column_int64(st, 0);
    finish(s, st);
    if (!known)
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown job %" PRIu64, a->job_id);
    update_args job = {"UPDATE jobs SET state = 'cancelled', ended_at = " NOW_SQL ""
                       " WHERE id = ?1 AND state = 'queued'",
                       a->job_id, 0, a->changed};
    update_args parts = {"UPDATE partitions SET state = 'cancelled'"
                         " WHERE job_id = ?1 AND state IN ('queued', 'running')",
                         a->job_id, 0, NULL};
    update_args inputs = {"DELETE FROM inputs WHERE job_id = ?1", a->job_id, 0, NULL};
    rc = update_in_tx(s, &job, err);
    if (!rc && *a->changed && !(rc = update_in_tx(s, &parts, err)))
        rc = update_in_tx(s, &inputs, err);
    return rc;
}

int store_cancel_job(sqlite_store *s, uint64_t job_id, int *ended, cuzk_error *err)
{
    *ended = 0;
    update_args a = {NULL, job_id, 0, ended};
    return transaction(s, SYNC_FULL, cancel_in_tx, &a, err);
}

/* ---------- reading a job ---------- */

static cuzk_job_state state_from(const char *state, int started)
{
    if (!strcmp(state, "done"))
        return CUZK_JOB_DONE;
    if (!strcmp(state, "failed"))
        return CUZK_JOB_FAILED;
    if (!strcmp(state, "cancelled"))
        return CUZK_JOB_CANCELLED;
    return started ? CUZK_JOB_RUNNING : CUZK_JOB_QUEUED;
}

/* The job's row into out; CUZK_ERR_ARG when there is none. */
static int read_job_row(sqlite_store *s, uint64_t job_id, cuzk_job_result *out, cuzk_error *err)
{
    sqlite3_stmt *st;
    int rc = prepare(s,
                     "SELECT state, started_at IS NOT NULL, n_partitions, parts_done, error,"
                     " coalesce(started_at, " NOW_SQL ") - submitted_at,"
                     " coalesce(ended_at, " NOW_SQL ") - submitted_at FROM jobs WHERE id = ?1",
                     &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)job_id);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        out->id = job_id;
        out->state = state_from((const char *)sqlite3_column_text(st, 0), sqlite3_column_int(st, 1));
        out->n_partitions = (uint32_t)sqlite3_column_int(st, 2);
        out->partitions_done = (uint32_t)sqlite3_column_int(st, 3);
        snprintf(out->error, sizeof out->error, "%s", (const char *)sqlite3_column_text(st, 4));
        out->queue_s = sqlite3_column_double(st, 5);
        out->total_s = sqlite3_column_double(st, 6);
    } else if (r == SQLITE_DONE) {
        snprintf(out->error, sizeof out->error, "unknown job %" PRIu64, job_id);
        rc = cuzk_fail(err, CUZK_ERR_ARG, "unknown job %" PRIu64, job_id);
    } else {
        rc = db_fail(s, r, "read a job", err);
    }
    finish(s, st);
    return rc;
}

/* One proved partition's row (idx, proof, publics) into out's arrays;
 * the first one sizes the public signals. */
static int take_proof(sqlite_store *s, sqlite3_stmt *st, cuzk_job_result *out, cuzk_error *err)
{
    uint32_t idx = (uint32_t)sqlite3_column_int(st, 0);
    int proof_len = sqlite3_column_bytes(st, 1), pub_len = sqlite3_column_bytes(st, 2);
    if (idx >= out->n_partitions || proof_len != CUZK_PROOF_BYTES || pub_len % 32)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "the job store %s: job %" PRIu64 " partition %u: a damaged proof",
                         s->path, out->id, idx);
    if (!out->publics) {
        out->n_public = (uint32_t)pub_len / 32;
        out->publics = calloc((size_t)out->n_partitions * (out->n_public ? out->n_public : 1), sizeof *out->publics);
        if (!out->publics)
            return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    } else if ((uint32_t)pub_len / 32 != out->n_public) {
        return cuzk_fail(err, CUZK_ERR_FORMAT, "the job store %s: job %" PRIu64 " partition %u: %d public signals, "
                         "not %u", s->path, out->id, idx, pub_len / 32, out->n_public);
    }
    cuzk_proof_from_words(&out->proofs[idx], sqlite3_column_blob(st, 1));
    cuzk_words_from_bytes(out->publics[(size_t)idx * out->n_public], (size_t)out->n_public * 4,
                          sqlite3_column_blob(st, 2));
    out->proved[idx] = 1;
    return CUZK_OK;
}

/* The partitions' times, and the proofs of an ended job. */
static int read_partitions(sqlite_store *s, cuzk_job_result *out, cuzk_error *err)
{
    int ended = out->state >= CUZK_JOB_DONE;
    if (ended) {
        out->proofs = calloc(out->n_partitions, sizeof *out->proofs);
        out->proved = calloc(out->n_partitions, 1);
        if (!out->proofs || !out->proved)
            return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    }
    sqlite3_stmt *st;
    int rc = prepare(s,
                     "SELECT idx, proof, publics, witness_s, synth_s, device_s, verified FROM partitions"
                     " WHERE job_id = ?1 AND state = 'done' ORDER BY idx",
                     &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)out->id);
    int r, rows = 0;
    out->verified = 1;
    while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        out->witness_s += sqlite3_column_double(st, 3);
        out->synth_s += sqlite3_column_double(st, 4);
        out->device_s += sqlite3_column_double(st, 5);
        out->verified &= sqlite3_column_int(st, 6) != 0;
        if (ended)
            rc = take_proof(s, st, out, err);
    }
    finish(s, st);
    if (!rc && r != SQLITE_DONE)
        rc = db_fail(s, r, "read a job's partitions", err);
    out->verified &= out->state == CUZK_JOB_DONE && rows > 0;
    if (!rc && out->state == CUZK_JOB_DONE && (uint32_t)rows != out->n_partitions)
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "the job store %s: job %" PRIu64 " is done but has %d of %u proofs",
                       s->path, out->id, rows, out->n_partitions);
    if (!rc && ended && !out->publics && !(out->publics = calloc(1, sizeof *out->publics)))
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    return rc;
}

int store_read_job(sqlite_store *s, uint64_t job_id, cuzk_job_result *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&s->lock);
    /* one snapshot: the job's row and its partitions agree */
    int rc = exec(s, "BEGIN", err);
    if (!rc)
        rc = read_job_row(s, job_id, out, err);
    if (!rc)
        rc = read_partitions(s, out, err);
    if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    pthread_mutex_unlock(&s->lock);
    if (rc && rc != CUZK_ERR_ARG) {
        char keep[sizeof out->error];
        snprintf(keep, sizeof keep, "%s", err ? err->msg : "");
        cuzk_job_result_free(out);
        snprintf(out->error, sizeof out->error, "%s", keep);
    }
    return rc;
}

/* ---------- upkeep ---------- */

int store_delete_ended(sqlite_store *s, double retain_s, int *n, cuzk_error *err)
{
    *n = 0;
    char sql[256];
    /* partitions go with their jobs (ON DELETE CASCADE) */
    snprintf(sql, sizeof sql,
             "DELETE FROM jobs WHERE ended_at IS NOT NULL AND ended_at <= " NOW_SQL " - %.6f", retain_s);
    update_args a = {sql, 0, 0, n};
    return transaction(s, SYNC_NORMAL, update_in_tx, &a, err);
}

int store_count(sqlite_store *s, store_counts *c, cuzk_error *err)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st;
    int rc = prepare(s,
                     "SELECT CASE WHEN state = 'queued' AND started_at IS NOT NULL THEN 'running' ELSE state END,"
                     " count(*) FROM jobs GROUP BY 1"
                     " UNION ALL SELECT 'p_' || state, count(*) FROM partitions"
                     " WHERE state IN ('queued', 'running') GROUP BY state",
                     &st, err);
    int r = SQLITE_DONE;
    while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        uint64_t v = (uint64_t)sqlite3_column_int64(st, 1);
        uint64_t *slot = !strcmp(k, "queued")      ? &c->queued
                         : !strcmp(k, "running")   ? &c->running
                         : !strcmp(k, "done")      ? &c->done
                         : !strcmp(k, "failed")    ? &c->failed
                         : !strcmp(k, "cancelled") ? &c->cancelled
                         : !strcmp(k, "p_queued")  ? &c->partitions_queued
                                                   : &c->partitions_running;
        *slot = v;
    }
    if (!rc) {
        finish(s, st);
        if (r != SQLITE_DONE)
            rc = db_fail(s, r, "count jobs", err);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---------- circuits ---------- */

static int add_circuit_in_tx(sqlite_store *s, void *ctx, cuzk_error *err)
{
    const store_circuit *c = ctx;
    sqlite3_stmt *st;
    int rc = prepare(s,
                     "INSERT OR REPLACE INTO circuits (id, zkey, r1cs, wasm, development, device_only)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                     &st, err);
    if (rc)
        return rc;
    const char *text[] = {c->id, c->zkey, c->r1cs, c->wasm};
    for (int i = 0; i < 4; i++)
        if (text[i])
            sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, c->development);
    sqlite3_bind_int(st, 6, c->device_only);
    return step_done(s, st, "keep a circuit", err);
}

int store_add_circuit(sqlite_store *s, const store_circuit *c, cuzk_error *err)
{
    return transaction(s, SYNC_FULL, add_circuit_in_tx, (void *)c, err);
}

static int remove_circuit_in_tx(sqlite_store *s, void *ctx, cuzk_error *err)
{
    sqlite3_stmt *st;
    int rc = prepare(s, "DELETE FROM circuits WHERE id = ?1", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, ctx, -1, SQLITE_STATIC);
    return step_done(s, st, "forget a circuit", err);
}

int store_remove_circuit(sqlite_store *s, const char *id, cuzk_error *err)
{
    return transaction(s, SYNC_FULL, remove_circuit_in_tx, (void *)id, err);
}

int store_each_circuit(sqlite_store *s, void (*each)(void *ctx, const store_circuit *c), void *ctx, cuzk_error *err)
{
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st;
    int rc = prepare(s, "SELECT id, zkey, r1cs, wasm, development, device_only FROM circuits ORDER BY seq", &st, err);
    int r = SQLITE_DONE;
    while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
        store_circuit c = {(const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
                           (const char *)sqlite3_column_text(st, 2), (const char *)sqlite3_column_text(st, 3),
                           sqlite3_column_int(st, 4), sqlite3_column_int(st, 5)};
        each(ctx, &c);
    }
    if (!rc) {
        finish(s, st);
        if (r != SQLITE_DONE)
            rc = db_fail(s, r, "read the circuits", err);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}
