/* The PCE (pre-compiled constraint evaluator): compiled synthesis against the
 * reference prover's semantics (prove.inc's build_abc, then c = a o b), for
 * both curves, several thread counts, the save/load round trip, the disk
 * cache (compile, then load; truncated, corrupt and foreign files refused and
 * recompiled), and the +-1 / general split on a hand-built key.
 *
 * CUZK_PCE_BENCH=<log2 constraints> additionally times synthesis of a
 * synthetic circuit of that size at 1 and 2 threads (coefficient-only key,
 * no setup) and prints the result. */
#define _GNU_SOURCE /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "synthesis/pce.h"
#include "ff/fr_any.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "util/timer.h"
#include "support.h"

static char tmp_dir[256];

/* ---------------- helpers ---------------- */

typedef struct {
    cuzk_zkey z;
    cuzk_wtns w;
} key_and_witness;

static void make_key(cuzk_curve_id curve, uint32_t n_constraints, uint32_t n_public, uint64_t seed,
                     key_and_witness *kw)
{
    cuzk_synth_params sp = {.curve = curve, .n_constraints = n_constraints, .n_public = n_public, .seed = seed};
    assert_int_equal(make_dev_key(&sp, &kw->z, &kw->w, NULL), CUZK_OK);
}

static void free_key(key_and_witness *kw)
{
    cuzk_zkey_free(&kw->z);
    cuzk_wtns_free(&kw->w);
}

/* The reference: a[row] += value * w[wire] (one Montgomery product of the
 * stored coef R^2 with the normal-form witness), c = a o b. */
static uint64_t *reference_abc(const cuzk_zkey *z, const uint64_t *w)
{
    fr_any f = fr_any_of(z->curve);
    size_t n = z->domain_size;
    uint64_t *abc = calloc(3 * n, 32);
    assert_non_null(abc);
    uint64_t *a = abc, *b = abc + 4 * n, *c = abc + 8 * n;
    for (uint32_t k = 0; k < z->n_coefs; k++) {
        const cuzk_zkey_coef *e = &z->coefs[k];
        uint64_t v[4];
        mont_mul(v, e->value, w + 4 * (size_t)e->wire, f.modulus, f.inv, 4);
        uint64_t *dst = (e->matrix == 0 ? a : b) + 4 * (size_t)e->row;
        mont_add(dst, dst, v, f.modulus, 4);
    }
    for (size_t i = 0; i < n; i++)
        mont_mul(c + 4 * i, a + 4 * i, b + 4 * i, f.modulus, f.inv, 4);
    return abc;
}

/* Synthesizes into a buffer pre-filled with garbage (a pool buffer is not
 * zeroed), so every element must be written. */
static uint64_t *pce_abc(const cuzk_pce *p, const uint64_t *w, int nthreads)
{
    size_t bytes = 3 * (size_t)p->n_rows * 32;
    uint64_t *abc = aligned_alloc(64, bytes);
    assert_non_null(abc);
    memset(abc, 0xa5, bytes);
    assert_int_equal(cuzk_pce_synthesize(p, w, abc, nthreads), CUZK_OK);
    return abc;
}

static void assert_pce_equal(const cuzk_pce *x, const cuzk_pce *y)
{
    assert_int_equal(x->curve, y->curve);
    assert_int_equal(x->n_rows, y->n_rows);
    assert_int_equal(x->n_vars, y->n_vars);
    assert_int_equal(x->n_values, y->n_values);
    assert_int_equal(x->bytes, y->bytes);
    assert_memory_equal(x->key_hash, y->key_hash, 32);
    for (int m = 0; m < 2; m++) {
        assert_memory_equal(x->row_start[m], y->row_start[m], ((size_t)x->n_rows + 1) * 4);
        size_t nnz = x->row_start[m][x->n_rows];
        if (nnz) {
            assert_memory_equal(x->wire[m], y->wire[m], nnz * 4);
            assert_memory_equal(x->coef[m], y->coef[m], nnz * 4);
        }
    }
    if (x->n_values)
        assert_memory_equal(x->values, y->values, (size_t)x->n_values * 32);
}

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int slot;
    char *p = buf[slot++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", tmp_dir, name);
    return p;
}

static const char *cache_path(const char *dir, const uint8_t hash[32])
{
    static char buf[2][600];
    static int slot;
    char *p = buf[slot++ % 2];
    int at = snprintf(p, sizeof buf[0], "%s/", dir);
    for (int i = 0; i < 32; i++)
        at += snprintf(p + at, sizeof buf[0] - (size_t)at, "%02x", hash[i]);
    snprintf(p + at, sizeof buf[0] - (size_t)at, ".pce");
    return p;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

static void spit(const char *path, const uint8_t *buf, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(buf, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* coef (normal form, small) -> the zkey's stored coef R^2 */
static void coef_r2(const fr_any *f, uint64_t out[4], int64_t coef)
{
    uint64_t x[4] = {(uint64_t)(coef < 0 ? -coef : coef), 0, 0, 0};
    mont_mul(out, x, f->r2, f->modulus, f->inv, 4);
    mont_mul(out, out, f->r2, f->modulus, f->inv, 4);
    if (coef < 0)
        mont_neg(out, out, f->modulus, 4);
}

/* ---------------- tests ---------------- */

static void test_synthesize_matches_reference(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        key_and_witness kw;
        make_key((cuzk_curve_id)curve, 300, 3, 11 + (uint64_t)curve, &kw);
        cuzk_pce p;
        cuzk_error err = {0};
        assert_int_equal(cuzk_pce_compile(&kw.z, &p, &err), CUZK_OK);
        assert_int_equal(p.curve, curve);
        assert_int_equal(p.n_rows, kw.z.domain_size);
        assert_int_equal(p.n_vars, kw.z.n_vars);
        /* every coefficient of the key is a term (synthetic coefficients are never 0) */
        assert_int_equal((uint64_t)p.row_start[0][p.n_rows] + p.row_start[1][p.n_rows], kw.z.n_coefs);
        assert_true(p.n_values > 0);
        uint8_t h[32];
        assert_int_equal(cuzk_pce_key_hash(&kw.z, h), CUZK_OK);
        assert_memory_equal(h, p.key_hash, 32);

        uint64_t *ref = reference_abc(&kw.z, kw.w.values);
        size_t bytes = 3 * (size_t)p.n_rows * 32;
        int threads[] = {1, 3, 7};
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            uint64_t *abc = pce_abc(&p, kw.w.values, threads[t]);
            assert_memory_equal(abc, ref, bytes);
            free(abc);
        }
        /* caller scratch gives the same */
        uint64_t *scratch = malloc(cuzk_pce_scratch_bytes(&p));
        uint64_t *abc = aligned_alloc(64, bytes);
        assert_non_null(scratch);
        assert_non_null(abc);
        assert_int_equal(cuzk_pce_synthesize_scratch(&p, kw.w.values, abc, scratch, 2), CUZK_OK);
        assert_memory_equal(abc, ref, bytes);
        /* the circuit is satisfied: r1cs row i has c = a b = C.w = the gate's
         * output wire (Montgomery form in abc) */
        fr_any f = fr_any_of((cuzk_curve_id)curve);
        uint32_t first_out = 1 + 3 + CUZK_SYNTH_PRIVATE_INPUTS;
        for (uint32_t i = 0; i < 300; i++) {
            uint64_t v[4], one[4] = {1, 0, 0, 0};
            mont_mul(v, abc + 4 * (2 * (size_t)p.n_rows + i), one, f.modulus, f.inv, 4);
            assert_memory_equal(v, kw.w.values + 4 * (size_t)(first_out + i), 32);
        }
        /* a mapped key (coefficients left in the file's mapping) compiles
         * to the same evaluator */
        const char *path = tmp_path("mapped.zkey");
        cuzk_zkey mapped;
        cuzk_pce pm;
        assert_int_equal(cuzk_zkey_write(&kw.z, path, &err), CUZK_OK);
        assert_int_equal(cuzk_zkey_map(&mapped, path, &err), CUZK_OK);
        assert_non_null(mapped.coef_bytes);
        assert_int_equal(cuzk_pce_compile(&mapped, &pm, &err), CUZK_OK);
        assert_memory_equal(pm.key_hash, p.key_hash, 32);
        uint64_t *abc_mapped = pce_abc(&pm, kw.w.values, 2);
        assert_memory_equal(abc_mapped, ref, bytes);
        free(abc_mapped);
        cuzk_pce_free(&pm);
        cuzk_zkey_free(&mapped);
        /* a misaligned output buffer is refused */
        assert_int_equal(cuzk_pce_synthesize(&p, kw.w.values, (char *)abc + 4, 1), CUZK_ERR_ARG);
        free(scratch);
        free(abc);
        free(ref);
        cuzk_pce_free(&p);
        free_key(&kw);
    }
}

/* A save killed part way (here by SIGXFSZ: the file size limit) leaves no
 * temporary file in the cache directory, and nothing at the path. */
static void test_killed_save_leaves_nothing(void **state)
{
    (void)state;
    key_and_witness kw;
    make_key(CUZK_CURVE_BN254, 200, 2, 23, &kw);
    cuzk_pce p;
    cuzk_error err = {0};
    assert_int_equal(cuzk_pce_compile(&kw.z, &p, &err), CUZK_OK);
    char dir[] = "/tmp/cuzk-pce-kill-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/k.pce", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit small = {1024, 1024}, none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        setrlimit(RLIMIT_FSIZE, &small);
        cuzk_pce_save(&p, path, NULL);
        _exit(0); /* not reached: the PCE is larger than 1 KiB */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    DIR *d = opendir(dir);
    assert_non_null(d);
    int entries = 0;
    for (struct dirent *de; (de = readdir(d));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            entries++, fprintf(stderr, "left behind: %s\n", de->d_name);
    closedir(d);
    assert_int_equal(entries, 0);
    assert_int_equal(rmdir(dir), 0);
    cuzk_pce_free(&p);
    free_key(&kw);
}

static void test_save_load(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        key_and_witness kw;
        make_key((cuzk_curve_id)curve, 200, 2, 21 + (uint64_t)curve, &kw);
        cuzk_pce p, q;
        cuzk_error err = {0};
        assert_int_equal(cuzk_pce_compile(&kw.z, &p, &err), CUZK_OK);
        const char *path = tmp_path("roundtrip.pce");
        assert_int_equal(cuzk_pce_save(&p, path, &err), CUZK_OK);
        assert_int_equal(cuzk_pce_load(&q, path, p.key_hash, &err), CUZK_OK);
        assert_pce_equal(&p, &q);
        uint64_t *x = pce_abc(&p, kw.w.values, 1), *y = pce_abc(&q, kw.w.values, 2);
        assert_memory_equal(x, y, 3 * (size_t)p.n_rows * 32);
        free(x);
        free(y);
        cuzk_pce_free(&q);
        assert_int_equal(cuzk_pce_load(&q, path, NULL, &err), CUZK_OK); /* no hash check */
        cuzk_pce_free(&q);

        /* every truncation is refused (stride keeps it short), never a crash */
        size_t len;
        uint8_t *buf = slurp(path, &len);
        const char *cut = tmp_path("cut.pce");
        for (size_t n = 0; n < len; n += (n < 128 ? 1 : 37)) {
            spit(cut, buf, n);
            int rc = cuzk_pce_load(&q, cut, p.key_hash, &err);
            assert_int_equal(rc, CUZK_ERR_FORMAT);
            assert_null(q.row_start[0]);
        }
        /* one flipped bit anywhere in the body: checksum or header check */
        size_t flips[] = {8, 12, 50, 80, len / 2, len - 9, len - 1};
        for (size_t i = 0; i < sizeof flips / sizeof *flips; i++) {
            buf[flips[i]] ^= 0x10;
            spit(cut, buf, len);
            assert_int_not_equal(cuzk_pce_load(&q, cut, NULL, &err), CUZK_OK);
            buf[flips[i]] ^= 0x10;
        }
        /* a wire index out of range with a recomputed (valid) checksum is
         * still refused by the index check: rewrite through save */
        cuzk_pce bad;
        assert_int_equal(cuzk_pce_load(&bad, path, NULL, &err), CUZK_OK);
        bad.wire[1][0] = bad.n_vars;
        assert_int_equal(cuzk_pce_save(&bad, cut, &err), CUZK_OK);
        assert_int_equal(cuzk_pce_load(&q, cut, NULL, &err), CUZK_ERR_FORMAT);
        assert_non_null(strstr(err.msg, "out of range"));
        bad.wire[1][0] = 0;
        bad.coef[0][0] = bad.n_values + 2;
        assert_int_equal(cuzk_pce_save(&bad, cut, &err), CUZK_OK);
        assert_int_equal(cuzk_pce_load(&q, cut, NULL, &err), CUZK_ERR_FORMAT);
        cuzk_pce_free(&bad);
        /* missing file: IO */
        assert_int_equal(cuzk_pce_load(&q, tmp_path("nope.pce"), NULL, &err), CUZK_ERR_IO);
        free(buf);
        unlink(cut);
        unlink(path);
        cuzk_pce_free(&p);
        free_key(&kw);
    }
}

static void test_cache(void **state)
{
    (void)state;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/cache", tmp_dir); /* created by cuzk_pce_get */
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        key_and_witness k1, k2;
        make_key((cuzk_curve_id)curve, 150, 1, 31 + (uint64_t)curve, &k1);
        make_key((cuzk_curve_id)curve, 150, 1, 41 + (uint64_t)curve, &k2);
        cuzk_pce p, q, ref;
        cuzk_error err = {0};
        int from_disk = -1;
        assert_int_equal(cuzk_pce_compile(&k1.z, &ref, &err), CUZK_OK);

        /* no cache dir: compiled every time */
        assert_int_equal(cuzk_pce_get(&k1.z, NULL, &p, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 0);
        assert_pce_equal(&p, &ref);
        cuzk_pce_free(&p);

        /* first call compiles and saves, the second loads */
        assert_int_equal(cuzk_pce_get(&k1.z, dir, &p, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 0);
        assert_pce_equal(&p, &ref);
        const char *path1 = cache_path(dir, p.key_hash);
        struct stat st;
        assert_int_equal(stat(path1, &st), 0);
        cuzk_pce_free(&p);
        memset(&err, 0, sizeof err);
        assert_int_equal(cuzk_pce_get(&k1.z, dir, &q, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 1);
        assert_string_equal(err.msg, ""); /* nothing to report */
        assert_pce_equal(&q, &ref);
        uint64_t *x = pce_abc(&q, k1.w.values, 2), *y = reference_abc(&k1.z, k1.w.values);
        assert_memory_equal(x, y, 3 * (size_t)q.n_rows * 32);
        free(x);
        free(y);
        cuzk_pce_free(&q);

        /* truncated: load refuses, get recompiles (and rewrites the file) */
        size_t len;
        uint8_t *buf = slurp(path1, &len);
        spit(path1, buf, len / 2);
        assert_int_equal(cuzk_pce_load(&q, path1, ref.key_hash, &err), CUZK_ERR_FORMAT);
        memset(&err, 0, sizeof err);
        assert_int_equal(cuzk_pce_get(&k1.z, dir, &p, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 0);
        assert_int_equal(err.code, CUZK_OK);
        assert_non_null(strstr(err.msg, "recompiled"));
        assert_pce_equal(&p, &ref);
        cuzk_pce_free(&p);
        assert_int_equal(cuzk_pce_get(&k1.z, dir, &p, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 1);
        cuzk_pce_free(&p);

        /* another key's (valid) file under this key's name: refused as a
         * mismatch, recompiled */
        cuzk_pce other;
        assert_int_equal(cuzk_pce_compile(&k2.z, &other, &err), CUZK_OK);
        assert_memory_not_equal(other.key_hash, ref.key_hash, 32);
        assert_int_equal(cuzk_pce_save(&other, path1, &err), CUZK_OK);
        assert_int_equal(cuzk_pce_load(&q, path1, ref.key_hash, &err), CUZK_ERR_MISMATCH);
        memset(&err, 0, sizeof err);
        assert_int_equal(cuzk_pce_get(&k1.z, dir, &p, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 0);
        assert_non_null(strstr(err.msg, "another key"));
        assert_pce_equal(&p, &ref);
        cuzk_pce_free(&p);
        assert_int_equal(cuzk_pce_get(&k1.z, dir, &p, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 1);
        assert_pce_equal(&p, &ref);
        cuzk_pce_free(&p);

        /* the second key gets its own file */
        assert_int_equal(cuzk_pce_get(&k2.z, dir, &p, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 0);
        assert_pce_equal(&p, &other);
        cuzk_pce_free(&p);
        assert_int_equal(cuzk_pce_get(&k2.z, dir, &p, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 1);
        cuzk_pce_free(&p);

        /* an unwritable cache location: still compiled, reason reported */
        char bad_dir[400];
        snprintf(bad_dir, sizeof bad_dir, "%s/file-not-dir", tmp_dir);
        spit(bad_dir, (const uint8_t *)"x", 1);
        memset(&err, 0, sizeof err);
        assert_int_equal(cuzk_pce_get(&k1.z, bad_dir, &p, &from_disk, &err), CUZK_OK);
        assert_int_equal(from_disk, 0);
        assert_int_equal(err.code, CUZK_OK);
        assert_true(err.msg[0] != 0);
        assert_pce_equal(&p, &ref);
        cuzk_pce_free(&p);
        unlink(bad_dir);

        free(buf);
        cuzk_pce_free(&other);
        cuzk_pce_free(&ref);
        free_key(&k1);
        free_key(&k2);
    }
}

/* A hand-built key (coefficients only): the +-1 / general split, value
 * deduplication, dropped zeros, key order within rows, empty rows. */
static void test_hand_built(void **state)
{
    (void)state;
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        fr_any f = fr_any_of((cuzk_curve_id)curve);
        struct {
            uint32_t matrix, row, wire;
            int64_t coef;
        } spec[] = {
            {0, 0, 1, 1},  {0, 0, 2, -1}, {1, 1, 3, 5}, {0, 1, 3, 5}, {1, 2, 4, 7}, {0, 3, 0, 0},
            {1, 2, 1, -1}, {1, 0, 2, 1},  {0, 1, 4, 7}, {0, 5, 0, -5}, {1, 5, 2, 5}, {0, 0, 3, 1},
        };
        enum { N = sizeof spec / sizeof spec[0] };
        cuzk_zkey_coef coefs[N];
        for (int i = 0; i < N; i++) {
            coefs[i] = (cuzk_zkey_coef){spec[i].matrix, spec[i].row, spec[i].wire, {0}};
            coef_r2(&f, coefs[i].value, spec[i].coef);
        }
        cuzk_zkey z = {0};
        z.curve = (cuzk_curve_id)curve;
        z.n_vars = 5;
        z.n_public = 1;
        z.domain_size = 8;
        z.n_coefs = N;
        z.coefs = coefs;
        cuzk_pce p;
        cuzk_error err = {0};
        assert_int_equal(cuzk_pce_compile(&z, &p, &err), CUZK_OK);
        /* A: row0 {w1 +1, w2 -1, w3 +1}, row1 {w3 5, w4 7}, row3 dropped (0), row5 {w0 -5}
         * B: row0 {w2 +1}, row1 {w3 5}, row2 {w4 7, w1 -1}, row5 {w2 5} */
        static const uint32_t rs_a[9] = {0, 3, 5, 5, 5, 5, 6, 6, 6}, rs_b[9] = {0, 1, 2, 4, 4, 4, 5, 5, 5};
        assert_memory_equal(p.row_start[0], rs_a, sizeof rs_a);
        assert_memory_equal(p.row_start[1], rs_b, sizeof rs_b);
        static const uint32_t wire_a[6] = {1, 2, 3, 3, 4, 0}, wire_b[5] = {2, 3, 4, 1, 2};
        assert_memory_equal(p.wire[0], wire_a, sizeof wire_a);
        assert_memory_equal(p.wire[1], wire_b, sizeof wire_b);
        /* values numbered as first seen, matrix A's entries before B's: 5, 7, -5 */
        assert_int_equal(p.n_values, 3);
        static const uint32_t coef_a[6] = {0, 1, 0, 2, 3, 4}, coef_b[5] = {0, 2, 3, 1, 2};
        assert_memory_equal(p.coef[0], coef_a, sizeof coef_a);
        assert_memory_equal(p.coef[1], coef_b, sizeof coef_b);
        unsigned ones = 0, minus = 0, general = 0;
        for (int m = 0; m < 2; m++)
            for (uint32_t k = 0; k < p.row_start[m][p.n_rows]; k++) {
                ones += p.coef[m][k] == CUZK_PCE_COEF_ONE;
                minus += p.coef[m][k] == CUZK_PCE_COEF_MINUS_ONE;
                general += p.coef[m][k] >= CUZK_PCE_COEF_VALUES;
            }
        assert_int_equal(ones, 3);
        assert_int_equal(minus, 2);
        assert_int_equal(general, 6);
        /* values in Montgomery form: 5 R, 7 R, -5 R */
        int64_t want[3] = {5, 7, -5};
        for (int i = 0; i < 3; i++) {
            uint64_t x[4] = {(uint64_t)(want[i] < 0 ? -want[i] : want[i]), 0, 0, 0}, v[4];
            mont_mul(v, x, f.r2, f.modulus, f.inv, 4);
            if (want[i] < 0)
                mont_neg(v, v, f.modulus, 4);
            assert_memory_equal(p.values[i], v, 32);
        }
        assert_int_equal(p.bytes, 2 * 9 * 4 + 11 * 8 + 3 * 32);

        /* synthesis: w = (1, 2, 3, 4, 5); check against plain integers */
        uint64_t w[5][4] = {{1}, {2}, {3}, {4}, {5}};
        uint64_t *abc = pce_abc(&p, &w[0][0], 3);
        uint64_t *ref = reference_abc(&z, &w[0][0]);
        assert_memory_equal(abc, ref, 3 * 8 * 32);
        /* a = (2 - 3 + 4, 5*4 + 7*5, 0, 0, 0, -5, 0, 0), b = (3, 5*4, 7*5 - 2, 0, 0, 5*3, 0, 0) */
        int64_t want_a[8] = {3, 55, 0, 0, 0, -5, 0, 0}, want_b[8] = {3, 20, 33, 0, 0, 15, 0, 0};
        for (int i = 0; i < 8; i++) {
            uint64_t va[4], vb[4], vc[4], one[4] = {1, 0, 0, 0};
            mont_mul(va, abc + 4 * i, one, f.modulus, f.inv, 4);
            mont_mul(vb, abc + 4 * (8 + i), one, f.modulus, f.inv, 4);
            mont_mul(vc, abc + 4 * (16 + i), one, f.modulus, f.inv, 4);
            uint64_t ea[4] = {(uint64_t)(want_a[i] < 0 ? -want_a[i] : want_a[i])}, eb[4] = {(uint64_t)want_b[i]};
            if (want_a[i] < 0)
                mont_neg(ea, ea, f.modulus, 4);
            assert_memory_equal(va, ea, 32);
            assert_memory_equal(vb, eb, 32);
            int64_t prod = want_a[i] * want_b[i];
            uint64_t ec[4] = {(uint64_t)(prod < 0 ? -prod : prod)};
            if (prod < 0)
                mont_neg(ec, ec, f.modulus, 4);
            assert_memory_equal(vc, ec, 32);
        }
        free(abc);
        free(ref);
        cuzk_pce_free(&p);

        /* keys the compiler must refuse */
        coefs[2].wire = 5;
        assert_int_equal(cuzk_pce_compile(&z, &p, &err), CUZK_ERR_ARG);
        assert_null(p.row_start[0]);
        coefs[2].wire = 3;
        coefs[4].row = 8;
        assert_int_equal(cuzk_pce_compile(&z, &p, &err), CUZK_ERR_ARG);
        coefs[4].row = 2;
        coefs[6].matrix = 2;
        assert_int_equal(cuzk_pce_compile(&z, &p, &err), CUZK_ERR_ARG);
        coefs[6].matrix = 1;
        memcpy(coefs[1].value, f.modulus, 32);
        assert_int_equal(cuzk_pce_compile(&z, &p, &err), CUZK_ERR_ARG);
        z.coefs = NULL;
        assert_int_equal(cuzk_pce_compile(&z, &p, &err), CUZK_ERR_ARG);
        /* no coefficients at all: every row zero */
        z.n_coefs = 0;
        assert_int_equal(cuzk_pce_compile(&z, &p, &err), CUZK_OK);
        assert_int_equal(p.n_values, 0);
        abc = pce_abc(&p, &w[0][0], 2);
        for (size_t i = 0; i < 3 * 8 * 4; i++)
            assert_int_equal(abc[i], 0);
        free(abc);
        const char *path = tmp_path("empty.pce");
        cuzk_pce q;
        assert_int_equal(cuzk_pce_save(&p, path, &err), CUZK_OK);
        assert_int_equal(cuzk_pce_load(&q, path, p.key_hash, &err), CUZK_OK);
        assert_pce_equal(&p, &q);
        cuzk_pce_free(&q);
        unlink(path);
        cuzk_pce_free(&p);
    }
}

/* ---------------- optional benchmark ---------------- */

/* A coefficient-only key from an r1cs (what setup's section 4 holds), so a
 * large circuit needs no setup. */
static void coef_key(const cuzk_r1cs *r, cuzk_zkey *z)
{
    fr_any f = fr_any_of(r->curve);
    uint32_t m = r->n_constraints, n_pub = r->n_pub_out + r->n_pub_in;
    uint32_t n = 1;
    while (n < m + n_pub + 1)
        n <<= 1;
    memset(z, 0, sizeof *z);
    z->curve = r->curve;
    z->n_vars = r->n_wires;
    z->n_public = n_pub;
    z->domain_size = n;
    size_t count = (size_t)r->row_start[0][m] + r->row_start[1][m] + n_pub + 1;
    z->coefs = malloc(count * sizeof *z->coefs);
    assert_non_null(z->coefs);
    size_t at = 0;
    for (uint32_t mat = 0; mat < 2; mat++)
        for (uint32_t row = 0; row < m; row++)
            for (uint32_t k = r->row_start[mat][row]; k < r->row_start[mat][row + 1]; k++) {
                cuzk_zkey_coef *e = &z->coefs[at++];
                *e = (cuzk_zkey_coef){mat, row, r->terms[mat][k].wire, {0}};
                mont_mul(e->value, r->terms[mat][k].coef, f.r2, f.modulus, f.inv, 4);
                mont_mul(e->value, e->value, f.r2, f.modulus, f.inv, 4);
            }
    for (uint32_t s = 0; s <= n_pub; s++)
        z->coefs[at++] = (cuzk_zkey_coef){0, m + s, s, {f.r2[0], f.r2[1], f.r2[2], f.r2[3]}};
    z->n_coefs = (uint32_t)count;
}

/* CPU seconds of the whole process (all threads) */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bench(int log_m)
{
    for (int curve = 0; curve < CUZK_N_CURVES; curve++) {
        cuzk_synth_params sp = {.curve = (cuzk_curve_id)curve, .n_constraints = 1u << log_m, .n_public = 2, .seed = 7};
        cuzk_r1cs r;
        cuzk_wtns w;
        cuzk_zkey z;
        cuzk_error err = {0};
        assert_int_equal(cuzk_circuit_synth(&sp, &r, &w, &err), CUZK_OK);
        coef_key(&r, &z);
        cuzk_pce p;
        double t0 = cuzk_now_s();
        assert_int_equal(cuzk_pce_compile(&z, &p, &err), CUZK_OK);
        double t_compile = cuzk_now_s() - t0;
        t0 = cuzk_now_s();
        uint64_t *ref = reference_abc(&z, w.values);
        double t_ref = cuzk_now_s() - t0;
        uint64_t *abc = aligned_alloc(64, 3 * (size_t)p.n_rows * 32);
        assert_non_null(abc);
        double best[3] = {1e9, 1e9, 1e9}, best_cpu[3] = {1e9, 1e9, 1e9};
        for (int rep = 0; rep < 7; rep++)
            for (int t = 1; t <= 2; t++) {
                double c0 = cpu_s();
                t0 = cuzk_now_s();
                assert_int_equal(cuzk_pce_synthesize(&p, w.values, abc, t), CUZK_OK);
                double dt = cuzk_now_s() - t0, dc = cpu_s() - c0;
                if (dt < best[t])
                    best[t] = dt;
                if (dc < best_cpu[t])
                    best_cpu[t] = dc;
                assert_memory_equal(abc, ref, 3 * (size_t)p.n_rows * 32);
            }
        uint64_t nnz = (uint64_t)p.row_start[0][p.n_rows] + p.row_start[1][p.n_rows];
        printf("pce bench %s: 2^%d constraints, domain %u, %llu terms, %u distinct values, %.2f MiB; compile %.1f "
               "ms, reference build_abc+c %.2f ms; synthesize wall (cpu) 1 thread %.2f (%.2f) ms, 2 threads %.2f "
               "(%.2f) ms\n",
               curve ? "bls12-381" : "bn254", log_m, p.n_rows, (unsigned long long)nnz, p.n_values,
               p.bytes / 1048576.0, t_compile * 1e3, t_ref * 1e3, best[1] * 1e3, best_cpu[1] * 1e3, best[2] * 1e3,
               best_cpu[2] * 1e3);
        free(abc);
        free(ref);
        cuzk_pce_free(&p);
        free(z.coefs);
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);
    }
}

static void test_bench(void **state)
{
    (void)state;
    const char *s = getenv("CUZK_PCE_BENCH");
    if (!s || atoi(s) < 1 || atoi(s) > 26) {
        skip();
        return;
    }
    bench(atoi(s));
}

/* ---------------- main ---------------- */

static int setup_tmp(void **state)
{
    (void)state;
    const char *base = getenv("TMPDIR");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/cuzk-pce-XXXXXX", base ? base : "/tmp");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int teardown_tmp(void **state)
{
    (void)state;
    return nftw(tmp_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_built),
        cmocka_unit_test(test_synthesize_matches_reference),
        cmocka_unit_test(test_save_load),
        cmocka_unit_test(test_killed_save_leaves_nothing),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_bench),
    };
    return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
