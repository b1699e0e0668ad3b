/* A .params file written as a setup makes its points (cuzk_setup_options'
 * emit), for keys too large to hold whole in memory (a PoRep partition's
 * is ~44 GiB): the counts are known from the densities before any point
 * is made, so each section's place in the file is, and every round of
 * points is filtered (a, b_g1, b_g2 by the densities), encoded and written
 * at its place; the verifying key last. */
#ifndef CUZK_FILECOIN_PARAMS_STREAM_H
#define CUZK_FILECOIN_PARAMS_STREAM_H

#include <stdio.h>

#include "filecoin/assignment.h"
#include "filecoin/params.h"
#include "groth16/groth16.h"
#include "util/file.h"

typedef struct {
    cuzk_outfile out;
    const char *path;
    int nthreads;
    size_t inputs, domain;
    const fil_density *a_aux, *b_inp, *b_aux;
    uint64_t at[6];      /* byte offset of each section's first point (params.c's order: ic, h, l, a, b_g1, b_g2) */
    uint64_t written[6]; /* points written to each */
    uint8_t *buf;        /* encoded points of one round */
    uint32_t *pick;      /* the round's points kept */
    size_t round;
} fil_params_stream;

/* Opens path (a cuzk_outfile: published whole or not at all) for a key of
 * `inputs` inputs (ONE included), the aux of these densities and a domain
 * of `domain`; round: most points one emit call hands over. */
int fil_params_stream_open(fil_params_stream *s, const char *path, size_t inputs, size_t domain,
                           const fil_density *a_aux, const fil_density *b_inp, const fil_density *b_aux,
                           size_t round, int nthreads, cuzk_error *err);

/* cuzk_setup_options.emit, ctx = the stream. CUZK_ERR_ARG for a point at
 * infinity where the file needs one (a wire in no constraint, terms that
 * cancel at tau), CUZK_ERR_IO. */
int fil_params_stream_emit(void *ctx, cuzk_setup_array which, size_t first, const void *points, size_t count,
                           cuzk_error *err);

/* Writes vk (whose ic has the stream's inputs) and the counts, checks that
 * every section is whole, and publishes the file; on failure it is
 * dropped. Releases s either way. */
int fil_params_stream_finish(fil_params_stream *s, const fil_vk *vk, cuzk_error *err);
void fil_params_stream_abort(fil_params_stream *s);

#endif
