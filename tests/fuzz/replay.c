/* Feeds files to a fuzz target's LLVMFuzzerTestOneInput, as libFuzzer
 * would, without libFuzzer: the seed corpora run as tests in the debug
 * build (gcc, address and undefined-behaviour sanitizers, leak checks).
 *
 *   build/debug/fuzz/<target> FILE|DIR...
 *
 * A directory's files run in name order. Exit 0 when every input ran (a
 * sanitizer or a target's check ends the process otherwise), 1 when an
 * input could not be read or none was given. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        if (f)
            fclose(f);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *data = malloc(size ? size : 1);
    int ok = data && fread(data, 1, size, f) == size;
    fclose(f);
    if (ok)
        LLVMFuzzerTestOneInput(data, size);
    else
        fprintf(stderr, "replay: cannot read %s\n", path);
    free(data);
    return ok ? 0 : -1;
}

static int is_entry(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

/* Runs path, or every file in it; the number run, or -1. */
static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return run_file(path) ? -1 : 1;
    struct dirent **names;
    int n = scandir(path, &names, is_entry, alphasort), done = 0;
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s\n", path);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
        if (done >= 0)
            done = run_file(file) ? -1 : done + 1;
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; i++) {
        int n = run_path(argv[i]);
        if (n < 0)
            return 1;
        total += n;
    }
    printf("replay: %d inputs ran\n", total);
    return total ? 0 : 1;
}
