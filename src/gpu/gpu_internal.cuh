/* What the CUDA translation units of the backend share behind gpu.h: the
 * context, error checking, and device buffers.
 *
 * Error convention: a function that can fail returns 0 or a CUZK_ERR_*
 * code and has `cuzk_error *err` in scope; GPU_CHECK(call) returns from it
 * with the CUDA error's name, the call's text, file and line when the call
 * fails, GPU_LAUNCHED() does the same for the launch just made, GPU_TRY(rc)
 * passes a nonzero code up. Buffers are released by destructors on every
 * path out. */
#ifndef CUZK_GPU_GPU_INTERNAL_CUH
#define CUZK_GPU_GPU_INTERNAL_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

extern "C" {
#include "util/err.h"
}
#include "gpu/gpu_bench.h" /* and gpu.h */

#define GPU_PROF_MARKS 16

/* The phases of one proof's device part (prove.cu), each ending at an
 * event on the context's stream, each marked once a proof: PHASE_START
 * first, PHASE_MSM_H last, the MSMs in the order they run. A phase lasts
 * from the mark before it. PHASE_MSM_A + KEY_X is the MSM of key array X
 * (key.cuh). */
enum gpu_phase {
    PHASE_START,
    PHASE_H2D,
    PHASE_ABC,
    PHASE_NTT,
    PHASE_MSM_A,
    PHASE_MSM_B1,
    PHASE_MSM_B2,
    PHASE_MSM_C,
    PHASE_MSM_H,
    PHASES
};

/* Transient buffers come from the device's memory pool, shared by its
 * contexts (stream ordered, kept between calls: no cudaMalloc on the hot
 * path; given back when a key's upload needs it); twiddle
 * tables and cuzk_gpu_alloc memory are plain cudaMalloc. */
struct cuzk_gpu {
    int device;
    int sm_count;
    cudaStream_t stream;
    /* copies that overlap the stream's kernels: the slices of a streamed
     * key (prove.cu), each signalling its buffer ready */
    cudaStream_t copy_stream;
    cudaEvent_t slice_ready[2];
    /* a resident key's proof: C' + H''s digits (or H''s alone, when C' + H'
     * is sliced) sorted on copy_stream while the stream sums other MSMs
     * (prove.cu, SIDE_*) */
    cudaEvent_t side_ev[5];
    cudaMemPool_t pool;
    /* NTT twiddles per curve (see ntt.cu; the inverse transform reads the
     * same table): 2^lg entries, each a twiddle with its Shoup quotient */
    struct {
        void *ptr;
        unsigned lg;
    } tw[2];
    unsigned msm_c; /* MSM window bits, 0: chosen by the cost model */
    int msm_lanes;  /* cuzk_gpu_set_msm_lanes: CUZK_GPU_MSM_LANES_AUTO (0), _XYZZ or forced */
    bool no_key_tables; /* cuzk_gpu_set_key_tables(g, 0) */
    unsigned ch_slices; /* cuzk_gpu_set_c_plus_h: C' + H''s slices, 0: as memory says */
    bool no_h_aside;    /* cuzk_gpu_set_c_plus_h(g, _, 0) */
    /* phase boundaries of the last cuzk_gpu_prove (prove.cu): phase_ev[i]
     * ends phase i; phase_order[0 .. phases_run) are the phases as they ran */
    cudaEvent_t phase_ev[PHASES];
    int phase_order[PHASES];
    int phases_run;
    /* Optional step timing of the last MSM (the benchmark turns it on):
     * events recorded on the stream at named points. */
    struct {
        int on, n;
        const char *name[GPU_PROF_MARKS];
        cudaEvent_t ev[GPU_PROF_MARKS];
        char plan[96]; /* how the last MSM's first bucket pass ran */
    } prof;
};

namespace gpu {

/* Fills err for CUDA error e raised by `expr` at file:line; returns
 * CUZK_ERR_NOMEM for allocation failures, else CUZK_GPU_ERR_DEVICE. */
int cuda_fail(cuzk_error *err, cudaError_t e, const char *expr, const char *file, int line);

/* dst (device) <- bytes from src (host memory, pageable or not), landed
 * before it returns: a pageable cudaMemcpy may return before its DMA
 * lands, and the kernels run on non-blocking streams, so it waits for the
 * legacy stream's copies. */
int copy_to_device(void *dst, const void *src, size_t bytes, cuzk_error *err);

/* x[i] <- x[i] R^-1 (n scalars of curve's Fr on the device), on g's
 * stream: Montgomery scalars (a setup's, a key's coefficients) to normal
 * form. gpu.cu. */
int scalars_to_normal(cuzk_gpu *g, cuzk_curve_id curve, void *x, size_t n, cuzk_error *err);

/* Bellman's quotient (groth16/bellman.h; ntt.cu), queued on g's stream:
 * v[0..2] hold a, b, c's evaluations on the domain of n points whose root
 * comes from `generator` (n each, natural order, Montgomery), v[3] is
 * scratch of n; on return v[0] holds the n coefficients of (a b - c) / Z
 * in normal form (the last is 0), found on the coset generator<w>; the
 * other buffers are overwritten. */
int bellman_h(cuzk_gpu *g, cuzk_curve_id curve, void *const v[4], size_t n, uint64_t generator, cuzk_error *err);

/* Where bellman_h_lean finds a, b, c: fn(ctx, i, dst, err) queues array i
 * (0: a, 1: b, 2: c; n evaluations, natural order, Montgomery) into dst on
 * g's stream. */
struct bellman_loader {
    int (*fn)(void *ctx, int i, void *dst, cuzk_error *err);
    void *ctx;
};

/* bellman_h in three buffers of n instead of four, each of a, b, c loaded
 * when its turn comes (a key too large for the card leaves little room
 * beside a proof): the same h, in v[0]; v[1], v[2] overwritten. */
int bellman_h_lean(cuzk_gpu *g, cuzk_curve_id curve, void *const v[3], size_t n, uint64_t generator,
                   const bellman_loader &load, cuzk_error *err);

/* Device memory a call may still take: free memory, and what g's pool
 * holds unused (0 when unknown). gpu.cu. */
size_t memory_left(cuzk_gpu *g);

} /* namespace gpu */

#define GPU_CHECK(expr)                                                                        \
    do {                                                                                       \
        cudaError_t gpu_e_ = (expr);                                                           \
        if (gpu_e_ != cudaSuccess)                                                             \
            return gpu::cuda_fail(err, gpu_e_, #expr, __FILE__, __LINE__);                     \
    } while (0)

#define GPU_LAUNCHED() GPU_CHECK(cudaGetLastError())

#define GPU_TRY(expr)                                                                          \
    do {                                                                                       \
        int gpu_rc_ = (expr);                                                                  \
        if (gpu_rc_)                                                                           \
            return gpu_rc_;                                                                    \
    } while (0)

namespace gpu {

/* The error of a failed pool allocation of `bytes`: CUZK_ERR_NOMEM with
 * the size and what the device and the pool hold, for anything out of
 * memory; else the CUDA error. gpu.cu. */
int pool_fail(cuzk_gpu *g, size_t bytes, cuzk_error *err);

/* count elements of T in g's pool, freed (stream ordered) on destruction */
template <class T> class dev_buf {
  public:
    dev_buf() = default;
    dev_buf(const dev_buf &) = delete;
    dev_buf &operator=(const dev_buf &) = delete;
    ~dev_buf() { release(); }

    /* ordered on stream s (default: g's stream), freed on it too */
    int alloc(cuzk_gpu *g, size_t count, cuzk_error *err, cudaStream_t s = nullptr)
    {
        release();
        void *p = nullptr;
        s = s ? s : g->stream;
        const size_t bytes = (count ? count : 1) * sizeof(T);
        if (cudaMallocFromPoolAsync(&p, bytes, g->pool, s) != cudaSuccess)
            return pool_fail(g, bytes, err);
        p_ = static_cast<T *>(p);
        stream_ = s;
        return 0;
    }
    void release()
    {
        if (p_)
            cudaFreeAsync(p_, stream_);
        p_ = nullptr;
    }
    T *get() const { return p_; }
    operator T *() const { return p_; }

  private:
    T *p_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

/* The context a call runs in: the caller's, made current on this thread, or
 * (g == NULL) a temporary one on device 0, closed on destruction. */
class ctx_scope {
  public:
    ctx_scope() = default;
    ctx_scope(const ctx_scope &) = delete;
    ctx_scope &operator=(const ctx_scope &) = delete;
    ~ctx_scope()
    {
        if (owned_)
            cuzk_gpu_close(g_);
    }
    int enter(cuzk_gpu *given, cuzk_error *err)
    {
        if (!given) {
            GPU_TRY(cuzk_gpu_open(&g_, 0, err));
            owned_ = true;
            return 0;
        }
        g_ = given;
        GPU_CHECK(cudaSetDevice(g_->device));
        return 0;
    }
    cuzk_gpu *get() const { return g_; }

  private:
    cuzk_gpu *g_ = nullptr;
    bool owned_ = false;
};

/* Records a profiling event named `name` when g->prof.on (names are static
 * strings); events are created on first use and kept until the context
 * closes. */
static inline int prof_mark(cuzk_gpu *g, const char *name, cuzk_error *err)
{
    if (!g->prof.on || g->prof.n >= GPU_PROF_MARKS)
        return 0;
    const int i = g->prof.n;
    if (!g->prof.ev[i])
        GPU_CHECK(cudaEventCreate(&g->prof.ev[i]));
    GPU_CHECK(cudaEventRecord(g->prof.ev[i], g->stream));
    g->prof.name[i] = name;
    g->prof.n = i + 1;
    return 0;
}

/* blocks of `threads` covering `count` items */
static inline unsigned grid_for(size_t count, unsigned threads)
{
    return (unsigned)((count + threads - 1) / threads);
}

} /* namespace gpu */

#endif
