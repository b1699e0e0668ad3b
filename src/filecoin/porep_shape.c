/* The PoRep-shaped synthetic circuit (contracts in porep_shape.h). */
#include "filecoin/porep_shape.h"

#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/random.h"
#include "util/threads.h"

/* Filecoin's 32 GiB partition at 2^27 */
#define POREP_CONSTRAINTS_27 130278869u
#define POREP_AUX_27 130169893u
enum { PERIOD = 1000, B_WIRES = 254, A_WIRES = 997, BOUND_AT = 500, SUM_AT = 300, COPY_BACK = 3 };

int fil_porep_counts_of(unsigned log_k, fil_porep_counts *c)
{
    if (log_k < FIL_POREP_LOG_MIN || log_k > FIL_POREP_LOG_MAX)
        return -1;
    const unsigned shift = FIL_POREP_LOG_MAX - log_k;
    uint32_t m = POREP_CONSTRAINTS_27 >> shift, extra = (POREP_CONSTRAINTS_27 - POREP_AUX_27) >> shift;
    const uint32_t room = (1u << log_k) - FIL_POREP_INPUTS; /* constraints + inputs fill the domain at most */
    if (m > room)
        m = room;
    *c = (fil_porep_counts){FIL_POREP_INPUTS, m - extra, m};
    return 0;
}

typedef struct {
    fil_porep_counts n;
    uint64_t seed;
    uint32_t bound; /* extra constraints that bind an input to an aux value */
    cuzk_r1cs *r;
    cuzk_wtns *w;
} porep_ctx;

static uint64_t hash_of(uint64_t seed, uint64_t i)
{
    uint64_t s = seed ^ (i * 0x9e3779b97f4a7c15ULL);
    return cuzk_splitmix64(&s);
}

/* a full-size field element below 2^254 < r, normal form */
static void full_value(uint64_t v[4], uint64_t seed, uint64_t i)
{
    for (int k = 0; k < 4; k++)
        v[k] = hash_of(seed + (uint64_t)k + 1, i);
    v[3] >>= 2;
}

/* the value of aux wire j (not a copy) */
static void aux_value(const porep_ctx *x, uint32_t j, uint64_t v[4])
{
    memset(v, 0, 32);
    const uint32_t p = j % PERIOD, block = j / PERIOD;
    const uint64_t h = hash_of(x->seed, j);
    if (p == BOUND_AT && block < x->bound) {
        full_value(v, x->seed, (uint64_t)1 << 40 | (block + 1)); /* input block + 1's value */
        return;
    }
    if (p < B_WIRES || h % 100 > 1)
        v[0] = h >> 63;
    else if (h % 100 == 1)
        v[0] = h >> 32;
    else
        full_value(v, x->seed, j);
}

static cuzk_r1cs_term one_term(uint32_t wire) { return (cuzk_r1cs_term){wire, 0, {1, 0, 0, 0}}; }

/* aux rows [begin, end): row j is aux wire j's constraint, one term a
 * matrix, at index j; the witness value of each */
static void aux_rows(void *vctx, size_t begin, size_t end, int tid)
{
    (void)tid;
    const porep_ctx *x = vctx;
    for (size_t j = begin; j < end; j++) {
        const uint32_t wire = FIL_POREP_INPUTS + (uint32_t)j, p = (uint32_t)j % PERIOD;
        const uint32_t a = p < A_WIRES ? wire : wire - COPY_BACK;
        x->r->terms[0][j] = one_term(a);
        x->r->terms[1][j] = one_term(p < B_WIRES ? wire : 0);
        x->r->terms[2][j] = one_term(wire);
        for (int m = 0; m < 3; m++)
            x->r->row_start[m][j] = (uint32_t)j;
        aux_value(x, p < A_WIRES ? (uint32_t)j : (uint32_t)j - COPY_BACK, x->w->values + 4 * (size_t)wire);
    }
}

/* the extra rows, after the aux rows: input bindings, then sums */
static void extra_rows(const porep_ctx *x)
{
    cuzk_r1cs *r = x->r;
    uint32_t at[3] = {x->n.aux, x->n.aux, x->n.aux};
    const uint32_t blocks = x->n.aux / PERIOD;
    for (uint32_t e = 0; e < x->n.constraints - x->n.aux; e++) {
        const uint32_t row = x->n.aux + e;
        for (int m = 0; m < 3; m++)
            r->row_start[m][row] = at[m];
        r->terms[1][at[1]++] = one_term(0);
        if (e < x->bound) {
            r->terms[0][at[0]++] = one_term(1 + e);
            r->terms[2][at[2]++] = one_term(FIL_POREP_INPUTS + e * PERIOD + BOUND_AT);
            continue;
        }
        const uint32_t j = FIL_POREP_INPUTS + (e % blocks) * PERIOD + SUM_AT;
        for (int m = 0; m < 3; m += 2) {
            r->terms[m][at[m]++] = one_term(j);
            r->terms[m][at[m]++] = one_term(j + 1);
        }
    }
    for (int m = 0; m < 3; m++)
        r->row_start[m][x->n.constraints] = at[m];
}

int fil_porep_synth(unsigned log_k, uint64_t seed, int nthreads, cuzk_r1cs *r, cuzk_wtns *w, cuzk_error *err)
{
    memset(r, 0, sizeof *r);
    memset(w, 0, sizeof *w);
    porep_ctx x = {.seed = seed, .r = r, .w = w};
    if (fil_porep_counts_of(log_k, &x.n))
        return cuzk_fail(err, CUZK_ERR_ARG, "a PoRep-shaped circuit is made at 2^%d to 2^%d, not 2^%u",
                         FIL_POREP_LOG_MIN, FIL_POREP_LOG_MAX, log_k);
    const uint32_t extra = x.n.constraints - x.n.aux, blocks = x.n.aux / PERIOD;
    x.bound = extra < FIL_POREP_INPUTS - 1 ? extra : FIL_POREP_INPUTS - 1;
    if (x.bound > blocks)
        x.bound = blocks;
    const size_t terms[3] = {(size_t)x.n.aux + x.bound + 2 * (size_t)(extra - x.bound), x.n.constraints,
                             (size_t)x.n.aux + x.bound + 2 * (size_t)(extra - x.bound)};
    *r = (cuzk_r1cs){.curve = CUZK_CURVE_BLS12_381, .n_wires = x.n.inputs + x.n.aux, .n_pub_in = x.n.inputs - 1,
                     .n_labels = x.n.inputs + x.n.aux, .n_constraints = x.n.constraints};
    *w = (cuzk_wtns){.curve = CUZK_CURVE_BLS12_381, .n_witness = r->n_wires};
    int ok = 1;
    for (int m = 0; m < 3; m++) {
        r->row_start[m] = malloc(((size_t)x.n.constraints + 1) * sizeof *r->row_start[m]);
        r->terms[m] = malloc(terms[m] * sizeof *r->terms[m]);
        ok = ok && r->row_start[m] && r->terms[m];
    }
    w->values = aligned_alloc(64, ((size_t)r->n_wires * 32 + 63) / 64 * 64);
    if (!ok || !w->values) {
        cuzk_r1cs_free(r);
        cuzk_wtns_free(w);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory for a PoRep-shaped circuit of 2^%u", log_k);
    }
    memset(w->values, 0, 32 * (size_t)x.n.inputs);
    w->values[0] = 1;
    for (uint32_t s = 1; s < x.n.inputs; s++)
        full_value(w->values + 4 * (size_t)s, seed, (uint64_t)1 << 40 | s);
    cuzk_parallel_for(nthreads, x.n.aux, aux_rows, &x);
    extra_rows(&x);
    return CUZK_OK;
}
