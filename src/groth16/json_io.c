#include "codec/json_io.h"

#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "codec/curve_id.h"
#include "codec/decimal.h"
#include "util/err.h"
#include "util/file.h"

/* JSON.stringify(x, null, 1) */
#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER)

/* ================= writing ================= */

static json_t *num_json(const uint64_t *v, uint32_t nwords)
{
    char dec[CUZK_DEC_CAP(CUZK_MAX_Q_WORDS)];
    cuzk_dec_format(v, (int)nwords, dec, sizeof dec);
    return json_string(dec);
}

/* Appends v (stolen) to arr; returns nonzero on failure (including v NULL). */
static int push(json_t *arr, json_t *v) { return json_array_append_new(arr, v) != 0; }

static json_t *strings_json(const char *a, const char *b, const char *c)
{
    json_t *arr = json_array();
    int bad = !arr;
    if (!bad) bad |= push(arr, json_string(a)) | push(arr, json_string(b));
    if (!bad && c) bad |= push(arr, json_string(c));
    if (bad) json_decref(arr);
    return bad ? NULL : arr;
}

static json_t *fp2_json(const uint64_t v[2][6], uint32_t qw)
{
    json_t *arr = json_array();
    if (!arr || push(arr, num_json(v[0], qw)) | push(arr, num_json(v[1], qw))) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

static json_t *g1_json(const cuzk_g1_plain *p, uint32_t qw)
{
    if (p->infinity) return strings_json("0", "1", "0");
    json_t *arr = json_array();
    if (!arr || push(arr, num_json(p->x, qw)) | push(arr, num_json(p->y, qw)) | push(arr, json_string("1"))) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

static json_t *g2_json(const cuzk_g2_plain *p, uint32_t qw)
{
    json_t *arr = json_array();
    int bad = !arr;
    if (!bad && p->infinity)
        bad = push(arr, strings_json("0", "0", NULL)) | push(arr, strings_json("1", "0", NULL)) |
              push(arr, strings_json("0", "0", NULL));
    else if (!bad)
        bad = push(arr, fp2_json(p->x, qw)) | push(arr, fp2_json(p->y, qw)) | push(arr, strings_json("1", "0", NULL));
    if (bad) json_decref(arr);
    return bad ? NULL : arr;
}

/* Nonzero when any of n q-elements starting at v is not < q. */
static int any_not_below(const uint64_t *v, size_t stride, size_t n, const uint64_t *q, uint32_t qw)
{
    for (size_t i = 0; i < n; i++)
        if (!cuzk_words_lt(v + i * stride, q, qw)) return 1;
    return 0;
}

static int g1_bad(const cuzk_g1_plain *p, const uint64_t *q, uint32_t qw)
{
    return !p->infinity && (any_not_below(p->x, 0, 1, q, qw) || any_not_below(p->y, 0, 1, q, qw));
}

static int g2_bad(const cuzk_g2_plain *p, const uint64_t *q, uint32_t qw)
{
    return !p->infinity && (any_not_below(&p->x[0][0], 6, 2, q, qw) || any_not_below(&p->y[0][0], 6, 2, q, qw));
}

const char *cuzk_json_error_quoting_nothing(struct json_error_t *je)
{
    char *near = strstr(je->text, " near ");
    if (near)
        *near = 0;
    return je->text;
}

/* Where a writer sends its JSON: exactly one of path, f, s is set. */
typedef struct {
    const char *path;
    FILE *f;
    char **s;
} sink;

/* json_dumpf as snarkjs's files have it: bfj writes an empty array (the
 * public signals of a circuit without any) as "[\n]", jansson as "[]". */
static int dump_file(json_t *root, FILE *f)
{
    if (json_is_array(root) && json_array_size(root) == 0) return fputs("[\n]", f) < 0 ? -1 : 0;
    return json_dumpf(root, f, DUMP_FLAGS);
}

/* Through a temporary file renamed into place (util/file.h). */
static int emit_path(json_t *root, const char *path, cuzk_error *err)
{
    cuzk_outfile out;
    int rc = cuzk_outfile_open(&out, path, err);
    if (rc) return rc;
    if (dump_file(root, out.f) != 0) {
        rc = cuzk_fail(err, CUZK_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        cuzk_outfile_abort(&out);
        return rc;
    }
    return cuzk_outfile_commit(&out, err);
}

/* Writes root (taking it) to the sink. */
static int emit(json_t *root, const char *what, sink to, cuzk_error *err)
{
    int rc = CUZK_OK;
    if (!root) {
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory building %s", what);
    } else if (to.s) {
        *to.s = json_dumps(root, DUMP_FLAGS);
        if (!*to.s) rc = cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory formatting %s", what);
    } else if (to.f) {
        if (dump_file(root, to.f) != 0 || fflush(to.f) != 0)
            rc = cuzk_fail(err, CUZK_ERR_IO, "writing %s failed: %s", what, strerror(errno));
    } else if (to.path) {
        rc = emit_path(root, to.path, err);
    } else {
        rc = cuzk_fail(err, CUZK_ERR_ARG, "no destination for %s", what);
    }
    json_decref(root);
    return rc;
}

static int set(json_t *obj, const char *key, json_t *v) { return json_object_set_new(obj, key, v) != 0; }

static int proof_build(const cuzk_proof *p, json_t **out, cuzk_error *err)
{
    *out = NULL;
    const uint64_t *q = cuzk_curve_q(p->curve);
    uint32_t qw = cuzk_curve_q_words(p->curve);
    if (!q) return cuzk_fail(err, CUZK_ERR_ARG, "proof has an unknown curve (%d)", (int)p->curve);
    if (g1_bad(&p->a, q, qw) || g2_bad(&p->b, q, qw) || g1_bad(&p->c, q, qw))
        return cuzk_fail(err, CUZK_ERR_ARG, "proof has a coordinate >= q");
    json_t *o = json_object();
    if (o && (set(o, "pi_a", g1_json(&p->a, qw)) | set(o, "pi_b", g2_json(&p->b, qw)) |
              set(o, "pi_c", g1_json(&p->c, qw)) | set(o, "protocol", json_string("groth16")) |
              set(o, "curve", json_string(cuzk_curve_snarkjs_name(p->curve))))) {
        json_decref(o);
        o = NULL;
    }
    *out = o;
    return CUZK_OK;
}

static int proof_emit(const cuzk_proof *p, sink to, cuzk_error *err)
{
    json_t *root;
    int rc = proof_build(p, &root, err);
    return rc ? rc : emit(root, "proof", to, err);
}

int cuzk_proof_write_json(const cuzk_proof *p, const char *path, cuzk_error *err)
{
    return proof_emit(p, (sink){path, NULL, NULL}, err);
}

int cuzk_proof_dump_json(const cuzk_proof *p, FILE *f, cuzk_error *err) { return proof_emit(p, (sink){NULL, f, NULL}, err); }

char *cuzk_proof_to_json(const cuzk_proof *p, cuzk_error *err)
{
    char *s = NULL;
    return proof_emit(p, (sink){NULL, NULL, &s}, err) ? NULL : s;
}

static json_t *public_build(const uint64_t (*signals)[4], uint32_t n)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < n; i++) {
        if (push(arr, num_json(signals[i], 4))) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr;
}

int cuzk_public_write_json(const uint64_t (*signals)[4], uint32_t n, const char *path, cuzk_error *err)
{
    return emit(public_build(signals, n), "public signals", (sink){path, NULL, NULL}, err);
}

int cuzk_public_dump_json(const uint64_t (*signals)[4], uint32_t n, FILE *f, cuzk_error *err)
{
    return emit(public_build(signals, n), "public signals", (sink){NULL, f, NULL}, err);
}

char *cuzk_public_to_json(const uint64_t (*signals)[4], uint32_t n, cuzk_error *err)
{
    char *s = NULL;
    return emit(public_build(signals, n), "public signals", (sink){NULL, NULL, &s}, err) ? NULL : s;
}

static json_t *alphabeta_json(const uint64_t ab[2][3][2][6], uint32_t qw)
{
    json_t *outer = json_array();
    int bad = !outer;
    for (int i = 0; !bad && i < 2; i++) {
        json_t *mid = json_array();
        bad = push(outer, mid);
        for (int j = 0; !bad && j < 3; j++) bad = push(mid, fp2_json(ab[i][j], qw));
    }
    if (bad) json_decref(outer);
    return bad ? NULL : outer;
}

static int vk_build(const cuzk_vk *vk, json_t **out, cuzk_error *err)
{
    *out = NULL;
    const uint64_t *q = cuzk_curve_q(vk->curve);
    uint32_t qw = cuzk_curve_q_words(vk->curve);
    if (!q) return cuzk_fail(err, CUZK_ERR_ARG, "verification key has an unknown curve (%d)", (int)vk->curve);
    if (!vk->ic) return cuzk_fail(err, CUZK_ERR_ARG, "verification key has no IC points");
    int bad = g1_bad(&vk->alpha1, q, qw) || g2_bad(&vk->beta2, q, qw) || g2_bad(&vk->gamma2, q, qw) ||
              g2_bad(&vk->delta2, q, qw) || any_not_below(&vk->alphabeta[0][0][0][0], 6, 12, q, qw);
    for (uint64_t i = 0; !bad && i <= vk->n_public; i++) bad = g1_bad(&vk->ic[i], q, qw);
    if (bad) return cuzk_fail(err, CUZK_ERR_ARG, "verification key has a coordinate >= q");

    json_t *o = json_object(), *ic = json_array();
    bad = !o || !ic;
    for (uint64_t i = 0; !bad && i <= vk->n_public; i++) bad = push(ic, g1_json(&vk->ic[i], qw));
    if (bad) {
        json_decref(ic);
    } else {
        bad = set(o, "protocol", json_string("groth16")) |
              set(o, "curve", json_string(cuzk_curve_snarkjs_name(vk->curve))) |
              set(o, "nPublic", json_integer(vk->n_public)) | set(o, "vk_alpha_1", g1_json(&vk->alpha1, qw)) |
              set(o, "vk_beta_2", g2_json(&vk->beta2, qw)) | set(o, "vk_gamma_2", g2_json(&vk->gamma2, qw)) |
              set(o, "vk_delta_2", g2_json(&vk->delta2, qw)) |
              set(o, "vk_alphabeta_12", alphabeta_json(vk->alphabeta, qw)) | set(o, "IC", ic);
    }
    if (bad) {
        json_decref(o);
        o = NULL;
    }
    *out = o;
    return CUZK_OK;
}

static int vk_emit(const cuzk_vk *vk, sink to, cuzk_error *err)
{
    json_t *root;
    int rc = vk_build(vk, &root, err);
    return rc ? rc : emit(root, "verification key", to, err);
}

int cuzk_vk_write_json(const cuzk_vk *vk, const char *path, cuzk_error *err)
{
    return vk_emit(vk, (sink){path, NULL, NULL}, err);
}

int cuzk_vk_dump_json(const cuzk_vk *vk, FILE *f, cuzk_error *err) { return vk_emit(vk, (sink){NULL, f, NULL}, err); }

char *cuzk_vk_to_json(const cuzk_vk *vk, cuzk_error *err)
{
    char *s = NULL;
    return vk_emit(vk, (sink){NULL, NULL, &s}, err) ? NULL : s;
}

int cuzk_json_dump_like_snarkjs(const char *text, FILE *f, cuzk_error *err)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    if (!root) return cuzk_fail(err, CUZK_ERR_FORMAT, "not JSON: %s", cuzk_json_error_quoting_nothing(&je));
    return emit(root, "JSON", (sink){NULL, f, NULL}, err);
}

/* ================= reading ================= */

typedef struct {
    const char *path;
    cuzk_curve_id curve;
    cuzk_error *err;
} jctx;

__attribute__((format(printf, 3, 4))) static int jfail(jctx *c, const char *key, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cuzk_fail(c->err, CUZK_ERR_FORMAT, "%s: %s: %s", c->path, key, what);
}

/* Parses "0x"-prefixed hexadecimal digits into nwords words. */
static int hex_parse(const char *s, uint64_t *out, int nwords)
{
    size_t len = strlen(s);
    if (len == 0) return -1;
    while (len > 1 && *s == '0') s++, len--;
    if (len > (size_t)nwords * 16) return -1;
    memset(out, 0, sizeof *out * (size_t)nwords);
    for (size_t i = 0; i < len; i++) {
        char ch = s[len - 1 - i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                                                  : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                                           : -1;
        if (d < 0) return -1;
        out[i / 16] |= (uint64_t)d << (4 * (i % 16));
    }
    return 0;
}

/* One field element: a decimal or 0x-hex string, < bound (bound_name for
 * messages). out gets nwords words. */
static int j_num(jctx *c, const json_t *v, const char *key, uint64_t *out, uint32_t nwords, const uint64_t *bound,
                 const char *bound_name)
{
    char shown[64];
    uint64_t wide[CUZK_MAX_Q_WORDS];
    if (!v) return jfail(c, key, "missing");
    if (!json_is_string(v)) return jfail(c, key, "expected a decimal string");
    const char *s = json_string_value(v);
    snprintf(shown, sizeof shown, "\"%.40s%s\"", s, strlen(s) > 40 ? "..." : "");
    int hex = s[0] == '0' && s[1] == 'x';
    int bad = hex ? hex_parse(s + 2, wide, CUZK_MAX_Q_WORDS) : cuzk_dec_parse(s, wide, CUZK_MAX_Q_WORDS);
    if (bad || strlen(s) != json_string_length(v))
        return jfail(c, key, "%s is not a %s number", shown, hex ? "hexadecimal" : "decimal");
    int fits = 1;
    for (uint32_t i = nwords; i < CUZK_MAX_Q_WORDS; i++) fits &= wide[i] == 0;
    if (!fits || !cuzk_words_lt(wide, bound, nwords))
        return jfail(c, key, "%s is not below %s of %s", shown, bound_name, cuzk_curve_snarkjs_name(c->curve));
    memcpy(out, wide, sizeof *out * nwords);
    return CUZK_OK;
}

static int j_q(jctx *c, const json_t *v, const char *key, uint64_t *out)
{
    return j_num(c, v, key, out, cuzk_curve_q_words(c->curve), cuzk_curve_q(c->curve), "q");
}

static int j_fp2(jctx *c, const json_t *v, const char *key, uint64_t out[2][6])
{
    char sub[96];
    int rc;
    if (!v) return jfail(c, key, "missing");
    if (!json_is_array(v) || json_array_size(v) != 2) return jfail(c, key, "expected [c0, c1]");
    for (int i = 0; i < 2; i++) {
        snprintf(sub, sizeof sub, "%s[%d]", key, i);
        if ((rc = j_q(c, json_array_get(v, (size_t)i), sub, out[i]))) return rc;
    }
    return CUZK_OK;
}

/* A projective z that must be exactly 0 or 1 (in Fp, or Fp2 when fp2);
 * *is_one tells which. */
static int j_z(jctx *c, const json_t *v, const char *key, int fp2, int *is_one)
{
    uint64_t z[2][6] = {{0}};
    static const uint64_t one[6] = {1}, zero[6] = {0};
    int rc = fp2 ? j_fp2(c, v, key, z) : j_q(c, v, key, z[0]);
    if (rc) return rc;
    if (memcmp(z[1], zero, sizeof zero) == 0) {
        if (memcmp(z[0], zero, sizeof zero) == 0) return *is_one = 0, CUZK_OK;
        if (memcmp(z[0], one, sizeof one) == 0) return *is_one = 1, CUZK_OK;
    }
    return jfail(c, key, "projective z must be 1 (affine) or 0 (infinity)");
}

static int j_g1(jctx *c, const json_t *v, const char *key, cuzk_g1_plain *p)
{
    char sub[96];
    int rc;
    memset(p, 0, sizeof *p);
    if (!v) return jfail(c, key, "missing");
    size_t n = json_array_size(v);
    if (!json_is_array(v) || (n != 2 && n != 3)) return jfail(c, key, "expected a G1 point [x, y, z]");
    snprintf(sub, sizeof sub, "%s[0]", key);
    if ((rc = j_q(c, json_array_get(v, 0), sub, p->x))) return rc;
    snprintf(sub, sizeof sub, "%s[1]", key);
    if ((rc = j_q(c, json_array_get(v, 1), sub, p->y))) return rc;
    int one = 1;
    snprintf(sub, sizeof sub, "%s[2]", key);
    if (n == 3 && (rc = j_z(c, json_array_get(v, 2), sub, 0, &one))) return rc;
    if (!one) memset(p, 0, sizeof *p), p->infinity = 1;
    return CUZK_OK;
}

static int j_g2(jctx *c, const json_t *v, const char *key, cuzk_g2_plain *p)
{
    char sub[96];
    int rc;
    memset(p, 0, sizeof *p);
    if (!v) return jfail(c, key, "missing");
    size_t n = json_array_size(v);
    if (!json_is_array(v) || (n != 2 && n != 3))
        return jfail(c, key, "expected a G2 point [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]");
    snprintf(sub, sizeof sub, "%s[0]", key);
    if ((rc = j_fp2(c, json_array_get(v, 0), sub, p->x))) return rc;
    snprintf(sub, sizeof sub, "%s[1]", key);
    if ((rc = j_fp2(c, json_array_get(v, 1), sub, p->y))) return rc;
    int one = 1;
    snprintf(sub, sizeof sub, "%s[2]", key);
    if (n == 3 && (rc = j_z(c, json_array_get(v, 2), sub, 1, &one))) return rc;
    if (!one) memset(p, 0, sizeof *p), p->infinity = 1;
    return CUZK_OK;
}

/* "protocol" must be "groth16"; "curve" (optional when curve_optional)
 * sets c->curve. */
static int j_protocol_curve(jctx *c, const json_t *root, int curve_optional)
{
    const json_t *proto = json_object_get(root, "protocol");
    if (!proto) return jfail(c, "protocol", "missing");
    if (!json_is_string(proto) || strcmp(json_string_value(proto), "groth16") != 0)
        return jfail(c, "protocol", "\"%.40s\" is not \"groth16\"",
                     json_is_string(proto) ? json_string_value(proto) : "(not a string)");
    const json_t *curve = json_object_get(root, "curve");
    c->curve = CUZK_CURVE_BN254;
    if (!curve && curve_optional) return CUZK_OK;
    if (!curve) return jfail(c, "curve", "missing");
    if (!json_is_string(curve) || cuzk_curve_from_name(json_string_value(curve), &c->curve) != CUZK_OK)
        return jfail(c, "curve", "unknown curve \"%.40s\" (expected bn128 or bls12381)",
                     json_is_string(curve) ? json_string_value(curve) : "(not a string)");
    return CUZK_OK;
}

/* Where JSON comes from: the file path names, or (in_memory) the
 * NUL-terminated text, name standing for it in messages. */
typedef struct {
    const char *name;
    const char *text;
    int in_memory;
} jsrc;

static int j_load_file(const char *path, json_t **root, cuzk_error *err)
{
    json_error_t jerr;
    FILE *f = cuzk_fopen_regular(path, NULL, err);
    if (!f) return err ? err->code : CUZK_ERR_IO;
    *root = json_loadf(f, 0, &jerr);
    int io_bad = ferror(f);
    fclose(f);
    if (io_bad) {
        json_decref(*root);
        *root = NULL;
        return cuzk_fail(err, CUZK_ERR_IO, "%s: read failed", path);
    }
    if (!*root)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: not valid JSON: %s (line %d, column %d)", path,
                         cuzk_json_error_quoting_nothing(&jerr), jerr.line, jerr.column);
    return CUZK_OK;
}

/* Loads src as JSON; CUZK_ERR_IO when the file cannot be read, CUZK_ERR_FORMAT
 * when it is not JSON of the expected type, CUZK_ERR_ARG without a name or
 * text. */
static int j_load(jsrc src, json_type type, json_t **root, cuzk_error *err)
{
    json_error_t jerr;
    *root = NULL;
    if (!src.name) return cuzk_fail(err, CUZK_ERR_ARG, src.in_memory ? "no name given for JSON text" : "no file name given");
    if (src.in_memory && !src.text) return cuzk_fail(err, CUZK_ERR_ARG, "%s: no JSON text given", src.name);
    if (!src.in_memory) {
        int rc = j_load_file(src.name, root, err);
        if (rc) return rc;
    } else if (!(*root = json_loads(src.text, 0, &jerr))) {
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: not valid JSON: %s (line %d, column %d)", src.name,
                         cuzk_json_error_quoting_nothing(&jerr), jerr.line, jerr.column);
    }
    if (json_typeof(*root) != type) {
        json_decref(*root);
        *root = NULL;
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: expected a JSON %s at the top level", src.name,
                         type == JSON_OBJECT ? "object" : "array");
    }
    return CUZK_OK;
}

static int proof_read(cuzk_proof *p, jsrc src, cuzk_error *err)
{
    json_t *root;
    memset(p, 0, sizeof *p);
    int rc = j_load(src, JSON_OBJECT, &root, err);
    if (rc) return rc;
    jctx c = {src.name, CUZK_CURVE_BN254, err};
    rc = j_protocol_curve(&c, root, 1);
    if (!rc) rc = j_g1(&c, json_object_get(root, "pi_a"), "pi_a", &p->a);
    if (!rc) rc = j_g2(&c, json_object_get(root, "pi_b"), "pi_b", &p->b);
    if (!rc) rc = j_g1(&c, json_object_get(root, "pi_c"), "pi_c", &p->c);
    p->curve = c.curve;
    json_decref(root);
    if (rc) memset(p, 0, sizeof *p);
    return rc;
}

static int public_read(uint64_t (**signals)[4], uint32_t *n, cuzk_curve_id curve, jsrc src, cuzk_error *err)
{
    const char *path = src.name;
    json_t *root;
    *signals = NULL;
    *n = 0;
    if (!cuzk_curve_valid(curve)) return cuzk_fail(err, CUZK_ERR_ARG, "%s: unknown curve (%d)", path, (int)curve);
    int rc = j_load(src, JSON_ARRAY, &root, err);
    if (rc) return rc;
    size_t count = json_array_size(root);
    uint64_t (*out)[4] = NULL;
    if (count > UINT32_MAX)
        rc = cuzk_fail(err, CUZK_ERR_FORMAT, "%s: %zu public signals is too many", path, count);
    else if (!(out = malloc((count ? count : 1) * sizeof *out)))
        rc = cuzk_fail(err, CUZK_ERR_NOMEM, "%s: no memory for %zu public signals", path, count);
    jctx c = {path, curve, err};
    for (size_t i = 0; !rc && i < count; i++) {
        char key[32];
        snprintf(key, sizeof key, "signal %zu", i);
        rc = j_num(&c, json_array_get(root, i), key, out[i], 4, cuzk_curve_r(curve), "r");
    }
    json_decref(root);
    if (rc) {
        free(out);
        return rc;
    }
    *signals = out;
    *n = (uint32_t)count;
    return CUZK_OK;
}

int cuzk_proof_read_json(cuzk_proof *p, const char *path, cuzk_error *err)
{
    return proof_read(p, (jsrc){path, NULL, 0}, err);
}

int cuzk_proof_read_json_text(cuzk_proof *p, const char *text, const char *name, cuzk_error *err)
{
    return proof_read(p, (jsrc){name, text, 1}, err);
}

int cuzk_public_read_json(uint64_t (**signals)[4], uint32_t *n, cuzk_curve_id curve, const char *path,
                          cuzk_error *err)
{
    return public_read(signals, n, curve, (jsrc){path, NULL, 0}, err);
}

int cuzk_public_read_json_text(uint64_t (**signals)[4], uint32_t *n, cuzk_curve_id curve, const char *text,
                               const char *name, cuzk_error *err)
{
    return public_read(signals, n, curve, (jsrc){name, text, 1}, err);
}

static int j_alphabeta(jctx *c, const json_t *v, uint64_t ab[2][3][2][6])
{
    char key[64];
    int rc;
    if (!json_is_array(v) || json_array_size(v) != 2) return jfail(c, "vk_alphabeta_12", "expected [2][3][2] numbers");
    for (int i = 0; i < 2; i++) {
        const json_t *mid = json_array_get(v, (size_t)i);
        snprintf(key, sizeof key, "vk_alphabeta_12[%d]", i);
        if (!json_is_array(mid) || json_array_size(mid) != 3) return jfail(c, key, "expected [3][2] numbers");
        for (int j = 0; j < 3; j++) {
            snprintf(key, sizeof key, "vk_alphabeta_12[%d][%d]", i, j);
            if ((rc = j_fp2(c, json_array_get(mid, (size_t)j), key, ab[i][j]))) return rc;
        }
    }
    return CUZK_OK;
}

static int j_vk(jctx *c, const json_t *root, cuzk_vk *vk)
{
    int rc = j_protocol_curve(c, root, 0);
    if (rc) return rc;
    vk->curve = c->curve;
    const json_t *np = json_object_get(root, "nPublic");
    uint64_t n_pub[4];
    if (!np) return jfail(c, "nPublic", "missing");
    if (json_is_integer(np)) {
        if (json_integer_value(np) < 0 || json_integer_value(np) >= UINT32_MAX)
            return jfail(c, "nPublic", "out of range");
        n_pub[0] = (uint64_t)json_integer_value(np);
    } else if (!json_is_string(np) || cuzk_dec_parse(json_string_value(np), n_pub, 4) ||
               n_pub[1] | n_pub[2] | n_pub[3] || n_pub[0] >= UINT32_MAX) {
        return jfail(c, "nPublic", "expected a count");
    }
    vk->n_public = (uint32_t)n_pub[0];
    if ((rc = j_g1(c, json_object_get(root, "vk_alpha_1"), "vk_alpha_1", &vk->alpha1))) return rc;
    if ((rc = j_g2(c, json_object_get(root, "vk_beta_2"), "vk_beta_2", &vk->beta2))) return rc;
    if ((rc = j_g2(c, json_object_get(root, "vk_gamma_2"), "vk_gamma_2", &vk->gamma2))) return rc;
    if ((rc = j_g2(c, json_object_get(root, "vk_delta_2"), "vk_delta_2", &vk->delta2))) return rc;
    const json_t *ab = json_object_get(root, "vk_alphabeta_12");
    if (ab) {
        if ((rc = j_alphabeta(c, ab, vk->alphabeta))) return rc;
        vk->has_alphabeta = 1;
    }
    const json_t *ic = json_object_get(root, "IC");
    if (!ic) return jfail(c, "IC", "missing");
    if (!json_is_array(ic) || json_array_size(ic) != (size_t)vk->n_public + 1)
        return jfail(c, "IC", "expected an array of nPublic + 1 = %llu points", (unsigned long long)vk->n_public + 1);
    vk->ic = calloc((size_t)vk->n_public + 1, sizeof *vk->ic);
    if (!vk->ic) return cuzk_fail(c->err, CUZK_ERR_NOMEM, "%s: no memory for %u IC points", c->path, vk->n_public + 1);
    for (size_t i = 0; i <= vk->n_public; i++) {
        char key[32];
        snprintf(key, sizeof key, "IC[%zu]", i);
        if ((rc = j_g1(c, json_array_get(ic, i), key, &vk->ic[i]))) return rc;
    }
    return CUZK_OK;
}

static int vk_read(cuzk_vk *vk, jsrc src, cuzk_error *err)
{
    json_t *root;
    memset(vk, 0, sizeof *vk);
    int rc = j_load(src, JSON_OBJECT, &root, err);
    if (rc) return rc;
    jctx c = {src.name, CUZK_CURVE_BN254, err};
    rc = j_vk(&c, root, vk);
    json_decref(root);
    if (rc) cuzk_vk_free(vk);
    return rc;
}

int cuzk_vk_read_json(cuzk_vk *vk, const char *path, cuzk_error *err) { return vk_read(vk, (jsrc){path, NULL, 0}, err); }

int cuzk_vk_read_json_text(cuzk_vk *vk, const char *text, const char *name, cuzk_error *err)
{
    return vk_read(vk, (jsrc){name, text, 1}, err);
}

void cuzk_vk_free(cuzk_vk *vk)
{
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}
