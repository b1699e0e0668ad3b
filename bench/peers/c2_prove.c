/* bench/peers/c2_prove.c: one driver of supraseal-c2's C ABI
 * (include/cuzk/supraseal.h), built twice by bench/peers/build-supraseal.sh:
 * linked with libcuzk (C2_WITH_CUZK) and linked with supraseal-c2 itself.
 * Both read the same .params file and the same assignment file, so their
 * proofs can be compared byte for byte (bench/peers/compare-supraseal.sh).
 *
 *   c2-prove-<lib> prove PARAMS ASSIGNMENT COUNT PROOFS [--random]
 *       a batch of COUNT copies of the assignment in one call, r = s = 0
 *       (deterministic proofs) unless --random; writes COUNT proofs in
 *       blst's affine layout (384 bytes each); prints the call's seconds
 * with C2_WITH_CUZK also:
 *   c2-prove-cuzk assignment R1CS WTNS ASSIGNMENT [--compact]
 *       bellperson's assignment of a circom r1cs and witness, as a file
 *   c2-prove-cuzk verify PARAMS ASSIGNMENT PROOFS
 *       every proof checked (pairing) against the key's verifying key and
 *       the assignment's inputs
 *
 * The assignment file (src/filecoin/assignment_file.h): "C2ASSIGN", then
 * nine u64 (a_aux bit length and popcount, b_inp's, b_aux's, abc_size,
 * inputs, aux), then the three density bitmaps (u64 words), a, b, c, the
 * inputs and the aux (32-byte Montgomery scalars), all little-endian; or
 * "C2ASSIGC", the same with each scalar a byte 0 (zero), 1 (one) or 2 (its
 * 32 bytes follow), decoded here in plain C (the supraseal-linked build
 * has no cuzk code). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cuzk/supraseal.h"

#ifdef C2_WITH_CUZK
#include "filecoin/assignment.h"
#include "filecoin/assignment_file.h"
#include "filecoin/params.h"
#include "filecoin/prove.h"
#endif

enum { FIELDS = 9 };

typedef struct {
    uint64_t f[FIELDS];
    uint64_t *bits[3];
    cuzk_blst_fr *abc[3], *inputs, *aux;
} assignment_file;

static void die(const char *fmt, const char *what)
{
    fprintf(stderr, "c2-prove: ");
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    exit(1);
}

static void *read_array(FILE *f, uint64_t count, size_t size, const char *path)
{
    if (count > ((uint64_t)1 << 40) / size)
        die("%s: an array too large to be real", path);
    void *p = malloc(count ? count * size : 1);
    if (!p || fread(p, size, count, f) != count)
        die("%s: truncated, or out of memory", path);
    return p;
}

/* BLS12-381 Fr's one in Montgomery form: R = 2^256 mod r, little-endian words */
static const uint64_t fr_one_mont[4] = {0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
                                        0x1824b159acc5056fULL};

/* count scalars of the compact encoding: a tag byte each, 0, 1 or 2 (32 bytes follow) */
static cuzk_blst_fr *read_compact(FILE *f, uint64_t count, const char *path)
{
    cuzk_blst_fr *p = count > ((uint64_t)1 << 40) / 32 ? NULL : malloc(count ? count * 32 : 1);
    if (!p)
        die("%s: an array too large to be real, or out of memory", path);
    for (uint64_t i = 0; i < count; i++) {
        int tag = getc(f);
        if (tag == 0 || tag == 1)
            memcpy(p[i].l, tag ? fr_one_mont : (const uint64_t[4]){0}, 32);
        else if (tag != 2 || fread(p[i].l, 8, 4, f) != 4)
            die("%s: truncated, or a bad scalar tag", path);
    }
    return p;
}

static void assignment_read(assignment_file *a, const char *path)
{
    FILE *f = fopen(path, "rb");
    char magic[8];
    if (!f || fread(magic, 1, 8, f) != 8 || (memcmp(magic, "C2ASSIGN", 8) && memcmp(magic, "C2ASSIGC", 8)) ||
        fread(a->f, 8, FIELDS, f) != FIELDS)
        die("%s: not an assignment file", path);
    const int compact = magic[7] == 'C';
    for (int i = 0; i < 3; i++)
        a->bits[i] = read_array(f, (a->f[2 * i] + 63) / 64, 8, path);
    cuzk_blst_fr **arrays[5] = {&a->abc[0], &a->abc[1], &a->abc[2], &a->inputs, &a->aux};
    const uint64_t counts[5] = {a->f[6], a->f[6], a->f[6], a->f[7], a->f[8]};
    for (int i = 0; i < 5; i++)
        *arrays[i] = compact ? read_compact(f, counts[i], path) : read_array(f, counts[i], 32, path);
    if (getc(f) != EOF)
        die("%s: bytes after the assignment", path);
    fclose(f);
}

static cuzk_assignment abi_of(const assignment_file *a)
{
    return (cuzk_assignment){a->bits[0], a->f[0], a->f[1], a->bits[1], a->f[2], a->f[3], a->bits[2], a->f[4], a->f[5],
                             a->abc[0],  a->abc[1], a->abc[2], a->f[6], a->inputs, a->f[7], a->aux,  a->f[8]};
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int prove(int argc, char **argv)
{
    if (argc < 6)
        die("%s", "usage: prove PARAMS ASSIGNMENT COUNT PROOFS [--random]");
    const char *params = argv[2], *out = argv[5];
    const size_t count = strtoull(argv[4], NULL, 10);
    const int random = argc > 6 && !strcmp(argv[6], "--random");
    assignment_file a;
    assignment_read(&a, argv[3]);
    cuzk_assignment *batch = calloc(count, sizeof *batch);
    cuzk_blst_fr *r = calloc(count, sizeof *r), *s = calloc(count, sizeof *s);
    cuzk_groth16_proof *proofs = calloc(count, sizeof *proofs);
    if (!count || !batch || !r || !s || !proofs)
        die("%s", "a batch of at least one, and memory for it");
    for (size_t i = 0; i < count; i++) {
        batch[i] = abi_of(&a);
        /* one random word: below the modulus, the Montgomery form of some scalar */
        if (random && (getrandom(&r[i].l[0], 8, 0) != 8 || getrandom(&s[i].l[0], 8, 0) != 8))
            die("%s", "getrandom failed");
    }
    cuzk_srs srs = {0};
    double t0 = now_s();
    cuzk_rust_error e = create_SRS(&srs, params, true);
    if (e.code)
        die("create_SRS: %s", e.message);
    double t1 = now_s();
    e = generate_groth16_proofs_c(batch, count, r, s, proofs, &srs);
    if (e.code)
        die("generate_groth16_proofs_c: %s", e.message);
    double t2 = now_s();
    e = generate_groth16_proofs_c(batch, count, r, s, proofs, &srs);
    if (e.code)
        die("generate_groth16_proofs_c: %s", e.message);
    double t3 = now_s();
    printf("create_SRS %.3f s, first call %.3f s, second call %.3f s (%zu circuits)\n", t1 - t0, t2 - t1, t3 - t2,
           count);
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(proofs, sizeof *proofs, count, f) != count || fclose(f))
        die("%s: cannot write", out);
    drop_SRS(&srs);
    return 0;
}

#ifdef C2_WITH_CUZK
static int make_assignment(int argc, char **argv)
{
    if (argc != 5 && !(argc == 6 && !strcmp(argv[5], "--compact")))
        die("%s", "usage: assignment R1CS WTNS ASSIGNMENT [--compact]");
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    fil_assignment as;
    if (cuzk_r1cs_read(&r, argv[2], &err) || cuzk_wtns_read(&w, argv[3], &err) ||
        fil_assignment_from_r1cs(&as, &r, &w, 0, &err) || fil_assignment_write(&as, argv[4], argc == 6, &err))
        die("%s", err.msg);
    fil_assignment_free(&as);
    cuzk_wtns_free(&w);
    cuzk_r1cs_free(&r);
    return 0;
}

static int verify(int argc, char **argv)
{
    if (argc != 5)
        die("%s", "usage: verify PARAMS ASSIGNMENT PROOFS");
    cuzk_error err = {0};
    fil_vk vk; /* the .params' vk block alone: a 2^27 key's points are not read */
    assignment_file a;
    if (fil_vk_read(&vk, argv[2], 1, &err))
        die("%s", err.msg);
    assignment_read(&a, argv[3]);
    FILE *f = fopen(argv[4], "rb");
    if (!f)
        die("%s: cannot open", argv[4]);
    const size_t n_pub = a.f[7] - 1;
    uint64_t(*pub)[4] = malloc((n_pub + 1) * sizeof *pub);
    for (size_t i = 0; i < n_pub; i++) { /* the inputs after ONE, in normal form */
        bls12_381_fr x;
        memcpy(&x, &a.inputs[i + 1], sizeof x);
        bls12_381_fr_from_mont(&x, &x);
        memcpy(pub[i], x.l, sizeof x.l);
    }
    fil_proof proof;
    size_t k = 0;
    for (; fread(&proof, sizeof proof, 1, f) == 1; k++)
        if (fil_verify(&vk, (const uint64_t (*)[4])pub, n_pub, &proof, &err)) {
            fprintf(stderr, "c2-prove: proof %zu: %s\n", k, err.msg);
            return 1;
        }
    printf("%zu proofs verified\n", k);
    fclose(f);
    free(pub);
    fil_vk_free(&vk);
    return k ? 0 : 1;
}
#endif

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "prove"))
        return prove(argc, argv);
#ifdef C2_WITH_CUZK
    if (argc > 1 && !strcmp(argv[1], "assignment"))
        return make_assignment(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "verify"))
        return verify(argc, argv);
#endif
    die("%s", "usage: prove PARAMS ASSIGNMENT COUNT PROOFS [--random] (cuzk's build: also assignment, verify)");
}
