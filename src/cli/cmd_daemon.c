/* cuzk daemon: the engine as a service (src/daemon): an HTTP/JSON API on a
 * unix socket (and TCP with a token), configured by an INI file that
 * command-line flags override. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "daemon/daemon.h"

enum { MAX_OVERRIDES = 64 };

/* One flag to apply over the file: a key, or (section NULL) a --set
 * "section.key=value". */
typedef struct {
    const char *section, *key, *value;
} config_override;

typedef struct {
    const char *config_path;
    config_override overrides[MAX_OVERRIDES];
    int n_overrides;
    int print_config;
} daemon_opts;

static int add_override(daemon_opts *o, const char *section, const char *key, const char *value)
{
    if (o->n_overrides == MAX_OVERRIDES)
        return -1;
    o->overrides[o->n_overrides++] = (config_override){section, key, value};
    return 0;
}

static int daemon_opt(int opt, const char *arg, void *ctx)
{
    daemon_opts *o = ctx;
    switch (opt) {
    case 'c':
        o->config_path = arg;
        return 0;
    case 'l':
        return add_override(o, "daemon", "listen", arg);
    case 'k':
        return add_override(o, "daemon", "token_file", arg);
    case 'b':
        return add_override(o, "devices", "backend", arg);
    case 'L':
        return add_override(o, "logging", "file", arg);
    case 'i':
        return add_override(o, "pipeline", "timeline", arg);
    case 's':
        return add_override(o, NULL, NULL, arg);
    case 'P':
        o->print_config = 1;
        return 0;
    }
    return -1;
}

/* The file's values, then the flags' in the order given. */
static int build_config(const daemon_opts *o, daemon_config *c, cuzk_error *err)
{
    int rc = daemon_config_init(c, err);
    if (!rc && o->config_path)
        rc = daemon_config_load(c, o->config_path, err);
    for (int i = 0; !rc && i < o->n_overrides; i++) {
        const config_override *v = &o->overrides[i];
        rc = v->section ? daemon_config_set(c, v->section, v->key, v->value, CONFIG_COMMAND_LINE, err)
                        : daemon_config_set_dotted(c, v->value, err);
    }
    return rc;
}

static int run_daemon(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},    {"listen", required_argument, NULL, 'l'},
        {"token-file", required_argument, NULL, 'k'}, {"backend", required_argument, NULL, 'b'},
        {"log-file", required_argument, NULL, 'L'},   {"timeline", required_argument, NULL, 'i'},
        {"set", required_argument, NULL, 's'},        {"print-config", no_argument, NULL, 'P'},
        {0, 0, 0, 0}};
    daemon_opts o = {0};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_daemon, opts, daemon_opt, &o, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (first != argc)
        return cli_usage_error(&cli_cmd_daemon, "unexpected argument '%s'", argv[first]);
    daemon_config c;
    cuzk_error err = {0};
    if (build_config(&o, &c, &err)) {
        daemon_config_free(&c);
        return cli_report("daemon configuration", &err);
    }
    if (o.print_config) {
        daemon_config_print(&c, stdout);
        daemon_config_free(&c);
        return CLI_OK;
    }
    rc = cuzk_daemon_run(&c, &err);
    daemon_config_free(&c);
    return rc ? cli_report("daemon", &err) : CLI_OK;
}

const cli_command cli_cmd_daemon = {
    "daemon", NULL,
    "cuzk daemon [--config FILE] [--listen unix:PATH|tcp:HOST:PORT]... [--token-file FILE]\n"
    "            [--backend " CUZK_BACKEND_CHOICES "] [--log-file FILE] [--timeline FILE]\n"
    "            [--set SECTION.KEY=VALUE]... [--print-config]\n"
    "  Serves the proving engine over HTTP/JSON (see README.md, \"The daemon\"). The INI file's keys\n"
    "  are listed, with their meaning and defaults, by --print-config (config/cuzk.example.ini);\n"
    "  flags override the file, --set any key. --print-config prints the resulting configuration and\n"
    "  exits. SIGTERM or SIGINT drains (no new jobs, running ones finish) and exits 0; a second one\n"
    "  cancels what is left. SIGHUP reopens the log file.\n",
    run_daemon};
