/* One BLS12-381 Fp product of each form per kernel, compiled only to count
 * its instructions (bench/gpu/sass_count.py; never run): the operands come
 * from memory in the form's own representation, so a kernel's arithmetic is
 * the product alone. A kernel's code holds the out-of-line functions it
 * calls (today's product, square, a b - c d), once each: xyzz_add's count
 * less those of call_today, sqr_today and mul_sub_today is what the MSM's
 * mixed addition adds around its calls (xyzz_add_affine's loop body).
 *
 *   nvcc -cubin -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 \
 *       -Iinclude -Isrc bench/gpu/probe_sass.cu -o build/probe_sass.cubin
 *   python3 bench/gpu/sass_count.py build/probe_sass.cubin */
#include "gpu/ec.cuh"
#include "probe_fp28.cuh"
#include "probe_fp52.cuh"

using F = gpu::bls12_381_fp_t;

__global__ void call_today(const F *a, const F *b, F *r) { r[threadIdx.x] = a[threadIdx.x] * b[threadIdx.x]; }
__global__ void inline_today(const F *a, const F *b, F *r)
{
    r[threadIdx.x] = F::mul_inline(a[threadIdx.x], b[threadIdx.x]);
}
__global__ void sqr_today(const F *a, F *r) { r[threadIdx.x] = a[threadIdx.x].sqr(); }
__global__ void wide28(const probe::fp28 *a, const probe::fp28 *b, probe::fp28 *r)
{
    r[threadIdx.x] = probe::fp28_mul(a[threadIdx.x], b[threadIdx.x]);
}
__global__ void fp52(const probe::fp52 *a, const probe::fp52 *b, probe::fp52 *r)
{
    r[threadIdx.x] = probe::fp52_mul(a[threadIdx.x], b[threadIdx.x]);
}
__global__ void mul_sub_today(const F *a, F *r)
{
    r[threadIdx.x] = F::mul_sub(a[threadIdx.x], a[threadIdx.x + 1], a[threadIdx.x + 2], a[threadIdx.x + 3]);
}
__global__ void xyzz_add(gpu::xyzz<F> *acc, const gpu::affine<F> *q)
{
    gpu::xyzz<F> a = acc[threadIdx.x];
    gpu::xyzz_add_affine(a, q[threadIdx.x]);
    acc[threadIdx.x] = a;
}
