#include "daemon/sd_notify.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

void sd_notify_state(const char *state)
{
    const char *path = getenv("NOTIFY_SOCKET");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t len = path ? strlen(path) : 0;
    if (!len || len >= sizeof sa.sun_path || (path[0] != '/' && path[0] != '@'))
        return;
    memcpy(sa.sun_path, path, len);
    if (path[0] == '@') /* an abstract socket */
        sa.sun_path[0] = 0;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
           (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
    close(fd);
}
