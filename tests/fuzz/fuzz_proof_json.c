/* proof.json reader (src/groth16/json_io.c). A proof it accepts must
 * write (cuzk_proof_to_json) and read back to the same text. */
#include <stdlib.h>

#include "codec/json_io.h"
#include "input.h"

static char *proof_read_write(const uint8_t *data, size_t size, const void *ctx)
{
    (void)ctx;
    fuzz_file f;
    if (fuzz_file_open(&f, data, size))
        return NULL;
    cuzk_proof p;
    cuzk_error err = {0};
    char *text = NULL;
    if (cuzk_proof_read_json(&p, f.path, &err) == CUZK_OK && !(text = cuzk_proof_to_json(&p, &err)))
        abort(); /* accepted, yet the writer refuses it */
    fuzz_file_close(&f);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_round_trip(data, size, proof_read_write, NULL);
    return 0;
}
