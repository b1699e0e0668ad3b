#define _GNU_SOURCE /* O_TMPFILE, mkostemp, sync_file_range */
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/err.h"
#include "util/random.h"

void cuzk_file_id_of(const struct stat *st, cuzk_file_id *id)
{
    *id = (cuzk_file_id){(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
                         (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec};
}

int cuzk_file_id_equal(const cuzk_file_id *a, const cuzk_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns;
}

const char *cuzk_file_kind(mode_t mode)
{
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a file";
}

int cuzk_open_regular(const char *path, struct stat *st, cuzk_error *err)
{
    struct stat own;
    if (!st) st = &own;
    if (!path) return cuzk_fail(err, CUZK_ERR_ARG, "no file name given"), -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno)), -1;
    int e = 0;
    const char *kind = NULL;
    if (fstat(fd, st) != 0)
        e = errno;
    else if (!S_ISREG(st->st_mode))
        kind = cuzk_file_kind(st->st_mode);
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        e = errno;
    if (!e && !kind) return fd;
    close(fd);
    if (kind) return cuzk_fail(err, CUZK_ERR_IO, "%s: not a regular file (%s)", path, kind), -1;
    return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(e)), -1;
}

FILE *cuzk_fopen_regular(const char *path, struct stat *st, cuzk_error *err)
{
    int fd = cuzk_open_regular(path, st, err);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        cuzk_fail(err, CUZK_ERR_NOMEM, "%s: cannot open as a stream: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

int cuzk_file_read_all(const char *path, size_t max, uint8_t **data, size_t *len, cuzk_error *err)
{
    struct stat st;
    *data = NULL;
    *len = 0;
    int fd = cuzk_open_regular(path, &st, err);
    if (fd < 0) return err ? err->code : CUZK_ERR_IO;
    int rc = CUZK_OK;
    size_t size = (size_t)st.st_size, got = 0;
    uint8_t *buf = NULL;
    if ((uint64_t)st.st_size > max)
        rc = cuzk_fail(err, CUZK_ERR_IO, "%s: %llu bytes is more than the %zu this reader takes", path,
                       (unsigned long long)st.st_size, max);
    else if (!(buf = malloc(size + 1)))
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for its %zu bytes", path, size);
    while (!rc && got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n > 0) got += (size_t)n;
        else if (n == 0 || errno != EINTR)
            rc = cuzk_fail(err, CUZK_ERR_IO, "%s: read failed after %zu of %zu bytes: %s", path, got, size,
                           n ? strerror(errno) : "the file got shorter");
    }
    close(fd);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[size] = 0;
    *data = buf;
    *len = size;
    return CUZK_OK;
}

/* ---- outputs ---- */

/* The folder of path (a fresh string), "." for a bare name. */
static char *folder_of(const char *path)
{
    char *copy = strdup(path);
    if (!copy) return NULL;
    char *dir = strdup(dirname(copy));
    free(copy);
    return dir;
}

static void fsync_folder(const char *path)
{
    char *dir = folder_of(path);
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

/* The umask, read without changing it (umask(2) would, for every thread):
 * from /proc, else the strictest. */
static mode_t process_umask(void)
{
    unsigned mask = 077;
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &mask) == 1) break;
    if (f) fclose(f);
    return (mode_t)mask;
}

/* A nameless file in path's folder (O_TMPFILE), or a named one. */
static int open_temporary(cuzk_outfile *o, cuzk_error *err)
{
    char *dir = folder_of(o->path);
    if (!dir) return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
#ifdef O_TMPFILE
    o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
#else
    o->fd = -1;
#endif
    free(dir);
    if (o->fd >= 0) return CUZK_OK;
    size_t len = strlen(o->path);
    if (!(o->tmp = malloc(len + 12))) return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    memcpy(o->tmp, o->path, len);
    memcpy(o->tmp + len, ".tmp.XXXXXX", 12);
    o->fd = mkostemp(o->tmp, O_CLOEXEC);
    if (o->fd < 0) {
        int rc = cuzk_fail(err, CUZK_ERR_IO, "%s: cannot create a temporary file beside it: %s", o->path,
                           strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return rc;
    }
    (void)fchmod(o->fd, 0666 & ~process_umask());
    return CUZK_OK;
}

int cuzk_outfile_open(cuzk_outfile *o, const char *path, cuzk_error *err)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path) return cuzk_fail(err, CUZK_ERR_ARG, "no file name given");
    o->path = path;
    struct stat st;
    o->direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (o->direct && S_ISDIR(st.st_mode)) return cuzk_fail(err, CUZK_ERR_IO, "%s: is a directory", path);
    int rc = CUZK_OK;
    if (o->direct) {
        o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (o->fd < 0) rc = cuzk_fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    } else {
        rc = open_temporary(o, err);
    }
    if (!rc) {
        int dup_fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
        if (dup_fd < 0 || !(o->f = fdopen(dup_fd, "wb"))) {
            if (dup_fd >= 0) close(dup_fd);
            rc = cuzk_fail(err, CUZK_ERR_NOMEM, "%s: cannot open a stream: %s", path, strerror(errno));
        }
    }
    if (rc) cuzk_outfile_abort(o);
    return rc;
}

void cuzk_outfile_start_writeback(cuzk_outfile *o, uint64_t end)
{
    if (o->direct || !o->f || end <= o->written_back || fflush(o->f) != 0) return;
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(o->fd, (off_t)o->written_back, (off_t)(end - o->written_back), SYNC_FILE_RANGE_WRITE);
#endif
    o->written_back = end;
}

int cuzk_outfile_close(cuzk_outfile *o, cuzk_error *err)
{
    FILE *f = o->f;
    o->f = NULL;
    int bad = !f || fflush(f) != 0 || ferror(f);
    int e = errno;
    /* devices and pipes cannot be fsynced (EINVAL); regular files must be */
    if (!bad && !o->direct && fsync(o->fd) != 0) bad = 1, e = errno;
    if (f && fclose(f) != 0 && !bad) bad = 1, e = errno;
    if (!bad) return CUZK_OK;
    int rc = cuzk_fail(err, CUZK_ERR_IO, "%s: write failed: %s", o->path, strerror(e ? e : EIO));
    cuzk_outfile_abort(o);
    return rc;
}

/* Links the nameless file under a fresh temporary name beside path. */
static int name_temporary(cuzk_outfile *o, cuzk_error *err)
{
    size_t len = strlen(o->path);
    if (!(o->tmp = malloc(len + 24))) return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    for (int tries = 0; tries < 16; tries++) {
        uint32_t r = 0;
        (void)cuzk_random_bytes(&r, sizeof r);
        snprintf(o->tmp, len + 24, "%s.tmp.%08" PRIx32, o->path, r);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0) return CUZK_OK;
        if (errno != EEXIST) break;
    }
    int rc = cuzk_fail(err, CUZK_ERR_IO, "%s: cannot give the new file a name: %s", o->path, strerror(errno));
    free(o->tmp);
    o->tmp = NULL;
    return rc;
}

int cuzk_outfile_publish(cuzk_outfile *o, cuzk_error *err)
{
    int rc = CUZK_OK;
    if (!o->direct) {
        if (!o->tmp) rc = name_temporary(o, err);
        if (!rc && rename(o->tmp, o->path) != 0)
            rc = cuzk_fail(err, CUZK_ERR_IO, "%s: cannot put the new file in place: %s", o->path, strerror(errno));
        if (!rc) {
            free(o->tmp);
            o->tmp = NULL;
            fsync_folder(o->path);
        }
    }
    cuzk_outfile_abort(o);
    return rc;
}

int cuzk_outfile_commit(cuzk_outfile *o, cuzk_error *err)
{
    int rc = cuzk_outfile_close(o, err);
    return rc ? rc : cuzk_outfile_publish(o, err);
}

int cuzk_outfile_commit_all(cuzk_outfile *o, int n, cuzk_error *err)
{
    int rc = CUZK_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = cuzk_outfile_close(&o[i], err);
    for (int i = 0; i < n && !rc; i++)
        rc = cuzk_outfile_publish(&o[i], err);
    for (int i = 0; i < n; i++)
        cuzk_outfile_abort(&o[i]);
    return rc;
}

void cuzk_outfile_abort(cuzk_outfile *o)
{
    if (!o->path) return; /* zeroed: never opened */
    if (o->f) fclose(o->f);
    if (o->fd >= 0) close(o->fd);
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    o->f = NULL;
    o->fd = -1;
    o->tmp = NULL;
}
