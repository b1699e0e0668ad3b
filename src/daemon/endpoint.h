/* Where the API is: "unix:PATH" or "tcp:HOST:PORT" ("tcp:PORT" is
 * 127.0.0.1; an IPv6 host is written in brackets, tcp:[::1]:9820). The
 * daemon listens on endpoints, the client connects to them. */
#ifndef CUZK_DAEMON_ENDPOINT_H
#define CUZK_DAEMON_ENDPOINT_H

#include <sys/un.h>

#include "cuzk/cuzk.h"

typedef struct {
    int is_tcp;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* unix */
    char host[256], port[16];                               /* tcp */
    char text[400];                                         /* as written, for messages */
} endpoint;

/* 0, or CUZK_ERR_ARG with a message for anything else. */
int endpoint_parse(const char *text, endpoint *out, cuzk_error *err);

/* A listening socket on ep (close-on-exec). A unix socket gets mode 0660;
 * a socket file left by a daemon that died is replaced, a live one (a
 * daemon answers on it) or a file that is not a socket is an error. */
int endpoint_listen(const endpoint *ep, int backlog, int *fd, cuzk_error *err);

/* A socket connected to ep. */
int endpoint_connect(const endpoint *ep, int *fd, cuzk_error *err);

#endif
