/* The cuzk command: dispatches to subcommands. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        printf("usage: cuzk <command> ...\n");
        return argc < 2;
    }
    fprintf(stderr, "cuzk: unknown command '%s'\n", argv[1]);
    return 2;
}
