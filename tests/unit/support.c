#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ff/mont52.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
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

int budget_waiters_reach(cuzk_budget *b, uint32_t n)
{
    const struct timespec tick = {0, 1000000};
    for (int i = 0; i < 20000; i++) {
        budget_stats s;
        budget_get_stats(b, &s);
        if (s.waiters == n)
            return 1;
        nanosleep(&tick, NULL);
    }
    return 0;
}

int make_dev_key(const cuzk_synth_params *sp, cuzk_zkey *z, cuzk_wtns *w, cuzk_r1cs *r)
{
    cuzk_error err = {0};
    cuzk_r1cs r1cs;
    int rc = cuzk_circuit_synth(sp, &r1cs, w, &err);
    if (rc)
        return rc;
    if ((rc = cuzk_groth16_setup(&r1cs, 2, z, &err)))
        cuzk_wtns_free(w);
    if (rc || !r)
        cuzk_r1cs_free(&r1cs);
    else
        *r = r1cs;
    return rc;
}

int write_dev_key(const char *zkey_path, const char *r1cs_path, cuzk_curve_id curve, uint32_t n_constraints,
                  uint64_t seed, cuzk_wtns *w)
{
    cuzk_error err = {0};
    cuzk_synth_params sp = {curve, n_constraints, 2, seed, 0};
    cuzk_r1cs r1cs;
    cuzk_wtns witness;
    cuzk_zkey z;
    int rc = make_dev_key(&sp, &z, &witness, &r1cs);
    if (rc)
        return rc;
    rc = cuzk_zkey_write(&z, zkey_path, &err);
    cuzk_zkey_free(&z);
    if (!rc && r1cs_path)
        rc = cuzk_r1cs_write(&r1cs, r1cs_path, &err);
    cuzk_r1cs_free(&r1cs);
    if (rc || !w)
        cuzk_wtns_free(&witness);
    else
        *w = witness;
    return rc;
}

int remove_tree(const char *dir)
{
    char cmd[4096];
    if ((size_t)snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) >= sizeof cmd)
        return -1;
    return system(cmd) ? -1 : 0;
}

#if MONT52_HAVE
static int arith_ifma_found = -1; /* mont52_enabled as the library found it */

int arith_paths(void)
{
    if (arith_ifma_found < 0)
        arith_ifma_found = mont52_enabled;
    return arith_ifma_found ? 2 : 1;
}

const char *arith_path_select(int i)
{
    arith_paths();
    mont52_enabled = arith_ifma_found && i == 0;
    return mont52_enabled ? "avx512-ifma" : "scalar";
}
#else
int arith_paths(void) { return 1; }

const char *arith_path_select(int i)
{
    (void)i;
    return "scalar";
}
#endif
