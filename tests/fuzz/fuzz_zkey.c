/* .zkey reader (src/groth16/zkey.c over binfile.c): the whole key and the
 * header alone. A key the full reader accepts must pass the header reader
 * with the same sizes. */
#include <stdlib.h>

#include "input.h"
#include "groth16/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file f;
    if (fuzz_file_open(&f, data, size))
        return 0;
    cuzk_zkey full, head;
    cuzk_error err = {0};
    int rc_full = cuzk_zkey_read(&full, f.path, &err);
    int rc_head = cuzk_zkey_read_header(&head, f.path, &err);
    if (rc_full == CUZK_OK &&
        (rc_head != CUZK_OK || head.curve != full.curve || head.n_vars != full.n_vars ||
         head.n_public != full.n_public || head.domain_size != full.domain_size))
        abort();
    cuzk_zkey_free(&full);
    cuzk_zkey_free(&head);
    fuzz_file_close(&f);
    return 0;
}
