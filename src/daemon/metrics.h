/* GET /metrics: the engine's numbers in the Prometheus text format
 * (version 0.0.4), every name prefixed cuzk_, counters ending _total,
 * sizes _bytes and times _seconds. What each family means is in its HELP
 * line (and in README.md). */
#ifndef CUZK_DAEMON_METRICS_H
#define CUZK_DAEMON_METRICS_H

#include <stdint.h>

#include "cluster/cluster.h"
#include "engine/engine.h"

typedef struct {
    double uptime_s;
    const cuzk_engine_stats *engine;
    const cuzk_circuit_info *circuits;
    size_t n_circuits;
    const uint64_t *http_by_class; /* [6]: responses by status class (index 2: 2xx) */
    const cluster_stats *cluster;  /* NULL: single-machine mode */
    double cluster_lease_s;
} metrics_input;

/* The exposition text (malloc'd), or NULL when out of memory. */
char *metrics_render(const metrics_input *in);

#endif
