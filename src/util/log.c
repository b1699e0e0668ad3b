#include "util/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cuzk_logger {
    pthread_mutex_t mu; /* one line at a time; guards f across reopen */
    FILE *f;
    char *path;         /* NULL: stderr, never closed or reopened */
    cuzk_log_level level;
};

#define LOG_LEVEL_NAME_(NAME, name) [CUZK_LOG_##NAME] = #name,
static const char *const log_level_names[CUZK_N_LOG_LEVELS] = {CUZK_LOG_LEVELS(LOG_LEVEL_NAME_)};

const char *cuzk_log_level_name(cuzk_log_level level)
{
    return (unsigned)level < CUZK_N_LOG_LEVELS ? log_level_names[level] : "?";
}

int cuzk_log_level_from_name(const char *name)
{
    for (int i = 0; i < CUZK_N_LOG_LEVELS; i++)
        if (!strcmp(name, log_level_names[i]))
            return i;
    return -1;
}

cuzk_logger *cuzk_logger_open(const char *path, cuzk_log_level level)
{
    cuzk_logger *lg = calloc(1, sizeof *lg);
    if (!lg)
        return NULL;
    if (path) {
        lg->path = strdup(path);
        lg->f = lg->path ? fopen(path, "a") : NULL;
        if (!lg->f) {
            free(lg->path);
            free(lg);
            return NULL;
        }
    } else {
        lg->f = stderr;
    }
    if (pthread_mutex_init(&lg->mu, NULL) != 0) {
        if (lg->path)
            fclose(lg->f);
        free(lg->path);
        free(lg);
        return NULL;
    }
    lg->level = level;
    return lg;
}

int cuzk_logger_reopen(cuzk_logger *lg)
{
    if (!lg)
        return -1;
    if (!lg->path)
        return 0;
    /* Open the new file before closing the old one: on failure the logger
     * keeps writing where it was rather than nowhere. */
    FILE *nf = fopen(lg->path, "a");
    if (!nf)
        return -1;
    pthread_mutex_lock(&lg->mu);
    FILE *old = lg->f;
    lg->f = nf;
    pthread_mutex_unlock(&lg->mu);
    fclose(old);
    return 0;
}

void cuzk_logger_close(cuzk_logger *lg)
{
    if (!lg)
        return;
    if (lg->path)
        fclose(lg->f);
    else
        fflush(lg->f);
    pthread_mutex_destroy(&lg->mu);
    free(lg->path);
    free(lg);
}

cuzk_log_level cuzk_logger_level(const cuzk_logger *lg)
{
    return lg->level;
}

/* "2026-11-29T22:00:00.123Z" (24 characters) into buf. */
static void log_format_time(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000L);
}

/* The message is quoted, so quotes, backslashes and line breaks in it are
 * escaped: one event is always one parseable line. */
static void log_put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        switch (*s) {
        case '"':
        case '\\':
            fputc('\\', f);
            fputc(*s, f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        default:
            fputc(*s, f);
        }
    }
    fputc('"', f);
}

void cuzk_log_write(cuzk_logger *lg, cuzk_log_level level, const char *msg, const char *fields_fmt, ...)
{
    if (!lg || level > lg->level)
        return;
    char ts[40];
    log_format_time(ts, sizeof ts);
    const char *lname = cuzk_log_level_name(level);

    pthread_mutex_lock(&lg->mu);
    fprintf(lg->f, "ts=%s level=%s msg=", ts, lname);
    log_put_quoted(lg->f, msg ? msg : "");
    if (fields_fmt) {
        /* Fields that format to nothing ("%s", "") leave no trailing space. */
        va_list ap, probe;
        va_start(ap, fields_fmt);
        va_copy(probe, ap);
        if (vsnprintf(NULL, 0, fields_fmt, probe) > 0) {
            fputc(' ', lg->f);
            vfprintf(lg->f, fields_fmt, ap);
        }
        va_end(probe);
        va_end(ap);
    }
    fputc('\n', lg->f);
    fflush(lg->f);
    pthread_mutex_unlock(&lg->mu);
}
