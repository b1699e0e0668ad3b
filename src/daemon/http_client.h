/* A minimal HTTP/1.1 client for the daemon's API: one request per
 * connection (Connection: close), the body sent with Content-Length, the
 * whole reply read. Enough for `cuzk client`; no TLS, no redirects. */
#ifndef CUZK_DAEMON_HTTP_CLIENT_H
#define CUZK_DAEMON_HTTP_CLIENT_H

#include <stddef.h>

#include "daemon/endpoint.h"

typedef struct {
    int status;
    char *body; /* NUL-terminated, malloc'd */
    size_t body_len;
} http_reply;

/* Sends method path (with its query) and body (body_len bytes, may be 0)
 * to ep, with "Authorization: Bearer token" when token is not NULL; waits
 * up to timeout_s for each read or write. A reply of any status is
 * CUZK_OK; a failure to connect, send or read is CUZK_ERR_IO. */
int http_call(const endpoint *ep, const char *token, const char *method, const char *path, const char *body,
              size_t body_len, double timeout_s, http_reply *out, cuzk_error *err);
void http_reply_free(http_reply *r);

#endif
