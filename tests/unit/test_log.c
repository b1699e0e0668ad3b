/* Logger tests: a disabled level evaluates none of its arguments, the line
 * format (ISO-8601 UTC with milliseconds, level, quoted and escaped
 * message, fields), reopen after rotation, and whole lines under
 * concurrent writers. */
#define _GNU_SOURCE /* strptime */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"

#define LINE_RE                                                                                    \
    "^ts=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z "                       \
    "level=(error|warn|info|debug) msg=\"([^\"\\\\]|\\\\.)*\"( [a-z_]+=[^ ]*)*$"

static void tmp_path(char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/cuzk_test_log_XXXXXX");
    int fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
}

/* The file's lines, newline-terminated each; *n set to their count. */
static char **read_lines(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char **lines = NULL;
    size_t cnt = 0, cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        assert_true(len > 0 && line[len - 1] == '\n'); /* every line is complete */
        line[len - 1] = '\0';
        if (cnt == cap) {
            cap = cap ? cap * 2 : 16;
            lines = realloc(lines, cap * sizeof *lines);
            assert_non_null(lines);
        }
        lines[cnt++] = strdup(line);
    }
    free(line);
    fclose(f);
    *n = cnt;
    return lines;
}

static void free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

static int line_ok(const char *line)
{
    regex_t re;
    assert_int_equal(regcomp(&re, LINE_RE, REG_EXTENDED | REG_NOSUB), 0);
    int ok = regexec(&re, line, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* Everything after `msg="..."`, i.e. " key=value ..." or "". */
static const char *after_msg(const char *line)
{
    const char *p = strstr(line, "msg=\"");
    assert_non_null(p);
    for (p += 5; *p && *p != '"'; p++)
        if (*p == '\\')
            p++;
    assert_int_equal(*p, '"');
    return p + 1;
}

static int side_effects;

static int bump(void)
{
    return ++side_effects;
}

static void test_level_filtering(void **state)
{
    (void)state;
    char path[64];
    tmp_path(path, sizeof path);
    cuzk_logger *lg = cuzk_logger_open(path, CUZK_LOG_WARN);
    assert_non_null(lg);
    assert_int_equal(cuzk_logger_level(lg), CUZK_LOG_WARN);

    side_effects = 0;
    CUZK_LOG(lg, CUZK_LOG_DEBUG, "debug line", "n=%d", bump());
    CUZK_LOG(lg, CUZK_LOG_INFO, "info line", "n=%d", bump());
    assert_int_equal(side_effects, 0);
    CUZK_LOG(lg, CUZK_LOG_WARN, "warn line", "n=%d", bump());
    assert_int_equal(side_effects, 1);
    CUZK_LOG(lg, CUZK_LOG_ERROR, "error line", "n=%d", bump());
    assert_int_equal(side_effects, 2);
    cuzk_logger *none = NULL;
    CUZK_LOG(none, CUZK_LOG_ERROR, "no logger", "n=%d", bump());
    assert_int_equal(side_effects, 2);
    cuzk_logger_close(lg);

    size_t n;
    char **lines = read_lines(path, &n);
    assert_int_equal(n, 2);
    assert_non_null(strstr(lines[0], " level=warn msg=\"warn line\""));
    assert_string_equal(after_msg(lines[0]), " n=1");
    assert_non_null(strstr(lines[1], " level=error msg=\"error line\""));
    assert_string_equal(after_msg(lines[1]), " n=2");
    free_lines(lines, n);
    unlink(path);
}

/* One table of level names serves the lines, the configuration's choices
 * and parsing. */
static void test_level_names(void **state)
{
    (void)state;
    const char *names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(cuzk_log_level_name((cuzk_log_level)i), names[i]);
        assert_int_equal(cuzk_log_level_from_name(names[i]), i);
    }
    assert_int_equal(CUZK_N_LOG_LEVELS, 4);
    assert_string_equal(CUZK_LOG_LEVEL_CHOICES, "error|warn|info|debug");
    assert_string_equal(cuzk_log_level_name(CUZK_N_LOG_LEVELS), "?");
    assert_int_equal(cuzk_log_level_from_name("loud"), -1);
    assert_int_equal(cuzk_log_level_from_name(""), -1);
}

static void test_line_format(void **state)
{
    (void)state;
    char path[64];
    tmp_path(path, sizeof path);
    cuzk_logger *lg = cuzk_logger_open(path, CUZK_LOG_DEBUG);
    assert_non_null(lg);
    time_t before = time(NULL);
    CUZK_LOG(lg, CUZK_LOG_INFO, "pinned pool: checkin", "job_id=%llu partition=%u", 7ULL, 2U);
    CUZK_LOG(lg, CUZK_LOG_DEBUG, "say \"hi\" \\ now\nplease", "k=%s", "v");
    CUZK_LOG(lg, CUZK_LOG_WARN, "no fields", "%s", "");
    cuzk_logger_close(lg);

    size_t n;
    char **lines = read_lines(path, &n);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++)
        assert_true(line_ok(lines[i]));

    /* ts: parse it back and check it is today's UTC, not local time or garbage. */
    struct tm tm = {0};
    char *rest = strptime(lines[0] + 3, "%Y-%m-%dT%H:%M:%S", &tm);
    assert_non_null(rest);
    assert_int_equal(rest[0], '.');
    time_t t = timegm(&tm);
    assert_true(t >= before - 86400 && t <= before + 86400);

    assert_string_equal(strchr(lines[0], ' '), " level=info msg=\"pinned pool: checkin\" job_id=7 partition=2");
    assert_string_equal(strchr(lines[1], ' '), " level=debug msg=\"say \\\"hi\\\" \\\\ now\\nplease\" k=v");
    assert_string_equal(strchr(lines[2], ' '), " level=warn msg=\"no fields\"");
    free_lines(lines, n);
    unlink(path);
}

static void test_open_and_reopen(void **state)
{
    (void)state;
    assert_null(cuzk_logger_open("/nonexistent-cuzk-dir/x.log", CUZK_LOG_INFO));
    cuzk_logger *err = cuzk_logger_open(NULL, CUZK_LOG_ERROR); /* stderr */
    assert_non_null(err);
    assert_int_equal(cuzk_logger_reopen(err), 0);
    cuzk_logger_close(err);

    char path[64], rotated[80];
    tmp_path(path, sizeof path);
    snprintf(rotated, sizeof rotated, "%s.1", path);
    cuzk_logger *lg = cuzk_logger_open(path, CUZK_LOG_INFO);
    assert_non_null(lg);
    CUZK_LOG(lg, CUZK_LOG_INFO, "before rotation", "n=%d", 1);
    assert_int_equal(rename(path, rotated), 0);
    CUZK_LOG(lg, CUZK_LOG_INFO, "still old file", "n=%d", 2);
    assert_int_equal(cuzk_logger_reopen(lg), 0);
    CUZK_LOG(lg, CUZK_LOG_INFO, "after rotation", "n=%d", 3);
    cuzk_logger_close(lg);

    size_t n_old, n_new;
    char **old = read_lines(rotated, &n_old);
    char **cur = read_lines(path, &n_new);
    assert_int_equal(n_old, 2);
    assert_int_equal(n_new, 1);
    assert_string_equal(after_msg(old[0]), " n=1");
    assert_string_equal(after_msg(old[1]), " n=2");
    assert_string_equal(after_msg(cur[0]), " n=3");
    free_lines(old, n_old);
    free_lines(cur, n_new);
    unlink(path);
    unlink(rotated);
}

#define WRITERS 4
#define LINES_PER_WRITER 250

typedef struct {
    cuzk_logger *lg;
    int id;
} writer_arg;

static void *writer_run(void *arg)
{
    writer_arg *w = arg;
    static const char pad[] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                              "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    for (int i = 0; i < LINES_PER_WRITER; i++)
        CUZK_LOG(w->lg, CUZK_LOG_INFO, "concurrent", "writer=%d seq=%d pad=%s", w->id, i, pad);
    return NULL;
}

static void test_concurrent_lines_are_whole(void **state)
{
    (void)state;
    char path[64];
    tmp_path(path, sizeof path);
    cuzk_logger *lg = cuzk_logger_open(path, CUZK_LOG_INFO);
    assert_non_null(lg);
    pthread_t th[WRITERS];
    writer_arg args[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        args[i] = (writer_arg){lg, i};
        assert_int_equal(pthread_create(&th[i], NULL, writer_run, &args[i]), 0);
    }
    for (int i = 0; i < WRITERS; i++)
        pthread_join(th[i], NULL);
    cuzk_logger_close(lg);

    size_t n;
    char **lines = read_lines(path, &n);
    assert_int_equal(n, WRITERS * LINES_PER_WRITER);
    int next[WRITERS] = {0};
    for (size_t i = 0; i < n; i++) {
        assert_true(line_ok(lines[i]));
        int id, seq;
        assert_int_equal(sscanf(after_msg(lines[i]), " writer=%d seq=%d", &id, &seq), 2);
        assert_true(id >= 0 && id < WRITERS);
        assert_int_equal(seq, next[id]); /* each writer's lines in its own order, none lost */
        next[id]++;
    }
    free_lines(lines, n);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_filtering),
        cmocka_unit_test(test_level_names),
        cmocka_unit_test(test_line_format),
        cmocka_unit_test(test_open_and_reopen),
        cmocka_unit_test(test_concurrent_lines_are_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
