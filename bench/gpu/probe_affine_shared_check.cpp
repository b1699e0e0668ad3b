/* The batch-affine bucket additions of build/gpu-probe-affine-shared
 * (probe_affine_step.cuh) run on the CPU, so that the algorithm, its block
 * sharing of one inversion and its exceptional steps are checked where
 * there is no GPU: the kernel's own code, one host thread per GPU thread
 * (probe_emulate.h). A table of 64 random multiples of G (each checked on
 * the curve); for several block shapes (threads x buckets a thread), two
 * blocks each, the adversarial stream from infinity (doublings, P + (-P),
 * additions to infinity, infinity added) and the plain stream from each
 * bucket's first point; every bucket's end must be the XYZZ chain's
 * (xyzz_add_affine on the same points, made affine) and on the curve, and
 * the exceptional steps the counts planted.
 *
 *   g++ -O2 -std=c++20 -pthread -Iinclude -Isrc -x c++ \
 *       bench/gpu/probe_affine_shared_check.cpp -o build/probe-affine-shared-check && build/probe-affine-shared-check
 *   (or make probe-checks)
 *
 * Prints "N passed, 0 failed" and exits 0, or the failures and 1. */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "probe_emulate.h" /* before src/gpu: the CUDA stand-ins */
#include "probe_affine_step.cuh"

using probe::g1_affine;
using probe::g1_fp;
using probe::g1_xyzz;

static const unsigned TABLE_LOG = 6;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct check_counts {
    int passed = 0, failed = 0;
    void expect(bool ok, const char *what, unsigned threads, unsigned n, size_t b)
    {
        if (ok) {
            passed++;
            return;
        }
        if (failed < 5)
            fprintf(stderr, "%u threads, %u buckets a block: bucket %zu: %s\n", threads, n, b, what);
        failed++;
    }
};

/* two blocks of `threads` x (n / threads) buckets, `rounds` rounds of src */
static void check_shape(check_counts &cc, const probe::stream_source &src, unsigned threads, unsigned n,
                        unsigned rounds)
{
    const bool from_infinity = src.adversarial;
    const unsigned blocks = 2;
    unsigned long long kinds[probe::STEP_KINDS] = {0};
    for (unsigned blk = 0; blk < blocks; blk++) {
        std::vector<uint32_t> words((size_t)n * probe::bucket_planes::WORDS_A_BUCKET);
        const probe::bucket_planes s = probe::bucket_planes::at(words.data(), n);
        const size_t first = (size_t)blk * n;
        probe_emulate_block(threads, [&](unsigned) {
            probe::affine_buckets_start(src, s, first, from_infinity);
            probe::affine_buckets_rounds(src, s, first, from_infinity ? 0 : 1, rounds, kinds);
        });
        for (unsigned e = 0; e < n; e++) {
            g1_xyzz acc = g1_xyzz::inf();
            for (unsigned r = 0; r < rounds; r++) {
                const g1_affine p = src.point(first + e, r);
                if (!p.is_inf())
                    gpu::xyzz_add_affine(acc, p);
            }
            const g1_affine want = probe::g1_to_affine(acc), got = s.bucket(e);
            cc.expect(got.x == want.x && got.y == want.y, "not the XYZZ chain's end", threads, n, first + e);
            cc.expect(got.is_inf() || probe::g1_on_curve(got), "off the curve", threads, n, first + e);
        }
    }
    unsigned long long want[probe::STEP_KINDS];
    probe::stream_source::planted((size_t)blocks * n, want);
    for (int k = probe::STEP_DOUBLE; k < probe::STEP_KINDS; k++) {
        const unsigned long long w = from_infinity ? want[k] : 0;
        if (kinds[k] != w)
            fprintf(stderr, "%u threads, %u buckets a block: %llu steps of kind %d, %llu planted\n", threads, n,
                    kinds[k], k, w);
        cc.expect(kinds[k] == w, "exceptional steps miscounted", threads, n, 0);
    }
}

int main(void)
{
    const size_t table = (size_t)1 << TABLE_LOG;
    std::vector<g1_affine> pts(table);
    check_counts cc;
    for (size_t i = 0; i < table; i++) {
        pts[i] = probe::g1_multiple(mix64(7 + i) | 1);
        cc.expect(probe::g1_on_curve(pts[i]), "table point off the curve", 0, 0, i);
    }
    const probe::stream_source adversarial = {pts.data(), (uint32_t)table - 1, true};
    const probe::stream_source plain = {pts.data(), (uint32_t)table - 1, false};
    const unsigned shapes[][2] = {{32, 32}, {64, 256}, {96, 288}}; /* threads, buckets a block */
    for (const auto &sh : shapes) {
        check_shape(cc, adversarial, sh[0], sh[1], 6);
        check_shape(cc, plain, sh[0], sh[1], 5);
    }
    printf("%d passed, %d failed\n", cc.passed, cc.failed);
    return cc.failed ? 1 : 0;
}
