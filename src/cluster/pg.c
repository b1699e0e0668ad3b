#include "cluster/pg.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/timer.h"

enum { PG_SQLSTATE_UNIQUE = 23505 };
static const double backoff_first_s = 0.1, backoff_max_s = 5;

struct pg_conn {
    PGconn *pq;
    char *conninfo, *on_connect;
    cuzk_logger *log;
    double next_try, backoff, connected_at;
    atomic_ulong connects; /* read by the status of other threads */
};

static int pq_ok(const pg_conn *c) { return c->pq && cuzk_pq.PQstatus(c->pq) == CONNECTION_OK; }

static int run_on_connect(pg_conn *c)
{
    if (!c->on_connect)
        return 0;
    PGresult *r = cuzk_pq.PQexec(c->pq, c->on_connect);
    int ok = cuzk_pq.PQresultStatus(r) == PGRES_COMMAND_OK;
    cuzk_pq.PQclear(r);
    return ok ? 0 : -1;
}

/* The server's notices (NOTICE: relation ... already exists, skipping,
 * from each migration's CREATE ... IF NOT EXISTS) go to the log at debug
 * level instead of libpq's default, stderr. */
static void log_notice(void *ctx, const char *message)
{
    pg_conn *c = ctx;
    char line[256];
    snprintf(line, sizeof line, "%s", message);
    line[strcspn(line, "\n")] = 0;
    for (char *q = line; (q = strchr(q, '"'));)
        *q = '\''; /* the log's quoting */
    CUZK_LOG(c->log, CUZK_LOG_DEBUG, "cluster: database notice", "notice=\"%s\"", line);
}

/* One attempt, if the backoff allows it now. */
static int try_connect(pg_conn *c, cuzk_error *err)
{
    double now = cuzk_now_s();
    if (now < c->next_try)
        return cuzk_fail(err, CUZK_ERR_UNAVAILABLE, "the database is unreachable (next attempt in %.1f s)",
                         c->next_try - now);
    if (c->pq)
        cuzk_pq.PQfinish(c->pq);
    c->pq = cuzk_pq.PQconnectdb(c->conninfo);
    if (c->pq)
        cuzk_pq.PQsetNoticeProcessor(c->pq, log_notice, c);
    if (pq_ok(c) && !run_on_connect(c)) {
        c->backoff = backoff_first_s;
        c->next_try = 0;
        c->connected_at = cuzk_now_s();
        if (c->connects++)
            CUZK_LOG(c->log, CUZK_LOG_INFO, "cluster: database reconnected", "reconnects=%lu", c->connects - 1);
        return CUZK_OK;
    }
    char why[256];
    snprintf(why, sizeof why, "%s", c->pq ? cuzk_pq.PQerrorMessage(c->pq) : "out of memory");
    why[strcspn(why, "\n")] = 0;
    c->next_try = now + c->backoff;
    c->backoff = c->backoff * 2 < backoff_max_s ? c->backoff * 2 : backoff_max_s;
    c->connected_at = 0;
    CUZK_LOG(c->log, CUZK_LOG_WARN, "cluster: database unreachable", "error=\"%s\" retry_s=%.1f", why,
             c->next_try - now);
    return cuzk_fail(err, CUZK_ERR_UNAVAILABLE, "the database is unreachable: %s", why);
}

int pg_ensure(pg_conn *c, cuzk_error *err)
{
    if (pq_ok(c))
        return CUZK_OK;
    c->connected_at = 0;
    return try_connect(c, err);
}

pg_conn *pg_open(const char *conninfo, const char *on_connect, cuzk_logger *log, int connect_now, cuzk_error *err)
{
    if (cuzk_libpq_load(err))
        return NULL;
    pg_conn *c = calloc(1, sizeof *c);
    if (!c || !(c->conninfo = strdup(conninfo)) || (on_connect && !(c->on_connect = strdup(on_connect)))) {
        pg_close(c);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    }
    c->log = log;
    c->backoff = backoff_first_s;
    if (connect_now && try_connect(c, err)) {
        pg_close(c);
        return NULL;
    }
    return c;
}

void pg_close(pg_conn *c)
{
    if (!c)
        return;
    if (c->pq)
        cuzk_pq.PQfinish(c->pq);
    free(c->conninfo);
    free(c->on_connect);
    free(c);
}

/* The status of a failed result: unreachable when the connection is gone. */
static int result_error(pg_conn *c, PGresult *r, cuzk_error *err)
{
    if (!pq_ok(c)) {
        c->connected_at = 0;
        c->next_try = 0; /* the first attempt after a loss is immediate */
        return cuzk_fail(err, CUZK_ERR_UNAVAILABLE, "the database connection was lost: %s",
                         cuzk_pq.PQerrorMessage(c->pq));
    }
    const char *state = r ? cuzk_pq.PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    char msg[400];
    snprintf(msg, sizeof msg, "%s", r ? cuzk_pq.PQresultErrorMessage(r) : cuzk_pq.PQerrorMessage(c->pq));
    msg[strcspn(msg, "\n")] = 0;
    if (state && atoi(state) == PG_SQLSTATE_UNIQUE)
        return cuzk_fail(err, CUZK_ERR_CONFLICT, "database: %s", msg);
    return cuzk_fail(err, CUZK_ERR_IO, "database: %s", msg);
}

int pg_exec(pg_conn *c, const char *sql, int n, const char *const *values, const int *lengths, const int *binary,
            PGresult **out, cuzk_error *err)
{
    if (out)
        *out = NULL;
    int rc = pg_ensure(c, err);
    if (rc)
        return rc;
    PGresult *r = cuzk_pq.PQexecParams(c->pq, sql, n, NULL, values, lengths, binary, 0);
    ExecStatusType st = cuzk_pq.PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        rc = result_error(c, r, err);
        cuzk_pq.PQclear(r);
        return rc;
    }
    if (out)
        *out = r;
    else
        cuzk_pq.PQclear(r);
    return CUZK_OK;
}

int pg_exec_int(pg_conn *c, const char *sql, int n, const char *const *values, long long *out, cuzk_error *err)
{
    PGresult *r;
    int rc = pg_exec(c, sql, n, values, NULL, NULL, &r, err);
    if (rc)
        return rc;
    *out = cuzk_pq.PQntuples(r) && !cuzk_pq.PQgetisnull(r, 0, 0) ? strtoll(cuzk_pq.PQgetvalue(r, 0, 0), NULL, 10) : 0;
    cuzk_pq.PQclear(r);
    return CUZK_OK;
}

int pg_script(pg_conn *c, const char *sql, cuzk_error *err)
{
    int rc = pg_ensure(c, err);
    if (rc)
        return rc;
    PGresult *r = cuzk_pq.PQexec(c->pq, sql);
    ExecStatusType st = cuzk_pq.PQresultStatus(r);
    rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? CUZK_OK : result_error(c, r, err);
    cuzk_pq.PQclear(r);
    return rc;
}

int pg_transaction(pg_conn *c, int (*body)(pg_conn *c, void *ctx, cuzk_error *err), void *ctx, cuzk_error *err)
{
    int rc = pg_script(c, "BEGIN", err);
    if (rc)
        return rc;
    rc = body(c, ctx, err);
    cuzk_error ignored = {0};
    int end = pg_script(c, rc ? "ROLLBACK" : "COMMIT", rc ? &ignored : err);
    return rc ? rc : end;
}

int pg_connected(const pg_conn *c) { return pq_ok(c); }

double pg_retry_in(const pg_conn *c)
{
    double left = c->next_try - cuzk_now_s();
    return left > 0 ? left : 0;
}

double pg_connected_for(const pg_conn *c) { return c->connected_at ? cuzk_now_s() - c->connected_at : 0; }

unsigned long pg_reconnects(const pg_conn *c) { return c->connects ? c->connects - 1 : 0; }

int pg_socket(const pg_conn *c) { return pq_ok(c) ? cuzk_pq.PQsocket(c->pq) : -1; }

int pg_notifications(pg_conn *c, void (*fn)(void *ctx, const char *channel, const char *payload), void *ctx,
                     cuzk_error *err)
{
    int rc = pg_ensure(c, err);
    if (rc)
        return rc;
    if (!cuzk_pq.PQconsumeInput(c->pq))
        return result_error(c, NULL, err);
    for (PGnotify *n; (n = cuzk_pq.PQnotifies(c->pq));) {
        fn(ctx, n->relname, n->extra);
        cuzk_pq.PQfreemem(n);
    }
    return CUZK_OK;
}

int pg_pool_init(pg_pool *p, int n, const char *conninfo, cuzk_logger *log, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    p->conns = calloc((size_t)n, sizeof *p->conns);
    p->busy = calloc((size_t)n, sizeof *p->busy);
    if (!p->conns || !p->busy) {
        pg_pool_free(p);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->n = n;
    for (int i = 0; i < n; i++)
        if (!(p->conns[i] = pg_open(conninfo, NULL, log, 0, err))) {
            pg_pool_free(p);
            return err->code;
        }
    return CUZK_OK;
}

void pg_pool_free(pg_pool *p)
{
    for (int i = 0; p->conns && i < p->n; i++)
        pg_close(p->conns[i]);
    if (p->conns) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->cv);
    }
    free(p->conns);
    free(p->busy);
    memset(p, 0, sizeof *p);
}

pg_conn *pg_pool_get(pg_pool *p)
{
    pthread_mutex_lock(&p->lock);
    for (;;) {
        for (int i = 0; i < p->n; i++)
            if (!p->busy[i]) {
                p->busy[i] = 1;
                pthread_mutex_unlock(&p->lock);
                return p->conns[i];
            }
        pthread_cond_wait(&p->cv, &p->lock);
    }
}

void pg_pool_put(pg_pool *p, pg_conn *c)
{
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->n; i++)
        if (p->conns[i] == c)
            p->busy[i] = 0;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->lock);
}

unsigned char *pg_bytea(const PGresult *r, int row, int col, size_t *len)
{
    *len = 0;
    unsigned char *raw = cuzk_pq.PQunescapeBytea((const unsigned char *)cuzk_pq.PQgetvalue(r, row, col), len);
    if (!raw)
        return NULL;
    /* PQunescapeBytea's memory belongs to libpq's allocator: copy it out */
    unsigned char *out = malloc(*len ? *len : 1);
    if (out)
        memcpy(out, raw, *len);
    cuzk_pq.PQfreemem(raw);
    return out;
}
