#include "util/crash_point.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char armed_name[128];
static long armed_at; /* the pass that kills; 0: not armed */
static atomic_long passes;

static void arm(void)
{
    const char *v = getenv("CUZK_CRASH_AT");
    if (!v || !*v)
        return;
    snprintf(armed_name, sizeof armed_name, "%s", v);
    char *colon = strrchr(armed_name, ':');
    long n = 1;
    if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        n = strtol(colon + 1, NULL, 10);
        *colon = 0;
    }
    armed_at = n > 0 ? n : 1;
}

void cuzk_crash_point(const char *name)
{
    pthread_once(&once, arm);
    if (!armed_at || strcmp(name, armed_name))
        return;
    if (atomic_fetch_add(&passes, 1) + 1 != armed_at)
        return;
    fprintf(stderr, "crash point %s reached (pass %ld): SIGKILL\n", name, armed_at);
    fflush(stderr);
    raise(SIGKILL);
}
