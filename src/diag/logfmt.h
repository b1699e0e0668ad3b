/* Reading back the log lines util/log.h writes:
 *   ts=2026-11-29T22:00:00.123Z level=info msg="pinned pool: checkin" job_id=7 partition=2 */
#ifndef CUZK_DIAG_LOGFMT_H
#define CUZK_DIAG_LOGFMT_H

#include <stddef.h>

typedef struct {
    double t;           /* seconds since the epoch (UTC), millisecond resolution */
    char msg[128];      /* unescaped */
    const char *fields; /* what follows msg in the line: key=value ... */
} log_line;

/* 0, or -1 when line is not one of ours (no ts, level or msg). */
int logfmt_parse(const char *line, log_line *out);

/* The value of key among fields (quotes removed) into buf; 0, or -1 when
 * the key is absent. */
int logfmt_field(const char *fields, const char *key, char *buf, size_t len);

#endif
