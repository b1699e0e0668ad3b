/* Files read and written safely.
 *
 * Reading: cuzk_open_regular opens without blocking (O_NONBLOCK: a FIFO with
 * no writer would otherwise block open forever, before any check) and
 * refuses anything but a regular file before a byte is read.
 *
 * Writing: a cuzk_outfile goes to a temporary file in the destination's
 * folder (O_TMPFILE where the file system has it: nameless, so a kill
 * leaves nothing behind; else a named "<path>.tmp.XXXXXX"), is flushed and
 * fsynced, and only then renamed over the path: readers see the old file or
 * the whole new one, never a part. A path that exists and is not a regular
 * file (/dev/null, /dev/stdout, a FIFO) is written in place, and is never
 * removed, whatever happens.
 *
 * Identity: cuzk_file_id says whether the file at a path is still the one
 * read before (device, inode, size, modification time). */
#ifndef CUZK_UTIL_FILE_H
#define CUZK_UTIL_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cuzk/cuzk.h"

typedef struct {
    uint64_t dev, ino, size;
    int64_t mtime_ns;
} cuzk_file_id;

void cuzk_file_id_of(const struct stat *st, cuzk_file_id *id);
int cuzk_file_id_equal(const cuzk_file_id *a, const cuzk_file_id *b);

/* "a FIFO", "a directory", "a character device", ... for messages. */
const char *cuzk_file_kind(mode_t mode);

/* Opens path read-only; returns the descriptor (blocking mode, close on
 * exec) with its fstat in *st (st may be NULL), or -1 with err filled
 * (CUZK_ERR_IO): "<path>: cannot open: <reason>" or "<path>: not a regular
 * file (a FIFO)". Never blocks on a FIFO or a device. */
int cuzk_open_regular(const char *path, struct stat *st, cuzk_error *err);
/* The same as a stdio stream ("rb"); NULL on failure. */
FILE *cuzk_fopen_regular(const char *path, struct stat *st, cuzk_error *err);

/* A regular file's whole contents, at most max bytes: *data (malloc'd, one
 * NUL byte after the *len bytes, so text can be read as a string) and *len.
 * CUZK_OK, or CUZK_ERR_IO (cannot open or read, or larger than max) /
 * CUZK_ERR_NOMEM with err filled and *data NULL. */
int cuzk_file_read_all(const char *path, size_t max, uint8_t **data, size_t *len, cuzk_error *err);

typedef struct {
    FILE *f;          /* write here between open and close */
    const char *path; /* the caller's string; must outlive the handle */
    int fd;           /* kept open after close (an O_TMPFILE file is linked by it) */
    int direct;       /* the path is not a regular file: written in place */
    char *tmp;        /* the named temporary file, when not O_TMPFILE */
    uint64_t written_back; /* bytes whose writing to the disk has begun */
} cuzk_outfile;

/* Starts an output to path (created with mode 0666 less the umask). CUZK_OK,
 * or CUZK_ERR_IO / CUZK_ERR_NOMEM with err filled and o holding nothing. */
int cuzk_outfile_open(cuzk_outfile *o, const char *path, cuzk_error *err);
/* Begins the disk's writing of bytes written_back..end (flushed from the
 * stream, their writeback started, not waited for), so that a large file's
 * fsync at close finds little left: nothing for a device or pipe, and an
 * error shows at close. */
void cuzk_outfile_start_writeback(cuzk_outfile *o, uint64_t end);
/* Flushes, fsyncs and closes the stream; on failure (a full disk, an I/O
 * error) fills err and aborts o (nothing was published). */
int cuzk_outfile_close(cuzk_outfile *o, cuzk_error *err);
/* After a successful close: puts the file in place (rename, then the folder
 * fsynced) and releases o. On failure the temporary file is removed. */
int cuzk_outfile_publish(cuzk_outfile *o, cuzk_error *err);
/* close then publish. */
int cuzk_outfile_commit(cuzk_outfile *o, cuzk_error *err);
/* n outputs that belong together (proof.json and public.json): closes
 * every one, then publishes them, so none is put in place unless all were
 * written whole. On failure every one not yet published is aborted. */
int cuzk_outfile_commit_all(cuzk_outfile *o, int n, cuzk_error *err);
/* Drops the output: the temporary file goes, what stood at the path stays.
 * Safe on a released or zeroed handle. */
void cuzk_outfile_abort(cuzk_outfile *o);

#endif
