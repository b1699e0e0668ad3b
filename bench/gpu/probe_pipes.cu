/* build/gpu-probe-pipes: raw issue rates of the instructions a field
 * product is made of (issue 50), per SM per clock. Not part of the library.
 *
 *   build/gpu-probe-pipes [--iters N]
 *
 * Each kernel runs, in every thread, 4 independent chains of each chosen
 * instruction (inline PTX, one instruction each, checked in the SASS with
 * bench/gpu/sass_count.py):
 *   IMAD       mad.lo.u32 x, x, b, c          32-bit multiply-add
 *   IMAD.WIDE  {h, l} += h b                  32 x 32 + 64 -> 64 bits, the
 *              mad.lo.cc + madc.hi pair that today's product (ff.cuh) is
 *              made of: one IMAD.WIDE.U32 with a 64-bit addend (ptxas
 *              splits a plain mad.wide.u32 into IMAD.WIDE.U32 without
 *              addend + IADD3 + IADD3.X, so that form is not used)
 *   WIDE0      {h, l} = l h                   IMAD.WIDE.U32 without addend
 *   DFMA       fma.rn.f64 x, x, b, c          FP64 fused multiply-add
 *   LOP3       lop3.b32 x, x, b, c, 0x96      a 3-input logic op (ALU pipe)
 * alone and in pairs, to see which share a pipe (the pair's rates add up to
 * one pipe's) and which add up (each at its own rate). One launch fills
 * every SM once. Rates two ways: per SM per clock from clock64 (each
 * block's cycles between barriers, with the blocks an SM holds at once),
 * and G instructions/s from CUDA events, also divided by the SMs and the
 * peak clock the driver reports (the two differ when the clock does). The
 * chains' results are stored, so nothing is optimised away; no result is
 * checked (the values are meaningless). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_host.cuh"

enum pipe_op : unsigned { OP_IMAD = 1, OP_WIDE = 2, OP_DFMA = 4, OP_LOP3 = 8, OP_WIDE0 = 16 };
static const int CHAINS = 4, UNROLL = 8;

template <unsigned OPS>
__global__ void __launch_bounds__(256) pipes(unsigned iters, uint32_t b, uint32_t c, double db, double dc,
                                             uint64_t *sink, long long *cycles)
{
    uint32_t xi[CHAINS], xl[CHAINS], wl[CHAINS], wh[CHAINS];
    uint64_t xw[CHAINS];
    double xd[CHAINS];
#pragma unroll
    for (int k = 0; k < CHAINS; k++) {
        xi[k] = xl[k] = threadIdx.x + k;
        wl[k] = threadIdx.x * 3 + k;
        wh[k] = threadIdx.x * 5 + k;
        xw[k] = (uint64_t)(threadIdx.x + 1) << 32 | (threadIdx.x + k + 7);
        xd[k] = 1.0 + threadIdx.x + k;
    }
    __syncthreads();
    const long long start = clock64();
#pragma unroll 1
    for (unsigned it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
#pragma unroll
            for (int k = 0; k < CHAINS; k++) {
                if (OPS & OP_IMAD)
                    asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(xi[k]) : "r"(b), "r"(c));
                if (OPS & OP_WIDE)
                    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0; madc.hi.u32 %1, %1, %2, %1;"
                                 : "+r"(wl[k]), "+r"(wh[k])
                                 : "r"(b));
                if (OPS & OP_WIDE0)
                    asm volatile("{.reg .u32 l, h; mov.b64 {l, h}, %0; mul.wide.u32 %0, l, h;}" : "+l"(xw[k]));
                if (OPS & OP_DFMA)
                    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(xd[k]) : "d"(db), "d"(dc));
                if (OPS & OP_LOP3)
                    asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(xl[k]) : "r"(b), "r"(c));
            }
        }
    }
    __syncthreads();
    const long long end = clock64();
    if (threadIdx.x == 0)
        cycles[blockIdx.x] = end - start;
    uint64_t s = 0;
#pragma unroll
    for (int k = 0; k < CHAINS; k++)
        s += xi[k] + xl[k] + wl[k] + wh[k] + xw[k] + (uint64_t)__double_as_longlong(xd[k]);
    sink[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static const char *op_names(unsigned ops)
{
    static char buf[64];
    buf[0] = 0;
    const char *names[] = {"IMAD", "IMAD.WIDE", "DFMA", "LOP3", "WIDE0"};
    for (int i = 0; i < 5; i++)
        if (ops & (1u << i))
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " + " : "", names[i]);
    return buf;
}

template <unsigned OPS> static void measure(const probe_device &d, unsigned iters, uint64_t *sink, long long *cycles)
{
    const probe_launch l = probe_launch_full(d, pipes<OPS>, 256);
    const bench_timing tm = bench_time(0, 3, [&] {
        pipes<OPS><<<l.grid, l.block>>>(iters, 0x9e3779b9u, 12345u, 1.0000001, 1e-9, sink, cycles);
    });
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    std::vector<long long> cyc(l.grid);
    BENCH_CHECK(cudaMemcpy(cyc.data(), cycles, l.grid * sizeof(long long), cudaMemcpyDeviceToHost));
    double mean_cycles = 0;
    for (long long x : cyc)
        mean_cycles += (double)x / l.grid;
    /* instructions of each kind, per thread */
    const double per_thread = (double)iters * UNROLL * CHAINS;
    const double per_sm_clock = per_thread * l.block * l.per_sm / mean_cycles;
    const double per_s = per_thread * l.threads() / (tm.median_ms * 1e-3);
    const int kinds = __builtin_popcount(OPS);
    printf("| %s | %u x %u | %.1f | %.1f | %.1f | %.2f | %.1f |\n", op_names(OPS), l.per_sm, l.block, per_sm_clock,
           kinds * per_sm_clock, mean_cycles / (iters * UNROLL), per_s / 1e9, per_s / (d.sms * d.clock_hz));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    unsigned iters = 4096;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--iters"))
            iters = (unsigned)atoi(argv[i + 1]);
        else {
            fprintf(stderr, "gpu-probe-pipes: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (iters < 1) {
        fprintf(stderr, "gpu-probe-pipes: --iters must be positive\n");
        return 2;
    }
    const probe_device d = probe_device_get();
    uint64_t *sink;
    long long *cycles;
    const size_t max_threads = (size_t)d.sms * 2048;
    BENCH_CHECK(cudaMalloc(&sink, max_threads * sizeof *sink));
    BENCH_CHECK(cudaMalloc(&cycles, max_threads * sizeof *cycles));
    printf("%d chains of each instruction a thread, %u x %d steps; rates of EACH kind listed (a pair: per kind)\n\n",
           CHAINS, iters, UNROLL);
    printf("| instructions | blocks an SM x threads | each kind per SM per clock (clock64) | all kinds | "
           "cycles a step | each kind G/s (events) | each kind per SM per peak clock (events) |\n");
    printf("|---|---|---|---|---|---|---|\n");
    measure<OP_IMAD>(d, iters, sink, cycles);
    measure<OP_WIDE>(d, iters, sink, cycles);
    measure<OP_DFMA>(d, iters, sink, cycles);
    measure<OP_LOP3>(d, iters, sink, cycles);
    measure<OP_WIDE0>(d, iters, sink, cycles);
    measure<OP_IMAD | OP_WIDE>(d, iters, sink, cycles);
    measure<OP_IMAD | OP_DFMA>(d, iters, sink, cycles);
    measure<OP_WIDE | OP_DFMA>(d, iters, sink, cycles);
    measure<OP_IMAD | OP_LOP3>(d, iters, sink, cycles);
    measure<OP_WIDE | OP_LOP3>(d, iters, sink, cycles);
    measure<OP_DFMA | OP_LOP3>(d, iters, sink, cycles);
    measure<OP_WIDE | OP_DFMA | OP_LOP3>(d, iters, sink, cycles);
    measure<OP_IMAD | OP_DFMA | OP_LOP3>(d, iters, sink, cycles);
    BENCH_CHECK(cudaFree(sink));
    BENCH_CHECK(cudaFree(cycles));
    return 0;
}
