/* Structured logging: one line per event, `ts=... level=... msg="..." key=value ...`.
 * The level is tested before any argument is formatted (CUZK_LOG is a
 * macro), so a disabled line costs one comparison. A logger is an object
 * (no hidden globals): the engine and the daemon each own one.
 *
 *   CUZK_LOG(lg, CUZK_LOG_INFO, "pinned pool: checkin", "job_id=%llu partition=%u", id, p);
 *
 * prints: ts=2026-11-29T22:00:00.123Z level=info msg="pinned pool: checkin" job_id=7 partition=2 */
#ifndef CUZK_UTIL_LOG_H
#define CUZK_UTIL_LOG_H

#include <stdio.h>

/* The levels, most important first: X(NAME, name), the name as the log
 * lines and the configuration spell it. */
#define CUZK_LOG_LEVELS(X) X(ERROR, error) X(WARN, warn) X(INFO, info) X(DEBUG, debug)
#define CUZK_LOG_LEVEL_ENUM_(NAME, name) CUZK_LOG_##NAME,
typedef enum { CUZK_LOG_LEVELS(CUZK_LOG_LEVEL_ENUM_) CUZK_N_LOG_LEVELS } cuzk_log_level;
#define CUZK_LOG_LEVEL_CHOICE_(NAME, name) "|" #name
/* "error|warn|info|debug": the configuration's choices (the leading bar skipped) */
#define CUZK_LOG_LEVEL_CHOICES (CUZK_LOG_LEVELS(CUZK_LOG_LEVEL_CHOICE_) + 1)

/* "error" .. "debug"; "?" for a value out of range. */
const char *cuzk_log_level_name(cuzk_log_level level);
/* The level named name, or -1 when there is none. */
int cuzk_log_level_from_name(const char *name);

typedef struct cuzk_logger cuzk_logger;

/* A logger writing to path (appending), or to stderr when path is NULL.
 * Returns NULL when the file cannot be opened. */
cuzk_logger *cuzk_logger_open(const char *path, cuzk_log_level level);
/* Reopens the file (after rotation, on SIGHUP); 0 or -1. */
int cuzk_logger_reopen(cuzk_logger *lg);
void cuzk_logger_close(cuzk_logger *lg);
cuzk_log_level cuzk_logger_level(const cuzk_logger *lg);

/* Writes one line; thread-safe. Use CUZK_LOG instead. */
void cuzk_log_write(cuzk_logger *lg, cuzk_log_level level, const char *msg, const char *fields_fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define CUZK_LOG(lg, level, msg, ...)                                                              \
    do {                                                                                           \
        if ((lg) && (level) <= cuzk_logger_level(lg))                                              \
            cuzk_log_write((lg), (level), (msg), __VA_ARGS__);                                     \
    } while (0)

#endif
