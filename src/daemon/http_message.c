#include "daemon/http_message.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/cuzk.h"

int http_client_gone(const http_request *rq)
{
    return rq->client_gone ? rq->client_gone(rq->query_ctx) : 0;
}

const char *http_query(const http_request *rq, const char *key)
{
    return rq->query ? rq->query(rq->query_ctx, key) : NULL;
}

void http_respond_body(http_response *rs, int status, const char *content_type, char *body)
{
    http_response_free(rs);
    rs->status = body ? status : 500; /* the transport sends a fallback body */
    rs->content_type = content_type;
    rs->body = body;
}

void http_respond_json(http_response *rs, int status, json_t *body)
{
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    http_respond_body(rs, status, "application/json", text);
}

void http_respond_error(http_response *rs, int status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* messages may quote what a client sent (a path segment is any bytes):
     * keep them ASCII so they are always valid JSON strings */
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            *p = '?';
    http_respond_json(rs, status, json_pack("{s:s}", "error", msg));
}

void http_response_free(http_response *rs)
{
    free(rs->body);
    rs->body = NULL;
}

int http_status_for(int cuzk_code)
{
    switch (cuzk_code) {
    case CUZK_ERR_IO:
    case CUZK_ERR_FORMAT:
    case CUZK_ERR_MISMATCH:
    case CUZK_ERR_ARG:
    case CUZK_ERR_UNSATISFIED:
        return 400;
    case CUZK_ERR_CONFLICT:
        return 409;
    case CUZK_ERR_NOMEM:
    case CUZK_ERR_CANCELLED:
    case CUZK_ERR_UNAVAILABLE:
        return 503;
    default:
        return 500;
    }
}
