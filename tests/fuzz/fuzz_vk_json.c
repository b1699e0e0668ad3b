/* verification_key.json reader (src/groth16/json_io.c). A key it accepts
 * must write (cuzk_vk_to_json) and read back to the same text. */
#include <stdlib.h>

#include "codec/json_io.h"
#include "input.h"

static char *vk_read_write(const uint8_t *data, size_t size, const void *ctx)
{
    (void)ctx;
    fuzz_file f;
    if (fuzz_file_open(&f, data, size))
        return NULL;
    cuzk_vk vk;
    cuzk_error err = {0};
    char *text = NULL;
    if (cuzk_vk_read_json(&vk, f.path, &err) == CUZK_OK) {
        if (!(text = cuzk_vk_to_json(&vk, &err)))
            abort(); /* accepted, yet the writer refuses it */
        cuzk_vk_free(&vk);
    }
    fuzz_file_close(&f);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_round_trip(data, size, vk_read_write, NULL);
    return 0;
}
