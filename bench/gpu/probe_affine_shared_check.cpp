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
 * the exceptional steps the counts planted. The pairwise tree
 * (affine_tree_level) likewise: a level's sums and the whole tree's one
 * point against XYZZ, planted exceptional pairs and odd counts included.
 *
 *   g++ -O2 -std=c++20 -fno-strict-aliasing -pthread -Iinclude -Isrc -x c++ \
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

/* g1_affine + g1_affine by XYZZ (the reference), infinity either side */
static g1_affine xyzz_sum(const std::vector<g1_affine> &pts, size_t from, size_t count)
{
    g1_xyzz acc = g1_xyzz::inf();
    for (size_t j = from; j < from + count; j++)
        if (!pts[j].is_inf())
            gpu::xyzz_add_affine(acc, pts[j]);
    return probe::g1_to_affine(acc);
}

/* one tree level over the emulated blocks of `threads` x K pairs */
static std::vector<g1_affine> tree_level(const std::vector<g1_affine> &in, unsigned threads, unsigned K,
                                         unsigned long long (&kinds)[probe::STEP_KINDS])
{
    std::vector<g1_affine> out((in.size() + 1) / 2);
    const size_t pairs = in.size() / 2, per_block = (size_t)threads * K;
    for (size_t blk = 0; blk == 0 || blk * per_block < pairs; blk++)
        probe_emulate_block(threads, [&](unsigned) {
            probe::affine_tree_level(in.data(), in.size(), out.data(), K, blk, kinds);
        });
    return out;
}

/* The tree: a level's every output against XYZZ on its pair, then the
 * whole tree's one point against XYZZ's sum; the input has planted pairs
 * (P, P), (P, -P), (infinity, P), (P, infinity), (infinity, infinity) and
 * an odd count. */
static void check_tree(check_counts &cc, const std::vector<g1_affine> &table, unsigned threads, unsigned K,
                       size_t n)
{
    std::vector<g1_affine> in(n);
    for (size_t j = 0; j < n; j++)
        in[j] = table[j % table.size()];
    const g1_affine inf = {g1_fp::zero(), g1_fp::zero()};
    in[11] = in[10];                                       /* pair 5: P + P */
    in[35] = {in[34].x, in[34].y.neg()};                   /* pair 17: P + (-P) */
    in[60] = inf;                                          /* pair 30: infinity + P */
    in[63] = inf;                                          /* pair 31: P + infinity */
    in[80] = in[81] = inf;                                 /* pair 40: infinity + infinity */
    unsigned long long kinds[probe::STEP_KINDS] = {0};
    std::vector<g1_affine> level = tree_level(in, threads, K, kinds);
    for (size_t i = 0; i < level.size(); i++) {
        const g1_affine want = xyzz_sum(in, 2 * i, 2 * i + 1 < n ? 2 : 1);
        cc.expect(level[i].x == want.x && level[i].y == want.y, "tree level: not XYZZ's sum of the pair", threads,
                  K, i);
    }
    cc.expect(kinds[probe::STEP_DOUBLE] == 1 && kinds[probe::STEP_TO_INF] == 1 && kinds[probe::STEP_TAKE_P] == 1 &&
                  kinds[probe::STEP_KEEP] == 2,
              "tree level: the planted steps miscounted", threads, K, 0);
    while (level.size() > 1)
        level = tree_level(level, threads, K, kinds);
    const g1_affine want = xyzz_sum(in, 0, n);
    cc.expect(level[0].x == want.x && level[0].y == want.y, "tree: not XYZZ's sum", threads, K, n);
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
    check_tree(cc, pts, 64, 3, 2 * 64 * 3 * 2 + 1); /* two blocks of pairs and a carried point */
    check_tree(cc, pts, 32, 2, 200);                 /* the last block part full */
    printf("%d passed, %d failed\n", cc.passed, cc.failed);
    return cc.failed ? 1 : 0;
}
