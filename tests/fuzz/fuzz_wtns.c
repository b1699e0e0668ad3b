/* .wtns reader (src/groth16/wtns.c): from a file, its header alone, and
 * from memory (the daemon's witness_b64). The three must agree. */
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "groth16/wtns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file f;
    if (fuzz_file_open(&f, data, size))
        return 0;
    cuzk_wtns file, head, mem;
    cuzk_error err = {0};
    int rc_file = cuzk_wtns_read(&file, f.path, &err);
    int rc_head = cuzk_wtns_read_header(&head, f.path, &err);
    int rc_mem = cuzk_wtns_read_memory(&mem, data, size, "input", &err);
    if (rc_file != rc_mem)
        abort();
    if (rc_file == CUZK_OK &&
        (rc_head != CUZK_OK || head.n_witness != file.n_witness || head.curve != file.curve ||
         mem.n_witness != file.n_witness || mem.curve != file.curve ||
         memcmp(mem.values, file.values, (size_t)file.n_witness * 32) != 0))
        abort();
    cuzk_wtns_free(&file);
    cuzk_wtns_free(&head);
    cuzk_wtns_free(&mem);
    fuzz_file_close(&f);
    return 0;
}
