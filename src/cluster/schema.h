/* The cluster's tables in PostgreSQL, created and migrated by version: a
 * table cuzk_schema_version holds the versions applied, and schema.c's
 * migrations, an ordered list, bring a database from any older version to
 * this build's (schema_version_latest), under an advisory lock so that
 * daemons starting together migrate once. A database at a newer version
 * than this build knows is refused (an older daemon must not write to it).
 *
 *   cuzk_nodes       one row per daemon: its name and last heartbeat
 *   cuzk_jobs        id (from a sequence: unique across the cluster and
 *                    restarts), request_id (UNIQUE), payload hash, circuit,
 *                    priority, state, partitions done, error, times
 *   cuzk_partitions  (job_id, idx): state queued | claimed | done | failed
 *                    | cancelled, owner (the claiming node), attempts (also
 *                    the claim's fence), witness (path or inline values),
 *                    last error, not_before (retry backoff)
 *   cuzk_results     (job_id, idx): a partition's proof and public signals,
 *                    recorded once (the primary key) */
#ifndef CUZK_CLUSTER_SCHEMA_H
#define CUZK_CLUSTER_SCHEMA_H

#include "cluster/pg.h"

int schema_version_latest(void);
/* Brings the database to schema_version_latest(); *from (may be NULL) is
 * the version found. */
int schema_migrate(pg_conn *c, int *from, cuzk_error *err);
/* Brings the database up to version (1 .. schema_version_latest(), else
 * CUZK_ERR_ARG), never down: a test makes a database as an older release
 * left it. */
int schema_migrate_to(pg_conn *c, int version, int *from, cuzk_error *err);

#endif
