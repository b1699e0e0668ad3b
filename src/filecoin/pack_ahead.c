/* Packing a batch one circuit ahead of the device (contracts in
 * pack_ahead.h). Circuit i is packed into slot i % 2; the slot was circuit
 * i - 2's, free once the prover has asked for circuit i - 1. */
#include "filecoin/pack_ahead.h"

#include <pthread.h>
#include <stdlib.h>

#include "ff/field.h"

typedef struct {
    uint64_t *room; /* a, b, c, then aux: each array's cuzk_wtns_pack_room */
    cuzk_bellman_packed packed;
} pack_slot;

struct fil_pack_ahead {
    const fil_assignment *as;
    size_t n;
    int nthreads;
    size_t abc_room, aux_room; /* words */
    pack_slot slot[2];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t asked;  /* circuits the prover has asked for */
    size_t packed; /* circuits packed */
    int stop;
    int started; /* the thread runs (lock and changed made) */
};

static void pack_circuit(fil_pack_ahead *p, const fil_assignment *as, pack_slot *s)
{
    const uint64_t *one = bls12_381_fr_R;
    const bls12_381_fr *abc[3] = {as->a, as->b, as->c};
    cuzk_wtns_packed *out[3] = {&s->packed.a, &s->packed.b, &s->packed.c};
    for (int k = 0; k < 3; k++)
        (void)cuzk_wtns_pack_as((const uint64_t *)abc[k], as->abc_size, one, s->room + k * p->abc_room,
                                p->nthreads, out[k]);
    (void)cuzk_wtns_pack_as((const uint64_t *)as->aux, as->n_aux, one, s->room + 3 * p->abc_room, p->nthreads,
                            &s->packed.aux);
    /* out of scratch memory leaves an array unpacked (base NULL): it goes whole */
}

static void *packer(void *arg)
{
    fil_pack_ahead *p = arg;
    for (size_t i = 0; i < p->n; i++) {
        pthread_mutex_lock(&p->lock);
        while (!p->stop && i >= 2 && p->asked < i)
            pthread_cond_wait(&p->changed, &p->lock);
        const int stop = p->stop;
        pthread_mutex_unlock(&p->lock);
        if (stop)
            break;
        pack_circuit(p, &p->as[i], &p->slot[i % 2]);
        pthread_mutex_lock(&p->lock);
        p->packed = i + 1;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

fil_pack_ahead *fil_pack_ahead_start(const fil_assignment *as, size_t n, int nthreads)
{
    fil_pack_ahead *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->as = as;
    p->n = n;
    p->nthreads = nthreads;
    size_t abc = 0;
    for (size_t i = 0; i < n; i++)
        abc = as[i].abc_size > abc ? as[i].abc_size : abc;
    p->abc_room = cuzk_wtns_pack_room(abc) / 8;
    p->aux_room = n ? cuzk_wtns_pack_room(as[0].n_aux) / 8 : 0; /* every circuit has the key's aux */
    for (int s = 0; s < 2; s++) /* untouched pages cost nothing: only what packs is written */
        if (!(p->slot[s].room = malloc((3 * p->abc_room + p->aux_room + 1) * sizeof(uint64_t)))) {
            fil_pack_ahead_stop(p);
            return NULL;
        }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->changed, NULL);
    if (pthread_create(&p->thread, NULL, packer, p)) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->changed);
        fil_pack_ahead_stop(p);
        return NULL;
    }
    p->started = 1;
    return p;
}

const cuzk_bellman_packed *fil_pack_ahead_next(fil_pack_ahead *p, size_t i)
{
    pthread_mutex_lock(&p->lock);
    p->asked = i + 1;
    pthread_cond_broadcast(&p->changed);
    while (p->packed <= i)
        pthread_cond_wait(&p->changed, &p->lock);
    pthread_mutex_unlock(&p->lock);
    return &p->slot[i % 2].packed;
}

void fil_pack_ahead_stop(fil_pack_ahead *p)
{
    if (!p)
        return;
    if (p->started) {
        pthread_mutex_lock(&p->lock);
        p->stop = 1;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->changed);
    }
    free(p->slot[0].room);
    free(p->slot[1].room);
    free(p);
}
