/* The product probe's new field forms (probe_fp52.cuh, probe_fp28.cuh) run
 * on the CPU against a plain Montgomery product, so their arithmetic is
 * checked where there is no GPU: the device intrinsics they use are
 * emulated (an FMA rounded toward zero under fesetround, bit casts by
 * memcpy). Chains of products feed outputs (below 2m) back as inputs.
 *
 *   g++ -O2 -std=c++17 -frounding-math -Iinclude -Isrc -x c++ \
 *       bench/gpu/probe_forms_check.cpp -o build/probe-forms-check && build/probe-forms-check
 *
 * Prints "N passed, 0 failed" and exits 0, or the first mismatches and 1. */
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define __host__
#define __device__
#define __forceinline__ inline
#define __global__

static inline double __fma_rz(double a, double b, double c)
{
    fesetround(FE_TOWARDZERO);
    const double r = std::fma(a, b, c);
    fesetround(FE_TONEAREST);
    return r;
}
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline long long __double_as_longlong(double x)
{
    long long r;
    memcpy(&r, &x, sizeof r);
    return r;
}
static inline double __longlong_as_double(long long x)
{
    double r;
    memcpy(&r, &x, sizeof r);
    return r;
}

#include "probe_fp28.cuh"
#include "probe_fp52.cuh"

#include "probe_fp_host.h"

/* words (a value below 2m) -> canonical words */
static void reduce_words(uint32_t *w)
{
    uint32_t s[12];
    int64_t borrow = 0;
    for (int i = 0; i < 12; i++) {
        const int64_t d = (int64_t)w[i] - gpu::bls12_381_fp_params::mod(i) + borrow;
        s[i] = (uint32_t)d;
        borrow = d < 0 ? -1 : 0;
    }
    if (!borrow)
        memcpy(w, s, sizeof s);
}

template <class E, class From, class Mul, class To>
static int check_form(const char *name, int extra_bits, From from, Mul mul, To to, int *passed)
{
    const size_t n = 2000, steps = 8;
    const std::vector<uint32_t> xs = probe_random_fp_words(n, 11), ys = probe_random_fp_words(n, 12);
    const probe_fp_host factor = probe_fp_pow2_mont(extra_bits);
    int failed = 0;
    for (size_t e = 0; e < n; e++) {
        /* the library element x R enters the form as x R 2^extra */
        uint32_t wx[12], wy[12];
        probe_fp_to_words(wx, probe_mont_mul_host(probe_fp_from_words(&xs[e * 12]), factor));
        probe_fp_to_words(wy, probe_mont_mul_host(probe_fp_from_words(&ys[e * 12]), factor));
        E x = from(wx), y = from(wy);
        probe_fp_host ref = probe_fp_from_words(&xs[e * 12]);
        const probe_fp_host ry = probe_fp_from_words(&ys[e * 12]);
        for (size_t s = 0; s < steps; s++) {
            x = mul(x, y);
            ref = probe_mont_mul_host(ref, ry);
            uint32_t got[12], want[12];
            to(got, x);
            reduce_words(got);
            probe_fp_to_words(want, probe_mont_mul_host(ref, factor));
            if (memcmp(got, want, sizeof got) != 0) {
                if (failed < 3)
                    fprintf(stderr, "%s: element %zu, step %zu differs\n", name, e, s);
                failed++;
            } else {
                (*passed)++;
            }
        }
    }
    return failed;
}

int main(void)
{
    int passed = 0, failed = 0;
    failed += check_form<probe::fp52>(
        "fp52", probe::fp52::W * probe::fp52::L - 384, [](const uint32_t *w) { return probe::fp52_from_words(w); },
        [](const probe::fp52 &a, const probe::fp52 &b) { return probe::fp52_mul(a, b); },
        [](uint32_t *w, const probe::fp52 &x) { probe::fp52_to_words(w, x); }, &passed);
    failed += check_form<probe::fp28>(
        "wide28", probe::fp28::W * probe::fp28::L - 384, [](const uint32_t *w) { return probe::fp28_from_words(w); },
        [](const probe::fp28 &a, const probe::fp28 &b) { return probe::fp28_mul(a, b); },
        [](uint32_t *w, const probe::fp28 &x) { probe::fp28_to_words(w, x); }, &passed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
