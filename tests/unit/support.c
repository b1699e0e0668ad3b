#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ff/mont29.h"
#include "ff/mont52.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "gpu/gpu.h"

int gpu_tests_unavailable(void)
{
#if defined(__SANITIZE_ADDRESS__)
    printf("SKIP: no GPU tests under AddressSanitizer\n");
    return 1;
#endif
    if (cuzk_gpu_device_count() == 0) {
        printf("SKIP: no GPU\n");
        return 1;
    }
    return 0;
}

int wasm_tests_unavailable(void)
{
    const char *path = getenv("PATH");
    char dirs[4096], file[4200];
    snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin");
    for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(file, sizeof file, "%s/wasm2c", d);
        if (!access(file, X_OK))
            return 0;
    }
    printf("SKIP: wasm2c is not installed (Debian's wabt)\n");
    return 1;
}

int count_lines_with(const char *path, const char *needle1, const char *needle2)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, needle1) && (!needle2 || strstr(line, needle2));
    fclose(f);
    return n;
}

int budget_waiters_reach(cuzk_budget *b, uint32_t n)
{
    const struct timespec tick = {0, 1000000};
    for (int i = 0; i < 20000; i++) {
        budget_stats s;
        budget_get_stats(b, &s);
        if (s.waiters == n)
            return 1;
        nanosleep(&tick, NULL);
    }
    return 0;
}

int make_dev_key(const cuzk_synth_params *sp, cuzk_zkey *z, cuzk_wtns *w, cuzk_r1cs *r)
{
    cuzk_error err = {0};
    cuzk_r1cs r1cs;
    int rc = cuzk_circuit_synth(sp, &r1cs, w, &err);
    if (rc)
        return rc;
    if ((rc = cuzk_groth16_setup(&r1cs, 2, z, &err)))
        cuzk_wtns_free(w);
    if (rc || !r)
        cuzk_r1cs_free(&r1cs);
    else
        *r = r1cs;
    return rc;
}

int write_dev_key(const char *zkey_path, const char *r1cs_path, cuzk_curve_id curve, uint32_t n_constraints,
                  uint64_t seed, cuzk_wtns *w)
{
    cuzk_error err = {0};
    cuzk_synth_params sp = {.curve = curve, .n_constraints = n_constraints, .n_public = 2, .seed = seed};
    cuzk_r1cs r1cs;
    cuzk_wtns witness;
    cuzk_zkey z;
    int rc = make_dev_key(&sp, &z, &witness, &r1cs);
    if (rc)
        return rc;
    rc = cuzk_zkey_write(&z, zkey_path, &err);
    cuzk_zkey_free(&z);
    if (!rc && r1cs_path)
        rc = cuzk_r1cs_write(&r1cs, r1cs_path, &err);
    cuzk_r1cs_free(&r1cs);
    if (rc || !w)
        cuzk_wtns_free(&witness);
    else
        *w = witness;
    return rc;
}

int verify_partition_proof(const char *zkey_path, const cuzk_job_result *r, uint32_t i)
{
    cuzk_error err = {0};
    cuzk_zkey z;
    cuzk_vk vk;
    int rc = cuzk_zkey_read(&z, zkey_path, &err);
    if (rc)
        return rc;
    rc = cuzk_groth16_export_vk(&z, &vk, &err);
    cuzk_zkey_free(&z);
    if (rc)
        return rc;
    rc = cuzk_groth16_verify(&vk, (const uint64_t(*)[4])r->publics + (size_t)i * r->n_public, r->n_public,
                             &r->proofs[i], &err);
    cuzk_vk_free(&vk);
    return rc;
}

const char *fixture_path(const char *curve_dir, const char *name)
{
    static char buf[4][512];
    static int slot;
    const char *base = getenv("CUZK_FIXTURES");
    char *p = buf[slot++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s/%s", base ? base : "tests/fixtures", curve_dir, name);
    return p;
}

char *read_whole_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *b = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n) {
        b[n] = '\0';
        *len = (size_t)n;
    } else {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

file_bytes fixture_bytes(const char *curve_dir, const char *name)
{
    const char *path = fixture_path(curve_dir, name);
    file_bytes b = {NULL, 0};
    if (!(b.data = read_whole_file(path, &b.len))) {
        fprintf(stderr, "cannot read %s (run from the repository root or set CUZK_FIXTURES)\n", path);
        exit(1);
    }
    return b;
}

int remove_tree(const char *dir)
{
    char cmd[4096];
    if ((size_t)snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) >= sizeof cmd)
        return -1;
    return system(cmd) ? -1 : 0;
}

/* The engines' switches and what the library found, in path order. */
static struct {
    const char *name;
    int *enabled;
    int found;
} arith_engines[] = {
#if MONT52_HAVE
    {"avx512-ifma", &mont52_enabled, -1},
#endif
#if MONT29_HAVE
    {"avx2", &mont29_enabled, -1},
#endif
    {"scalar", NULL, 1},
};
enum { ARITH_ENGINES = sizeof arith_engines / sizeof arith_engines[0] };

/* the engines found, in order, the scalar path last */
static int arith_found(int which[ARITH_ENGINES])
{
    int n = 0;
    for (int e = 0; e < ARITH_ENGINES; e++) {
        if (arith_engines[e].found < 0)
            arith_engines[e].found = *arith_engines[e].enabled;
        if (arith_engines[e].found)
            which[n++] = e;
    }
    return n;
}

int arith_paths(void)
{
    int which[ARITH_ENGINES];
    return arith_found(which);
}

const char *arith_path_select(int i)
{
    int which[ARITH_ENGINES];
    const int n = arith_found(which), chosen = which[i < n ? i : n - 1];
    for (int e = 0; e < ARITH_ENGINES; e++)
        if (arith_engines[e].enabled)
            *arith_engines[e].enabled = e == chosen;
    return arith_engines[chosen].name;
}

const uint64_t test_toxic[5][4] = {{0x1234567, 1, 0, 7}, {89, 0, 0, 0}, {0x9abcdef, 0, 5, 0}, {3, 3, 3, 3}, {1, 0, 0, 0}};

static int same_bytes(const char *what, const void *a, const void *b, size_t bytes)
{
    if (!a || !b || !memcmp(a, b, bytes))
        return 1;
    const uint8_t *x = a, *y = b;
    size_t i = 0;
    while (x[i] == y[i])
        i++;
    printf("keys differ: %s at byte %zu of %zu\n", what, i, bytes);
    return 0;
}

/* field by field: the struct has padding */
static int same_coefs(const cuzk_zkey *a, const cuzk_zkey *b)
{
    for (uint32_t i = 0; i < a->n_coefs; i++) {
        cuzk_zkey_coef ka, kb;
        cuzk_zkey_coef_get(a, i, &ka);
        cuzk_zkey_coef_get(b, i, &kb);
        const cuzk_zkey_coef *x = &ka, *y = &kb;
        if (x->matrix != y->matrix || x->row != y->row || x->wire != y->wire ||
            memcmp(x->value, y->value, sizeof x->value)) {
            printf("keys differ: coefficient %u\n", i);
            return 0;
        }
    }
    return 1;
}

int zkeys_equal(const cuzk_zkey *a, const cuzk_zkey *b)
{
    if (a->curve != b->curve || a->n8q != b->n8q || a->n_vars != b->n_vars || a->n_public != b->n_public ||
        a->domain_size != b->domain_size || a->n_coefs != b->n_coefs) {
        printf("keys differ in their sizes\n");
        return 0;
    }
    const size_t g1 = 2 * (size_t)a->n8q, g2 = 4 * (size_t)a->n8q, nv = a->n_vars;
    return same_bytes("alpha1", a->alpha1, b->alpha1, sizeof a->alpha1) &&
           same_bytes("beta1", a->beta1, b->beta1, sizeof a->beta1) &&
           same_bytes("delta1", a->delta1, b->delta1, sizeof a->delta1) &&
           same_bytes("beta2", a->beta2, b->beta2, sizeof a->beta2) &&
           same_bytes("gamma2", a->gamma2, b->gamma2, sizeof a->gamma2) &&
           same_bytes("delta2", a->delta2, b->delta2, sizeof a->delta2) &&
           same_bytes("IC", a->ic, b->ic, ((size_t)a->n_public + 1) * g1) &&
           same_coefs(a, b) &&
           same_bytes("A", a->a, b->a, nv * g1) && same_bytes("B1", a->b1, b->b1, nv * g1) &&
           same_bytes("B2", a->b2, b->b2, nv * g2) &&
           same_bytes("C", a->c, b->c, (nv - a->n_public - 1) * g1) &&
           same_bytes("H", a->h, b->h, (size_t)a->domain_size * g1);
}

uint64_t xorshift64(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}
