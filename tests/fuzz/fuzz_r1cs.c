/* .r1cs reader (src/groth16/r1cs.c). What it accepts must hold together:
 * row offsets that rise to the term count, every wire below n_wires. */
#include <stdlib.h>

#include "input.h"
#include "groth16/r1cs.h"

static int r1cs_consistent(const cuzk_r1cs *c)
{
    for (int m = 0; m < 3; m++) {
        const uint32_t *rs = c->row_start[m];
        if (rs[0] != 0)
            return 0;
        for (uint32_t i = 0; i < c->n_constraints; i++)
            if (rs[i + 1] < rs[i])
                return 0;
        for (uint32_t k = 0; k < rs[c->n_constraints]; k++)
            if (c->terms[m][k].wire >= c->n_wires)
                return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file f;
    if (fuzz_file_open(&f, data, size))
        return 0;
    cuzk_r1cs c;
    cuzk_error err = {0};
    if (cuzk_r1cs_read(&c, f.path, &err) == CUZK_OK && !r1cs_consistent(&c))
        abort();
    cuzk_r1cs_free(&c);
    fuzz_file_close(&f);
    return 0;
}
