/* The API's transport: libmicrohttpd on one or more endpoints (unix
 * sockets, TCP with a bearer token), one thread per connection so a
 * request that waits for a job holds no one else up. It collects each
 * request's body up to a limit and hands the request to one handler.
 * Refused before the handler sees them: a TCP request without the right
 * token (401) and a body over the limit (413, sent as soon as the headers
 * announce it). */
#ifndef CUZK_DAEMON_HTTP_SERVER_H
#define CUZK_DAEMON_HTTP_SERVER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/endpoint.h"
#include "daemon/http_message.h"
#include "util/log.h"

enum { HTTP_MAX_LISTENERS = 8 };
/* TCP connections without the token at once, all addresses together (a
 * newcomer beyond it closes the oldest). */
enum { HTTP_MAX_UNAUTHENTICATED = 16 };

/* Responses sent, by status class: by_class[2] counts 2xx, and so on. */
typedef struct {
    _Atomic uint64_t by_class[6];
} http_counters;

typedef void (*http_handler)(void *ctx, const http_request *rq, http_response *rs);

typedef struct {
    size_t max_body_bytes;
    unsigned max_connections;
    unsigned idle_timeout_s; /* a connection silent this long is closed */
    /* TCP connections without the token from one address (IPv6: one /64,
     * peer_address.h) at a time, 1 to HTTP_MAX_UNAUTHENTICATED; a newcomer beyond it closes
     * that address's oldest. Authorized connections and unix sockets are
     * not counted. */
    unsigned unauthenticated_per_address;
    unsigned unauthenticated_timeout_s; /* a TCP connection's time to show the token */
    const char *token;       /* what TCP clients must send; a TCP endpoint without one is refused */
    http_handler handle;
    void *handle_ctx;
    http_counters *counters; /* NULL: not counted */
    cuzk_logger *log;
} http_server_config;

typedef struct http_server http_server;

/* Listens on eps[0 .. n) and serves until http_server_stop. The config's
 * strings and pointers must outlive the server. */
http_server *http_server_start(const http_server_config *cfg, const endpoint *eps, int n, cuzk_error *err);
/* Stops accepting connections and removes unix socket files, waits (up to
 * 10 s) for the requests under way to be answered, then closes every
 * connection. */
void http_server_stop(http_server *s);

#endif
