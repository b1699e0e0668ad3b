#include "witness/input.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/json_io.h"
#include "util/err.h"
#include "util/file.h"

/* Input files larger than this are refused before they are read. */
#define INPUT_MAX_BYTES ((size_t)1 << 30)
/* 2^53: the largest JSON number JavaScript holds exactly */
#define JS_EXACT_LIMIT 9007199254740992.0
#define JS_EXACT_LIMIT_INT ((int64_t)1 << 53)

enum { W = WITNESS_INPUT_WORDS };

uint64_t witness_fnv1a64(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

typedef struct {
    const char *file;
    const uint64_t *p;
    const char *signal;
    uint32_t index; /* of the value being read, after flattening */
    cuzk_error *err;
} input_ctx;

__attribute__((format(printf, 2, 3))) static int input_fail(const input_ctx *c, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cuzk_fail(c->err, CUZK_ERR_FORMAT, "%s: input signal '%.64s', value %u: %s", c->file, c->signal,
                     c->index, what);
}

/* ---- values mod p ---- */

/* 1 when a (W + 1 words) >= p. */
static int wide_geq_p(const uint64_t *a, const uint64_t *p)
{
    if (a[W]) return 1;
    for (int i = W - 1; i >= 0; i--)
        if (a[i] != p[i]) return a[i] > p[i];
    return 1;
}

static void wide_sub_p(uint64_t *a, const uint64_t *p)
{
    unsigned __int128 borrow = 0;
    for (int i = 0; i <= W; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - (i < W ? p[i] : 0) - borrow;
        a[i] = (uint64_t)d;
        borrow = (d >> 64) & 1;
    }
}

/* acc = (acc * radix + digit) mod p, for acc < p and radix, digit <= 16:
 * the product is below 17p < 2^(64W + 5), and at most 17 subtractions of p
 * bring it back. */
static void acc_push(uint64_t *acc, uint32_t radix, uint32_t digit, const uint64_t *p)
{
    uint64_t wide[W + 1];
    unsigned __int128 carry = digit;
    for (int i = 0; i < W; i++) {
        unsigned __int128 t = (unsigned __int128)acc[i] * radix + carry;
        wide[i] = (uint64_t)t;
        carry = t >> 64;
    }
    wide[W] = (uint64_t)carry;
    while (wide_geq_p(wide, p)) wide_sub_p(wide, p);
    memcpy(acc, wide, sizeof(uint64_t) * W);
}

/* v = p - v for 0 < v < p; 0 stays 0. */
static void negate_mod(uint64_t *v, const uint64_t *p)
{
    uint64_t any = 0;
    for (int i = 0; i < W; i++) any |= v[i];
    if (!any) return;
    unsigned __int128 borrow = 0;
    for (int i = 0; i < W; i++) {
        unsigned __int128 d = (unsigned __int128)p[i] - v[i] - borrow;
        v[i] = (uint64_t)d;
        borrow = (d >> 64) & 1;
    }
}

/* v = x mod p, a hex digit at a time. */
static void set_u64(uint64_t *v, uint64_t x, const uint64_t *p)
{
    memset(v, 0, sizeof(uint64_t) * W);
    for (int b = 60; b >= 0; b -= 4) acc_push(v, 16, (uint32_t)(x >> b) & 15, p);
}

static int digit_of(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return 99;
}

static int js_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'; }

/* A string as BigInt() reads it (see input.h), mod p. */
static int parse_string(const input_ctx *c, const char *s, size_t len, uint64_t *v)
{
    while (len && js_space(*s)) s++, len--;
    while (len && js_space(s[len - 1])) len--;
    if (!len) return input_fail(c, "an empty string is not a number");
    uint32_t radix = 10;
    int negative = 0;
    if (len > 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
        radix = strchr("xX", s[1]) ? 16 : strchr("oO", s[1]) ? 8 : 2;
        s += 2, len -= 2;
    } else if (*s == '+' || *s == '-') {
        negative = *s == '-';
        s++, len--;
    }
    if (!len) return input_fail(c, "a sign alone is not a number");
    memset(v, 0, sizeof(uint64_t) * W);
    for (size_t i = 0; i < len; i++) {
        int d = digit_of(s[i]);
        if (d >= (int)radix)
            return input_fail(c, "not an integer: a string must hold decimal digits (with an optional sign) or "
                                 "0x, 0o or 0b digits");
        acc_push(v, radix, (uint32_t)d, c->p);
    }
    if (negative) negate_mod(v, c->p);
    return CUZK_OK;
}

static int parse_value(const input_ctx *c, const json_t *j, uint64_t *v)
{
    if (json_is_string(j)) return parse_string(c, json_string_value(j), json_string_length(j), v);
    if (json_is_boolean(j)) {
        set_u64(v, json_is_true(j), c->p);
        return CUZK_OK;
    }
    if (!json_is_number(j)) return input_fail(c, "null is not a number");
    double d = json_number_value(j);
    if (d != floor(d)) return input_fail(c, "not an integer");
    /* an integer's own words, not its double's, decide (2^53 + 1) */
    int64_t x = json_is_integer(j) ? json_integer_value(j) : 0;
    if (fabs(d) > JS_EXACT_LIMIT || x > JS_EXACT_LIMIT_INT || x < -JS_EXACT_LIMIT_INT)
        return input_fail(c, "a JSON number beyond 2^53 is not exact in JavaScript (snarkjs rounds it): write "
                             "it as a string");
    if (!json_is_integer(j)) x = (int64_t)d;
    set_u64(v, x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x, c->p);
    if (x < 0) negate_mod(v, c->p);
    return CUZK_OK;
}

/* Values under j after flattening; an object anywhere is refused. */
static int count_values(const input_ctx *c, const json_t *j, uint32_t *n)
{
    if (json_is_object(j))
        return input_fail(c, "an object is not a number (circom 2.2's buses: give each field as "
                             "\"signal.field\")");
    if (!json_is_array(j)) {
        if (*n == UINT32_MAX) return input_fail(c, "too many values");
        (*n)++;
        return CUZK_OK;
    }
    for (size_t i = 0; i < json_array_size(j); i++) {
        int rc = count_values(c, json_array_get(j, i), n);
        if (rc) return rc;
    }
    return CUZK_OK;
}

static int fill_values(input_ctx *c, const json_t *j, uint64_t (*out)[W])
{
    if (!json_is_array(j)) {
        int rc = parse_value(c, j, out[c->index]);
        c->index++;
        return rc;
    }
    for (size_t i = 0; i < json_array_size(j); i++) {
        int rc = fill_values(c, json_array_get(j, i), out);
        if (rc) return rc;
    }
    return CUZK_OK;
}

static int read_signal(input_ctx *c, const char *key, const json_t *j, witness_input_signal *s)
{
    c->signal = key;
    c->index = 0;
    uint32_t n = 0;
    int rc = count_values(c, j, &n);
    if (rc) return rc;
    s->name = strdup(key);
    s->hash = witness_fnv1a64(key, strlen(key));
    s->n_values = n;
    s->values = n ? malloc((size_t)n * sizeof *s->values) : NULL;
    if (!s->name || (n && !s->values))
        return cuzk_fail(c->err, CUZK_ERR_NOMEM, "%s: no memory for input signal '%.64s' (%u values)", c->file,
                         key, n);
    return fill_values(c, j, s->values);
}

int witness_input_parse(witness_input *in, const char *text, size_t len, const char *name,
                        const uint64_t p[W], cuzk_error *err)
{
    memset(in, 0, sizeof *in);
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root) {
        int big = strstr(je.text, "too big") != NULL;
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: not JSON: %s (line %d, column %d)%s", name,
                         cuzk_json_error_quoting_nothing(&je), je.line, je.column,
                         big ? ": write big values as strings" : "");
    }
    int rc = CUZK_OK;
    if (!json_is_object(root)) {
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: the input must be a JSON object of signal names", name);
    } else if (json_object_size(root) &&
               !(in->signals = calloc(json_object_size(root), sizeof *in->signals))) {
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for %zu input signals", name, json_object_size(root));
    } else {
        input_ctx c = {name, p, NULL, 0, err};
        const char *key;
        json_t *v;
        json_object_foreach(root, key, v)
        {
            if ((rc = read_signal(&c, key, v, &in->signals[in->n_signals++]))) break;
        }
    }
    json_decref(root);
    if (rc) witness_input_free(in);
    return rc;
}

int witness_input_read(witness_input *in, const char *path, const uint64_t p[W], cuzk_error *err)
{
    uint8_t *text;
    size_t len;
    memset(in, 0, sizeof *in);
    int rc = cuzk_file_read_all(path, INPUT_MAX_BYTES, &text, &len, err);
    if (rc) return rc;
    rc = witness_input_parse(in, (const char *)text, len, path, p, err);
    free(text);
    return rc;
}

void witness_input_free(witness_input *in)
{
    for (uint32_t i = 0; i < in->n_signals; i++) {
        free(in->signals[i].name);
        free(in->signals[i].values);
    }
    free(in->signals);
    memset(in, 0, sizeof *in);
}
