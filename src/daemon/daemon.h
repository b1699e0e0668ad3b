/* The daemon's life: from a configuration to a serving engine and back.
 *
 *   start    log, backend (one door: backend_create), the job store
 *            ([daemon] state_dir: refused when it cannot be used), engine,
 *            the circuits of [keys] circuit and those the store kept, the
 *            API's listeners; then READY=1 to systemd
 *   SIGHUP   the log file is reopened (after logrotate moved it)
 *   SIGTERM  (or SIGINT) no new jobs (POST /v1/jobs answers 503); running
 *            jobs (and the store's queued ones) finish and their results
 *            stay readable; after drain_timeout_s (if set) or a second
 *            signal what is left is cancelled (a store keeps it queued for
 *            the next start); then the listeners close and the engine
 *            stops.
 * Signals are taken by signalfd in the main thread only: no handler runs
 * inside a worker. */
#ifndef CUZK_DAEMON_DAEMON_H
#define CUZK_DAEMON_DAEMON_H

#include "daemon/config.h"

/* Runs until a stop signal has drained the daemon: CUZK_OK then, or the
 * failure that kept it from starting (err says which). */
int cuzk_daemon_run(const daemon_config *cfg, cuzk_error *err);

#endif
