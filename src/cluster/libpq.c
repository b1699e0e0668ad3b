/* libpq by dlopen (libpq.h). */
#include "cluster/libpq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "util/err.h"

cuzk_libpq cuzk_pq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[256]; /* empty: loaded */

static void load(void)
{
    void *lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_failure, sizeof load_failure, "%s", dlerror());
        return;
    }
#define CUZK_LIBPQ_LOAD(f)                                                                      \
    if (!load_failure[0] && !(cuzk_pq.f = (__typeof__(f) *)dlsym(lib, #f)))                     \
        snprintf(load_failure, sizeof load_failure, "libpq.so.5 has no %s", #f);
    CUZK_LIBPQ_FUNCTIONS(CUZK_LIBPQ_LOAD)
#undef CUZK_LIBPQ_LOAD
}

int cuzk_libpq_load(cuzk_error *err)
{
    pthread_once(&load_once, load);
    if (load_failure[0])
        return cuzk_fail(err, CUZK_ERR_UNAVAILABLE, "the cluster needs PostgreSQL's client library (Debian: libpq5): %s",
                         load_failure);
    return CUZK_OK;
}
