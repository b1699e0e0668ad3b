#include <stdio.h>
#include "ff/tower.h"
#include "util/timer.h"
int main(void) {
    int N = 5000000;
    bn254_fp2 a, b; bn254_fp_from_u64(&a.c0, 3); bn254_fp_from_u64(&a.c1, 4); b = a; bn254_fp_from_u64(&b.c1, 9);
    double t0 = cuzk_now_s();
    for (int i = 0; i < N; i++) bn254_fp2_mul(&a, &a, &b);
    double t1 = cuzk_now_s();
    printf("bn fp2 mul %.2f ns\n", (t1 - t0) * 1e9 / N);
    bn254_fp x, y; x = a.c0; y = b.c1;
    t0 = cuzk_now_s();
    for (int i = 0; i < N; i++) bn254_fp_mul(&x, &x, &y);
    t1 = cuzk_now_s();
    printf("bn fp mul %.2f ns\n", (t1 - t0) * 1e9 / N);
    t0 = cuzk_now_s();
    for (int i = 0; i < N/100; i++) bn254_fp_inv(&x, &x);
    t1 = cuzk_now_s();
    printf("bn fp inv %.2f ns\n", (t1 - t0) * 1e9 / (N/100));
    printf("%lx %lx\n", a.c0.l[0], x.l[0]);
}
