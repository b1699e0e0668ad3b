#include "util/random.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

int cuzk_random_bytes(void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t got = getrandom(p, len, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += got;
        len -= (size_t)got;
    }
    return 0;
}

void cuzk_wipe(void *buf, size_t len)
{
    explicit_bzero(buf, len);
}
