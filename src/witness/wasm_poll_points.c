#include "witness/wasm_poll_points.h"

#include <stdlib.h>
#include <string.h>

static const char back_edge[] = "goto w2c_L", before[] = "{ CUZK_POLL(); ", after[] = " }";

char *wasm_poll_back_edges(char *text, size_t *len, size_t *edges)
{
    *edges = 0;
    for (const char *at = text; (at = strstr(at, back_edge)); at += sizeof back_edge - 1) (*edges)++;
    if (!*edges) return text;
    size_t grow = *edges * (sizeof before - 1 + sizeof after - 1);
    char *out = malloc(*len + grow + 1), *o = out;
    if (!out) {
        free(text);
        return NULL;
    }
    const char *from = text;
    for (const char *at; (at = strstr(from, back_edge));) {
        /* the goto's statement ends at its ';' (a label's name has none) */
        const char *semi = strchr(at, ';');
        if (!semi) break;
        size_t head = (size_t)(at - from), stmt = (size_t)(semi + 1 - at);
        memcpy(o, from, head);
        o += head;
        memcpy(o, before, sizeof before - 1);
        o += sizeof before - 1;
        memcpy(o, at, stmt);
        o += stmt;
        memcpy(o, after, sizeof after - 1);
        o += sizeof after - 1;
        from = semi + 1;
    }
    size_t tail = *len - (size_t)(from - text);
    memcpy(o, from, tail + 1);
    *len = (size_t)(o - out) + tail;
    free(text);
    return out;
}
