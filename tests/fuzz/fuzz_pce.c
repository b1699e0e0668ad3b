/* The PCE cache file reader (cuzk_pce_load, src/engine/pce.c). A file
 * carries a checksum, which random bytes almost never match, so each input
 * is read twice: as it is, and resealed, i.e. its header and arrays, where
 * they fit in the input, given to cuzk_pce_save (which writes the checksum)
 * and read back, so that the checks after the checksum are reached too.
 *
 * The layout pce.c writes: an 80-byte header (magic "CUZKPCE\0", u32
 * version, u32 curve, 32-byte key hash, u32 n_rows, n_vars, n_values, a
 * reserved u32, u64 nnz[2]), then for A and B the row offsets (n_rows + 1
 * u32), wires and coefficient codes (nnz u32 each), then n_values 32-byte
 * values and a u64 checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synthesis/pce.h"
#include "input.h"
#include "codec/binfile.h"

enum { PCE_HEADER = 80 };

/* Where cuzk_pce_save writes: a directory of this process's own. */
static char seal_dir[] = "/tmp/cuzk-fuzz-pce-XXXXXX";
static char seal_path[sizeof seal_dir + 16];

static void seal_dir_remove(void)
{
    unlink(seal_path);
    rmdir(seal_dir);
}

/* A malloc'd copy of len bytes at *at (advanced), with room for one more
 * u32 so that an empty array is not NULL. */
static void *take(const uint8_t **at, uint64_t len)
{
    void *p = malloc(len + 4);
    if (p) {
        memcpy(p, *at, len);
        *at += len;
    }
    return p;
}

/* Fills p from data when its header's sizes fit in size bytes: 0, else -1
 * (p then holds what it got; cuzk_pce_free releases it). */
static int pce_from_bytes(cuzk_pce *p, const uint8_t *data, size_t size)
{
    memset(p, 0, sizeof *p);
    if (size < PCE_HEADER)
        return -1;
    uint32_t curve = cuzk_le32(data + 12);
    uint64_t n_rows = cuzk_le32(data + 48), nnz[2] = {cuzk_le64(data + 64), cuzk_le64(data + 72)};
    p->n_vars = cuzk_le32(data + 52);
    p->n_values = cuzk_le32(data + 56);
    if (curve >= CUZK_N_CURVES || nnz[0] > size || nnz[1] > size || n_rows > size ||
        PCE_HEADER + 8 * (n_rows + 1) + 8 * (nnz[0] + nnz[1]) + 32 * (uint64_t)p->n_values > size)
        return -1;
    p->curve = (cuzk_curve_id)curve;
    p->n_rows = (uint32_t)n_rows;
    memcpy(p->key_hash, data + 16, 32);
    const uint8_t *at = data + PCE_HEADER;
    for (int m = 0; m < 2; m++) {
        if (!(p->row_start[m] = take(&at, 4 * (n_rows + 1))) || !(p->wire[m] = take(&at, 4 * nnz[m])) ||
            !(p->coef[m] = take(&at, 4 * nnz[m])))
            return -1;
        p->row_start[m][n_rows] = (uint32_t)nnz[m]; /* the save takes the term count from here */
    }
    return (p->values = take(&at, 32 * (uint64_t)p->n_values)) ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!seal_path[0]) {
        if (!mkdtemp(seal_dir))
            return 0;
        snprintf(seal_path, sizeof seal_path, "%s/k.pce", seal_dir);
        atexit(seal_dir_remove);
    }
    fuzz_file f;
    if (fuzz_file_open(&f, data, size))
        return 0;
    cuzk_pce p, q;
    cuzk_error err = {0};
    (void)cuzk_pce_load(&q, f.path, NULL, &err);
    cuzk_pce_free(&q);
    fuzz_file_close(&f);

    if (pce_from_bytes(&p, data, size) == 0 && cuzk_pce_save(&p, seal_path, &err) == CUZK_OK &&
        cuzk_pce_load(&q, seal_path, p.key_hash, &err) == CUZK_OK) {
        if (q.n_rows != p.n_rows || q.n_vars != p.n_vars || q.n_values != p.n_values ||
            q.row_start[0][q.n_rows] != p.row_start[0][p.n_rows] || q.row_start[1][q.n_rows] != p.row_start[1][p.n_rows])
            abort();
        cuzk_pce_free(&q);
    }
    cuzk_pce_free(&p);
    return 0;
}
