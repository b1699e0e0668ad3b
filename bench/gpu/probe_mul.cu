/* build/gpu-probe-mul: BLS12-381 Fp product throughput in each form (issue
 * 50), at a full-GPU launch. Not part of the library.
 *
 *   build/gpu-probe-mul [--iters N] [--runs R]
 *
 * Every thread runs K independent chains x <- x y (the same y each step,
 * N steps), the operands in registers, so memory plays no part; one launch
 * fills every SM once (as many blocks per SM as the registers allow).
 * Forms (all Montgomery, inputs and outputs below 2m or m):
 *   today-call    ff.cuh's product as the MSM calls it (operator*: one
 *                 out-of-line function), 32-bit limbs, CIOS
 *   today-inline  the same product inlined (fp::mul_inline)
 *   wide28        14 limbs of 28 bits, one IMAD.WIDE.U32 a limb product,
 *                 no carry chains (probe_fp28.cuh)
 *   fp52          8 limbs of 52 bits on the FP64 pipe, a limb product from
 *                 two FMAs (probe_fp52.cuh)
 *   mixed a+b     K chains of fp52 and K of today-inline in one thread, so
 *                 the FP64 and integer pipes work at once
 *   mixed wide    fp52 beside wide28
 * Prints G products/s and products per SM per clock (at the peak SM clock
 * the driver reports). Checks: today-inline's chains against a host
 * Montgomery product (a sample of chains, every step), and every form's
 * chains, element by element, against today-inline's moved into the
 * form's Montgomery domain (x 2^(W L - 384), probe_limbs.cuh). Exits 1 on
 * any mismatch. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_chains.cuh"
#include "probe_host.cuh"

struct run_ctx {
    probe_device dev;
    unsigned iters, runs;
    size_t capacity; /* elements in xs, ys, out, ref */
    uint32_t *xs, *ys, *out;
    std::vector<uint32_t> ref; /* today-inline's results, element by element */
    bool all_ok = true;
};

/* elements [0, n) of out equal ref moved by 2^extra_bits (element e of a
 * mixed launch belongs to form B when e mod (KA + KB) >= KA) */
static size_t count_mismatches(const run_ctx &r, size_t n, int ka, int kb, int extra_a, int extra_b)
{
    std::vector<uint32_t> got(n * 12);
    BENCH_CHECK(cudaMemcpy(got.data(), r.out, n * 12 * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    const probe_fp_host factor_a = probe_fp_pow2_mont(extra_a), factor_b = probe_fp_pow2_mont(extra_b);
    size_t bad = 0;
    for (size_t e = 0; e < n; e++) {
        const bool in_a = (int)(e % (size_t)(ka + kb)) < ka;
        uint32_t want[12];
        probe_fp_to_words(want, probe_mont_mul_host(probe_fp_from_words(&r.ref[e * 12]), in_a ? factor_a : factor_b));
        if (memcmp(want, &got[e * 12], sizeof want) != 0) {
            if (bad < 3)
                fprintf(stderr, "probe-mul: element %zu differs from the reference\n", e);
            bad++;
        }
    }
    return bad;
}

template <class A, class B, int KA, int KB> static void measure(run_ctx &r, const char *name)
{
    const auto kernel = chains<A, B, KA, KB>;
    const probe_launch l = probe_launch_full(r.dev, kernel, 128);
    const size_t n = l.threads() * (KA + KB);
    if (n > r.capacity) {
        fprintf(stderr, "probe-mul: %s needs %zu elements, %zu allocated\n", name, n, r.capacity);
        exit(1);
    }
    const bench_timing tm = bench_time(0, (int)r.runs, [&] {
        kernel<<<l.grid, l.block>>>(r.xs, r.ys, r.out, r.iters);
    });
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    const size_t bad = count_mismatches(r, n, KA, KB, A::EXTRA_BITS, B::EXTRA_BITS);
    r.all_ok = r.all_ok && bad == 0;
    const double products = (double)n * r.iters;
    const double gps = products / tm.median_ms / 1e6;
    printf("| %s | %d+%d | %u x %u | %d | %d | %.2f | %.2f | %.4f | %s |\n", name, KA, KB, l.per_sm, l.block,
           l.regs, l.spill_bytes, tm.median_ms, gps, gps * 1e9 / (r.dev.sms * r.dev.clock_hz),
           bad ? "NO" : "yes");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    run_ctx r;
    r.iters = 2000;
    r.runs = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--iters"))
            r.iters = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--runs"))
            r.runs = (unsigned)atoi(argv[i + 1]);
        else {
            fprintf(stderr, "gpu-probe-mul: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (r.iters < 1 || r.runs < 1) {
        fprintf(stderr, "gpu-probe-mul: --iters and --runs must be positive\n");
        return 2;
    }
    r.dev = probe_device_get();
    /* at most 2048 threads an SM, 4 chains a thread */
    r.capacity = (size_t)r.dev.sms * 2048 * 4;
    const size_t bytes = r.capacity * 12 * sizeof(uint32_t);
    const std::vector<uint32_t> hx = probe_random_fp_words(r.capacity, 1), hy = probe_random_fp_words(r.capacity, 2);
    BENCH_CHECK(cudaMalloc(&r.xs, bytes));
    BENCH_CHECK(cudaMalloc(&r.ys, bytes));
    BENCH_CHECK(cudaMalloc(&r.out, bytes));
    BENCH_CHECK(cudaMemcpy(r.xs, hx.data(), bytes, cudaMemcpyHostToDevice));
    BENCH_CHECK(cudaMemcpy(r.ys, hy.data(), bytes, cudaMemcpyHostToDevice));

    /* the reference: one today-inline chain a thread over every element */
    const unsigned ref_block = 128, ref_grid = (unsigned)(r.capacity / ref_block);
    chains<form_today_inline, form_today_inline, 1, 0><<<ref_grid, ref_block>>>(r.xs, r.ys, r.out, r.iters);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    r.ref.resize(r.capacity * 12);
    BENCH_CHECK(cudaMemcpy(r.ref.data(), r.out, bytes, cudaMemcpyDeviceToHost));
    /* ... itself checked against the host's product on a sample of chains */
    size_t host_bad = 0;
    const size_t sample = 64, stride = r.capacity / sample;
    for (size_t s = 0; s < sample; s++) {
        const size_t e = s * stride + s % 7;
        probe_fp_host x = probe_fp_from_words(&hx[e * 12]);
        const probe_fp_host y = probe_fp_from_words(&hy[e * 12]);
        for (unsigned it = 0; it < r.iters; it++)
            x = probe_mont_mul_host(x, y);
        uint32_t want[12];
        probe_fp_to_words(want, x);
        host_bad += memcmp(want, &r.ref[e * 12], sizeof want) != 0;
    }
    printf("reference (today-inline, %zu chains of %u products): %s against the host's product on %zu chains\n\n",
           r.capacity, r.iters, host_bad ? "DIFFERS" : "equal", sample);
    r.all_ok = host_bad == 0;

    printf("| form | chains a thread | blocks an SM x threads | registers | spill bytes | ms | G products/s | "
           "products / SM / clock | same as reference |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    measure<form_today_call, form_today_call, 2, 0>(r, "today-call");
    measure<form_today_inline, form_today_inline, 2, 0>(r, "today-inline");
    measure<form_wide28, form_wide28, 2, 0>(r, "wide28");
    measure<form_fp52, form_fp52, 2, 0>(r, "fp52");
    measure<form_fp52, form_today_inline, 1, 1>(r, "mixed fp52 + today-inline");
    measure<form_fp52, form_today_inline, 2, 2>(r, "mixed fp52 + today-inline");
    measure<form_fp52, form_wide28, 1, 1>(r, "mixed fp52 + wide28");
    printf("\n%s\n", r.all_ok ? "all forms agree" : "MISMATCH: see above");
    return r.all_ok ? 0 : 1;
}
