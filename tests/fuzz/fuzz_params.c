/* Filecoin's parameter files (src/filecoin/params.c) and proofs
 * (prove.c): an input read as a .params from a file and from memory (the
 * two must agree), its counts alone (as params info reads them: they must
 * agree with a full read that succeeds), its .vk block as a prefix, as a
 * whole .vk, and its first 192 bytes as a bellperson proof. A read that
 * succeeds is written again and must give the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin/params.h"
#include "filecoin/prove.h"
#include "input.h"

static void same_written(const fil_params *p, const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/cuzk-fuzz-params-%d", (int)getpid());
    cuzk_error err = {0};
    if (fil_params_write(p, path, &err))
        abort(); /* what the reader takes, the writer must take */
    FILE *f = fopen(path, "rb");
    uint8_t *back = malloc(size + 1);
    size_t got = f && back ? fread(back, 1, size + 1, f) : 0;
    if (f)
        fclose(f);
    unlink(path);
    if (got != size || memcmp(back, data, size))
        abort();
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file f;
    if (fuzz_file_open(&f, data, size))
        return 0;
    cuzk_error err = {0};
    fil_params file, mem, counts;
    fil_read_options o = {2, NULL, NULL, FIL_CHECK_ALL};
    int rc_file = fil_params_read(&file, f.path, &o, &err);
    int rc_mem = fil_params_read_memory(&mem, data, size, "input", &o, &err);
    int rc_counts = fil_params_counts_memory(&counts, data, size, "input", &err);
    if (rc_file != rc_mem || (rc_file == CUZK_OK && rc_counts != CUZK_OK))
        abort();
    if (rc_file == CUZK_OK) {
        if (counts.n_h != file.n_h || counts.n_l != file.n_l || counts.n_a != file.n_a ||
            counts.n_b_g2 != file.n_b_g2 || fil_params_file_bytes(&file) != size ||
            memcmp(file.h, mem.h, (size_t)file.n_h * sizeof *file.h))
            abort();
        same_written(&file, data, size);
    }
    fil_vk prefix, whole;
    int rc_prefix = fil_vk_read_memory(&prefix, data, size, "input", 1, &err);
    int rc_whole = fil_vk_read_memory(&whole, data, size, "input", 0, &err);
    if ((rc_file == CUZK_OK && rc_prefix != CUZK_OK) || (rc_whole == CUZK_OK && rc_prefix != CUZK_OK))
        abort();
    if (size >= FIL_PROOF_BYTES) {
        fil_proof proof;
        uint8_t again[FIL_PROOF_BYTES];
        if (fil_proof_read_bytes(&proof, data, &err) == CUZK_OK) {
            fil_proof_write_bytes(again, &proof);
            if (memcmp(again, data, FIL_PROOF_BYTES))
                abort();
        }
    }
    fil_vk_free(&prefix);
    fil_vk_free(&whole);
    fil_params_free(&file);
    fil_params_free(&mem);
    fuzz_file_close(&f);
    return 0;
}
