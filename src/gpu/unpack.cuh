/* A packed witness (src/synthesis/wtns_pack.h) back to its values on the
 * device, byte for byte what was packed. */
#ifndef CUZK_GPU_UNPACK_CUH
#define CUZK_GPU_UNPACK_CUH

#include "gpu/gpu_internal.cuh" /* gpu.h: synthesis/wtns_pack.h */

namespace gpu {

/* values (device, p->n x 32 bytes) <- p (host; pinned for full copy
 * speed), on g's stream: the packed bytes cross once, then one thread a
 * value writes it. */
int wtns_unpack(cuzk_gpu *g, const cuzk_wtns_packed *p, void *values, cuzk_error *err);

} /* namespace gpu */

#endif
