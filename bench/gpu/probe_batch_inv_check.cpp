/* The batched inversion of the GPU microbenchmarks (probe_batch_inv.cuh)
 * run on the CPU, so that its warp and block logic is checked where there
 * is no GPU (probe_emulate.h: one host thread per GPU thread, the warp
 * shuffles and the block barrier emulated with barriers, the field's PTX
 * carry chains emulated per thread). Every thread inverts K random
 * elements in place; each x (1/x) must be one (the host's own Montgomery
 * product, probe_fp_host.h, decides).
 *
 *   g++ -O2 -std=c++20 -pthread -Iinclude -Isrc -x c++ \
 *       bench/gpu/probe_batch_inv_check.cpp -o build/probe-batch-inv-check && build/probe-batch-inv-check
 *
 * Prints "N passed, 0 failed" and exits 0, or the failures and 1. */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "probe_emulate.h" /* before src/gpu: the CUDA stand-ins */
#include "gpu/ff.cuh"
#include "probe_batch_inv.cuh"
#include "probe_fp_host.h"

using F = gpu::bls12_381_fp_t;

/* one block of `threads` emulated threads, K elements each, inverted in
 * place; returns the elements x with x (1/x) != 1 */
template <probe::inv_share SHARE, int K> static int check(unsigned threads, uint64_t seed, int *passed)
{
    const std::vector<uint32_t> in = probe_random_fp_words((size_t)threads * K, seed);
    std::vector<uint32_t> out(in.size());
    probe_emulate_block(threads, [&](unsigned t) {
        F e[K];
        for (int k = 0; k < K; k++)
            memcpy(e[k].v, &in[((size_t)t * K + k) * 12], sizeof e[k].v);
        probe::batch_inverse<SHARE>(e);
        for (int k = 0; k < K; k++)
            memcpy(&out[((size_t)t * K + k) * 12], e[k].v, sizeof e[k].v);
    });
    uint32_t one[12];
    for (int i = 0; i < 12; i++)
        one[i] = gpu::bls12_381_fp_params::one(i);
    int failed = 0;
    for (size_t e = 0; e < (size_t)threads * K; e++) {
        uint32_t p[12];
        probe_fp_to_words(p, probe_mont_mul_host(probe_fp_from_words(&in[e * 12]), probe_fp_from_words(&out[e * 12])));
        if (memcmp(p, one, sizeof p) != 0) {
            if (failed < 3)
                fprintf(stderr, "%s, K = %d: element %zu is not inverted\n",
                        SHARE == probe::SHARE_WARP ? "warp" : "block", K, e);
            failed++;
        } else {
            (*passed)++;
        }
    }
    return failed;
}

int main(void)
{
    int passed = 0, failed = 0;
    failed += check<probe::SHARE_WARP, 1>(32, 1, &passed);
    failed += check<probe::SHARE_WARP, 3>(32, 2, &passed);
    failed += check<probe::SHARE_WARP, 4>(64, 3, &passed);
    failed += check<probe::SHARE_BLOCK, 1>(256, 4, &passed);
    failed += check<probe::SHARE_BLOCK, 2>(96, 5, &passed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
