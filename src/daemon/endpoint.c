#include "daemon/endpoint.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"

static int parse_tcp(const char *rest, endpoint *out, cuzk_error *err)
{
    const char *host = "127.0.0.1", *port = rest;
    size_t host_len = strlen(host);
    if (*rest == '[') { /* [v6]:port */
        const char *close = strchr(rest, ']');
        if (!close || close[1] != ':')
            return cuzk_fail(err, CUZK_ERR_ARG, "tcp:%s: an IPv6 host is written [HOST]:PORT", rest);
        host = rest + 1;
        host_len = (size_t)(close - host);
        port = close + 2;
    } else if (strchr(rest, ':')) {
        const char *colon = strrchr(rest, ':');
        host = rest;
        host_len = (size_t)(colon - rest);
        port = colon + 1;
    }
    char *end;
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 1 || p > 65535)
        return cuzk_fail(err, CUZK_ERR_ARG, "tcp:%s: the port must be a number from 1 to 65535", rest);
    if (!host_len || host_len >= sizeof out->host)
        return cuzk_fail(err, CUZK_ERR_ARG, "tcp:%s: no host", rest);
    snprintf(out->host, sizeof out->host, "%.*s", (int)host_len, host);
    snprintf(out->port, sizeof out->port, "%ld", p);
    out->is_tcp = 1;
    return CUZK_OK;
}

int endpoint_parse(const char *text, endpoint *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->text, sizeof out->text, "%s", text);
    if (!strncmp(text, "unix:", 5)) {
        if (!text[5] || strlen(text + 5) >= sizeof out->path)
            return cuzk_fail(err, CUZK_ERR_ARG, "%s: a socket path of 1 to %zu characters is needed", text,
                             sizeof out->path - 1);
        snprintf(out->path, sizeof out->path, "%s", text + 5);
        return CUZK_OK;
    }
    if (!strncmp(text, "tcp:", 4))
        return parse_tcp(text + 4, out, err);
    return cuzk_fail(err, CUZK_ERR_ARG, "'%s' is neither unix:PATH nor tcp:HOST:PORT", text);
}

static void unix_address(const endpoint *ep, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    memcpy(sa->sun_path, ep->path, strlen(ep->path));
}

/* Removes a socket file nobody answers on; refuses anything else. */
static int clear_stale_socket(const endpoint *ep, cuzk_error *err)
{
    struct stat st;
    if (lstat(ep->path, &st))
        return errno == ENOENT ? CUZK_OK : cuzk_fail(err, CUZK_ERR_IO, "%s: %s", ep->path, strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        return cuzk_fail(err, CUZK_ERR_IO, "%s exists and is not a socket", ep->path);
    int fd;
    if (endpoint_connect(ep, &fd, NULL) == CUZK_OK) {
        close(fd);
        return cuzk_fail(err, CUZK_ERR_IO, "%s: another daemon is listening there", ep->path);
    }
    if (unlink(ep->path) && errno != ENOENT)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot remove the stale socket: %s", ep->path, strerror(errno));
    return CUZK_OK;
}

static int listen_unix(const endpoint *ep, int backlog, int *out, cuzk_error *err)
{
    int rc = clear_stale_socket(ep, err);
    if (rc)
        return rc;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return cuzk_fail(err, CUZK_ERR_IO, "socket: %s", strerror(errno));
    struct sockaddr_un sa;
    unix_address(ep, &sa);
    /* the mode is set before listen(): no client can connect in between */
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) || chmod(ep->path, 0660) || listen(fd, backlog)) {
        rc = cuzk_fail(err, CUZK_ERR_IO, "%s: cannot listen: %s", ep->text, strerror(errno));
        close(fd);
        return rc;
    }
    *out = fd;
    return CUZK_OK;
}

static int listen_tcp(const endpoint *ep, int backlog, int *out, cuzk_error *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai;
    int gai = getaddrinfo(ep->host, ep->port, &hints, &ai);
    if (gai)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: %s", ep->text, gai_strerror(gai));
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, rc = CUZK_OK;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, backlog)) {
        rc = cuzk_fail(err, CUZK_ERR_IO, "%s: cannot listen: %s", ep->text, strerror(errno));
        if (fd >= 0)
            close(fd);
    } else {
        *out = fd;
    }
    freeaddrinfo(ai);
    return rc;
}

int endpoint_listen(const endpoint *ep, int backlog, int *fd, cuzk_error *err)
{
    return ep->is_tcp ? listen_tcp(ep, backlog, fd, err) : listen_unix(ep, backlog, fd, err);
}

static int connect_tcp(const endpoint *ep, int *out, cuzk_error *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
    int gai = getaddrinfo(ep->host, ep->port, &hints, &ai);
    if (gai)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: %s", ep->text, gai_strerror(gai));
    int fd = -1;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen)) {
            close(fd);
            fd = -1;
        }
    }
    int saved = errno;
    freeaddrinfo(ai);
    if (fd < 0)
        return cuzk_fail(err, CUZK_ERR_IO, "cannot connect to %s: %s", ep->text, strerror(saved));
    *out = fd;
    return CUZK_OK;
}

int endpoint_connect(const endpoint *ep, int *out, cuzk_error *err)
{
    if (ep->is_tcp)
        return connect_tcp(ep, out, err);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return cuzk_fail(err, CUZK_ERR_IO, "socket: %s", strerror(errno));
    struct sockaddr_un sa;
    unix_address(ep, &sa);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        int rc = cuzk_fail(err, CUZK_ERR_IO, "cannot connect to %s: %s (is the daemon running?)", ep->text,
                           strerror(errno));
        close(fd);
        return rc;
    }
    *out = fd;
    return CUZK_OK;
}
