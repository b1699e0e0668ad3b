#define _GNU_SOURCE /* POLLRDHUP */
#include "daemon/http_server.h"

#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/peer_address.h"
#include "daemon/token.h"
#include "util/err.h"
#include "util/timer.h"

typedef struct {
    http_server *server;
    endpoint ep;
    int fd;
    struct MHD_Daemon *mhd;
} listener;

/* A TCP connection that has not yet shown the token, from accept until it
 * does or closes (the notify callback's socket context). */
typedef struct http_conn {
    int fd;
    peer_address from;
    int listed; /* in the server's list of unauthenticated connections */
    /* under the server's lock: a request line arrived and its request has
     * not completed (the client is speaking, likely with the token) */
    int speaking;
    /* under the server's lock: the bytes the kernel had received on the
     * socket when the connection last fell silent (a request refused) */
    uint64_t heard_when_silent;
    double t_open;
    struct http_conn *prev, *next;
} http_conn;

/* Unauthenticated TCP connections: at most HTTP_MAX_UNAUTHENTICATED at
 * once (a newcomer beyond it pushes out the oldest), at most the
 * configured share of them from one address (a newcomer beyond it pushes
 * out that address's oldest, so one address cannot push out everyone
 * else's), each with the configured time to send a request with the
 * token; then a connection gets the idle timeout. So idle sockets without
 * a token cannot hold the slots authorized clients need.
 * Only silent connections (no request line seen, no bytes received since
 * the last refused request) are pushed out at once: a client's pool opens several connections
 * at once, and closing one whose request (with the token) is being read
 * fails a request the client sent. A speaking one is pushed out only
 * after HTTP_SPEAKING_GRACE_S, so that a client trickling a request cannot
 * hold its slot for longer; until then speaking connections may exceed
 * the bounds (the listener's connection limit still holds). */
static const double HTTP_SPEAKING_GRACE_S = 2.0;
/* Request bodies held at once, all connections together, in bodies of the
 * largest size allowed: a few concurrent bodies at the limit cannot take
 * all memory (beyond it a request is answered 503). */
enum { HTTP_BODIES_AT_ONCE = 4 };

struct http_server {
    http_server_config cfg;
    listener ls[HTTP_MAX_LISTENERS];
    int n;
    /* requests begun and not yet completed: stopping waits for them, so the
     * answer to a request under way (a wait for a job the drain finished)
     * is sent before the connection closes */
    pthread_mutex_t lock;
    pthread_cond_t idle;
    int in_flight;
    /* under lock: unauthenticated TCP connections, oldest first, and the
     * bytes that request bodies hold */
    http_conn *unauth_head, *unauth_tail;
    int n_unauth;
    size_t body_bytes;
};

enum { HTTP_STOP_GRACE_S = 10 };

/* One request's state across libmicrohttpd's calls. */
typedef struct {
    char *body;
    size_t len, cap;
    int too_large, no_memory, too_busy;
    double t0;
} request_state;

static const char *lookup_query(const void *conn, const char *key)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)conn, MHD_GET_ARGUMENT_KIND, key);
}

/* The connection's socket says its peer closed or reset it (POLLRDHUP: a
 * FIN read; POLLHUP, POLLERR: gone). A client sends no more after its
 * request (pipelined requests wait behind this one as data, not a FIN). */
static int connection_gone(const void *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info((struct MHD_Connection *)conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return 0;
    struct pollfd p = {ci->connect_fd, POLLRDHUP, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static enum MHD_Result send_response(listener *l, struct MHD_Connection *conn, const char *method, const char *url,
                                     http_response *rs, const request_state *st)
{
    static const char fallback[] = "{\"error\":\"the response could not be built (out of memory?)\"}";
    struct MHD_Response *r =
        rs->body ? MHD_create_response_from_buffer(strlen(rs->body), rs->body, MHD_RESPMEM_MUST_FREE)
                 : MHD_create_response_from_buffer(sizeof fallback - 1, (void *)fallback, MHD_RESPMEM_PERSISTENT);
    if (!r) {
        http_response_free(rs);
        return MHD_NO;
    }
    rs->body = NULL; /* libmicrohttpd frees it */
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rs->content_type ? rs->content_type : "application/json");
    if (rs->status == 401)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    if (rs->allow[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, rs->allow);
    enum MHD_Result ok = MHD_queue_response(conn, (unsigned)rs->status, r);
    MHD_destroy_response(r);
    http_counters *c = l->server->cfg.counters;
    if (c && rs->status >= 100 && rs->status < 600)
        atomic_fetch_add(&c->by_class[rs->status / 100], 1);
    CUZK_LOG(l->server->cfg.log, rs->status >= 500 ? CUZK_LOG_WARN : CUZK_LOG_DEBUG, "http: request",
             "listener=%s method=%s path=%s status=%d seconds=%.3f", l->ep.text, method, url, rs->status,
             cuzk_now_s() - st->t0);
    return ok;
}

static enum MHD_Result count_content_length(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind, (void)value;
    if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
        ++*(int *)cls;
    return MHD_YES;
}

/* What can be refused from the headers alone; 0 when nothing is. */
static int refuse_early(const listener *l, struct MHD_Connection *conn, http_response *rs)
{
    const http_server_config *cfg = &l->server->cfg;
    if (l->ep.is_tcp &&
        !token_authorizes(cfg->token, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"))) {
        http_respond_error(rs, 401, "this listener needs the header 'Authorization: Bearer TOKEN' with the "
                                    "daemon's token");
        return 1;
    }
    int lengths = 0;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_content_length, &lengths);
    if (lengths > 1) { /* which one frames the body? a proxy may pick the other: refuse */
        http_respond_error(rs, 400, "the request has %d Content-Length headers; one is allowed", lengths);
        return 1;
    }
    const char *length = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (length && strtoull(length, NULL, 10) > cfg->max_body_bytes) {
        http_respond_error(rs, 413, "the body (%s bytes) is over the limit of %zu bytes ([daemon] max_body_mib)",
                           length, cfg->max_body_bytes);
        return 1;
    }
    return 0;
}

/* Takes (grow > 0) or gives back body memory from the server's bound;
 * 0, or -1 when it would go over. */
static int body_memory(http_server *s, size_t grow, size_t give_back)
{
    size_t limit = HTTP_BODIES_AT_ONCE * (s->cfg.max_body_bytes + 1);
    pthread_mutex_lock(&s->lock);
    int ok = s->body_bytes - give_back + grow <= limit;
    if (ok)
        s->body_bytes = s->body_bytes - give_back + grow;
    pthread_mutex_unlock(&s->lock);
    return ok ? 0 : -1;
}

/* Appends a piece of the body, or marks the request too large. */
static void collect_body(http_server *s, request_state *st, const char *data, size_t n, size_t max)
{
    if (st->too_large || st->no_memory || st->too_busy)
        return;
    if (st->len + n > max) {
        st->too_large = 1;
        return;
    }
    if (st->len + n + 1 > st->cap) {
        size_t cap = st->cap ? st->cap : 4096;
        while (cap < st->len + n + 1)
            cap *= 2;
        if (cap > max + 1)
            cap = max + 1;
        if (body_memory(s, cap, st->cap)) {
            st->too_busy = 1;
            return;
        }
        char *grown = realloc(st->body, cap);
        if (!grown) {
            body_memory(s, st->cap, cap);
            st->no_memory = 1;
            return;
        }
        st->body = grown;
        st->cap = cap;
    }
    memcpy(st->body + st->len, data, n);
    st->len += n;
    st->body[st->len] = 0;
}

/* Under s->lock. */
static void unauth_unlink(http_server *s, http_conn *c)
{
    if (!c->listed)
        return;
    *(c->prev ? &c->prev->next : &s->unauth_head) = c->next;
    *(c->next ? &c->next->prev : &s->unauth_tail) = c->prev;
    c->listed = 0;
    s->n_unauth--;
}

/* Under s->lock: closes a listed connection without a token (shut down,
 * its thread then sees it closed; the socket stays open until the
 * CLOSED notification, so a listed connection's fd is always its own). */
static void push_out(http_server *s, const listener *l, http_conn *c, const char *why)
{
    shutdown(c->fd, SHUT_RDWR);
    unauth_unlink(s, c);
    CUZK_LOG(s->cfg.log, CUZK_LOG_WARN, "http: closed an idle connection without a token",
             "listener=%s reason=%s unauthenticated=%d per_address=%u", l->ep.text, why, HTTP_MAX_UNAUTHENTICATED,
             s->cfg.unauthenticated_per_address);
}

/* The bytes the kernel has received on TCP socket fd so far, whether the
 * connection's thread read them yet or not (0 when unknown). Counting
 * what was read too closes the window in which the thread has read a
 * request line but not yet reported it (a count of bytes waiting, taken
 * then, is 0). */
static uint64_t bytes_heard(int fd)
{
    struct tcp_info info = {0};
    socklen_t len = sizeof info;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) ||
        len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received)
        return 0;
    return info.tcpi_bytes_received;
}

/* Under s->lock: whether c may be pushed out now: silent, or listed for
 * longer than the grace. */
static int pushable(const http_conn *c, double now)
{
    if (!c->speaking && bytes_heard(c->fd) == c->heard_when_silent)
        return 1;
    return now - c->t_open >= HTTP_SPEAKING_GRACE_S;
}

/* Under s->lock: the oldest pushable listed connection, from address from
 * (NULL: any), when those listed number at least limit; else NULL. */
static http_conn *victim(http_server *s, const peer_address *from, unsigned limit, double now)
{
    http_conn *oldest = NULL;
    unsigned n = 0;
    for (http_conn *o = s->unauth_head; o; o = o->next)
        if (!from || peer_address_same(&o->from, from)) {
            n++;
            if (!oldest && pushable(o, now))
                oldest = o;
        }
    return n >= limit ? oldest : NULL;
}

/* A TCP connection opens (it joins the unauthenticated ones, pushing out
 * its address's oldest beyond the address's share, then the oldest of all
 * beyond the limit) or closes. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    listener *l = cls;
    http_server *s = l->server;
    if (!l->ep.is_tcp)
        return;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        http_conn *c = *socket_context;
        if (!c)
            return;
        pthread_mutex_lock(&s->lock);
        unauth_unlink(s, c);
        pthread_mutex_unlock(&s->lock);
        free(c);
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *from = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    http_conn *c = fd ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return;
    c->fd = fd->connect_fd;
    c->t_open = cuzk_now_s();
    peer_address_of(from ? from->client_addr : NULL, &c->from);
    *socket_context = c;
    /* room for the newcomer, which had no chance to speak yet */
    pthread_mutex_lock(&s->lock);
    http_conn *same_address = victim(s, &c->from, s->cfg.unauthenticated_per_address, c->t_open);
    if (same_address)
        push_out(s, l, same_address, "per_address");
    http_conn *oldest = victim(s, NULL, HTTP_MAX_UNAUTHENTICATED, c->t_open);
    if (oldest)
        push_out(s, l, oldest, "total");
    c->prev = s->unauth_tail;
    *(c->prev ? &c->prev->next : &s->unauth_head) = c;
    s->unauth_tail = c;
    c->listed = 1;
    s->n_unauth++;
    pthread_mutex_unlock(&s->lock);
}

/* The record on_connection made for a TCP connection; NULL for a unix
 * socket's. */
static http_conn *conn_record(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* Marks an unauthenticated connection (none: a unix socket's, or one
 * that showed the token) speaking or silent. */
static void set_speaking(listener *l, struct MHD_Connection *conn, int speaking)
{
    http_conn *c = conn_record(conn);
    pthread_mutex_lock(&l->server->lock);
    if (c && c->listed) {
        c->speaking = speaking;
        if (!speaking)
            c->heard_when_silent = bytes_heard(c->fd);
    }
    pthread_mutex_unlock(&l->server->lock);
}

/* A request line arrived (before its headers are parsed): the connection
 * is speaking until its request completes. Returns the request's initial
 * context, none. */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)uri;
    set_speaking(cls, conn, 1);
    return NULL;
}

/* The connection showed the token: it leaves the unauthenticated ones and
 * gets the long idle timeout. */
static void conn_authorized(listener *l, struct MHD_Connection *conn)
{
    http_conn *c = conn_record(conn);
    if (!c)
        return;
    pthread_mutex_lock(&l->server->lock);
    int was = c->listed;
    unauth_unlink(l->server, c);
    pthread_mutex_unlock(&l->server->lock);
    if (was)
        MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, l->server->cfg.idle_timeout_s);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    listener *l = cls;
    const http_server_config *cfg = &l->server->cfg;
    request_state *st = *con_cls;
    http_response rs = {0};
    if (!st) { /* the headers are in: refuse now rather than read a body for nothing */
        if (!(st = calloc(1, sizeof *st)))
            return MHD_NO;
        st->t0 = cuzk_now_s();
        *con_cls = st;
        pthread_mutex_lock(&l->server->lock);
        l->server->in_flight++;
        pthread_mutex_unlock(&l->server->lock);
        if (refuse_early(l, conn, &rs))
            return send_response(l, conn, method, url, &rs, st);
        if (l->ep.is_tcp)
            conn_authorized(l, conn);
        return MHD_YES;
    }
    if (*upload_size) {
        collect_body(l->server, st, upload, *upload_size, cfg->max_body_bytes);
        *upload_size = 0;
        return MHD_YES;
    }
    if (st->too_large)
        http_respond_error(&rs, 413, "the body is over the limit of %zu bytes ([daemon] max_body_mib)",
                           cfg->max_body_bytes);
    else if (st->no_memory)
        http_respond_error(&rs, 503, "out of memory reading the body");
    else if (st->too_busy)
        http_respond_error(&rs, 503, "the daemon holds %d request bodies of up to %zu bytes at once; retry later",
                           HTTP_BODIES_AT_ONCE, cfg->max_body_bytes);
    else {
        http_request rq = {method, url, st->body ? st->body : "", st->len, lookup_query, conn, connection_gone};
        cfg->handle(cfg->handle_ctx, &rq, &rs);
    }
    return send_response(l, conn, method, url, &rs, st);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode how)
{
    (void)how;
    listener *l = cls;
    set_speaking(l, conn, 0); /* refused for want of the token: silent again */
    request_state *st = *con_cls;
    if (!st)
        return;
    free(st->body);
    body_memory(l->server, 0, st->cap);
    free(st);
    *con_cls = NULL;
    pthread_mutex_lock(&l->server->lock);
    if (--l->server->in_flight == 0)
        pthread_cond_broadcast(&l->server->idle);
    pthread_mutex_unlock(&l->server->lock);
}

static void on_library_log(void *cls, const char *fmt, va_list ap)
{
    http_server *s = cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = 0;
    CUZK_LOG(s->cfg.log, CUZK_LOG_WARN, "http: libmicrohttpd", "detail=\"%s\"", msg);
}

static int start_listener(http_server *s, listener *l, const endpoint *ep, cuzk_error *err)
{
    l->server = s;
    l->ep = *ep;
    l->fd = -1;
    if (ep->is_tcp && !s->cfg.token)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: a TCP listener needs a token ([daemon] token_file)", ep->text);
    int rc = endpoint_listen(ep, 64, &l->fd, err);
    if (rc)
        return rc;
    /* ITC: lets http_server_stop quiesce the listener first */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                     MHD_USE_ERROR_LOG | MHD_USE_ITC;
    /* the logger first, so that every message of the library goes to our log */
    /* TCP: room for the unauthenticated connections beside the configured
     * ones, each on a short timeout until it shows the token */
    unsigned limit = s->cfg.max_connections + (ep->is_tcp ? HTTP_MAX_UNAUTHENTICATED : 0);
    unsigned timeout = ep->is_tcp ? s->cfg.unauthenticated_timeout_s : s->cfg.idle_timeout_s;
    l->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, l, MHD_OPTION_EXTERNAL_LOGGER, on_library_log, s,
                              MHD_OPTION_LISTEN_SOCKET, l->fd, MHD_OPTION_CONNECTION_LIMIT, limit,
                              MHD_OPTION_CONNECTION_TIMEOUT, timeout, MHD_OPTION_NOTIFY_COMPLETED, on_completed, l,
                              MHD_OPTION_NOTIFY_CONNECTION, on_connection, l, MHD_OPTION_URI_LOG_CALLBACK,
                              on_request_line, l, MHD_OPTION_END);
    if (!l->mhd) {
        close(l->fd);
        if (!ep->is_tcp)
            unlink(ep->path);
        return cuzk_fail(err, CUZK_ERR_IO, "%s: libmicrohttpd would not start on it", ep->text);
    }
    return CUZK_OK;
}

http_server *http_server_start(const http_server_config *cfg, const endpoint *eps, int n, cuzk_error *err)
{
    if (n < 1 || n > HTTP_MAX_LISTENERS)
        return cuzk_fail(err, CUZK_ERR_ARG, "from 1 to %d listeners, not %d", HTTP_MAX_LISTENERS, n), NULL;
    if (cfg->unauthenticated_per_address < 1 || cfg->unauthenticated_per_address > HTTP_MAX_UNAUTHENTICATED)
        return cuzk_fail(err, CUZK_ERR_ARG, "connections without the token per address: from 1 to %d, not %u",
                         HTTP_MAX_UNAUTHENTICATED, cfg->unauthenticated_per_address),
               NULL;
    http_server *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    s->cfg = *cfg;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->idle, NULL);
    for (int i = 0; i < n; i++) {
        if (start_listener(s, &s->ls[i], &eps[i], err)) {
            http_server_stop(s);
            return NULL;
        }
        s->n++;
        CUZK_LOG(cfg->log, CUZK_LOG_INFO, "http: listening", "listener=%s", eps[i].text);
    }
    return s;
}

/* Waits (a bounded time) until no request is under way. */
static void wait_for_requests(http_server *s)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += HTTP_STOP_GRACE_S;
    pthread_mutex_lock(&s->lock);
    while (s->in_flight > 0 && pthread_cond_timedwait(&s->idle, &s->lock, &until) == 0)
        ;
    if (s->in_flight > 0)
        CUZK_LOG(s->cfg.log, CUZK_LOG_WARN, "http: stopping with requests under way", "requests=%d",
                 s->in_flight);
    pthread_mutex_unlock(&s->lock);
}

void http_server_stop(http_server *s)
{
    if (!s)
        return;
    /* no new connections; the socket files go first so clients see at once
     * that nobody listens */
    for (int i = 0; i < s->n; i++) {
        MHD_quiesce_daemon(s->ls[i].mhd);
        if (!s->ls[i].ep.is_tcp)
            unlink(s->ls[i].ep.path);
    }
    wait_for_requests(s);
    for (int i = 0; i < s->n; i++) {
        MHD_stop_daemon(s->ls[i].mhd);
        close(s->ls[i].fd); /* quiesced: the socket is ours to close */
    }
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->idle);
    free(s);
}
