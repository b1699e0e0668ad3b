/* A proving key on the device (gpu.h's cuzk_gpu_key), shared by the code
 * that keeps it there (key.cu: upload, restage, stream, window tables) and
 * the code that proves with it (prove.cu). */
#ifndef CUZK_GPU_KEY_CUH
#define CUZK_GPU_KEY_CUH

#include "gpu/abc.cuh"
#include "gpu/msm.cuh"

/* the key's point arrays, in a setup's order */
enum { KEY_A, KEY_B1, KEY_B2, KEY_C, KEY_H, KEY_ARRAYS };
static_assert((int)KEY_A == (int)CUZK_SETUP_A && (int)KEY_B2 == (int)CUZK_SETUP_B2 &&
                  (int)KEY_H == (int)CUZK_SETUP_H && (int)KEY_ARRAYS == (int)CUZK_SETUP_ARRAYS,
              "a setup's arrays are the key's");
static_assert(PHASE_MSM_A + KEY_B1 == PHASE_MSM_B1 && PHASE_MSM_A + KEY_B2 == PHASE_MSM_B2 &&
                  PHASE_MSM_A + KEY_C == PHASE_MSM_C && PHASE_MSM_A + KEY_H == PHASE_MSM_H,
              "one MSM phase per key array, in the arrays' order");

struct cuzk_gpu_key {
    int device;
    cuzk_curve_id curve;
    uint32_t n_vars, n_public, domain_size;
    size_t count[KEY_ARRAYS], point_bytes[KEY_ARRAYS];
    /* resident: device copies of the points, or (tables) window tables of
     * them, all with the c and nwin of `table`. An array with many points
     * at infinity (a real key's A and B: wires absent from a matrix) keeps
     * only its kept[i] others, idx[i] (device) their indices; else idx[i]
     * is NULL and kept[i] = count[i]. same_set[i]: the first array with
     * the same indices (its MSM's digits serve array i too). C's device
     * array carries H's kept points after its own and H has none: one MSM
     * makes C' + H', the only use the finisher has for either. */
    void *pts[KEY_ARRAYS];
    size_t kept[KEY_ARRAYS];
    uint32_t *idx[KEY_ARRAYS];
    int same_set[KEY_ARRAYS];
    bool tables;
    gpu::msm_plan table;
    /* streamed: the key's own host arrays (host_points of each),
     * page-locked in place by us where `registered`, sent slice points at
     * a time */
    bool streamed;
    size_t slice;
    const void *host[KEY_ARRAYS];
    bool registered[KEY_ARRAYS];
    /* the A and B matrices, once given (row_start NULL until then) */
    gpu::abc_rows rows;
    /* 0: a zkey's key (snarkjs's quotient, cuzk_gpu_prove); else a key in
     * bellman's layout (key_bellman.cu, cuzk_gpu_prove_bellman), the
     * generator of its domain */
    uint64_t bellman_generator;
};

namespace gpu {

/* Points a streamed key sends slice by slice when none is given */
constexpr size_t STREAM_SLICE_DEFAULT = (size_t)1 << 22;

/* Points of array i a streamed key sends from host memory (host[i]): a
 * zkey's whole arrays, a bellman key's kept points (key_bellman.cu) */
size_t host_points(const cuzk_gpu_key *k, int i);

/* Page-locks a streamed key's host arrays in place for fast asynchronous
 * copies. Optional: when the driver refuses (memory limits, an array
 * sharing pages with another already locked) the copies still work from
 * pageable memory. key.cu. */
void lock_host_arrays(cuzk_gpu_key *k);

/* points in resident array i (see cuzk_gpu_key) */
size_t device_points(const cuzk_gpu_key *k, int i);

/* The plan of an MSM over resident array i: its table's, or G1's for that
 * many points (G2 follows it: A, B1 and B2 may share digits). */
msm_plan array_plan(cuzk_gpu *g, const cuzk_gpu_key *k, int i);

/* Where a long key operation tells its stages (a setup's progress hook);
 * fn NULL: nowhere. */
struct key_progress {
    void (*fn)(void *ctx, const char *stage) = nullptr;
    void *ctx = nullptr;
    void operator()(const char *stage) const
    {
        if (fn)
            fn(ctx, stage);
    }
};

/* *out <- a resident key of z whose points a setup left in device memory
 * (setup.cu): pts[CUZK_SETUP_A], [B1], [B2] as they are, [C] holding C's
 * points and then H's, [H] NULL; cudaMalloc'd, owned by the key from here
 * on (freed also on failure). Then made what an uploaded key is (points at
 * infinity dropped, window tables) where its tables fit, each table's
 * building told to progress (the longest part at 2^24). key.cu. */
int key_adopt(cuzk_gpu *g, const cuzk_zkey *z, void *pts[CUZK_SETUP_ARRAYS], const key_progress &progress,
              cuzk_gpu_key **out, cuzk_error *err);

} /* namespace gpu */

#endif
