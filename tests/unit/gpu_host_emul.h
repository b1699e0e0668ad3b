/* What the CUDA compiler would provide, for the device code's templates
 * (src/gpu/ff.cuh and what builds on it) compiled as plain C++ by the host
 * tests: the qualifiers, the vector load, and the PTX carry chains as
 * functions over an emulated carry flag with the PTX semantics (add.cc
 * sets CF to the carry out, sub.cc to the borrow, the c forms add or
 * subtract it). Include it before any src/gpu header. The GPU
 * microbenchmarks' checks (bench/gpu/probe_emulate.h) build on it with
 * threads, shuffles and barriers. */
#ifndef CUZK_TESTS_GPU_HOST_EMUL_H
#define CUZK_TESTS_GPU_HOST_EMUL_H

#include <stdint.h>

#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
/* may_alias: the device code moves any element through uint4 pointers
 * (ff.cuh's load and store), which C++'s aliasing rules would let the host
 * compiler reorder or drop */
struct __attribute__((may_alias)) uint4 {
    uint32_t x, y, z, w;
};
static inline uint4 __ldg(const uint4 *p) { return *p; }
/* the high word of (hi:lo) << s */
static inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t s)
{
    s &= 31;
    return s ? (hi << s) | (lo >> (32 - s)) : hi;
}

namespace gpu {
namespace ptx {
static thread_local uint32_t carry; /* the PTX carry flag, one per emulated GPU thread */
static inline uint32_t chain(uint64_t r, bool set)
{
    if (set)
        carry = (uint32_t)(r >> 32) & 1;
    return (uint32_t)r;
}
static inline uint32_t add_cc(uint32_t a, uint32_t b) { return chain((uint64_t)a + b, true); }
static inline uint32_t addc_cc(uint32_t a, uint32_t b) { return chain((uint64_t)a + b + carry, true); }
static inline uint32_t addc(uint32_t a, uint32_t b) { return chain((uint64_t)a + b + carry, false); }
static inline uint32_t sub_cc(uint32_t a, uint32_t b) { return chain((uint64_t)a - b, true); }
static inline uint32_t subc_cc(uint32_t a, uint32_t b) { return chain((uint64_t)a - b - carry, true); }
static inline uint32_t subc(uint32_t a, uint32_t b) { return chain((uint64_t)a - b - carry, false); }
static inline uint32_t lo(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b); }
static inline uint32_t hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
static inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return add_cc(lo(a, b), c); }
static inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return addc_cc(lo(a, b), c); }
static inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return add_cc(hi(a, b), c); }
static inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return addc_cc(hi(a, b), c); }
} /* namespace ptx */
} /* namespace gpu */

#define FF_PTX_EMULATED
#include "gpu/ff.cuh"

/* xorshift64*: the host tests' reproducible operands, without the C++
 * runtime */
static inline uint64_t xorshift64star(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545f4914f6cdd1dull;
}

#endif
