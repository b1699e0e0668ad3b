#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/curve_id.h"
#include "util/threads.h"

int cli_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int cli_synth_opt(cli_synth_opts *o, int opt, const char *arg)
{
    switch (opt) {
    case 'c':
        o->have_curve = 1;
        return cuzk_curve_from_name(arg, &o->p.curve);
    case 'n':
        o->have_constraints = 1;
        return cli_parse_u32(arg, 1, 1u << 30, &o->p.n_constraints);
    case 'p':
        return cli_parse_u32(arg, 0, 1u << 20, &o->p.n_public);
    case CLI_OPT_SHAPE:
        return cuzk_synth_shape_from_name(arg, &o->p.shape);
    }
    return 1;
}

void cli_print_witness_mix(const char *who, const cuzk_wtns *w)
{
    cuzk_witness_mix m;
    cuzk_witness_mix_count(w, &m);
    double n = w->n_witness ? (double)w->n_witness : 1;
    fprintf(stderr, "%s: witness mix: %u values, %.1f %% zeros, %.1f %% ones, %.1f %% small (< 2^32 or > r - 2^32), "
            "%.1f %% full-size\n", who, w->n_witness, 100 * m.zeros / n, 100 * m.ones / n, 100 * m.small / n,
            100 * m.full / n);
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cuzk %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s", cmd->usage);
    return CLI_USAGE;
}

int cli_report(const char *what, const cuzk_error *err)
{
    fprintf(stderr, "cuzk: %s: %s\n", what, err->msg);
    return CLI_FAIL;
}

int cli_parse(int argc, char **argv, const cli_command *cmd, const void *long_opts, cli_opt_fn handle, void *ctx,
              cli_common *common, int *first)
{
    return cli_parse_anywhere(argc, argv, cmd, long_opts, NULL, handle, ctx, common, first);
}

/* getopt_long with the common options appended to the command's own. */
int cli_parse_anywhere(int argc, char **argv, const cli_command *cmd, const void *long_opts, const char *short_opts,
                       cli_opt_fn handle, void *ctx, cli_common *common, int *first)
{
    const struct option *extra = long_opts;
    struct option opts[32];
    int n = 0;
    for (; extra && extra[n].name && n < 28; n++)
        opts[n] = extra[n];
    opts[n++] = (struct option){"threads", required_argument, NULL, 't'};
    opts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    opts[n] = (struct option){0, 0, 0, 0};
    common->threads = cuzk_cpu_count();
    common->help = 0;
    optind = 1;
    opterr = 0;
    int c;
    /* without short options, parsing stops at the first positional argument
     * ("+"); with them, options may also follow the positional arguments */
    char optstring[64];
    snprintf(optstring, sizeof optstring, "%sht:%s", short_opts ? "" : "+", short_opts ? short_opts : "");
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        uint32_t v;
        if (c == 'h') {
            common->help = 1;
            printf("usage: %s", cmd->usage);
            return 1;
        }
        if (c == 't') {
            if (cli_parse_u32(optarg, 1, 1024, &v))
                return cli_usage_error(cmd, "--threads takes a number from 1 to 1024, not '%s'", optarg), -1;
            common->threads = (int)v;
            continue;
        }
        if (c == '?' || c == ':')
            return cli_usage_error(cmd, "unknown option or missing value: %s", argv[optind - 1]), -1;
        if (!handle || handle(c, optarg, ctx))
            return cli_usage_error(cmd, "bad value for %s", argv[optind - 1]), -1;
    }
    *first = optind;
    return 0;
}
