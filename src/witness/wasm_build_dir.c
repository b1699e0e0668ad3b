#define _GNU_SOURCE /* mkdtemp, O_DIRECTORY, O_NOFOLLOW */
#include "witness/wasm_build_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/err.h"

static const char prefix[] = ".build-", lock_name[] = "lock";

/* Unlinks every entry of the folder at path (a build's: files only), then
 * the folder. */
static void remove_tree_flat(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0) close(fd);
        return;
    }
    for (struct dirent *de; (de = readdir(dir));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) unlinkat(fd, de->d_name, 0);
    closedir(dir);
    rmdir(path);
}

int wasm_build_dir_make(wasm_build_dir *d, const char *folder, cuzk_error *err)
{
    d->lock_fd = -1;
    if (snprintf(d->path, sizeof d->path, "%s/%sXXXXXX", folder, prefix) >= (int)sizeof d->path)
        return cuzk_fail(err, CUZK_ERR_IO, "the wasm cache folder's name is too long");
    if (!mkdtemp(d->path))
        return cuzk_fail(err, CUZK_ERR_IO, "cannot make a build folder in %s: %s", folder, strerror(errno));
    char lock[sizeof d->path + 8];
    snprintf(lock, sizeof lock, "%s/%s", d->path, lock_name);
    d->lock_fd = open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (d->lock_fd < 0 || flock(d->lock_fd, LOCK_EX)) {
        int saved = errno;
        wasm_build_dir_remove(d);
        return cuzk_fail(err, CUZK_ERR_IO, "cannot lock the build folder in %s: %s", folder, strerror(saved));
    }
    return CUZK_OK;
}

void wasm_build_dir_remove(wasm_build_dir *d)
{
    remove_tree_flat(d->path);
    if (d->lock_fd >= 0) close(d->lock_fd);
    d->lock_fd = -1;
}

/* Whether the build folder at path is nobody's (wasm_build_dir.h): 1 with
 * *held its lock, taken (-1: it has none), or 0. */
static int abandoned(const char path[WASM_BUILD_DIR_CAP + 256], int *held)
{
    char lock[WASM_BUILD_DIR_CAP + 256 + 8];
    snprintf(lock, sizeof lock, "%s/%s", path, lock_name);
    *held = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (*held < 0) {
        struct stat st;
        return errno == ENOENT && !lstat(path, &st) && S_ISDIR(st.st_mode) &&
               difftime(time(NULL), st.st_mtime) > WASM_BUILD_DIR_ORPHAN_S;
    }
    if (!flock(*held, LOCK_EX | LOCK_NB)) return 1;
    close(*held);
    *held = -1;
    return 0;
}

int wasm_build_dir_sweep(const char *folder)
{
    DIR *dir = opendir(folder);
    if (!dir) return 0;
    int removed = 0;
    for (struct dirent *de; (de = readdir(dir));) {
        if (strncmp(de->d_name, prefix, sizeof prefix - 1)) continue;
        char path[WASM_BUILD_DIR_CAP + 256];
        if (snprintf(path, sizeof path, "%s/%s", folder, de->d_name) >= (int)sizeof path) continue;
        int held;
        if (abandoned(path, &held)) {
            /* removed before its lock is let go: no build takes it meanwhile */
            remove_tree_flat(path);
            removed++;
        }
        if (held >= 0) close(held);
    }
    closedir(dir);
    return removed;
}
