/* The proving key loaded on a thread of its own while the command reads or
 * calculates the witness: a circom witness is one core's work, and the
 * key's mapping and checks need not wait for it. */
#include "cli/cli.h"
#include "util/timer.h"

static void *load(void *arg)
{
    cli_key_beside *k = arg;
    const double t0 = cuzk_now_s();
    k->rc = cuzk_key_load_file(&k->key, k->path, &k->err);
    k->seconds = cuzk_now_s() - t0;
    return NULL;
}

void cli_key_beside_start(cli_key_beside *k, const char *path)
{
    *k = (cli_key_beside){.path = path};
    k->started = !pthread_create(&k->thread, NULL, load, k);
    if (!k->started) load(k); /* no thread: loaded now, before the witness */
}

static void wait_for(cli_key_beside *k)
{
    if (k->started) pthread_join(k->thread, NULL);
    k->started = 0;
}

int cli_key_beside_finish(cli_key_beside *k, cuzk_key **key, double *seconds)
{
    wait_for(k);
    *key = k->key;
    *seconds = k->seconds;
    k->key = NULL;
    return k->rc ? cli_report("reading the proving key", &k->err) : CLI_OK;
}

void cli_key_beside_drop(cli_key_beside *k)
{
    wait_for(k);
    cuzk_key_free(k->key);
    k->key = NULL;
}
