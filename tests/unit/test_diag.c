/* cuzk diag on hand-made inputs whose answers are known: a log with a few
 * pinned pool lines (and lines of other kinds), and a timeline whose device
 * idle time splits exactly into waiting for synthesis and no work. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag/logfmt.h"
#include "diag/pool_report.h"
#include "diag/timeline_data.h"
#include "diag/timeline_svg.h"
#include "support.h"

static char tmp_dir[] = "/tmp/cuzk-diag-XXXXXX";

static const char *tmp_file(const char *name, const char *text)
{
    static char path[96];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_logfmt(void **state)
{
    (void)state;
    log_line l;
    assert_int_equal(logfmt_parse("ts=2026-01-02T03:04:05.250Z level=info msg=\"say \\\"hi\\\"\" job_id=7 "
                                  "id=3 path=\"/a b\"\n",
                                  &l),
                     0);
    assert_string_equal(l.msg, "say \"hi\"");
    assert_true(l.t == 1767323045.25);
    char v[32];
    assert_int_equal(logfmt_field(l.fields, "id", v, sizeof v), 0);
    assert_string_equal(v, "3"); /* not the tail of job_id */
    assert_int_equal(logfmt_field(l.fields, "job_id", v, sizeof v), 0);
    assert_string_equal(v, "7");
    assert_int_equal(logfmt_field(l.fields, "path", v, sizeof v), 0);
    assert_string_equal(v, "/a b");
    assert_int_equal(logfmt_field(l.fields, "size", v, sizeof v), -1);
    assert_int_equal(logfmt_parse("pipeline: something else\n", &l), -1);
    assert_int_equal(logfmt_parse("ts=yesterday level=info msg=\"x\"\n", &l), -1);
    assert_int_equal(logfmt_parse("ts=2026-01-02T03:04:05.250Z level=info msg=\"unterminated\n", &l), -1);
}

#define POOL_LINE(t, what, fields) "ts=2026-01-01T00:00:0" t "Z level=info msg=\"pinned pool: " what "\" " fields "\n"

static void test_pool_report(void **state)
{
    (void)state;
    const char *log = tmp_file(
        "pool.log",
        "ts=2026-01-01T00:00:00.000Z level=info msg=\"engine started\" backend=sim\n" POOL_LINE(
            "0.000", "allocated new buffer", "size_gib=0.500 total_buffers=1 total_gib=0.500")
            POOL_LINE("0.100", "checkout (alloc)", "size_gib=0.500 job_id=1 partition=0 free_remaining=0")
                POOL_LINE("0.200", "allocated new buffer", "size_gib=0.500 total_buffers=2 total_gib=1.000")
                    "some unrelated text\n" POOL_LINE("1.000", "checkin", "size_gib=0.500 job_id=1 partition=0")
                        POOL_LINE("1.100", "checkout (reuse)", "size_gib=0.500 job_id=1 partition=1")
                            POOL_LINE("1.200", "checkout (reuse)", "size_gib=0.500 job_id=1 partition=2")
                                POOL_LINE("1.300", "checkout (reuse)", "size_gib=0.500 job_id=1 partition=3")
                                    POOL_LINE("1.900", "freed idle buffer", "size_gib=0.500 total_buffers=1"));
    pool_report r;
    cuzk_error err = {0};
    assert_int_equal(pool_report_read(log, 1, &r, &err), CUZK_OK);
    assert_int_equal(r.pool_lines, 8);
    assert_int_equal(r.total.allocations, 2);
    assert_int_equal(r.total.alloc_checkouts, 1);
    assert_int_equal(r.total.reuses, 3);
    assert_int_equal(r.total.checkins, 1);
    assert_int_equal(r.total.frees, 1);
    assert_true(pool_reuse_ratio(&r.total) == 0.75);
    assert_int_equal(r.peak_buffers, 2);
    assert_true(r.peak_gib == 1.0);
    assert_int_equal(r.n_buckets, 2);
    assert_int_equal(r.buckets[0].allocations, 2);
    assert_int_equal(r.buckets[1].reuses, 3);
    assert_true(pool_reuse_ratio(&r.buckets[1]) == 1.0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pool_report_print(&r, f);
    fclose(f);
    assert_non_null(strstr(text, "reuse ratio: 0.750\n"));
    assert_non_null(strstr(text, "checkouts: 4 (reuse 3, alloc 1)\n"));
    free(text);
    pool_report_free(&r);

    /* automatic buckets: about 20 of a round length over the 1.9 s */
    assert_int_equal(pool_report_read(log, 0, &r, &err), CUZK_OK);
    assert_true(r.bucket_s == 0.1);
    pool_report_free(&r);
    const char *empty = tmp_file("empty.log", "no pool here\n");
    assert_int_equal(pool_report_read(empty, 0, &r, &err), CUZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "no pinned pool lines"));
    pool_report_free(&r);
    assert_int_equal(pool_report_read("/nonexistent.log", 0, &r, &err), CUZK_ERR_IO);
}

#define EV(t, name, job, part, dev)                                                                              \
    "{\"t\":" #t ",\"event\":\"" name "\",\"job\":" #job ",\"partition\":" #part ",\"device\":" #dev "}\n"

/* Device 0 over [0, 8]: busy 1-3, 3-4, 7-8 (4 s); idle 0-1 and 6-7 while
 * synthesizing (2 s), 4-6 with nothing in flight (2 s). */
static const char timeline_text[] =
    EV(0, "SYNTH_START", 1, 0, -1) EV(1, "SYNTH_END", 1, 0, -1) EV(1, "GPU_QUEUE", 1, 0, -1)
    EV(1, "SYNTH_START", 1, 1, -1) EV(1, "GPU_START", 1, 0, 0) EV(2, "SYNTH_END", 1, 1, -1)
    EV(2, "GPU_QUEUE", 1, 1, -1) EV(3, "GPU_END", 1, 0, 0) EV(3, "GPU_START", 1, 1, 0) EV(3.5, "DONE", 1, 0, 0)
    "not json\n" EV(4, "GPU_END", 1, 1, 0) EV(4.5, "DONE", 1, 1, 0) EV(6, "SYNTH_START", 2, 0, -1)
    EV(7, "SYNTH_END", 2, 0, -1) EV(7, "GPU_QUEUE", 2, 0, -1) EV(7, "GPU_START", 2, 0, 0) EV(8, "GPU_END", 2, 0, 0);

static void test_timeline_summary(void **state)
{
    (void)state;
    const char *path = tmp_file("t.jsonl", timeline_text);
    timeline_data t;
    cuzk_error err = {0};
    assert_int_equal(timeline_read(path, &t, &err), CUZK_OK);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.skipped_lines, 1);
    assert_int_equal(t.n_devices, 1);
    assert_true(t.parts[0].job == 1 && t.parts[0].partition == 0 && t.parts[0].gpu_end == 3);
    assert_true(t.parts[2].job == 2 && t.parts[2].device == 0);
    timeline_summary s;
    timeline_summarize(&t, &s);
    assert_true(s.span_s == 8);
    assert_true(s.busy_s[0] == 4);
    assert_true(s.idle_synthesizing_s[0] == 2);
    assert_true(s.idle_queued_s[0] == 0);
    assert_true(s.idle_no_work_s[0] == 2);
    assert_int_equal(s.max_synthesizing, 1); /* 1,0 ends where 1,1 starts: a hand-over */

    char svg[96];
    snprintf(svg, sizeof svg, "%s/t.svg", tmp_dir);
    assert_int_equal(timeline_write_svg(&t, &s, svg, &err), CUZK_OK);
    FILE *f = fopen(svg, "r");
    assert_non_null(f);
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    assert_true(!strncmp(buf, "<svg ", 5));
    assert_non_null(strstr(buf, "height=\""));
    assert_non_null(strstr(buf, ">GPU 0<"));
    assert_non_null(strstr(buf, ">synthesis 0<"));
    assert_non_null(strstr(buf, "job 2 partition 0: on GPU 1.0000 s"));
    assert_non_null(strstr(buf, "GPU busy 50.0%"));
    assert_non_null(strstr(buf, "</svg>\n"));
    timeline_free(&t);

    const char *empty = tmp_file("empty.jsonl", "{}\n");
    assert_int_equal(timeline_read(empty, &t, &err), CUZK_ERR_FORMAT);
    assert_int_equal(timeline_read("/nonexistent.jsonl", &t, &err), CUZK_ERR_IO);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return remove_tree(tmp_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_logfmt),
        cmocka_unit_test(test_pool_report),
        cmocka_unit_test(test_timeline_summary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
