#include "support.h"

#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"

int gpu_tests_unavailable(void)
{
#if defined(__SANITIZE_ADDRESS__)
    printf("SKIP: no GPU tests under AddressSanitizer\n");
    return 1;
#endif
    if (cuzk_gpu_device_count() == 0) {
        printf("SKIP: no GPU\n");
        return 1;
    }
    return 0;
}

int count_lines_with(const char *path, const char *needle1, const char *needle2)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, needle1) && (!needle2 || strstr(line, needle2));
    fclose(f);
    return n;
}
