#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>

int cuzk_fail(cuzk_error *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

const char *cuzk_status_name(int code)
{
    switch (code) {
    case CUZK_OK: return "ok";
    case CUZK_ERR_IO: return "i/o error";
    case CUZK_ERR_FORMAT: return "bad file format";
    case CUZK_ERR_MISMATCH: return "inputs do not match";
    case CUZK_ERR_ARG: return "bad argument";
    case CUZK_ERR_NOMEM: return "out of memory";
    case CUZK_ERR_UNSATISFIED: return "witness does not satisfy the constraints";
    case CUZK_ERR_INVALID_PROOF: return "invalid proof";
    case CUZK_ERR_CONFLICT: return "conflict";
    case CUZK_ERR_CANCELLED: return "cancelled";
    case CUZK_ERR_UNAVAILABLE: return "unavailable";
    }
    return "unknown error";
}
