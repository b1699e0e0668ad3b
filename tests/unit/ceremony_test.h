/* What the ceremony's test programs share: a scratch folder for their
 * files, a progress listener, file comparisons, and the check that a
 * key proves.
 * Header-only (static): included by test_ceremony_zkey.c,
 * test_ceremony_ptau.c and test_gpu_ceremony.c alone. */
#ifndef CUZK_TESTS_CEREMONY_TEST_H
#define CUZK_TESTS_CEREMONY_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "groth16/groth16.h"

static char ceremony_dir[64];

/* What watch_stage saw: the last counted stage and how far it was; B2's
 * last count (zkey new's last combination) */
typedef struct {
    char stage[32];
    uint64_t done, b2_done;
} stage_seen;

/* a progress listener (ctx: a stage_seen): a counted stage's progress
 * goes up to its total, never back */
static inline void watch_stage(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    stage_seen *s = ctx;
    if (!total) return; /* a stage's name alone */
    assert_true(done <= total);
    if (!strcmp(stage, s->stage)) assert_true(done >= s->done);
    snprintf(s->stage, sizeof s->stage, "%s", stage);
    s->done = done;
    if (!strcmp(stage, "B2")) s->b2_done = done;
}

/* name inside the scratch folder (four live at once) */
static const char *tmp_path(const char *name)
{
    static char buf[4][128];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", ceremony_dir, name);
    return p;
}

static int ceremony_dir_make(void)
{
    snprintf(ceremony_dir, sizeof ceremony_dir, "/tmp/cuzk-ceremony.XXXXXX");
    return mkdtemp(ceremony_dir) ? 0 : -1;
}

/* a file's bytes (to free), its length in *len */
static inline uint8_t *slurp(const char *file, size_t *len)
{
    FILE *f = fopen(file, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

/* the two files hold the same bytes */
static inline void same_file(const char *a, const char *b)
{
    size_t la, lb;
    uint8_t *x = slurp(a, &la), *y = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(x);
    free(y);
}

/* removes the files named (NULL-terminated) and the folder */
static int ceremony_dir_remove(const char *const *names)
{
    for (; *names; names++) unlink(tmp_path(*names));
    return rmdir(ceremony_dir);
}

/* z proves w on the CPU and the proof verifies against z's own key */
static void proves(const cuzk_zkey *z, const cuzk_wtns *w)
{
    cuzk_error err = {0};
    cuzk_backend *b = backend_cpu_create(2);
    cuzk_proof proof;
    cuzk_vk vk;
    uint64_t pub[2][4];
    assert_int_equal(backend_prove(b, z, w, 2, &proof, pub, NULL, &err), CUZK_OK);
    assert_int_equal(cuzk_groth16_export_vk(z, &vk, &err), CUZK_OK);
    assert_int_equal(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, z->n_public, &proof, &err), CUZK_OK);
    b->destroy(b);
    cuzk_vk_free(&vk);
}

#endif
