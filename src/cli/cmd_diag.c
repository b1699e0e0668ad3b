/* cuzk diag: the numbers and pictures people look for when the GPU is
 * idle. `diag pool` reads the log (pinned pool allocations, reuses,
 * checkins, reuse ratio over time); `diag timeline` reads the timeline
 * (device busy and idle time, and why idle) and draws it as SVG. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "diag/pool_report.h"
#include "diag/timeline_data.h"
#include "diag/timeline_svg.h"

typedef struct {
    double bucket_s;
    const char *svg_path;
} diag_opts;

static int diag_opt(int opt, const char *arg, void *ctx)
{
    diag_opts *o = ctx;
    char *end;
    switch (opt) {
    case 'b':
        o->bucket_s = strtod(arg, &end);
        return *arg && !*end && o->bucket_s > 0 ? 0 : -1;
    case 'o':
        o->svg_path = arg;
        return 0;
    }
    return -1;
}

static int run_pool(int argc, char **argv)
{
    static const struct option opts[] = {{"bucket-s", required_argument, NULL, 'b'}, {0, 0, 0, 0}};
    diag_opts o = {0};
    cli_common common;
    int first, rc = cli_parse_anywhere(argc, argv, &cli_cmd_diag_pool, opts, "", diag_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 1)
        return cli_usage_error(&cli_cmd_diag_pool, "expected one log file");
    pool_report r;
    cuzk_error err = {0};
    if (pool_report_read(argv[first], o.bucket_s, &r, &err)) {
        pool_report_free(&r);
        return cli_report("diag pool", &err);
    }
    pool_report_print(&r, stdout);
    pool_report_free(&r);
    return CLI_OK;
}

static double percent(double part, double whole)
{
    return whole > 0 ? 100 * part / whole : 0;
}

/* The answer to "why is my GPU idle?", from the largest share of idle time. */
static const char *verdict(const timeline_summary *s, int d)
{
    double idle = s->idle_synthesizing_s[d] + s->idle_queued_s[d] + s->idle_no_work_s[d];
    if (idle <= 0.05 * s->span_s)
        return "the device is kept busy";
    if (s->idle_synthesizing_s[d] >= s->idle_no_work_s[d] && s->idle_synthesizing_s[d] >= s->idle_queued_s[d])
        return "the device mostly waits for synthesis: add synthesis workers, or raise max_device_queue_depth so "
               "synthesis runs further ahead";
    if (s->idle_queued_s[d] >= s->idle_no_work_s[d])
        return "partitions wait while the device is idle: the device workers are held up elsewhere (finalizers, "
               "workers_per_device)";
    return "the device mostly has no work: not enough jobs are submitted, or they come in bursts";
}

static void print_summary(const timeline_data *t, const timeline_summary *s)
{
    printf("timeline: %zu partitions over %.3f s, at most %u in synthesis at once\n", t->n, s->span_s,
           s->max_synthesizing);
    for (int d = 0; d < t->n_devices; d++) {
        printf("GPU %d: busy %.3f s (%.1f%%); idle waiting for synthesis %.3f s (%.1f%%), with partitions queued "
               "%.3f s (%.1f%%), with no work %.3f s (%.1f%%)\n",
               d, s->busy_s[d], percent(s->busy_s[d], s->span_s), s->idle_synthesizing_s[d],
               percent(s->idle_synthesizing_s[d], s->span_s), s->idle_queued_s[d],
               percent(s->idle_queued_s[d], s->span_s), s->idle_no_work_s[d],
               percent(s->idle_no_work_s[d], s->span_s));
        printf("GPU %d: %s\n", d, verdict(s, d));
    }
    if (t->skipped_lines)
        printf("(%zu lines were not timeline events and were skipped)\n", t->skipped_lines);
}

static int run_timeline(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'}, {0, 0, 0, 0}};
    diag_opts o = {0};
    cli_common common;
    int first,
        rc = cli_parse_anywhere(argc, argv, &cli_cmd_diag_timeline, opts, "o:", diag_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 1)
        return cli_usage_error(&cli_cmd_diag_timeline, "expected one timeline file");
    timeline_data t;
    timeline_summary s;
    cuzk_error err = {0};
    if (timeline_read(argv[first], &t, &err))
        return cli_report("diag timeline", &err);
    timeline_summarize(&t, &s);
    print_summary(&t, &s);
    rc = o.svg_path ? timeline_write_svg(&t, &s, o.svg_path, &err) : CUZK_OK;
    timeline_free(&t);
    if (rc)
        return cli_report("diag timeline", &err);
    if (o.svg_path)
        printf("wrote %s\n", o.svg_path);
    return CLI_OK;
}

const cli_command cli_cmd_diag_pool = {
    "diag pool", NULL,
    "cuzk diag pool [--bucket-s S] LOGFILE\n"
    "  Counts the pinned pool's allocations, checkouts (reuse or alloc), checkins and idle frees in a cuzk\n"
    "  log, the reuse ratio (reuses / checkouts), the peak pool size, and the same per time bucket of S\n"
    "  seconds (default: about 20 buckets).\n",
    run_pool};

const cli_command cli_cmd_diag_timeline = {
    "diag timeline", NULL,
    "cuzk diag timeline TIMELINE.jsonl [-o|--output FILE.svg]\n"
    "  Reads a timeline ([pipeline] timeline, or bench pipeline --timeline): each device's busy time and\n"
    "  its idle time split into waiting for synthesis, partitions queued and no work, with a verdict;\n"
    "  -o draws device, synthesis and per-partition lanes over time as SVG.\n",
    run_timeline};
