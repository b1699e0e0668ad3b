/* The timeline as a picture: a lane per device (busy spans, coloured by
 * job), the synthesis spans packed into as few lanes as they need (one per
 * worker busy at once), then a row per partition: synthesis (light), the
 * wait for a device (a grey line), the device (solid). Gaps in the device
 * lanes are the idle GPU; what sits above them says why. */
#include "diag/timeline_svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

enum { SVG_WIDTH = 1200, LEFT = 120, RIGHT = 20, LANE_H = 16, ROW_H = 7, GAP = 10, MAX_ROWS = 400, MAX_LANES = 64 };

typedef struct {
    FILE *f;
    double t0, scale; /* x = LEFT + (t - t0) * scale */
    int y;            /* top of the next lane */
} svg_canvas;

static double x_of(const svg_canvas *c, double t)
{
    return LEFT + (t - c->t0) * c->scale;
}

/* A colour per job: hues spread by the golden angle. */
static void job_colour(uint64_t job, int light, char out[32])
{
    snprintf(out, 32, "hsl(%d,65%%,%d%%)", (int)fmod((double)job * 137.508, 360.0), light ? 78 : 45);
}

static void span(svg_canvas *c, double from, double to, int y, int h, const char *fill, const tl_partition *p,
                 const char *what)
{
    if (isnan(from) || isnan(to))
        return;
    double w = (to - from) * c->scale;
    fprintf(c->f,
            "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>job %llu partition %u: %s "
            "%.4f s (%.4f to %.4f)</title></rect>\n",
            x_of(c, from), y, w > 0.5 ? w : 0.5, h, fill, (unsigned long long)p->job, p->partition, what, to - from,
            from, to);
}

static void lane_label(svg_canvas *c, const char *label, int h)
{
    fprintf(c->f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s</text>\n", LEFT - 6,
            c->y + h - 4, label);
}

static void device_lanes(svg_canvas *c, const timeline_data *t)
{
    for (int d = 0; d < t->n_devices; d++) {
        char label[32], colour[32];
        snprintf(label, sizeof label, "GPU %d", d);
        lane_label(c, label, LANE_H);
        fprintf(c->f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f2f2f2\"/>\n", LEFT, c->y,
                SVG_WIDTH - LEFT - RIGHT, LANE_H);
        for (size_t i = 0; i < t->n; i++)
            if (t->parts[i].device == d) {
                job_colour(t->parts[i].job, 0, colour);
                span(c, t->parts[i].gpu_start, t->parts[i].gpu_end, c->y, LANE_H, colour, &t->parts[i], "on GPU");
            }
        c->y += LANE_H + 2;
    }
    c->y += GAP;
}

/* Greedy packing: each span goes to the first lane free at its start. */
static void synthesis_lanes(svg_canvas *c, const timeline_data *t)
{
    double lane_end[MAX_LANES];
    int lanes = 0, top = c->y;
    for (size_t i = 0; i < t->n; i++) {
        const tl_partition *p = &t->parts[i];
        if (isnan(p->synth_start) || isnan(p->synth_end))
            continue;
        int l = 0;
        while (l < lanes && lane_end[l] > p->synth_start)
            l++;
        if (l == MAX_LANES)
            l = MAX_LANES - 1; /* overdrawn rather than lost */
        if (l == lanes)
            lanes++;
        lane_end[l] = p->synth_end;
        char colour[32];
        job_colour(p->job, 1, colour);
        span(c, p->synth_start, p->synth_end, top + l * (LANE_H + 2), LANE_H, colour, p, "synthesis");
    }
    for (int l = 0; l < lanes; l++) {
        char label[32];
        snprintf(label, sizeof label, "synthesis %d", l);
        c->y = top + l * (LANE_H + 2);
        lane_label(c, label, LANE_H);
    }
    c->y = top + lanes * (LANE_H + 2) + GAP;
}

static void partition_rows(svg_canvas *c, const timeline_data *t)
{
    size_t rows = t->n < MAX_ROWS ? t->n : MAX_ROWS;
    fprintf(c->f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">partitions</text>\n", LEFT - 6,
            c->y + 10);
    for (size_t i = 0; i < rows; i++) {
        const tl_partition *p = &t->parts[i];
        char light[32], solid[32];
        job_colour(p->job, 1, light);
        job_colour(p->job, 0, solid);
        span(c, p->synth_start, p->synth_end, c->y, ROW_H - 1, light, p, "synthesis");
        /* the witness's part of it (read or calculated), in the lower half */
        span(c, p->witness_start, p->witness_end, c->y + ROW_H / 2, ROW_H - 1 - ROW_H / 2, solid, p, "witness");
        if (!isnan(p->synth_end) && !isnan(p->gpu_start))
            fprintf(c->f,
                    "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#999\"><title>job %llu partition "
                    "%u: waiting for a device %.4f s</title></line>\n",
                    x_of(c, p->synth_end), c->y + ROW_H / 2, x_of(c, p->gpu_start), c->y + ROW_H / 2,
                    (unsigned long long)p->job, p->partition, p->gpu_start - p->synth_end);
        span(c, p->gpu_start, p->gpu_end, c->y, ROW_H - 1, solid, p, "on GPU");
        c->y += ROW_H;
    }
    if (rows < t->n)
        fprintf(c->f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">... and %zu more partitions</text>\n", LEFT,
                c->y + 12, t->n - rows);
    c->y += GAP + 12;
}

/* Vertical grid lines at a round step, labelled in seconds. */
static void time_axis(svg_canvas *c, double span_s, int top, int bottom)
{
    double raw = span_s / 10, unit = pow(10, floor(log10(raw > 1e-6 ? raw : 1e-6))), step = unit;
    if (raw > 5 * unit)
        step = 10 * unit;
    else if (raw > 2 * unit)
        step = 5 * unit;
    else if (raw > unit)
        step = 2 * unit;
    for (double s = 0; s <= span_s + step / 2; s += step) {
        double x = x_of(c, c->t0 + s);
        fprintf(c->f,
                "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#ddd\"/>\n"
                "<text x=\"%.2f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%g s</text>\n",
                x, top, x, bottom, x, bottom + 12, s);
    }
}

static void title(svg_canvas *c, const timeline_data *t, const timeline_summary *s)
{
    double busy = 0;
    for (int d = 0; d < t->n_devices; d++)
        busy += s->busy_s[d];
    double frac = s->span_s > 0 ? busy / (s->span_s * t->n_devices) : 0;
    fprintf(c->f,
            "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">cuzk timeline: %zu partitions over "
            "%.3f s, GPU busy %.1f%%</text>\n"
            "<text x=\"%d\" y=\"34\" font-size=\"11\">light: synthesis; grey line: waiting for a device; solid: on "
            "the device (colour: job)</text>\n",
            LEFT, t->n, s->span_s, 100 * frac, LEFT);
}

int timeline_write_svg(const timeline_data *t, const timeline_summary *s, const char *path, cuzk_error *err)
{
    /* the page's height is known only once everything is laid out: draw
     * into memory, then write the page around it */
    char *body = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&body, &len);
    if (!mem)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    double span_s = s->span_s > 0 ? s->span_s : 1;
    svg_canvas c = {mem, t->t_min, (SVG_WIDTH - LEFT - RIGHT) / span_s, 48};
    title(&c, t, s);
    int top = c.y;
    device_lanes(&c, t);
    synthesis_lanes(&c, t);
    partition_rows(&c, t);
    time_axis(&c, s->span_s, top, c.y);
    int bad = fclose(mem) != 0;
    FILE *f = bad ? NULL : fopen(path, "w");
    if (!f) {
        free(body);
        return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    }
    bad |= fprintf(f,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                   "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                   SVG_WIDTH, c.y + 20) < 0;
    bad |= fwrite(body, 1, len, f) != len;
    bad |= fputs("</svg>\n", f) < 0;
    bad |= fclose(f) != 0;
    free(body);
    if (bad) {
        remove(path);
        return cuzk_fail(err, CUZK_ERR_IO, "%s: write failed", path);
    }
    return CUZK_OK;
}
