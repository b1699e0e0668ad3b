/* The daemon's configuration (src/daemon/config.c): an INI file, then
 * `--set section.key=value` overrides, then the printer and the engine's
 * view of the result. Input: the INI text, then after each NUL byte one
 * `--set` argument. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t ini_len = nul ? (size_t)(nul - data) : size;
    fuzz_file f;
    if (fuzz_file_open(&f, data, ini_len))
        return 0;
    char *sets = fuzz_strndup(data, size); /* NUL-separated from ini_len on */
    FILE *sink = fopen("/dev/null", "w");
    daemon_config c;
    cuzk_error err = {0};
    if (sets && sink && daemon_config_init(&c, &err) == CUZK_OK) {
        (void)daemon_config_load(&c, f.path, &err);
        for (size_t at = ini_len + 1; at < size; at += strlen(sets + at) + 1)
            (void)daemon_config_set_dotted(&c, sets + at, &err);
        daemon_config_print(&c, sink);
        cuzk_engine_config ec;
        daemon_config_engine(&c, &ec);
        daemon_config_free(&c);
    }
    if (sink)
        fclose(sink);
    free(sets);
    fuzz_file_close(&f);
    return 0;
}
