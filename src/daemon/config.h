/* The daemon's configuration: an INI file (sections [daemon] [memory]
 * [gpus] [scheduler] [synthesis] [pipeline] [keys] [cluster] [logging]) read with
 * libinih, then command-line overrides. One table (config.c) names every
 * key with its type, bounds, default and meaning; the parser, the
 * overrides and the printer (`cuzk daemon --print-config`, which writes
 * config/cuzk.example.ini) all walk it, so a key cannot exist in one and
 * be missing from another. */
#ifndef CUZK_DAEMON_CONFIG_H
#define CUZK_DAEMON_CONFIG_H

#include <stdio.h>

#include "cuzk/cuzk.h"
#include "cluster/cluster.h"
#include "engine/engine.h"

/* A key that may be repeated (listen, circuit). A later source (the file,
 * then the command line) replaces the values of an earlier one rather than
 * adding to them. */
typedef struct {
    char **items;
    int n;
    int source; /* which source set the values */
} config_list;

typedef struct {
    /* [daemon] */
    config_list listen;
    char *token_file;
    int max_body_mib;
    double max_wait_s;
    int max_connections;
    int unauthenticated_per_address;
    int unauthenticated_timeout_s;
    double drain_timeout_s;
    char *state_dir; /* the job store's folder; "": jobs in memory only */
    double retain_s;
    int state_inline_max_mib;
    /* The engine's settings: the keys of [memory] [gpus] [scheduler]
     * [synthesis] [pipeline] that the engine has write here directly, and
     * their defaults are cuzk_engine_config_default's. */
    cuzk_engine_config engine;
    /* [gpus] */
    char *backend;
    int cpu_threads;
    int gpu_devices;
    int sim_devices;
    double sim_device_ms;
    char *sim_gate;
    /* [synthesis] */
    int synthesis_workers; /* 0: the engine's default (one per CPU) */
    /* [pipeline] */
    char *timeline;
    /* [keys] */
    char *pce_cache_dir;
    char *wasm_cache_dir;
    config_list circuits;
    /* [cluster]: database "" is single-machine mode */
    cluster_config cluster;
    /* [logging] */
    char *log_file;
    char *log_level;
} daemon_config;

/* Where a value comes from; a list set by a later source replaces the
 * earlier one's values. */
enum { CONFIG_DEFAULT = 0, CONFIG_FILE = 1, CONFIG_COMMAND_LINE = 2 };

/* Fills c with every default. 0, or CUZK_ERR_NOMEM. */
int daemon_config_init(daemon_config *c, cuzk_error *err);
void daemon_config_free(daemon_config *c);

/* Reads an INI file over c. Unknown sections or keys and bad values fail
 * with "PATH:LINE: [section] key: why". */
int daemon_config_load(daemon_config *c, const char *path, cuzk_error *err);

/* Sets one key from text, as the file would: source is CONFIG_FILE or
 * CONFIG_COMMAND_LINE. */
int daemon_config_set(daemon_config *c, const char *section, const char *key, const char *value, int source,
                      cuzk_error *err);
/* "section.key=value", the form of `--set`. */
int daemon_config_set_dotted(daemon_config *c, const char *assignment, cuzk_error *err);

/* Writes c as an annotated INI file: every key with its meaning and
 * default, then its value. */
void daemon_config_print(const daemon_config *c, FILE *f);

/* The engine's configuration from c (strings point into c; log is not set). */
void daemon_config_engine(const daemon_config *c, cuzk_engine_config *out);

#endif
