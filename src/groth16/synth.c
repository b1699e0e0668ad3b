#include "groth16/synth.h"

#include <stdlib.h>
#include <string.h>

#include "codec/curve_id.h"
#include "groth16/r1cs_eval.h"
#include "util/err.h"
#include "util/random.h"

/* A uniform-ish element below the modulus: rejection on the masked top. */
static void random_element(uint64_t out[4], const uint64_t *m, uint64_t *state)
{
    uint64_t mask = ~0ULL >> __builtin_clzll(m[3]);
    do {
        for (int i = 0; i < 4; i++)
            out[i] = cuzk_splitmix64(state);
        out[3] &= mask;
    } while (mont_geq(out, m, 4));
}

/* +1, -1 (m - 1) or a full element: real circuits are dominated by +-1. */
static void random_coef(uint64_t out[4], const uint64_t *m, uint64_t *state)
{
    uint64_t pick = cuzk_splitmix64(state) % 4;
    if (pick == 0) {
        random_element(out, m, state);
        return;
    }
    memset(out, 0, 4 * sizeof *out);
    out[0] = 1;
    if (pick == 1)
        mont_sub_raw(out, m, out, 4);
}

/* The kinds of constraint (synth.h); each defines one new wire. */
typedef enum { GATE_RANDOM, GATE_BOOL, GATE_AND, GATE_XOR, GATE_PACK, GATE_FULL, GATE_KINDS } gate_kind;

enum { PACK_BITS = 32, RECENT_BITS = 4096, WEIGHT_TOTAL = 1000 };

/* The most terms a gate of each kind writes in A, B, C: the arrays are
 * sized from these before any gate is made. */
static const uint8_t gate_terms[GATE_KINDS][3] = {
    [GATE_RANDOM] = {2, 2, 1}, [GATE_BOOL] = {1, 2, 0}, [GATE_AND] = {1, 1, 1},
    [GATE_XOR] = {1, 1, 3},    [GATE_PACK] = {PACK_BITS, 1, 1}, [GATE_FULL] = {2, 2, 1},
};

/* Per shape, each kind's share in thousandths. The bit kinds' shares set
 * the share p of ones among bits: free bits are 1 half the time, AND gives
 * p^2, XOR 2p(1 - p), so p = 0.22/2 + 0.275 p^2 + 0.483 * 2p(1 - p) at
 * p ~ 0.39: ~38 % ones and ~59 % zeros with ~1 % packed words (small) and
 * 1.3 % full-size products. Mixed: half full-size products (a random gate
 * would mostly read bits and make zeros), half bits. */
static const uint16_t shape_weights[CUZK_SHAPES][GATE_KINDS] = {
    [CUZK_SHAPE_RANDOM] = {[GATE_RANDOM] = 1000},
    [CUZK_SHAPE_BITS] = {[GATE_BOOL] = 220, [GATE_AND] = 275, [GATE_XOR] = 483, [GATE_PACK] = 9, [GATE_FULL] = 13},
    [CUZK_SHAPE_MIXED] = {[GATE_BOOL] = 110, [GATE_AND] = 137, [GATE_XOR] = 241, [GATE_PACK] = 5, [GATE_FULL] = 507},
};

#define SHAPE_NAME_(name, NAME) [CUZK_SHAPE_##NAME] = #name,
static const char *const shape_names[CUZK_SHAPES] = {CUZK_SHAPE_ROWS(SHAPE_NAME_, )};

const char *cuzk_synth_shape_name(cuzk_synth_shape s)
{
    return (unsigned)s < CUZK_SHAPES ? shape_names[s] : "unknown";
}

int cuzk_synth_shape_from_name(const char *name, cuzk_synth_shape *out)
{
    for (int s = 0; s < CUZK_SHAPES; s++)
        if (!strcmp(name, shape_names[s])) {
            *out = (cuzk_synth_shape)s;
            return 0;
        }
    return -1;
}

/* The kind sequence comes from its own random stream and the number of bit
 * wires so far (a bit gate needs bits to read), so the term counts are
 * known before the gates are made. */
typedef struct {
    const uint16_t *weights;
    uint64_t state;
    uint64_t bits;
} kind_stream;

static gate_kind next_kind(kind_stream *k)
{
    uint64_t pick = cuzk_splitmix64(&k->state) % WEIGHT_TOTAL, sum = 0;
    gate_kind kind = GATE_RANDOM;
    for (int i = 0; i < GATE_KINDS; i++) {
        sum += k->weights[i];
        if (pick < sum) {
            kind = (gate_kind)i;
            break;
        }
    }
    if ((kind == GATE_AND || kind == GATE_XOR) && k->bits < 2)
        kind = GATE_BOOL;
    if (kind == GATE_PACK && k->bits < PACK_BITS)
        kind = GATE_BOOL;
    k->bits += kind == GATE_BOOL || kind == GATE_AND || kind == GATE_XOR;
    return kind;
}

typedef struct {
    const cuzk_synth_params *p;
    fr_any f;
    uint64_t state;
    uint32_t first_input; /* lowest wire a gate may read: 1 in zero mode */
    cuzk_r1cs *r;
    uint64_t *w;
    uint32_t at[3];   /* terms written per matrix */
    uint32_t *bits;   /* the wires holding bits, in order */
    uint64_t n_bits;
} synth_ctx;

static cuzk_r1cs_term *term(synth_ctx *x, int matrix, uint32_t wire, const uint64_t coef[4])
{
    cuzk_r1cs_term *t = &x->r->terms[matrix][x->at[matrix]++];
    *t = (cuzk_r1cs_term){.wire = wire};
    memcpy(t->coef, coef, sizeof t->coef);
    return t;
}

static const uint64_t COEF_ONE[4] = {1, 0, 0, 0}, COEF_TWO[4] = {2, 0, 0, 0};

/* Appends a linear combination of nterms distinct-ish earlier wires < limit. */
static void add_lc(synth_ctx *x, int matrix, uint32_t nterms, uint32_t limit)
{
    for (uint32_t k = 0; k < nterms; k++) {
        cuzk_r1cs_term *t = &x->r->terms[matrix][x->at[matrix]++];
        t->wire = x->first_input + (uint32_t)(cuzk_splitmix64(&x->state) % (limit - x->first_input));
        t->pad = 0;
        random_coef(t->coef, x->f.modulus, &x->state);
    }
}

static void eval_row(synth_ctx *x, uint32_t row, uint64_t a[4], uint64_t b[4])
{
    cuzk_lc_eval(&x->f, a, x->r->terms[0], x->r->row_start[0][row], x->at[0], x->w);
    cuzk_lc_eval(&x->f, b, x->r->terms[1], x->r->row_start[1][row], x->at[1], x->w);
}

/* A recent bit wire's index in the bit list (SHA-256 reads the words of the
 * last rounds), at least `span` positions from the end. */
static uint64_t recent_bit(synth_ctx *x, uint64_t span)
{
    uint64_t window = x->n_bits - span + 1 < RECENT_BITS ? x->n_bits - span + 1 : RECENT_BITS;
    return x->n_bits - span - cuzk_splitmix64(&x->state) % window;
}

/* (sum a) * (sum b) = 1 * out over random earlier wires; with_constant adds
 * the constant wire with a full-size coefficient to both sides, so the
 * product is full-size even when the wires read are bits. */
static void gate_product(synth_ctx *x, uint32_t row, uint32_t out, int with_constant)
{
    for (int m = 0; m < 2; m++) {
        add_lc(x, m, 1 + (uint32_t)(cuzk_splitmix64(&x->state) & 1) - (uint32_t)with_constant, out);
        if (with_constant) {
            uint64_t c[4];
            random_element(c, x->f.modulus, &x->state);
            term(x, m, 0, c);
        }
    }
    term(x, 2, out, COEF_ONE);
    for (int k = 0; k < 3; k++)
        x->r->row_start[k][row + 1] = x->at[k];
    uint64_t a[4], b[4];
    eval_row(x, row, a, b);
    fr_any_mul_normal(&x->f, x->w + 4 * (size_t)out, a, b);
}

/* The bit gates: out is a free bit, a AND b, a XOR b, or 32 bits packed. */
static void gate_bits(synth_ctx *x, gate_kind kind, uint32_t out)
{
    uint64_t *v = x->w + 4 * (size_t)out;
    uint64_t minus_one[4] = {1, 0, 0, 0};
    mont_sub_raw(minus_one, x->f.modulus, minus_one, 4);
    if (kind == GATE_BOOL) { /* b * (1 - b) = 0 */
        v[0] = x->p->zero_witness ? 0 : cuzk_splitmix64(&x->state) & 1;
        term(x, 0, out, COEF_ONE);
        term(x, 1, 0, COEF_ONE);
        term(x, 1, out, minus_one);
    } else if (kind == GATE_PACK) { /* (sum 2^i b_i) * 1 = word */
        uint64_t first = recent_bit(x, PACK_BITS);
        for (int i = 0; i < PACK_BITS; i++) {
            uint32_t bit = x->bits[first + i];
            term(x, 0, bit, (uint64_t[4]){1ULL << i, 0, 0, 0});
            v[0] |= x->w[4 * (size_t)bit] << i;
        }
        term(x, 1, 0, COEF_ONE);
        term(x, 2, out, COEF_ONE);
    } else { /* AND: a * b = c; XOR: 2a * b = a + b - c */
        uint64_t ia = recent_bit(x, 1), ib = recent_bit(x, 1);
        if (ib == ia)
            ib = ia == x->n_bits - 1 ? ia - 1 : ia + 1;
        uint32_t a = x->bits[ia], b = x->bits[ib];
        uint64_t va = x->w[4 * (size_t)a], vb = x->w[4 * (size_t)b];
        term(x, 0, a, kind == GATE_AND ? COEF_ONE : COEF_TWO);
        term(x, 1, b, COEF_ONE);
        if (kind == GATE_XOR) {
            term(x, 2, a, COEF_ONE);
            term(x, 2, b, COEF_ONE);
            term(x, 2, out, minus_one);
        } else {
            term(x, 2, out, COEF_ONE);
        }
        v[0] = kind == GATE_AND ? va & vb : va ^ vb;
    }
    if (kind != GATE_PACK)
        x->bits[x->n_bits++] = out;
}

static int alloc_system(cuzk_r1cs *r, uint32_t m, const uint64_t terms[3])
{
    for (int k = 0; k < 3; k++) {
        r->row_start[k] = calloc((size_t)m + 1, sizeof *r->row_start[k]);
        r->terms[k] = calloc(terms[k] + 1, sizeof *r->terms[k]);
        if (!r->row_start[k] || !r->terms[k])
            return -1;
    }
    return 0;
}

int cuzk_circuit_synth(const cuzk_synth_params *p, cuzk_r1cs *r, cuzk_wtns *w, cuzk_error *err)
{
    memset(r, 0, sizeof *r);
    memset(w, 0, sizeof *w);
    uint32_t inputs = 1 + p->n_public + CUZK_SYNTH_PRIVATE_INPUTS;
    if (p->n_constraints == 0 || (uint64_t)inputs + p->n_constraints > UINT32_MAX / 2)
        return cuzk_fail(err, CUZK_ERR_ARG, "a synthetic circuit needs 1 to 2^31 constraints, not %u",
                         p->n_constraints);
    if ((unsigned)p->shape >= CUZK_SHAPES)
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown circuit shape %d", (int)p->shape);
    if (!cuzk_curve_valid(p->curve))
        return cuzk_fail(err, CUZK_ERR_ARG, "unknown curve %d", (int)p->curve);
    synth_ctx x = {.p = p, .f = fr_any_of(p->curve), .state = p->seed ^ 0x6375706b73796e74ULL,
                   .first_input = p->zero_witness ? 1 : 0, .r = r};
    const uint64_t kind_seed = p->seed ^ 0x6b696e6473796e74ULL;
    uint32_t n_wires = inputs + p->n_constraints, m = p->n_constraints;

    /* the kinds once to size the arrays, again to make the gates */
    kind_stream ks = {shape_weights[p->shape], kind_seed, 0};
    uint64_t terms[3] = {0, 0, 0};
    for (uint32_t i = 0; i < m; i++) {
        gate_kind kind = next_kind(&ks);
        for (int k = 0; k < 3; k++)
            terms[k] += gate_terms[kind][k];
    }
    *r = (cuzk_r1cs){.curve = p->curve, .n_wires = n_wires, .n_pub_in = p->n_public,
                     .n_prv_in = CUZK_SYNTH_PRIVATE_INPUTS, .n_labels = n_wires, .n_constraints = m};
    *w = (cuzk_wtns){.curve = p->curve, .n_witness = n_wires};
    w->values = aligned_alloc(64, ((size_t)n_wires * 32 + 63) / 64 * 64);
    x.bits = p->shape == CUZK_SHAPE_RANDOM ? NULL : malloc(((size_t)ks.bits + 1) * sizeof *x.bits);
    if (!w->values || alloc_system(r, m, terms) || (p->shape != CUZK_SHAPE_RANDOM && !x.bits)) {
        free(x.bits);
        cuzk_r1cs_free(r);
        cuzk_wtns_free(w);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a circuit of %u constraints", m);
    }
    x.w = w->values;
    memset(w->values, 0, (size_t)n_wires * 32);
    w->values[0] = 1;
    for (uint32_t i = 1; i < inputs && !p->zero_witness; i++)
        random_element(w->values + 4 * (size_t)i, x.f.modulus, &x.state);

    ks = (kind_stream){shape_weights[p->shape], kind_seed, 0};
    for (uint32_t i = 0; i < m; i++) {
        uint32_t out = inputs + i;
        gate_kind kind = next_kind(&ks);
        if (kind == GATE_RANDOM || kind == GATE_FULL) {
            gate_product(&x, i, out, kind == GATE_FULL && !p->zero_witness);
            continue;
        }
        gate_bits(&x, kind, out);
        for (int k = 0; k < 3; k++)
            r->row_start[k][i + 1] = x.at[k];
    }
    free(x.bits);
    return CUZK_OK;
}

void cuzk_witness_mix_count(const cuzk_wtns *w, cuzk_witness_mix *out)
{
    const uint64_t *mod = fr_any_of(w->curve).modulus;
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < w->n_witness; i++) {
        const uint64_t *v = w->values + 4 * (size_t)i;
        uint64_t neg[4];
        int high_zero = !(v[1] | v[2] | v[3]);
        mont_sub_raw(neg, mod, v, 4); /* r - v: small when v is a small negative */
        if (high_zero && v[0] == 0)
            out->zeros++;
        else if (high_zero && v[0] == 1)
            out->ones++;
        else if ((high_zero && v[0] < (1ULL << 32)) || (!(neg[1] | neg[2] | neg[3]) && neg[0] < (1ULL << 32)))
            out->small++;
        else
            out->full++;
    }
}
