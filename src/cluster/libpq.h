/* libpq, loaded when the cluster first opens a connection (dlopen) rather
 * than linked: no other command then pays for it and the libraries it
 * brings (Kerberos, LDAP, SASL, TLS), which would slow every process's
 * start by a tenth of a small proof (bench/results/2026-12-07-measurements-from-comments.md).
 * cuzk_pq holds the
 * functions the cluster calls under their libpq names and types
 * (libpq-fe.h declares both; nothing links the library). */
#ifndef CUZK_CLUSTER_LIBPQ_H
#define CUZK_CLUSTER_LIBPQ_H

#include <libpq-fe.h>

#include "cuzk/cuzk.h"

#define CUZK_LIBPQ_FUNCTIONS(X)                                                                 \
    X(PQclear) X(PQcmdTuples) X(PQconnectdb) X(PQconsumeInput) X(PQerrorMessage) X(PQexec)      \
    X(PQexecParams) X(PQfinish) X(PQfreemem) X(PQgetisnull) X(PQgetvalue) X(PQnotifies)         \
    X(PQntuples) X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus)                \
    X(PQsetNoticeProcessor) X(PQsocket) X(PQstatus) X(PQunescapeBytea)

typedef struct {
#define CUZK_LIBPQ_MEMBER(f) __typeof__(f) *f;
    CUZK_LIBPQ_FUNCTIONS(CUZK_LIBPQ_MEMBER)
#undef CUZK_LIBPQ_MEMBER
} cuzk_libpq;

/* Filled by cuzk_libpq_load; read only after it returned CUZK_OK. */
extern cuzk_libpq cuzk_pq;

/* Loads libpq.so.5 once (any thread, any number of times): CUZK_OK, or
 * CUZK_ERR_UNAVAILABLE with dlopen's reason in err. */
int cuzk_libpq_load(cuzk_error *err);

#endif
