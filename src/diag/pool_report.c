#include "diag/pool_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag/logfmt.h"
#include "util/err.h"

typedef enum { EV_ALLOCATED, EV_REUSE, EV_ALLOC_CHECKOUT, EV_CHECKIN, EV_FREED, EV_OTHER } pool_event;

static pool_event event_of(const char *msg)
{
    static const char *const texts[] = {"pinned pool: allocated new buffer", "pinned pool: checkout (reuse)",
                                        "pinned pool: checkout (alloc)", "pinned pool: checkin",
                                        "pinned pool: freed idle buffer"};
    for (int i = 0; i < EV_OTHER; i++)
        if (!strcmp(msg, texts[i]))
            return (pool_event)i;
    return EV_OTHER;
}

static void count(pool_counts *c, pool_event ev)
{
    uint64_t *slot[] = {&c->allocations, &c->reuses, &c->alloc_checkouts, &c->checkins, &c->frees};
    (*slot[ev])++;
}

double pool_reuse_ratio(const pool_counts *c)
{
    uint64_t checkouts = c->reuses + c->alloc_checkouts;
    return checkouts ? (double)c->reuses / (double)checkouts : 0;
}

/* A round bucket length (1, 2 or 5 x 10^k seconds) giving about 20 buckets. */
static double round_bucket(double span)
{
    double raw = span / 20, unit = pow(10, floor(log10(raw > 1e-3 ? raw : 1e-3)));
    double steps[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (steps[i] * unit >= raw)
            return steps[i] * unit;
    return 10 * unit;
}

/* Calls on_event for every pool line of the file. */
typedef void (*pool_line_fn)(pool_report *r, pool_event ev, const log_line *l);

static int scan(const char *path, pool_report *r, pool_line_fn on_event, cuzk_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char line[4096];
    log_line l;
    while (fgets(line, sizeof line, f)) {
        pool_event ev;
        if (!logfmt_parse(line, &l) && (ev = event_of(l.msg)) != EV_OTHER)
            on_event(r, ev, &l);
    }
    int bad = ferror(f);
    fclose(f);
    return bad ? cuzk_fail(err, CUZK_ERR_IO, "%s: read error", path) : CUZK_OK;
}

static void first_pass(pool_report *r, pool_event ev, const log_line *l)
{
    if (!r->pool_lines || l->t < r->t_first)
        r->t_first = l->t;
    if (l->t > r->t_last)
        r->t_last = l->t;
    r->pool_lines++;
    count(&r->total, ev);
    char v[64];
    if (ev == EV_ALLOCATED && !logfmt_field(l->fields, "total_gib", v, sizeof v) && atof(v) > r->peak_gib)
        r->peak_gib = atof(v);
    if (ev == EV_ALLOCATED && !logfmt_field(l->fields, "total_buffers", v, sizeof v) &&
        strtoull(v, NULL, 10) > r->peak_buffers)
        r->peak_buffers = strtoull(v, NULL, 10);
}

static void second_pass(pool_report *r, pool_event ev, const log_line *l)
{
    size_t i = (size_t)((l->t - r->t_first) / r->bucket_s);
    count(&r->buckets[i < r->n_buckets ? i : r->n_buckets - 1], ev);
}

int pool_report_read(const char *path, double bucket_s, pool_report *r, cuzk_error *err)
{
    memset(r, 0, sizeof *r);
    int rc = scan(path, r, first_pass, err);
    if (rc || !r->pool_lines)
        return rc ? rc : cuzk_fail(err, CUZK_ERR_FORMAT, "%s: no pinned pool lines (is it a cuzk log at level info?)",
                                   path);
    double span = r->t_last - r->t_first;
    r->bucket_s = bucket_s > 0 ? bucket_s : round_bucket(span);
    r->n_buckets = (size_t)(span / r->bucket_s) + 1;
    if (r->n_buckets > 100000)
        return cuzk_fail(err, CUZK_ERR_ARG, "%zu buckets of %g s is too many: choose longer buckets", r->n_buckets,
                         r->bucket_s);
    if (!(r->buckets = calloc(r->n_buckets, sizeof *r->buckets)))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    return scan(path, r, second_pass, err);
}

void pool_report_free(pool_report *r)
{
    free(r->buckets);
    r->buckets = NULL;
}

void pool_report_print(const pool_report *r, FILE *out)
{
    const pool_counts *t = &r->total;
    double ratio = pool_reuse_ratio(t);
    char when[32];
    time_t first = (time_t)r->t_first;
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&first, &tm));
    fprintf(out, "pinned pool, %llu log lines from %s over %.3f s\n", (unsigned long long)r->pool_lines, when,
            r->t_last - r->t_first);
    fprintf(out, "allocations: %llu\ncheckouts: %llu (reuse %llu, alloc %llu)\ncheckins: %llu\nidle frees: %llu\n",
            (unsigned long long)t->allocations, (unsigned long long)(t->reuses + t->alloc_checkouts),
            (unsigned long long)t->reuses, (unsigned long long)t->alloc_checkouts, (unsigned long long)t->checkins,
            (unsigned long long)t->frees);
    fprintf(out, "reuse ratio: %.3f\npeak pool: %llu buffers, %.3f GiB\n", ratio, (unsigned long long)r->peak_buffers,
            r->peak_gib);
    if (t->reuses + t->alloc_checkouts >= 10 && ratio < 0.5)
        fprintf(out, "hint: most checkouts allocate a new buffer: partitions are released to synthesis faster\n"
                     "      than the device returns buffers (the poll policy does this; semaphore bounds it)\n");
    fprintf(out, "\n| t_s | allocations | checkouts (alloc) | reuses | checkins | reuse ratio |\n"
                 "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < r->n_buckets; i++) {
        const pool_counts *b = &r->buckets[i];
        char ratio_text[16] = "-"; /* no checkouts, no ratio */
        if (b->reuses + b->alloc_checkouts)
            snprintf(ratio_text, sizeof ratio_text, "%.3f", pool_reuse_ratio(b));
        fprintf(out, "| %.3f | %llu | %llu | %llu | %llu | %s |\n", (double)i * r->bucket_s,
                (unsigned long long)b->allocations, (unsigned long long)b->alloc_checkouts,
                (unsigned long long)b->reuses, (unsigned long long)b->checkins, ratio_text);
    }
}
