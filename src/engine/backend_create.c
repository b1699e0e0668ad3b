/* One door from a backend's name to a backend, for the daemon's config and
 * the benchmark's --backend alike. */
#include <string.h>

#include "engine/backend.h"
#include "util/err.h"

cuzk_backend *backend_create(const char *name, const backend_options *o, cuzk_error *err)
{
    cuzk_backend *b;
    if (!strcmp(name, "cpu") || !strcmp(name, "auto"))
        b = backend_cpu_create(o->cpu_threads);
    else if (!strcmp(name, "sim"))
        b = backend_sim_create(o->sim_devices, o->sim_gpu_ms);
    else if (!strcmp(name, "gpu"))
        return cuzk_fail(err, CUZK_ERR_ARG, "the gpu backend is not wired into the engine yet (use cpu or sim)"),
               NULL;
    else
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown backend '%s' (auto, cpu, sim or gpu)", name), NULL;
    if (!b)
        cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory creating the %s backend", name);
    return b;
}
