#include "util/env.h"

#include <stdlib.h>

int cuzk_env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && *v != '0';
}
