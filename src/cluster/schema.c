#include "cluster/schema.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/err.h"

/* Migration i brings the schema from version i to i + 1. Append only: a
 * released migration is never edited, a change is a new entry. */
static const char *const migrations[] = {
    /* 1: nodes, jobs, partitions, results */
    "CREATE TABLE cuzk_nodes ("
    "  name text PRIMARY KEY,"
    "  started_at timestamptz NOT NULL DEFAULT now(),"
    "  last_seen timestamptz NOT NULL DEFAULT now(),"
    "  capacity integer NOT NULL DEFAULT 0);"
    "CREATE SEQUENCE cuzk_job_ids;"
    "CREATE TABLE cuzk_jobs ("
    "  id bigint PRIMARY KEY DEFAULT nextval('cuzk_job_ids'),"
    "  request_id text UNIQUE,"
    "  payload_hash bigint NOT NULL,"
    "  circuit text NOT NULL,"
    "  priority smallint NOT NULL CHECK (priority BETWEEN 0 AND 3),"
    "  n_partitions integer NOT NULL CHECK (n_partitions > 0),"
    "  parts_done integer NOT NULL DEFAULT 0,"
    "  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done', 'failed', 'cancelled')),"
    "  error text NOT NULL DEFAULT '',"
    "  submitted_by text NOT NULL,"
    "  submitted_at timestamptz NOT NULL DEFAULT now(),"
    "  first_claim_at timestamptz,"
    "  ended_at timestamptz);"
    "ALTER SEQUENCE cuzk_job_ids OWNED BY cuzk_jobs.id;"
    "CREATE TABLE cuzk_partitions ("
    "  job_id bigint NOT NULL REFERENCES cuzk_jobs (id) ON DELETE CASCADE,"
    "  idx integer NOT NULL,"
    "  circuit text NOT NULL,"
    "  priority smallint NOT NULL,"
    "  state text NOT NULL DEFAULT 'queued'"
    "    CHECK (state IN ('queued', 'claimed', 'done', 'failed', 'cancelled')),"
    "  witness_path text,"
    "  witness bytea,"
    "  witness_curve smallint,"
    "  owner text,"
    "  attempts integer NOT NULL DEFAULT 0,"
    "  last_error text NOT NULL DEFAULT '',"
    "  queued_at timestamptz NOT NULL DEFAULT now(),"
    "  not_before timestamptz NOT NULL DEFAULT now(),"
    "  claimed_at timestamptz,"
    "  PRIMARY KEY (job_id, idx),"
    "  CHECK ((witness_path IS NULL) <> (witness IS NULL)),"
    "  CHECK ((state = 'claimed') = (owner IS NOT NULL)));"
    /* the claim's order, over the queued rows only */
    "CREATE INDEX cuzk_partitions_queued ON cuzk_partitions (priority, job_id, idx) WHERE state = 'queued';"
    "CREATE INDEX cuzk_partitions_claimed ON cuzk_partitions (owner) WHERE state = 'claimed';"
    "CREATE TABLE cuzk_results ("
    "  job_id bigint NOT NULL,"
    "  idx integer NOT NULL,"
    "  proof bytea NOT NULL,"
    "  publics bytea NOT NULL,"
    "  node text NOT NULL,"
    "  attempt integer NOT NULL,"
    "  synth_s double precision NOT NULL,"
    "  gpu_s double precision NOT NULL,"
    "  verified boolean NOT NULL,"
    "  recorded_at timestamptz NOT NULL DEFAULT now(),"
    "  PRIMARY KEY (job_id, idx),"
    "  FOREIGN KEY (job_id, idx) REFERENCES cuzk_partitions ON DELETE CASCADE);",
    /* 2: a claim's deadline ([cluster] claim_max_s), past which any node
     * takes it back from its owner, live or not */
    "ALTER TABLE cuzk_partitions ADD COLUMN claim_deadline timestamptz;"
    "CREATE INDEX cuzk_partitions_deadline ON cuzk_partitions (claim_deadline) WHERE state = 'claimed';"
    /* and the retention sweep's order ([cluster] retain_s) */
    "CREATE INDEX cuzk_jobs_ended ON cuzk_jobs (ended_at) WHERE ended_at IS NOT NULL;",
    /* 3: a partition given as the circuit's input JSON, its witness
     * calculated by the claiming node: exactly one of the three (the
     * version-1 check, named by the server, is found by what it says) */
    "ALTER TABLE cuzk_partitions ADD COLUMN input_json text;"
    "DO $$ DECLARE n text; BEGIN"
    "  SELECT conname INTO n FROM pg_constraint WHERE conrelid = 'cuzk_partitions'::regclass AND contype = 'c'"
    "    AND pg_get_constraintdef(oid) LIKE '%witness_path IS NULL%witness IS NULL%';"
    "  EXECUTE format('ALTER TABLE cuzk_partitions DROP CONSTRAINT %I', n);"
    "END $$;"
    "ALTER TABLE cuzk_partitions ADD CONSTRAINT cuzk_partitions_one_input"
    "  CHECK (num_nonnulls(witness_path, witness, input_json) = 1);",
    /* 4: the key a job is proved under (a hash of the verification key of
     * the circuit on the daemon that took the job): nodes whose circuit of
     * that id has another key do not claim its partitions (NULL: a job of
     * an earlier daemon, any key) */
    "ALTER TABLE cuzk_partitions ADD COLUMN key_hash text;"
    "ALTER TABLE cuzk_jobs ADD COLUMN key_hash text;",
};

enum { N_MIGRATIONS = sizeof migrations / sizeof migrations[0] };

int schema_version_latest(void) { return N_MIGRATIONS; }

typedef struct {
    int target, *from;
} migration_plan;

static int migrate_locked(pg_conn *c, void *ctx, cuzk_error *err)
{
    const migration_plan *plan = ctx;
    /* one key for every cuzk daemon: 'cuzk' in ASCII */
    int rc = pg_script(c,
                       "SELECT pg_advisory_xact_lock(1668641387);"
                       "CREATE TABLE IF NOT EXISTS cuzk_schema_version ("
                       "  version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                       err);
    long long version = 0;
    if (!rc)
        rc = pg_exec_int(c, "SELECT max(version) FROM cuzk_schema_version", 0, NULL, &version, err);
    if (rc)
        return rc;
    if (plan->from)
        *plan->from = (int)version;
    if (version > N_MIGRATIONS)
        return cuzk_fail(err, CUZK_ERR_MISMATCH,
                         "the database's cluster schema is version %lld, newer than this daemon's (%d): upgrade cuzk",
                         version, N_MIGRATIONS);
    for (int v = (int)version; v < plan->target; v++) {
        char number[16];
        snprintf(number, sizeof number, "%d", v + 1);
        const char *values[] = {number};
        if ((rc = pg_script(c, migrations[v], err)) ||
            (rc = pg_exec(c, "INSERT INTO cuzk_schema_version (version) VALUES ($1)", 1, values, NULL, NULL, NULL,
                          err)))
            return rc;
    }
    return CUZK_OK;
}

int schema_migrate_to(pg_conn *c, int version, int *from, cuzk_error *err)
{
    if (version < 1 || version > N_MIGRATIONS)
        return cuzk_fail(err, CUZK_ERR_ARG, "no cluster schema version %d (this build knows 1 to %d)", version,
                         N_MIGRATIONS);
    migration_plan plan = {version, from};
    return pg_transaction(c, migrate_locked, &plan, err);
}

int schema_migrate(pg_conn *c, int *from, cuzk_error *err) { return schema_migrate_to(c, N_MIGRATIONS, from, err); }
