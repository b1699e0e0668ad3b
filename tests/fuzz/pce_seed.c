/* Writes the PCE cache file of a key, a seed for the pce target:
 *   build/debug/pce-seed KEY.zkey OUT.pce
 * (tests/fuzz/make-corpus runs it). */
#include <stdio.h>

#include "synthesis/pce.h"
#include "groth16/zkey.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: pce-seed KEY.zkey OUT.pce\n");
        return 2;
    }
    cuzk_zkey z;
    cuzk_pce p = {0};
    cuzk_error err = {0};
    int rc = cuzk_zkey_read(&z, argv[1], &err);
    if (!rc)
        rc = cuzk_pce_compile(&z, &p, &err);
    if (!rc)
        rc = cuzk_pce_save(&p, argv[2], &err);
    if (rc)
        fprintf(stderr, "pce-seed: %s\n", err.msg);
    cuzk_pce_free(&p);
    cuzk_zkey_free(&z);
    return rc ? 1 : 0;
}
