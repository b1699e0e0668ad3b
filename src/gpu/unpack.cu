/* A packed witness back to its values on the device (unpack.cuh). */
#include "gpu/unpack.cuh"

namespace gpu {

static_assert(CUZK_WTNS_PACK_BLOCK == 1024, "a thread block a packed block, a thread a value");

/* Thread block b restores the values of packed block b. A value kept whole
 * is the block's r-th kept one, r counted by ballots: its warp's kept
 * below its lane, plus the kept of the warps before it (a scan of 32
 * counts in shared memory), from the block's first, first[b]. */
__global__ void __launch_bounds__(CUZK_WTNS_PACK_BLOCK)
    wtns_unpack_kernel(uint4 *out, const uint4 *kept, const uint64_t *kinds, const uint32_t *first, size_t n,
                       uint4 one_lo, uint4 one_hi)
{
    __shared__ uint32_t before[32]; /* kept values in the warps below */
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t i = (size_t)blockIdx.x * CUZK_WTNS_PACK_BLOCK + threadIdx.x;
    const unsigned kind = i < n ? (unsigned)(kinds[i / 32] >> (2 * (i % 32))) & 3 : CUZK_WTNS_ZERO;
    const unsigned ballot = __ballot_sync(0xffffffffu, kind == CUZK_WTNS_KEPT);
    if (lane == 0)
        before[warp] = __popc(ballot);
    __syncthreads();
    if (warp == 0) {
        const unsigned own = before[lane];
        unsigned sum = own; /* inclusive scan over the 32 warps */
        for (unsigned d = 1; d < 32; d *= 2) {
            const unsigned got = __shfl_up_sync(0xffffffffu, sum, d);
            if (lane >= d)
                sum += got;
        }
        before[lane] = sum - own;
    }
    __syncthreads();
    if (i >= n)
        return;
    uint4 lo = {0, 0, 0, 0}, hi = {0, 0, 0, 0};
    if (kind == CUZK_WTNS_ONE) {
        lo = one_lo;
        hi = one_hi;
    }
    if (kind == CUZK_WTNS_KEPT) {
        const size_t r = first[blockIdx.x] + before[warp] + __popc(ballot & ((1u << lane) - 1));
        lo = kept[2 * r];
        hi = kept[2 * r + 1];
    }
    out[2 * i] = lo;
    out[2 * i + 1] = hi;
}

int wtns_unpack(cuzk_gpu *g, const cuzk_wtns_packed *p, void *values, cuzk_error *err)
{
    if (p->n == 0)
        return 0;
    dev_buf<uint64_t> packed;
    GPU_TRY(packed.alloc(g, (p->bytes + 7) / 8, err));
    GPU_CHECK(cudaMemcpyAsync(packed.get(), p->base, p->bytes, cudaMemcpyHostToDevice, g->stream));
    const uint64_t *d = packed.get();
    const size_t kinds_at = static_cast<size_t>(p->kinds - p->base);
    const size_t first_at = static_cast<size_t>(reinterpret_cast<const uint8_t *>(p->first) -
                                                reinterpret_cast<const uint8_t *>(p->base));
    const unsigned blocks = grid_for(p->n, CUZK_WTNS_PACK_BLOCK);
    wtns_unpack_kernel<<<blocks, CUZK_WTNS_PACK_BLOCK, 0, g->stream>>>(
        static_cast<uint4 *>(values), reinterpret_cast<const uint4 *>(d), d + kinds_at,
        reinterpret_cast<const uint32_t *>(reinterpret_cast<const uint8_t *>(d) + first_at), p->n,
        make_uint4((uint32_t)p->one[0], (uint32_t)(p->one[0] >> 32), (uint32_t)p->one[1], (uint32_t)(p->one[1] >> 32)),
        make_uint4((uint32_t)p->one[2], (uint32_t)(p->one[2] >> 32), (uint32_t)p->one[3], (uint32_t)(p->one[3] >> 32)));
    GPU_LAUNCHED();
    return 0;
}

} /* namespace gpu */
