#include <stdio.h>
#include <stdlib.h>
#include "poly/ntt.h"
#include "util/timer.h"
int main(int argc, char **argv) {
    int th = argc > 1 ? atoi(argv[1]) : 2;
    for (unsigned k = 16; k <= 22; k += 2) {
        size_t n = (size_t)1 << k;
        bn254_fr *a = malloc(n * sizeof *a);
        for (size_t i = 0; i < n; i++) bn254_fr_from_u64(&a[i], i * 7 + 1);
        bn254_fr_ntt(a, n, th);
        double t0 = cuzk_now_s();
        bn254_fr_ntt(a, n, th);
        double t1 = cuzk_now_s();
        bn254_fr_intt(a, n, th);
        double t2 = cuzk_now_s();
        printf("2^%u ntt %.1f ms intt %.1f ms\n", k, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
        free(a);
    }
}
