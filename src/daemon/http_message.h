/* One HTTP request and its response as the API handlers see them, apart
 * from the transport (http_server.c serves them over libmicrohttpd; unit
 * tests build them by hand). Every error body is JSON {"error": "..."}. */
#ifndef CUZK_DAEMON_HTTP_MESSAGE_H
#define CUZK_DAEMON_HTTP_MESSAGE_H

#include <jansson.h>
#include <stddef.h>

typedef struct {
    const char *method;   /* "GET", "POST", ... */
    const char *path;     /* without the query string */
    const char *body;     /* body_len bytes (not NUL-terminated) */
    size_t body_len;
    /* The value of query parameter key, or NULL. */
    const char *(*query)(const void *query_ctx, const char *key);
    const void *query_ctx;
    /* Whether the client has hung up (its connection closed or reset), or
     * NULL: never (a request built by hand). Called with query_ctx. */
    int (*client_gone)(const void *query_ctx);
} http_request;

typedef struct {
    int status;
    char *body;               /* malloc'd, NUL-terminated */
    const char *content_type; /* a string constant */
    char allow[64];           /* the Allow header of a 405, or empty */
} http_response;

/* The query parameter key of rq, or NULL. */
const char *http_query(const http_request *rq, const char *key);
/* 1 when rq's client has hung up: a request that waits asks, so that its
 * thread is not held for a client that is gone. */
int http_client_gone(const http_request *rq);

/* Sets rs to status with body serialised (the reference is stolen). */
void http_respond_json(http_response *rs, int status, json_t *body);
/* Sets rs to status with {"error": message}. */
void http_respond_error(http_response *rs, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Sets rs to status with body (malloc'd, taken; NULL: a 500). */
void http_respond_body(http_response *rs, int status, const char *content_type, char *body);
void http_response_free(http_response *rs);

/* The HTTP status for a cuzk status code: bad input 400, out of memory
 * 503, anything else 500. */
int http_status_for(int cuzk_code);

#endif
