#include "daemon/daemon.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "daemon/routes.h"
#include "daemon/endpoint.h"
#include "daemon/http_server.h"
#include "daemon/sd_notify.h"
#include "daemon/token.h"
#include "util/err.h"
#include "util/threads.h"

typedef struct {
    const daemon_config *cfg;
    cuzk_logger *log;
    cuzk_engine *engine;
    cluster_node *cluster; /* NULL: single-machine mode */
    jobs_sqlite *store;    /* NULL: jobs in memory only (or the cluster's) */
    routes_context api;
    http_server *server;
    char *token;
    int signal_fd, drained_fd;
    pthread_t drainer;
    int draining;
} daemon_state;

/* "ID, ZKEY[, R1CS][, WASM]" of [keys] circuit (the wasm by its name),
 * registered with the engine. */
static int register_config_circuit(daemon_state *d, const char *spec, cuzk_error *err)
{
    char buf[1024], *fields[4] = {NULL, NULL, NULL, NULL}, *save = NULL;
    snprintf(buf, sizeof buf, "%s", spec);
    int n = 0;
    for (char *f = strtok_r(buf, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        if (n == 4)
            return cuzk_fail(err, CUZK_ERR_ARG, "[keys] circuit = %s: ID, ZKEY[, R1CS][, WASM] expected", spec);
        while (*f == ' ' || *f == '\t')
            f++;
        size_t len = strlen(f);
        while (len && (f[len - 1] == ' ' || f[len - 1] == '\t'))
            f[--len] = 0;
        fields[n++] = f;
    }
    const char *r1cs = NULL, *wasm = NULL;
    for (int i = 2; i < n; i++) {
        size_t len = strlen(fields[i]);
        const char **slot = len > 5 && !strcmp(fields[i] + len - 5, ".wasm") ? &wasm : &r1cs;
        if (*slot)
            return cuzk_fail(err, CUZK_ERR_ARG, "[keys] circuit = %s: two %s files", spec, slot == &wasm ? "wasm" : "r1cs");
        *slot = fields[i];
    }
    if (n < 2 || !routes_circuit_id_ok(fields[0]))
        return cuzk_fail(err, CUZK_ERR_ARG,
                         "[keys] circuit = %s: ID, ZKEY[, R1CS][, WASM] expected, ID of letters, digits and . _ : -",
                         spec);
    cuzk_error why = {0};
    if (cuzk_engine_register_circuit(d->engine, fields[0], fields[1], r1cs, wasm, &why))
        return cuzk_fail(err, why.code, "[keys] circuit %s: %.400s", fields[0], why.msg);
    return CUZK_OK;
}

/* A circuit the store kept (registered through the API in an earlier run),
 * registered again unless the config has one of its id. One that cannot
 * be (its key file gone) is said, and its jobs' partitions fail. */
static void register_kept_circuit(void *ctx, const store_circuit *c)
{
    daemon_state *d = ctx;
    cuzk_circuit_info info;
    cuzk_error err = {0};
    if (!cuzk_engine_circuit_info(d->engine, c->id, &info))
        return;
    if (routes_register_circuit(d->engine, c, &err))
        CUZK_LOG(d->log, CUZK_LOG_ERROR, "store: a kept circuit cannot be registered again", "circuit=%s error=\"%s\"",
                 c->id, err.msg);
    else
        CUZK_LOG(d->log, CUZK_LOG_INFO, "store: circuit registered again", "circuit=%s development=%d", c->id,
                 c->development);
}

/* The job store of a single daemon ([daemon] state_dir), before the engine:
 * a store that cannot be used stops the start. */
static int open_store(daemon_state *d, cuzk_engine_config *ec, cuzk_error *err)
{
    const daemon_config *c = d->cfg;
    if (*c->cluster.database || !*c->state_dir)
        return CUZK_OK;
    jobs_sqlite_config sc = {.state_dir = c->state_dir,
                             .retain_s = c->retain_s,
                             .inline_max_bytes = (uint64_t)c->state_inline_max_mib << 20};
    if (!(d->store = jobs_sqlite_open(&sc, d->log, err)))
        return err->code;
    jobs_sqlite_hook_engine(d->store, ec);
    return CUZK_OK;
}

static int start_store(daemon_state *d, cuzk_error *err)
{
    int rc = store_each_circuit(jobs_sqlite_store(d->store), register_kept_circuit, d, err);
    if (rc)
        return rc;
    routes_use_store(&d->api, d->store);
    return jobs_sqlite_start(d->store, d->engine, err);
}

static int start_engine(daemon_state *d, cuzk_error *err)
{
    const daemon_config *c = d->cfg;
    backend_options bo = {.cpu_threads = c->cpu_threads > 0 ? c->cpu_threads : cuzk_cpu_count(),
                          .sim_devices = c->sim_devices,
                          .sim_device_ms = c->sim_device_ms,
                          .sim_gate = c->sim_gate,
                          .gpu_devices = c->gpu_devices};
    cuzk_backend *b = backend_create(c->backend, &bo, err);
    if (!b)
        return err->code;
    const char *backend_name = b->name; /* a string constant: outlives the backend */
    cuzk_engine_config ec;
    daemon_config_engine(c, &ec);
    ec.log = d->log;
    if (*c->cluster.database && c->cluster.heartbeat_s >= c->cluster.lease_s) {
        b->destroy(b);
        return cuzk_fail(err, CUZK_ERR_ARG, "[cluster] heartbeat_s (%g) must be less than lease_s (%g)",
                         c->cluster.heartbeat_s, c->cluster.lease_s);
    }
    if (*c->cluster.database && !(d->cluster = cluster_create(&c->cluster, d->log, err))) {
        b->destroy(b);
        return err->code;
    }
    if (d->cluster)
        cluster_hook_engine(d->cluster, &ec);
    int rc = open_store(d, &ec, err);
    if (rc) {
        b->destroy(b);
        return rc;
    }
    if (!(d->engine = cuzk_engine_create(&ec, b, err)))
        return err->code;
    for (int i = 0; i < c->circuits.n; i++)
        if ((rc = register_config_circuit(d, c->circuits.items[i], err)))
            return rc;
    routes_init(&d->api, d->engine, backend_name, c->max_wait_s, c->max_connections);
    d->api.log = d->log;
    if (d->store)
        return start_store(d, err);
    if (!d->cluster)
        return CUZK_OK;
    routes_use_cluster(&d->api, d->cluster, c->cluster.lease_s);
    return cluster_start(d->cluster, d->engine, err);
}

static int start_server(daemon_state *d, cuzk_error *err)
{
    const daemon_config *c = d->cfg;
    endpoint eps[HTTP_MAX_LISTENERS];
    if (c->listen.n < 1 || c->listen.n > HTTP_MAX_LISTENERS)
        return cuzk_fail(err, CUZK_ERR_ARG, "[daemon] listen: from 1 to %d addresses, not %d", HTTP_MAX_LISTENERS,
                         c->listen.n);
    for (int i = 0; i < c->listen.n; i++) {
        int rc = endpoint_parse(c->listen.items[i], &eps[i], err);
        if (rc)
            return rc;
    }
    if (*c->token_file) {
        int rc = token_load(c->token_file, &d->token, err);
        if (rc)
            return rc;
    }
    http_server_config hc = {.max_body_bytes = (size_t)c->max_body_mib << 20,
                             .max_connections = (unsigned)c->max_connections,
                             .idle_timeout_s = (unsigned)c->max_wait_s + 60,
                             .unauthenticated_per_address = (unsigned)c->unauthenticated_per_address,
                             .unauthenticated_timeout_s = (unsigned)c->unauthenticated_timeout_s,
                             .token = d->token,
                             .handle = routes_handle,
                             .handle_ctx = &d->api,
                             .counters = &d->api.counters,
                             .log = d->log};
    d->server = http_server_start(&hc, eps, c->listen.n, err);
    return d->server ? CUZK_OK : err->code;
}

/* Signals arrive on a descriptor; the mask is set before any thread starts,
 * so every thread inherits it and none is interrupted. */
static int take_signals(daemon_state *d, cuzk_error *err)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    signal(SIGPIPE, SIG_IGN); /* a client that hangs up is an error return, not a death */
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) || (d->signal_fd = signalfd(-1, &set, SFD_CLOEXEC)) < 0 ||
        (d->drained_fd = eventfd(0, EFD_CLOEXEC)) < 0)
        return cuzk_fail(err, CUZK_ERR_IO, "cannot set up signal handling: %s", strerror(errno));
    return CUZK_OK;
}

/* No new work reaches the engine, and what it has is cancelled (a store's
 * partitions wait in the store for the next start). */
static void cancel_everything(daemon_state *d)
{
    if (d->store)
        jobs_sqlite_stop_feeding(d->store);
    cuzk_engine_cancel_all(d->engine);
}

static void *drain_main(void *arg)
{
    daemon_state *d = arg;
    double timeout = d->cfg->drain_timeout_s > 0 ? d->cfg->drain_timeout_s : -1;
    /* the store's jobs first: its queued partitions are fed to the engine
     * until none is left */
    int late = d->store && jobs_sqlite_drain(d->store, timeout);
    if (late || cuzk_engine_drain(d->engine, timeout)) {
        CUZK_LOG(d->log, CUZK_LOG_WARN, "daemon: drain timed out, cancelling the jobs left",
                 "drain_timeout_s=%g", d->cfg->drain_timeout_s);
        cancel_everything(d);
        cuzk_engine_drain(d->engine, -1);
    }
    uint64_t one = 1;
    if (write(d->drained_fd, &one, sizeof one) != sizeof one)
        CUZK_LOG(d->log, CUZK_LOG_ERROR, "daemon: cannot signal the end of the drain", "error=\"%s\"",
                 strerror(errno));
    return NULL;
}

static void on_stop_signal(daemon_state *d, int signo)
{
    if (d->draining) {
        CUZK_LOG(d->log, CUZK_LOG_WARN, "daemon: second stop signal, cancelling running jobs", "signal=%s",
                 strsignal(signo));
        cancel_everything(d);
        return;
    }
    cuzk_engine_stats s;
    cuzk_engine_get_stats(d->engine, &s);
    CUZK_LOG(d->log, CUZK_LOG_INFO, "daemon: draining", "signal=%s jobs_active=%llu", strsignal(signo),
             (unsigned long long)s.jobs_active);
    cuzk_engine_stats_free(&s);
    sd_notify_state("STOPPING=1");
    routes_stop_accepting(&d->api);
    if (pthread_create(&d->drainer, NULL, drain_main, d)) {
        cancel_everything(d); /* cannot wait in the background: stop now */
        drain_main(d);
        return;
    }
    d->draining = 1;
}

/* Serves until the drain has finished. */
static void serve(daemon_state *d)
{
    struct pollfd fds[2] = {{d->signal_fd, POLLIN, 0}, {d->drained_fd, POLLIN, 0}};
    for (;;) {
        if (poll(fds, 2, -1) < 0 && errno != EINTR)
            break;
        if (fds[1].revents & POLLIN)
            break;
        struct signalfd_siginfo si;
        if (!(fds[0].revents & POLLIN) || read(d->signal_fd, &si, sizeof si) != sizeof si)
            continue;
        if (si.ssi_signo == SIGHUP) {
            int rc = cuzk_logger_reopen(d->log);
            CUZK_LOG(d->log, rc ? CUZK_LOG_ERROR : CUZK_LOG_INFO, "daemon: log reopened", "ok=%s",
                     rc ? "false" : "true");
        } else {
            on_stop_signal(d, (int)si.ssi_signo);
        }
    }
    if (d->draining)
        pthread_join(d->drainer, NULL);
}

static void stop(daemon_state *d)
{
    http_server_stop(d->server); /* no request is left touching the engine */
    if ((d->cluster || d->store) && d->engine) {
        /* every engine job ends (its hook fires) before the node or the
         * store goes, and what ended is recorded by cluster_destroy or
         * jobs_sqlite_destroy (after a drain: nothing is left to cancel) */
        cancel_everything(d);
        cuzk_engine_drain(d->engine, -1);
    }
    cluster_destroy(d->cluster);
    jobs_sqlite_destroy(d->store);
    cuzk_engine_destroy(d->engine);
    free(d->token);
    if (d->signal_fd >= 0)
        close(d->signal_fd);
    if (d->drained_fd >= 0)
        close(d->drained_fd);
}

int cuzk_daemon_run(const daemon_config *cfg, cuzk_error *err)
{
    daemon_state d = {.cfg = cfg, .signal_fd = -1, .drained_fd = -1};
    d.log = cuzk_logger_open(*cfg->log_file ? cfg->log_file : NULL, (cuzk_log_level)cuzk_log_level_from_name(cfg->log_level));
    if (!d.log)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot open the log: %s", cfg->log_file, strerror(errno));
    int rc = take_signals(&d, err);
    if (!rc)
        rc = start_engine(&d, err);
    if (!rc)
        rc = start_server(&d, err);
    if (rc) {
        CUZK_LOG(d.log, CUZK_LOG_ERROR, "daemon: cannot start", "error=\"%s\"", err->msg);
        stop(&d);
        cuzk_logger_close(d.log);
        return rc;
    }
    CUZK_LOG(d.log, CUZK_LOG_INFO, "daemon: ready", "backend=%s listeners=%d circuits=%d pid=%d state_dir=%s",
             d.api.backend, cfg->listen.n, cfg->circuits.n, (int)getpid(), d.store ? cfg->state_dir : "");
    sd_notify_state("READY=1");
    serve(&d);
    stop(&d);
    CUZK_LOG(d.log, CUZK_LOG_INFO, "daemon: stopped", "%s", "");
    cuzk_logger_close(d.log);
    return CUZK_OK;
}
