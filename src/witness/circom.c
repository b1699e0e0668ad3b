#include "witness/circom.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/binfile.h"
#include "codec/curve_id.h"
#include "codec/decimal.h"
#include "util/err.h"
#include "util/file.h"
#include "witness/wasm_build.h"
#include "witness/wasm_file.h"
#include "witness/wasm_glue.h"

/* Circuit files larger than this are refused before they are read. */
#define WASM_MAX_BYTES ((size_t)1 << 30)
/* 32-bit words of a field element of both curves (r < 2^256) */
#define N32 8
/* Witness values read per call into the object. */
#define WITNESS_CHUNK 4096

/* The object's entry points (wasm_glue.h). */
typedef struct {
    int (*abi)(void);
    void *(*create)(void *ctx, wasm_glue_exception_fn *, wasm_glue_message_fn *, wasm_glue_value_fn *);
    void (*destroy)(void *inst);
    int (*info)(void *inst, uint32_t out[WASM_GLUE_INFO_N]);
    int (*prime)(void *inst, uint32_t *words, uint32_t n);
    int (*init)(void *inst, uint32_t sanity_check);
    int (*input_size)(void *inst, uint32_t hi, uint32_t lo, int32_t *size);
    int (*set_input)(void *inst, uint32_t hi, uint32_t lo, uint32_t pos, const uint32_t *words, uint32_t n);
    int (*witness)(void *inst, uint32_t first, uint32_t count, uint32_t n, uint32_t *out);
    const char *(*trap_name)(int code);
} glue_api;

/* What the circuit told the host during one call: circom's exception
 * code, its error lines and the log line being built. */
typedef struct {
    uint32_t exception; /* 0: none */
    char errors[400];
    char log[2048];
    size_t log_len;
    const cuzk_circom_options *o;
} glue_host;

/* One instance of the circuit and what it tells its host: one calculation
 * at a time. */
typedef struct instance {
    void *inst; /* NULL after a trap: made again at its next use */
    glue_host host;
    struct instance *next; /* among the idle ones */
} instance;

struct cuzk_circom {
    void *so;
    glue_api api;
    pthread_mutex_t lock; /* guards idle */
    instance *idle;
    cuzk_circom_options o;
    char *path;
    cuzk_curve_id curve;
    uint32_t n_witness, n_inputs, version[3];
    int compiled;
};

/* ---- the imports' host side ---- */

static void on_exception(void *ctx, uint32_t code)
{
    glue_host *h = ctx;
    h->exception = code ? code : 0xffffffffu;
}

static void log_append(glue_host *h, const char *text)
{
    int n = snprintf(h->log + h->log_len, sizeof h->log - h->log_len, "%s%s", h->log_len ? " " : "", text);
    if (n > 0) h->log_len = h->log_len + (size_t)n < sizeof h->log ? h->log_len + (size_t)n : sizeof h->log - 1;
}

/* writeBufferMessage: circom's log() sends its parts, then "\n". */
static void on_message(void *ctx, int kind, const char *text)
{
    glue_host *h = ctx;
    if (kind == WASM_GLUE_MSG_ERROR) {
        size_t len = strlen(h->errors);
        snprintf(h->errors + len, sizeof h->errors - len, "%s%s", len ? "; " : "", text);
    } else if (strcmp(text, "\n")) {
        log_append(h, text);
    } else {
        if (h->o->log) h->o->log(h->o->ctx, h->log);
        h->log_len = 0;
        h->log[0] = 0;
    }
}

static void on_value(void *ctx, const uint32_t *words, uint32_t n)
{
    uint64_t v[CUZK_DEC_MAX_WORDS] = {0};
    uint32_t nw = (n + 1) / 2 < CUZK_DEC_MAX_WORDS ? (n + 1) / 2 : CUZK_DEC_MAX_WORDS;
    for (uint32_t j = 0; j < n && j / 2 < nw; j++) v[j / 2] |= (uint64_t)words[j] << (32 * (j % 2));
    char dec[CUZK_DEC_CAP(CUZK_DEC_MAX_WORDS)];
    cuzk_dec_format(v, (int)(nw ? nw : 1), dec, sizeof dec);
    log_append(ctx, dec);
}

/* ---- loading ---- */

static int find_entry_points(cuzk_circom *c, cuzk_error *err)
{
    static const char *const names[] = {"cuzk_glue_abi",        "cuzk_glue_new",   "cuzk_glue_free",
                                        "cuzk_glue_info",       "cuzk_glue_prime", "cuzk_glue_init",
                                        "cuzk_glue_input_size", "cuzk_glue_set_input",
                                        "cuzk_glue_witness",    "cuzk_glue_trap_name"};
    void *fn[sizeof names / sizeof names[0]];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!(fn[i] = dlsym(c->so, names[i])))
            return cuzk_fail(err, CUZK_ERR_IO, "%s: the compiled circuit lacks %s", c->path, names[i]);
    glue_api *a = &c->api;
    a->abi = (int (*)(void))fn[0];
    a->create = (void *(*)(void *, wasm_glue_exception_fn *, wasm_glue_message_fn *, wasm_glue_value_fn *))fn[1];
    a->destroy = (void (*)(void *))fn[2];
    a->info = (int (*)(void *, uint32_t *))fn[3];
    a->prime = (int (*)(void *, uint32_t *, uint32_t))fn[4];
    a->init = (int (*)(void *, uint32_t))fn[5];
    a->input_size = (int (*)(void *, uint32_t, uint32_t, int32_t *))fn[6];
    a->set_input = (int (*)(void *, uint32_t, uint32_t, uint32_t, const uint32_t *, uint32_t))fn[7];
    a->witness = (int (*)(void *, uint32_t, uint32_t, uint32_t, uint32_t *))fn[8];
    a->trap_name = (const char *(*)(int))fn[9];
    if (a->abi() != WASM_GLUE_ABI)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: the compiled circuit speaks glue version %d, not %d", c->path,
                         a->abi(), WASM_GLUE_ABI);
    return CUZK_OK;
}

/* Why a call into the circuit ended with trap code `trap`. */
static int call_failed(cuzk_circom *c, instance *in, int trap, const char *doing, cuzk_error *err)
{
    static const char *const raised[] = {NULL,
                                         "Signal not found",
                                         "Too many signals set",
                                         "Signal already set",
                                         "Assert Failed",
                                         "Not enough memory",
                                         "Input signal array access exceeds the size"};
    glue_host *h = &in->host;
    /* the instance's state is unknown after a trap: the next calculation
     * starts from a fresh one */
    c->api.destroy(in->inst);
    in->inst = NULL;
    if (h->exception) {
        uint32_t code = h->exception;
        const char *what = code < sizeof raised / sizeof raised[0] ? raised[code] : "Unknown error";
        return cuzk_fail(err, code == 5 ? CUZK_ERR_NOMEM : CUZK_ERR_UNSATISFIED,
                         "%s: the circuit failed %s: %s (circom error %u)%s%s", c->path, doing, what, code,
                         h->errors[0] ? ": " : "", h->errors);
    }
    return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: the circuit's code trapped %s: %s", c->path, doing,
                     c->api.trap_name(trap));
}

static int instance_start(cuzk_circom *c, instance *in, cuzk_error *err)
{
    memset(&in->host, 0, sizeof in->host);
    in->host.o = &c->o;
    if (!(in->inst = c->api.create(&in->host, on_exception, on_message, on_value)))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: cannot start the circuit (no memory, or its start trapped)",
                         c->path);
    return CUZK_OK;
}

/* An instance for one calculation: an idle one, else a new one (not yet
 * started: calculations start it). Give it back with instance_put. */
static instance *instance_take(cuzk_circom *c)
{
    pthread_mutex_lock(&c->lock);
    instance *in = c->idle;
    if (in) c->idle = in->next;
    pthread_mutex_unlock(&c->lock);
    return in ? in : calloc(1, sizeof *in);
}

static void instance_put(cuzk_circom *c, instance *in)
{
    pthread_mutex_lock(&c->lock);
    in->next = c->idle;
    c->idle = in;
    pthread_mutex_unlock(&c->lock);
}

/* An instance taken and started: CUZK_OK, or why not (*out NULL). */
static int instance_ready(cuzk_circom *c, instance **out, cuzk_error *err)
{
    instance *in = *out = instance_take(c);
    if (!in) return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for an instance of the circuit", c->path);
    int rc = in->inst ? CUZK_OK : instance_start(c, in, err);
    if (rc) {
        instance_put(c, in);
        *out = NULL;
    }
    return rc;
}

/* The circuit's version, sizes and prime, checked. */
static int read_info(cuzk_circom *c, instance *in, cuzk_error *err)
{
    uint32_t info[WASM_GLUE_INFO_N], prime[N32];
    int trap = c->api.info(in->inst, info);
    if (trap) return call_failed(c, in, trap, "reporting its sizes", err);
    memcpy(c->version, info, sizeof c->version);
    if (info[WASM_GLUE_VERSION] != 2)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: a calculator of circom %u: only circom 2's are supported",
                         c->path, info[WASM_GLUE_VERSION]);
    if (info[WASM_GLUE_N32] != N32)
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: its field elements are %u bytes: cuzk proves on bn128 and bls12381 (32 bytes)",
                         c->path, 4 * info[WASM_GLUE_N32]);
    if ((trap = c->api.prime(in->inst, prime, N32))) return call_failed(c, in, trap, "reporting its prime", err);
    uint8_t le[4 * N32];
    for (int j = 0; j < N32; j++)
        for (int b = 0; b < 4; b++) le[4 * j + b] = (uint8_t)(prime[j] >> (8 * b));
    if (cuzk_curve_from_prime(le, sizeof le, 0, &c->curve))
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: its prime is neither bn128's nor bls12381's r (compile with circom --prime "
                         "bn128 or bls12381)",
                         c->path);
    c->n_witness = info[WASM_GLUE_WITNESS];
    c->n_inputs = info[WASM_GLUE_INPUTS];
    return CUZK_OK;
}

int cuzk_circom_load(cuzk_circom **out, const char *wasm_path, const cuzk_circom_options *o, cuzk_error *err)
{
    *out = NULL;
    cuzk_circom *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(wasm_path))) {
        free(c);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "no memory to load %s", wasm_path);
    }
    pthread_mutex_init(&c->lock, NULL);
    if (o) c->o = *o;
    uint8_t *bytes;
    size_t len;
    int rc = cuzk_file_read_all(wasm_path, WASM_MAX_BYTES, &bytes, &len, err);
    if (rc) {
        cuzk_circom_free(c);
        return rc;
    }
    rc = wasm_check_circom(bytes, len, wasm_path, err);
    wasm_build_options bo = {c->o.cache_dir, c->o.progress, c->o.ctx};
    if (!rc) rc = wasm_build_open(bytes, len, wasm_path, &bo, &c->so, &c->compiled, err);
    free(bytes);
    if (!rc) rc = find_entry_points(c, err);
    instance *in = NULL;
    if (!rc) rc = instance_ready(c, &in, err);
    if (in) {
        rc = read_info(c, in, err);
        instance_put(c, in);
    }
    if (rc) {
        cuzk_circom_free(c);
        return rc;
    }
    *out = c;
    return CUZK_OK;
}

void cuzk_circom_free(cuzk_circom *c)
{
    if (!c) return;
    for (instance *in; (in = c->idle);) {
        c->idle = in->next;
        if (in->inst) c->api.destroy(in->inst);
        free(in);
    }
    pthread_mutex_destroy(&c->lock);
    if (c->so) dlclose(c->so);
    free(c->path);
    free(c);
}

cuzk_curve_id cuzk_circom_curve(const cuzk_circom *c) { return c->curve; }
int cuzk_circom_compiled(const cuzk_circom *c) { return c->compiled; }
uint32_t cuzk_circom_witness_size(const cuzk_circom *c) { return c->n_witness; }

/* ---- calculating ---- */

static void to_words32(const uint64_t v[WITNESS_INPUT_WORDS], uint32_t out[N32])
{
    for (int j = 0; j < N32; j++) out[j] = (uint32_t)(v[j / 2] >> (32 * (j % 2)));
}

/* That the circuit has input signal s with as many values as s gives. */
static int check_signal(cuzk_circom *c, instance *in, const witness_input_signal *s, cuzk_error *err)
{
    uint32_t hi = (uint32_t)(s->hash >> 32), lo = (uint32_t)s->hash;
    int32_t size;
    char doing[128];
    snprintf(doing, sizeof doing, "looking up input '%.64s'", s->name);
    int trap = c->api.input_size(in->inst, hi, lo, &size);
    if (trap) return call_failed(c, in, trap, doing, err);
    /* circom 2.2 answers 0 for a name it does not know (no input has no
     * values), earlier versions a negative size */
    if (size <= 0)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: the circuit has no input signal '%.64s'", c->path, s->name);
    if ((uint32_t)size != s->n_values)
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: input signal '%.64s' takes %d value%s; the input gives %s%u",
                         c->path, s->name, size, size == 1 ? "" : "s", s->n_values < (uint32_t)size ? "only " : "",
                         s->n_values);
    return CUZK_OK;
}

static int count_missing(const cuzk_circom *c, uint32_t counter, cuzk_error *err)
{
    if (counter >= c->n_inputs) return CUZK_OK;
    return cuzk_fail(err, CUZK_ERR_ARG,
                     "%s: the input sets %u of the circuit's %u input values: an input signal is missing", c->path,
                     counter, c->n_inputs);
}

/* Every value of one input signal, its size checked first. */
static int set_signal(cuzk_circom *c, instance *in, const witness_input_signal *s, uint32_t *counter,
                      cuzk_error *err)
{
    int rc = check_signal(c, in, s, err);
    if (rc) return rc;
    uint32_t hi = (uint32_t)(s->hash >> 32), lo = (uint32_t)s->hash;
    for (uint32_t i = 0; i < s->n_values; i++) {
        uint32_t words[N32];
        to_words32(s->values[i], words);
        int trap = c->api.set_input(in->inst, hi, lo, i, words, N32);
        if (trap) {
            char doing[128];
            snprintf(doing, sizeof doing, "as input '%.64s'[%u] was set", s->name, i);
            return call_failed(c, in, trap, doing, err);
        }
        (*counter)++;
    }
    return CUZK_OK;
}

static int read_witness(cuzk_circom *c, instance *in, cuzk_wtns *w, cuzk_error *err)
{
    w->curve = c->curve;
    w->n_witness = c->n_witness;
    w->values = cuzk_alloc_aligned((uint64_t)c->n_witness * 32, 0);
    uint32_t *buf = malloc(sizeof(uint32_t) * N32 * WITNESS_CHUNK);
    int rc = CUZK_OK;
    if (!buf || (c->n_witness && !w->values))
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for %u witness values", c->path, c->n_witness);
    for (uint32_t first = 0; !rc && first < c->n_witness; first += WITNESS_CHUNK) {
        uint32_t count = c->n_witness - first < WITNESS_CHUNK ? c->n_witness - first : WITNESS_CHUNK;
        int trap = c->api.witness(in->inst, first, count, N32, buf);
        if (trap) {
            rc = call_failed(c, in, trap, "giving its witness", err);
            break;
        }
        for (uint32_t i = 0; i < count; i++) {
            uint64_t *v = w->values + (size_t)(first + i) * 4;
            for (int j = 0; j < 4; j++) v[j] = buf[i * N32 + 2 * j] | (uint64_t)buf[i * N32 + 2 * j + 1] << 32;
        }
    }
    free(buf);
    return rc;
}

int cuzk_circom_check_input(cuzk_circom *c, const witness_input *input, cuzk_error *err)
{
    instance *in;
    int rc = instance_ready(c, &in, err);
    uint32_t counter = 0;
    for (uint32_t i = 0; !rc && i < input->n_signals; i++) {
        rc = check_signal(c, in, &input->signals[i], err);
        counter += input->signals[i].n_values;
    }
    if (!rc) rc = count_missing(c, counter, err);
    if (in) instance_put(c, in);
    return rc;
}

static int calculate_in(cuzk_circom *c, instance *in, const witness_input *input, cuzk_wtns *w, cuzk_error *err)
{
    in->host.exception = 0;
    in->host.errors[0] = 0;
    /* snarkjs's default: no sanity checks inside the circuit */
    int trap = c->api.init(in->inst, 0);
    if (trap) return call_failed(c, in, trap, "starting", err);
    uint32_t counter = 0;
    int rc = CUZK_OK;
    for (uint32_t i = 0; !rc && i < input->n_signals; i++) rc = set_signal(c, in, &input->signals[i], &counter, err);
    if (!rc) rc = count_missing(c, counter, err);
    return rc ? rc : read_witness(c, in, w, err);
}

int cuzk_circom_calculate(cuzk_circom *c, const witness_input *input, cuzk_wtns *w, cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    instance *in;
    int rc = instance_ready(c, &in, err);
    if (!rc) {
        rc = calculate_in(c, in, input, w, err);
        instance_put(c, in);
    }
    if (rc) cuzk_wtns_free(w);
    return rc;
}

int cuzk_circom_calculate_file(cuzk_circom *c, const char *input_path, cuzk_wtns *w, cuzk_error *err)
{
    witness_input in;
    memset(w, 0, sizeof *w);
    int rc = witness_input_read(&in, input_path, cuzk_curve_r(c->curve), err);
    if (rc) return rc;
    rc = cuzk_circom_calculate(c, &in, w, err);
    witness_input_free(&in);
    return rc;
}
