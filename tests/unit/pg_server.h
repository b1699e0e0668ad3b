/* A private PostgreSQL server for a test program: tests/cli/pg_server.bash's
 * pg_start in a fresh temporary folder (initdb as an unprivileged user, a
 * unix socket in that folder, no TCP), so the unit tests and the CLI tests
 * start their servers one way. A guardian process, forked before the
 * server starts, stops the server and removes the folder when the test
 * program ends however it ends (an assertion, a sanitizer's abort, a
 * signal): it waits for its pipe from the test program to close. Run from
 * the repository root, as tests/run-all does. */
#ifndef CUZK_TESTS_PG_SERVER_H
#define CUZK_TESTS_PG_SERVER_H

#include <sys/types.h>

typedef struct {
    char dir[64];
    char conninfo[256]; /* the server's postgres database */
    int guard_fd;       /* the write end of the guardian's pipe */
    pid_t guard;
} pg_server;

/* 0 with the server running; 77 after printing "SKIP: ..." where no
 * server can run here (no postgres binaries, root without runuser, initdb
 * refused); 1 after printing why for anything else. */
int pg_server_start(pg_server *s);
/* Stops the server and removes its folder; returns when both are done. */
void pg_server_stop(pg_server *s);
/* s's conninfo for database dbname (letters, digits and _) into out. */
void pg_server_conninfo(const pg_server *s, const char *dbname, char *out, size_t size);

#endif
