#include "jobs/state_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"

/* mkdir -p, each missing level 0750 */
static int make_dirs(const char *dir, cuzk_error *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return cuzk_fail(err, CUZK_ERR_ARG, "state directory %.200s...: too long a path", dir);
    for (char *p = path + 1;; p++) {
        if (*p && *p != '/')
            continue;
        char c = *p;
        *p = 0;
        if (mkdir(path, 0750) && errno != EEXIST)
            return cuzk_fail(err, CUZK_ERR_IO,
                             "cannot make the state directory %s: %s (set [daemon] state_dir, or empty it for jobs "
                             "in memory only)",
                             path, strerror(errno));
        if (!(*p = c))
            break;
    }
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode))
        return cuzk_fail(err, CUZK_ERR_IO, "the state directory %s is not a directory", dir);
    return CUZK_OK;
}

int state_lock_take(const char *dir, int *fd, cuzk_error *err)
{
    *fd = -1;
    int rc = make_dirs(dir, err);
    if (rc)
        return rc;
    char path[4200];
    snprintf(path, sizeof path, "%s/lock", dir);
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
    if (f < 0)
        return cuzk_fail(err, CUZK_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    if (flock(f, LOCK_EX | LOCK_NB)) {
        int e = errno;
        char holder[32] = "";
        ssize_t n = pread(f, holder, sizeof holder - 1, 0);
        holder[n > 0 ? n : 0] = 0;
        holder[strcspn(holder, "\n")] = 0;
        close(f);
        if (e == EWOULDBLOCK)
            return cuzk_fail(err, CUZK_ERR_CONFLICT,
                             "the state directory %s is in use by another daemon (pid %s): two daemons cannot share "
                             "one; give this one its own [daemon] state_dir",
                             dir, holder[0] ? holder : "unknown");
        return cuzk_fail(err, CUZK_ERR_IO, "cannot lock %s: %s", path, strerror(e));
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(f, 0) || pwrite(f, pid, (size_t)len, 0) != len) {
        int e = errno;
        close(f);
        return cuzk_fail(err, e == ENOSPC ? CUZK_ERR_UNAVAILABLE : CUZK_ERR_IO, "cannot write %s: %s", path,
                         e == ENOSPC ? "the disk is full" : strerror(e));
    }
    *fd = f;
    return CUZK_OK;
}

void state_lock_release(int fd)
{
    if (fd >= 0)
        close(fd);
}
