#define _GNU_SOURCE /* pipe2 */
#include "pg_server.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

static const char script[] = "tests/cli/pg_server.bash";

/* In the guardian: waits for the test program's end (EOF: every write end
 * closed), then stops the server. Interrupts are the test program's to
 * take; the guardian outlives them to clean up. */
static void guard_run(int fd, const char *dir)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    char byte;
    while (read(fd, &byte, 1) != 0)
        ;
    execlp("bash", "bash", "-c",
           ". tests/cli/pg_server.bash; PG_BIN=$(pg_bin) && PG_DIR=$0/pg && pg_stop; rm -rf \"$0\"", dir,
           (char *)NULL);
    _exit(127);
}

static int guard_start(pg_server *s)
{
    int fds[2];
    /* close-on-exec: the server started later must not hold the write end,
     * or the guardian would never see the test program end */
    if (pipe2(fds, O_CLOEXEC)) {
        perror("pipe2");
        return 1;
    }
    fflush(NULL);
    s->guard = fork();
    if (s->guard < 0) {
        perror("fork");
        return 1;
    }
    if (!s->guard) {
        close(fds[1]);
        guard_run(fds[0], s->dir);
    }
    close(fds[0]);
    s->guard_fd = fds[1];
    return 0;
}

int pg_server_start(pg_server *s)
{
    memset(s, 0, sizeof *s);
    s->guard_fd = -1;
    if (access(script, R_OK)) {
        printf("%s not found: run from the repository root\n", script);
        return 1;
    }
    snprintf(s->dir, sizeof s->dir, "/tmp/cuzk-pg-XXXXXX");
    if (!mkdtemp(s->dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (guard_start(s)) {
        remove_tree(s->dir);
        return 1;
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "bash -c '. %s && pg_start \"$0\" && printf %%s \"$PG_CONNINFO\" >\"$0/conninfo\"' %s", script, s->dir);
    int status = system(cmd), rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    char path[96];
    snprintf(path, sizeof path, "%s/conninfo", s->dir);
    FILE *f = rc ? NULL : fopen(path, "r");
    if (f) {
        if (!fgets(s->conninfo, sizeof s->conninfo, f))
            s->conninfo[0] = 0;
        fclose(f);
    }
    if (!rc && !s->conninfo[0]) {
        printf("the server started but left no conninfo in %s\n", path);
        rc = 1;
    }
    if (rc) {
        pg_server_stop(s);
        return rc == 77 ? 77 : 1;
    }
    return 0;
}

void pg_server_stop(pg_server *s)
{
    if (s->guard_fd < 0)
        return;
    close(s->guard_fd);
    s->guard_fd = -1;
    waitpid(s->guard, NULL, 0);
}

void pg_server_conninfo(const pg_server *s, const char *dbname, char *out, size_t size)
{
    /* libpq takes a keyword's last value */
    snprintf(out, size, "%s dbname=%s", s->conninfo, dbname);
}
