#define _GNU_SOURCE /* O_NOFOLLOW */
#include "witness/wasm_cache_object.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/file.h"

static const char seal_magic[8] = {'c', 'u', 'z', 'k', '-', 's', 'o', '1'};
enum { SEAL_BYTES = 8 + 8 + 32, CHUNK = 1 << 20 };

/* Whether st may be loaded by this user: its own, writable by no one else. */
static int owned(const char *path, const char *what, const struct stat *st, cuzk_error *err)
{
    if (st->st_uid != geteuid())
        return cuzk_fail(err, CUZK_ERR_IO,
                         "%s: the %s is owned by uid %u, not by this user (uid %u): cuzk loads code only from "
                         "its own wasm cache; use a cache folder of your own (CUZK_WASM_CACHE, [keys] "
                         "wasm_cache_dir)",
                         path, what, (unsigned)st->st_uid, (unsigned)geteuid());
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return cuzk_fail(err, CUZK_ERR_IO,
                         "%s: the %s is writable by %s (mode %04o): cuzk loads code from it and refuses; "
                         "chmod go-w it, or use a cache folder of your own",
                         path, what, st->st_mode & S_IWOTH ? "others" : "its group",
                         (unsigned)(st->st_mode & 07777));
    return CUZK_OK;
}

int wasm_folder_check(const char *folder, cuzk_error *err)
{
    struct stat st;
    if (lstat(folder, &st))
        return cuzk_fail(err, CUZK_ERR_IO, "%s: the wasm cache folder: %s", folder, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cuzk_fail(err, CUZK_ERR_IO, "%s: the wasm cache folder is %s, not a folder", folder,
                         cuzk_file_kind(st.st_mode));
    return owned(folder, "wasm cache folder", &st, err);
}

/* SHA-256 of the first len bytes of fd; CUZK_OK, or why not. */
static int hash_fd(int fd, const char *path, uint64_t len, uint8_t md[32], cuzk_error *err)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint8_t *buf = malloc(CHUNK);
    int rc = ctx && buf && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)
                 ? CUZK_OK
                 : cuzk_fail(err, CUZK_ERR_NOMEM, "no memory to hash %s", path);
    for (uint64_t at = 0; !rc && at < len;) {
        size_t want = len - at < CHUNK ? (size_t)(len - at) : CHUNK;
        ssize_t n = pread(fd, buf, want, (off_t)at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) rc = cuzk_fail(err, CUZK_ERR_IO, "%s: cannot read: %s", path, n ? strerror(errno) : "short");
        else if (!EVP_DigestUpdate(ctx, buf, (size_t)n)) rc = cuzk_fail(err, CUZK_ERR_NOMEM, "SHA-256 failed");
        else at += (uint64_t)n;
    }
    unsigned int md_len = 0;
    if (!rc && !EVP_DigestFinal_ex(ctx, md, &md_len)) rc = cuzk_fail(err, CUZK_ERR_NOMEM, "SHA-256 failed");
    free(buf);
    EVP_MD_CTX_free(ctx);
    return rc;
}

int wasm_object_check(const char *path, cuzk_error *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot open the cached object: %s%s", path, strerror(errno),
                         errno == ELOOP ? " (a symbolic link: refused)" : "");
    struct stat st;
    int rc = fstat(fd, &st) ? cuzk_fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno)) : CUZK_OK;
    if (!rc && !S_ISREG(st.st_mode))
        rc = cuzk_fail(err, CUZK_ERR_IO, "%s: the cached object is %s, not a file", path, cuzk_file_kind(st.st_mode));
    if (!rc) rc = owned(path, "cached object", &st, err);
    uint8_t seal[SEAL_BYTES], md[32];
    uint64_t size = (uint64_t)st.st_size, body = 0;
    if (!rc && (size < SEAL_BYTES || pread(fd, seal, SEAL_BYTES, (off_t)(size - SEAL_BYTES)) != SEAL_BYTES ||
                memcmp(seal, seal_magic, sizeof seal_magic)))
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: the cached object has no seal (cut short, or of an older cuzk)",
                       path);
    for (int i = 0; !rc && i < 8; i++) body |= (uint64_t)seal[8 + i] << (8 * i);
    if (!rc && body != size - SEAL_BYTES)
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: the cached object is %llu bytes, its seal says %llu", path,
                       (unsigned long long)(size - SEAL_BYTES), (unsigned long long)body);
    if (!rc) rc = hash_fd(fd, path, body, md, err);
    if (!rc && memcmp(md, seal + 16, 32))
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: the cached object's SHA-256 is not its seal's", path);
    close(fd);
    return rc;
}

int wasm_object_seal(const char *from, const char *to, cuzk_error *err)
{
    struct stat st;
    int in = cuzk_open_regular(from, &st, err);
    if (in < 0) return CUZK_ERR_IO;
    uint8_t seal[SEAL_BYTES];
    uint64_t size = (uint64_t)st.st_size;
    memcpy(seal, seal_magic, sizeof seal_magic);
    for (int i = 0; i < 8; i++) seal[8 + i] = (uint8_t)(size >> (8 * i));
    int rc = hash_fd(in, from, size, seal + 16, err);
    cuzk_outfile o;
    if (!rc) rc = cuzk_outfile_open(&o, to, err);
    if (rc) {
        close(in);
        return rc;
    }
    /* 0644 whatever the umask: an object writable by others is refused */
    int ok = !fchmod(fileno(o.f), 0644);
    uint8_t *buf = malloc(CHUNK);
    for (uint64_t at = 0; ok && buf && at < size;) {
        ssize_t n = pread(in, buf, size - at < CHUNK ? (size_t)(size - at) : CHUNK, (off_t)at);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0 && fwrite(buf, 1, (size_t)n, o.f) == (size_t)n;
        at += ok ? (uint64_t)n : 0;
    }
    ok = ok && buf && fwrite(seal, 1, SEAL_BYTES, o.f) == SEAL_BYTES;
    int saved = errno;
    free(buf);
    close(in);
    if (!ok) {
        cuzk_outfile_abort(&o);
        return cuzk_fail(err, CUZK_ERR_IO, "cannot cache the compiled circuit at %s: %s", to, strerror(saved));
    }
    return cuzk_outfile_commit(&o, err);
}
