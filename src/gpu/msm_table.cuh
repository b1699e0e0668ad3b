/* Window tables: an MSM over bases that stay fixed across many MSMs (a
 * resident proving key) can precompute, per base P_i, the multiples
 * 2^(cw) P_i for every digit window w. Row w of the table holds them (row 0
 * the bases themselves), so
 *   sum_i k_i P_i = sum_i sum_w d_iw (2^(cw) P_i)
 * is one bucket sum over nwin n table points: one set of 2^(c-1) buckets
 * instead of nwin, one running-sum reduction, no doublings afterwards.
 * That lets the window grow (c = 22..24 instead of 20) and saves a window's
 * worth of additions; the price is nwin times the memory (msm.cuh, plan
 * msm_plan.table_rows). The technique is the one PERF.md lists for the fastest GPU
 * MSMs; this code is ours.
 *
 * Building: one thread per base doubles a Jacobian copy c times per row
 * (doublings are nearly all of the work: ~255 a base) and turns each row's
 * point affine with one inversion per base (Montgomery's trick over its
 * rows), through XYZZ (X, Y, Z^2, Z^3): the ZZ, ZZZ and prefix products
 * wait in scratch memory, a slice of bases at a time. Affine from XYZZ: y = Y / ZZZ and,
 * as ZZ^3 = ZZZ^2, 1 / ZZ = (ZZ / ZZZ)^2. */
#ifndef CUZK_GPU_MSM_TABLE_CUH
#define CUZK_GPU_MSM_TABLE_CUH

#include "gpu/ec.cuh"
#include "gpu/gpu_internal.cuh"

/* MSM_TABLE_SCRATCH  bytes of scratch per slice of bases while building */
#ifndef MSM_TABLE_SCRATCH
#define MSM_TABLE_SCRATCH (512ull << 20)
#endif

namespace gpu {

static constexpr unsigned MSM_TABLE_THREADS = 128;

/* Rows 1..nwin-1 of the table for bases [i0, i0 + count) (row 0 holds the
 * bases). zz, zzz, pre: scratch of (nwin - 1) count elements each, indexed
 * (w - 1) count + t. A point that doubles to infinity (only a point of
 * order 2 could) stays infinity: its factor in the product is 1. */
template <class F>
__global__ void __launch_bounds__(MSM_TABLE_THREADS)
    msm_table_kernel(affine<F> *table, size_t rows, size_t i0, size_t count, unsigned c, unsigned nwin, F *zz_s,
                     F *zzz_s, F *pre_s)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count)
        return;
    const size_t i = i0 + t;
    const affine<F> p = load(table + i);
    if (p.is_inf()) {
        const affine<F> inf = {F::zero(), F::zero()};
        for (unsigned w = 1; w < nwin; w++)
            store(table + w * rows + i, inf);
        return;
    }
    jacobian<F> acc = {p.x, p.y, F::one()};
    F pre = F::one();
    auto pt = [&](unsigned k) { return (size_t)(k + 1) * rows + i; }; /* row w = k + 1 */
    auto sc = [&](unsigned k) { return (size_t)k * count + t; };
    for (unsigned k = 0; k + 1 < nwin; k++) {
        for (unsigned b = 0; b < c; b++)
            acc = jacobian_dbl(acc);
        const F zz = acc.z.sqr(); /* Jacobian (X, Y, Z) is XYZZ (X, Y, Z^2, Z^3) */
        xyzz_batch_record(table + pt(k), zz_s + sc(k), zzz_s + sc(k), pre_s + sc(k), xyzz<F>{acc.x, acc.y, zz, zz * acc.z},
                          pre);
    }
    xyzz_batch_affine(table, pt, zz_s, zzz_s, pre_s, sc, nwin - 1, pre);
}

/* Fills rows 1..nwin-1 of `table` (nwin rows of `rows` points over F; row
 * 0 holds the bases) for c-bit windows on g's stream, and waits for it. */
template <class F>
static int msm_table_build(cuzk_gpu *g, affine<F> *table, size_t rows, unsigned c, unsigned nwin, cuzk_error *err)
{
    if (nwin < 2 || rows == 0)
        return 0;
    const size_t per_base = 3 * (size_t)(nwin - 1) * sizeof(F);
    size_t slice = MSM_TABLE_SCRATCH / per_base;
    if (slice < MSM_TABLE_THREADS)
        slice = MSM_TABLE_THREADS;
    if (slice > rows)
        slice = rows;
    dev_buf<F> zz, zzz, pre;
    GPU_TRY(zz.alloc(g, (nwin - 1) * slice, err));
    GPU_TRY(zzz.alloc(g, (nwin - 1) * slice, err));
    GPU_TRY(pre.alloc(g, (nwin - 1) * slice, err));
    for (size_t i0 = 0; i0 < rows; i0 += slice) {
        const size_t count = rows - i0 < slice ? rows - i0 : slice;
        msm_table_kernel<F><<<grid_for(count, MSM_TABLE_THREADS), MSM_TABLE_THREADS, 0, g->stream>>>(
            table, rows, i0, count, c, nwin, zz, zzz, pre);
        GPU_LAUNCHED();
    }
    GPU_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

} /* namespace gpu */

#endif
