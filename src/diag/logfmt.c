#define _GNU_SOURCE /* timegm */
#include "diag/logfmt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* "2026-11-29T22:00:00.123Z" -> seconds since the epoch; -1 on junk. */
static double parse_ts(const char *s)
{
    struct tm tm = {0};
    int ms = 0, used = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &ms, &used) != 7 ||
        !used)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm) + ms / 1000.0;
}

/* Copies the quoted string at q (just past the opening quote) into buf,
 * unescaping; returns the position after the closing quote, or NULL. */
static const char *unquote(const char *q, char *buf, size_t len)
{
    size_t n = 0;
    for (; *q && *q != '"'; q++) {
        char c = *q;
        if (c == '\\' && q[1]) {
            c = *++q;
            c = c == 'n' ? '\n' : c == 'r' ? '\r' : c;
        }
        if (n + 1 < len)
            buf[n++] = c;
    }
    buf[n] = 0;
    return *q == '"' ? q + 1 : NULL;
}

int logfmt_parse(const char *line, log_line *out)
{
    if (strncmp(line, "ts=", 3) || (out->t = parse_ts(line + 3)) < 0)
        return -1;
    const char *msg = strstr(line, " msg=\"");
    if (!msg || !strstr(line, " level="))
        return -1;
    const char *after = unquote(msg + 6, out->msg, sizeof out->msg);
    if (!after)
        return -1;
    out->fields = after;
    return 0;
}

int logfmt_field(const char *fields, const char *key, char *buf, size_t len)
{
    size_t klen = strlen(key);
    for (const char *p = fields; (p = strstr(p, key)); p += klen) {
        if ((p != fields && p[-1] != ' ') || p[klen] != '=')
            continue;
        const char *v = p + klen + 1;
        if (*v == '"')
            return unquote(v + 1, buf, len) ? 0 : -1;
        size_t n = strcspn(v, " \n");
        snprintf(buf, len, "%.*s", (int)n, v);
        return 0;
    }
    return -1;
}
