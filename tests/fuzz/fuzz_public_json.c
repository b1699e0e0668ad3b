/* public.json reader (src/groth16/json_io.c), for every curve. Signals it
 * accepts must write (cuzk_public_to_json) and read back the same. */
#include <stdlib.h>

#include "codec/json_io.h"
#include "input.h"

static char *public_read_write(const uint8_t *data, size_t size, const void *ctx)
{
    const cuzk_curve_id *curve = ctx;
    fuzz_file f;
    if (fuzz_file_open(&f, data, size))
        return NULL;
    uint64_t(*signals)[4] = NULL;
    uint32_t n = 0;
    cuzk_error err = {0};
    char *text = NULL;
    if (cuzk_public_read_json(&signals, &n, *curve, f.path, &err) == CUZK_OK &&
        !(text = cuzk_public_to_json((const uint64_t(*)[4])signals, n, &err)))
        abort(); /* accepted, yet the writer refuses them */
    free(signals);
    fuzz_file_close(&f);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int c = 0; c < CUZK_N_CURVES; c++) {
        cuzk_curve_id curve = (cuzk_curve_id)c;
        fuzz_round_trip(data, size, public_read_write, &curve);
    }
    return 0;
}
