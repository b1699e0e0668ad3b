# A private PostgreSQL server for the cluster's test and benchmark (sourced,
# not a test of its own): initdb into a temporary folder, listening only on a
# unix socket there, run as an unprivileged user (the server refuses root:
# nobody when we are root). The caller stops it in its EXIT trap (pg_stop).
#   pg_start DIR   sets PG_CONNINFO; returns 77 (skip) with a line saying why
#                  when no server can be run here
#   pg_stop / pg_restart / pg_pause (stop only) / pg_resume
pg_bin() {
    local d
    d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

pg_as() { # runs a command as the server's user
    if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

pg_start() {
    PG_BIN=$(pg_bin) || { echo "SKIP: no PostgreSQL server binaries (apt-get install postgresql)"; return 77; }
    PG_DIR=$1/pg
    mkdir -p "$PG_DIR"
    if [ "$(id -u)" -eq 0 ]; then
        command -v runuser >/dev/null || { echo "SKIP: root without runuser cannot start postgres"; return 77; }
        chown nobody "$PG_DIR"
        chmod 755 "$1"
    fi
    pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U cuzk --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
        { cat "$PG_DIR/initdb.log"; echo "SKIP: initdb failed as $(pg_as id -un)"; return 77; }
    pg_resume || return 1
    PG_CONNINFO="host=$PG_DIR dbname=postgres user=cuzk"
}

# The settings a test server wants: no durability (a test's data is thrown
# away), enough connections for several daemons.
pg_resume() {
    pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
        -o "-k $PG_DIR -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        start >/dev/null || { tail -n 20 "$PG_DIR/server.log"; return 1; }
}

pg_pause() { pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null; }

pg_stop() {
    [ -n "${PG_DIR:-}" ] && [ -f "$PG_DIR/data/postmaster.pid" ] &&
        pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
    return 0
}

# psql on the test server: pg_sql "SELECT ..." prints unaligned rows
pg_sql() { "$PG_BIN/psql" "$PG_CONNINFO" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }
