#include "daemon/http_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "util/err.h"

static void set_timeouts(int fd, double seconds)
{
    struct timeval tv = {(time_t)seconds, (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6)};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* 0 when all was sent; -1 when the peer stopped reading (it may still have
 * answered, e.g. 413 before the body: the caller reads the reply anyway). */
static int send_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads until the peer closes; the buffer is NUL-terminated. */
static int read_all(int fd, char **out, size_t *out_len)
{
    size_t len = 0, cap = 8192;
    char *buf = malloc(cap);
    for (ssize_t n = 1; buf && n > 0;) {
        if (cap - len < 4096) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) {
                free(buf);
                return -1;
            }
            buf = grown;
        }
        n = recv(fd, buf + len, cap - len - 1, 0);
        if (n < 0 && errno == EINTR)
            n = 1;
        else if (n < 0) {
            free(buf);
            return -1;
        } else
            len += (size_t)n;
    }
    if (!buf)
        return -1;
    buf[len] = 0;
    *out = buf;
    *out_len = len;
    return 0;
}

/* Splits a raw reply into status and body (moved to the front of raw). */
static int parse_reply(char *raw, size_t len, http_reply *out)
{
    int status;
    char *end = strstr(raw, "\r\n\r\n");
    if (sscanf(raw, "HTTP/1.%*d %d", &status) != 1 || !end)
        return -1;
    size_t head = (size_t)(end + 4 - raw);
    out->status = status;
    out->body_len = len - head;
    memmove(raw, raw + head, out->body_len + 1);
    out->body = raw;
    return 0;
}

int http_call(const endpoint *ep, const char *token, const char *method, const char *path, const char *body,
              size_t body_len, double timeout_s, http_reply *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    int fd, rc = endpoint_connect(ep, &fd, err);
    if (rc)
        return rc;
    set_timeouts(fd, timeout_s);
    char head[8192];
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: cuzk\r\nConnection: close\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n%s%s%s\r\n",
                     method, path, body_len, token ? "Authorization: Bearer " : "", token ? token : "",
                     token ? "\r\n" : "");
    if (n < 0 || (size_t)n >= sizeof head) {
        close(fd);
        return cuzk_fail(err, CUZK_ERR_ARG, "the request's path or token is too long");
    }
    if (!send_all(fd, head, (size_t)n) && body_len)
        send_all(fd, body, body_len);
    char *raw;
    size_t raw_len;
    rc = read_all(fd, &raw, &raw_len);
    close(fd);
    if (rc)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: no reply to %s %s: %s", ep->text, method, path,
                         errno == EAGAIN ? "timed out" : strerror(errno));
    if (parse_reply(raw, raw_len, out)) {
        free(raw);
        return cuzk_fail(err, CUZK_ERR_IO, "%s: the reply to %s %s is not HTTP", ep->text, method, path);
    }
    return CUZK_OK;
}

void http_reply_free(http_reply *r)
{
    free(r->body);
    r->body = NULL;
}
