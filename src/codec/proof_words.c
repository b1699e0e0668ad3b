#include "codec/proof_words.h"

typedef struct {
    unsigned char *p;
    int read; /* 1: decode from p, 0: encode into p */
} word_stream;

static void word_io(word_stream *s, uint64_t *w)
{
    if (s->read) {
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--)
            v = v << 8 | s->p[i];
        *w = v;
    } else {
        for (int i = 0; i < 8; i++)
            s->p[i] = (unsigned char)(*w >> (8 * i));
    }
    s->p += 8;
}

static void flag_io(word_stream *s, int *flag)
{
    uint64_t w = (uint64_t)*flag;
    word_io(s, &w);
    *flag = (int)w;
}

static void words_io(word_stream *s, uint64_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        word_io(s, &w[i]);
}

static void g1_io(word_stream *s, cuzk_g1_plain *g)
{
    flag_io(s, &g->infinity);
    words_io(s, g->x, 6);
    words_io(s, g->y, 6);
}

/* One walk over the proof serves both directions. */
static void proof_io(word_stream *s, cuzk_proof *p)
{
    int curve = (int)p->curve;
    flag_io(s, &curve);
    p->curve = (cuzk_curve_id)curve;
    g1_io(s, &p->a);
    flag_io(s, &p->b.infinity);
    words_io(s, &p->b.x[0][0], 12);
    words_io(s, &p->b.y[0][0], 12);
    g1_io(s, &p->c);
}

void cuzk_proof_to_words(const cuzk_proof *p, unsigned char out[CUZK_PROOF_BYTES])
{
    word_stream s = {out, 0};
    cuzk_proof copy = *p; /* the walk writes back what it encodes */
    proof_io(&s, &copy);
}

void cuzk_proof_from_words(cuzk_proof *p, const unsigned char in[CUZK_PROOF_BYTES])
{
    word_stream s = {(unsigned char *)in, 1}; /* decoding only reads it */
    proof_io(&s, p);
}

void cuzk_words_to_bytes(const uint64_t *w, size_t n, unsigned char *out)
{
    word_stream s = {out, 0};
    words_io(&s, (uint64_t *)w, n); /* encoding only reads them */
}

void cuzk_words_from_bytes(uint64_t *w, size_t n, const unsigned char *in)
{
    word_stream s = {(unsigned char *)in, 1};
    words_io(&s, w, n);
}
