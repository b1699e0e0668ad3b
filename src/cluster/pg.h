/* PostgreSQL connections for the cluster (libpq): one per thread that talks
 * to the database, or a small pool for the API's request threads. A
 * connection that breaks (the server restarted, the network dropped) is
 * opened again on the next call, with a backoff (0.1 s doubling to 5 s)
 * between attempts, so a dead server costs one failed call per backoff
 * rather than a storm. Every call returns a cuzk status: CUZK_ERR_UNAVAILABLE
 * while the server cannot be reached, CUZK_ERR_CONFLICT for a unique
 * violation, CUZK_ERR_IO for any other error the server reports (its message
 * in err). SQL is always a static string with $1... parameters. */
#ifndef CUZK_CLUSTER_PG_H
#define CUZK_CLUSTER_PG_H

#include "cluster/libpq.h"
#include <pthread.h>

#include "cuzk/cuzk.h"
#include "util/log.h"

typedef struct pg_conn pg_conn;

/* A connection to conninfo; on_connect (NULL: none) is run after every
 * (re)connection, e.g. LISTEN statements. With connect_now the first
 * connection is made before this returns and its failure is the result
 * (NULL, err set); otherwise the first call connects. */
pg_conn *pg_open(const char *conninfo, const char *on_connect, cuzk_logger *log, int connect_now, cuzk_error *err);
void pg_close(pg_conn *c);

/* Runs sql with n text parameters (values[i] NULL: SQL NULL); binary[i]
 * set (binary may be NULL) passes values[i] as lengths[i] raw bytes
 * (bytea). Results come as text. On CUZK_OK *out is the result (PQclear
 * it; out may be NULL when no rows are wanted). */
int pg_exec(pg_conn *c, const char *sql, int n, const char *const *values, const int *lengths, const int *binary,
            PGresult **out, cuzk_error *err);
/* pg_exec with text parameters whose answer is one integer: the first
 * row's first column (0 when there is no row or it is NULL). */
int pg_exec_int(pg_conn *c, const char *sql, int n, const char *const *values, long long *out, cuzk_error *err);
/* Runs a script of statements without parameters (migrations, BEGIN). */
int pg_script(pg_conn *c, const char *sql, cuzk_error *err);
/* body(c, ctx, err) between BEGIN and COMMIT, or ROLLBACK when it fails:
 * its code, or COMMIT's. */
int pg_transaction(pg_conn *c, int (*body)(pg_conn *c, void *ctx, cuzk_error *err), void *ctx, cuzk_error *err);

/* Connected now (after the last call); and seconds until the next
 * reconnection attempt may be made (0: now). */
int pg_connected(const pg_conn *c);
double pg_retry_in(const pg_conn *c);
/* Seconds since the current connection was made (0 when there is none). */
double pg_connected_for(const pg_conn *c);
/* Reconnections made since the first connection. */
unsigned long pg_reconnects(const pg_conn *c);
/* The socket to poll for notifications, -1 when not connected. Reads what
 * arrived and hands each notification to fn(ctx, channel, payload);
 * CUZK_ERR_UNAVAILABLE when the connection broke (it is reopened later). */
int pg_socket(const pg_conn *c);
int pg_notifications(pg_conn *c, void (*fn)(void *ctx, const char *channel, const char *payload), void *ctx,
                     cuzk_error *err);
/* Makes sure c is connected (within its backoff): CUZK_OK or
 * CUZK_ERR_UNAVAILABLE. */
int pg_ensure(pg_conn *c, cuzk_error *err);

/* A pool of n connections for threads that each need one briefly. */
typedef struct {
    pg_conn **conns;
    int *busy;
    int n;
    pthread_mutex_t lock;
    pthread_cond_t cv;
} pg_pool;

int pg_pool_init(pg_pool *p, int n, const char *conninfo, cuzk_logger *log, cuzk_error *err);
void pg_pool_free(pg_pool *p);
/* Waits for a free connection of the pool; give it back with pg_pool_put. */
pg_conn *pg_pool_get(pg_pool *p);
void pg_pool_put(pg_pool *p, pg_conn *c);

/* Text of a bytea column (hex or escape form) as fresh bytes (free());
 * NULL when out of memory. */
unsigned char *pg_bytea(const PGresult *r, int row, int col, size_t *len);

#endif
