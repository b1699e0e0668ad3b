/* The glue's second part, after fields.c in the same text (one unit): the
 * entry points the translation's wrappers and the host call. */
/* ---- entry points: the checks, then the native helper ---- */

/* inlined and unrolled for each entry's n: every helper call passes here,
 * so each test is one comparison where it can be. An element lies at
 * FR_LOW .. size - 40 (a - FR_LOW wraps above that when a is below it;
 * nothing is there when size < FR_LOW + 40: last < 0) or at FR_SHARED
 * (clear of the end when last >= 0). Two closer than 40 bytes have
 * a - b + 39 < 79 mod 2^32 (no wrap: both are below 2^32 - 40 by then). */
static inline __attribute__((always_inline)) int fr_elements(Z_circuit_instance_t *m, fr_ctx *c, int n, const u32 *a)
{
    int64_t last = (int64_t)m->w2c_memory.size - (FR_LOW + FR_BYTES);
    _Pragma("GCC unroll 3") for (int i = 0; i < n; i++) {
        if ((int64_t)(uint32_t)(a[i] - FR_LOW) > last && (a[i] != FR_SHARED || last < 0)) return 0;
        _Pragma("GCC unroll 2") for (int j = 0; j < i; j++)
            if (a[i] - a[j] + (FR_BYTES - 1) < 2 * FR_BYTES - 1 && a[i] != a[j]) return 0;
    }
    c->mem = m->w2c_memory.data;
    c->m = m;
    return 1;
}

/* Each entry inlined into the translation's wrapper that calls it: the
 * glue is compiled in one unit with the translation (wasm_build.c). The
 * plain declaration first keeps the definition external whether or not
 * the translation declares it (it does not when the helpers stay wasm). */
#define ENTRY __attribute__((always_inline)) inline
#define FR_ENTRY1(name, body)                                                 \
    int cuzk_glue_##name(Z_circuit_instance_t *m, u32 *out, u32 x);          \
    ENTRY int cuzk_glue_##name(Z_circuit_instance_t *m, u32 *out, u32 x)     \
    {                                                                         \
        fr_ctx c;                                                             \
        const u32 a[1] = {x};                                                 \
        if (!fr_elements(m, &c, 1, a)) return 0;                              \
        u8 *p = c.mem + x;                                                    \
        (void)out;                                                            \
        body;                                                                 \
        return 1;                                                             \
    }
#define FR_ENTRY2(name, body)                                                 \
    int cuzk_glue_##name(Z_circuit_instance_t *m, u32 *out, u32 x, u32 y);   \
    ENTRY int cuzk_glue_##name(Z_circuit_instance_t *m, u32 *out, u32 x, u32 y) \
    {                                                                         \
        fr_ctx c;                                                             \
        const u32 a[2] = {x, y};                                              \
        if (!fr_elements(m, &c, 2, a)) return 0;                              \
        u8 *p = c.mem + x, *q = c.mem + y;                                    \
        (void)out;                                                            \
        body;                                                                 \
        return 1;                                                             \
    }
#define FR_ENTRY3(name, body)                                                     \
    int cuzk_glue_##name(Z_circuit_instance_t *m, u32 *out, u32 x, u32 y, u32 z); \
    ENTRY int cuzk_glue_##name(Z_circuit_instance_t *m, u32 *out, u32 x, u32 y, u32 z) \
    {                                                                             \
        fr_ctx c;                                                                 \
        const u32 a[3] = {x, y, z};                                               \
        if (!fr_elements(m, &c, 3, a)) return 0;                                  \
        u8 *r = c.mem + x, *p = c.mem + y, *q = c.mem + z;                        \
        (void)out;                                                                \
        body;                                                                     \
        return 1;                                                                 \
    }

FR_ENTRY2(Fr_copy, copy_element(p, q))
FR_ENTRY1(Fr_toNormal, fr_to_normal(&c, p))
FR_ENTRY1(Fr_toMontgomery, fr_to_montgomery(&c, p))
FR_ENTRY1(Fr_toLongNormal, fr_to_long_normal(&c, p))
FR_ENTRY1(Fr_isNegative, *out = (u32)fr_is_negative(&c, p))
FR_ENTRY2(Fr_neg, fr_neg(&c, p, q))
FR_ENTRY1(Fr_getLsb32, *out = fr_get_lsb32(&c, p))
FR_ENTRY1(Fr_toInt, *out = fr_to_int(&c, p))
FR_ENTRY1(Fr_isTrue, *out = (u32)fr_is_true(p))
FR_ENTRY3(Fr_add, fr_add_sub_entry(&c, r, p, q, 0))
FR_ENTRY3(Fr_sub, fr_add_sub_entry(&c, r, p, q, 1))
FR_ENTRY3(Fr_mul, fr_mul(&c, r, p, q))
FR_ENTRY2(Fr_eqR, *out = (u32)fr_eq_r(&c, p, q))
FR_ENTRY2(Fr_gtR, *out = (u32)fr_gt_r(&c, p, q))
FR_ENTRY3(Fr_eq, store_bool(r, fr_eq_r(&c, p, q)))
FR_ENTRY3(Fr_neq, store_bool(r, !fr_eq_r(&c, p, q)))
FR_ENTRY3(Fr_gt, store_bool(r, fr_compare(&c, p, q) > 0))
FR_ENTRY3(Fr_geq, store_bool(r, fr_compare(&c, p, q) >= 0))
FR_ENTRY3(Fr_lt, store_bool(r, fr_compare(&c, p, q) < 0))
FR_ENTRY3(Fr_leq, store_bool(r, fr_compare(&c, p, q) <= 0))
FR_ENTRY3(Fr_mod, if (!fr_mod(&c, r, p, q)) return 0)
FR_ENTRY3(Fr_shr, if (!fr_shr(&c, r, p, q)) return 0)

/* Fr_copy of a list of elements into consecutive ones (wasm_copy_lists.h:
 * a folded run of circom's copies): every copy checked as Fr_copy's entry
 * checks it before the first is made, so that a list either runs here
 * whole, in order, or is declined whole (the helper then copies each
 * through w2c_Fr_copy). An element at the shared one is declined too. */
int cuzk_glue_Fr_copy_list(Z_circuit_instance_t *m, u32 dst, const u32 *src, u32 n)
{
    uint64_t size = m->w2c_memory.size;
    if (dst < FR_LOW || (uint64_t)dst + (uint64_t)n * FR_BYTES > size) return 0;
    for (u32 k = 0; k < n; k++) {
        u32 s = src[k], d = dst + k * FR_BYTES;
        if (s < FR_LOW || (uint64_t)s + FR_BYTES > size || (s != d && (s < d ? d - s : s - d) < FR_BYTES)) return 0;
    }
    u8 *mem = m->w2c_memory.data;
    for (u32 k = 0; k < n; k++) copy_element(mem + dst + k * FR_BYTES, mem + src[k]);
    return 1;
}

/* A message is read a character at a time until a 0; the host sees the
 * first 1023 (the rest is drained, and a runaway stops at 1 MiB). */
static void read_message(struct Z_runtime_instance_t *rt, char *buf, size_t cap)
{
    size_t n = 0;
    for (uint32_t c, k = 0; k < (1u << 20) && (c = Z_circuitZ_getMessageChar(&rt->module)) != 0; k++)
        if (n + 1 < cap) buf[n++] = (char)c;
    buf[n] = 0;
}

void Z_runtimeZ_exceptionHandler(struct Z_runtime_instance_t *rt, u32 code)
{
    rt->on_exception(rt->ctx, code);
    wasm_rt_trap(WASM_RT_TRAP_UNREACHABLE);
}

static void message(struct Z_runtime_instance_t *rt, int kind)
{
    char buf[1024];
    read_message(rt, buf, sizeof buf);
    rt->on_message(rt->ctx, kind, buf);
}
void Z_runtimeZ_printErrorMessage(struct Z_runtime_instance_t *rt) { message(rt, 0); }
void Z_runtimeZ_writeBufferMessage(struct Z_runtime_instance_t *rt) { message(rt, 1); }

void Z_runtimeZ_showSharedRWMemory(struct Z_runtime_instance_t *rt)
{
    uint32_t w[64], n = Z_circuitZ_getFieldNumLen32(&rt->module);
    n = n < 64 ? n : 64;
    for (uint32_t j = 0; j < n; j++) w[j] = Z_circuitZ_readSharedRWMemory(&rt->module, j);
    rt->on_value(rt->ctx, w, n);
}

/* Called by the translation every POLL_EVERY function calls and loop
 * turns (its prologue and its loops' back edges count down poll_in:
 * wasm_build.c): the host says whether to stop, and a stop ends the call
 * into the instance as a trap of its own code, so that a calculation that
 * never ends can be cancelled or timed out. */
#define POLL_EVERY ((uint32_t)WASM_GLUE_POLL_EVERY)
void cuzk_glue_poll(Z_circuit_instance_t *m)
{
    struct Z_runtime_instance_t *rt = m->Z_runtime_instance;
    rt->poll_in = POLL_EVERY;
    if (rt->should_stop && rt->should_stop(rt->ctx)) wasm_rt_trap((wasm_rt_trap_t)WASM_GLUE_TRAP_STOPPED);
}

/* Runs BODY under the runtime's trap catcher: 0, or the trap's code. A
 * call into the instance starts at depth 0 (a trap left it anywhere). */
#define GUARDED(...) do { rt->depth = 0; rt->poll_in = POLL_EVERY; int trap_ = wasm_rt_impl_try(); if (trap_) return trap_; __VA_ARGS__; return 0; } while (0)

API int cuzk_glue_abi(void) { return WASM_GLUE_ABI; }
API const char *cuzk_glue_trap_name(int code)
{
    return code == WASM_GLUE_TRAP_STOPPED ? "stopped by its host" : wasm_rt_strerror((wasm_rt_trap_t)code);
}

API int cuzk_glue_prime(struct Z_runtime_instance_t *rt, uint32_t *words, uint32_t n);
API void cuzk_glue_free(struct Z_runtime_instance_t *rt);

/* The runtime and the module start once per object, whichever thread
 * makes the first instance; their function types go when the object is
 * unloaded. Everything else an instance runs is its own or thread-local
 * (wasm_runtime.h). */
static pthread_once_t module_once = PTHREAD_ONCE_INIT;
static int module_ready;
static void module_start(void)
{
    wasm_rt_init();
    Z_circuit_init_module();
#if defined(__x86_64__)
    pick_rounds();
#endif
    module_ready = 1;
}
__attribute__((destructor)) static void unload(void)
{
    if (module_ready) wasm_rt_free();
}

/* The memory's pages made present by a thread of its own, ahead of the
 * circuit, which writes its memory from the bottom up: each page's first
 * touch was a fault on the calculating thread (21.5 K a SHA-256(4096)
 * witness, a fifth of its time), and MADV_POPULATE_WRITE makes a page in
 * two thirds of a fault's time, on the other core. The contents stay as
 * they are (a page made present is the zero page it would have been).
 * In 2 MiB steps, so that a stop waits for one step at most. The pages
 * stay 4 KiB: advised to huge pages, a fault could wait for the kernel to
 * compact memory for a 2 MiB page (fullprove at 4096 bits: 0.3-0.4 s
 * more in half the runs). */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; an older kernel refuses it and the thread ends */
#endif
#define FILL_STEP ((uintptr_t)2 << 20)
static void *fill_pages(void *arg)
{
    struct Z_runtime_instance_t *rt = arg;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), data = (uintptr_t)rt->module.w2c_memory.data;
    uintptr_t at = (data + page - 1) & ~(page - 1), end = (data + rt->module.w2c_memory.size) & ~(page - 1);
    for (; at < end && !atomic_load_explicit(&rt->stop_filling, memory_order_relaxed); at += FILL_STEP)
        if (madvise((void *)at, end - at < FILL_STEP ? end - at : FILL_STEP, MADV_POPULATE_WRITE)) break;
    return NULL;
}
/* a second thread only where a second CPU can run it */
static void fill_start(struct Z_runtime_instance_t *rt)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1) rt->filling = !pthread_create(&rt->filler, NULL, fill_pages, rt);
}
static void fill_stop(struct Z_runtime_instance_t *rt)
{
    if (!rt->filling) return;
    atomic_store_explicit(&rt->stop_filling, 1, memory_order_relaxed);
    pthread_join(rt->filler, NULL);
    rt->filling = 0;
}
/* Called by the runtime before the memory grows (wasm_runtime.c's row):
 * realloc may move it, and the thread must not go on at the old address */
void cuzk_glue_memory_moves(wasm_rt_memory_t *memory)
{
    fill_stop((struct Z_runtime_instance_t *)((char *)memory - offsetof(struct Z_runtime_instance_t, module) -
                                             offsetof(Z_circuit_instance_t, w2c_memory)));
}

static int start(struct Z_runtime_instance_t *rt)
{
    GUARDED(Z_circuit_instantiate(&rt->module, rt));
}

API void *cuzk_glue_new(void *ctx, exception_fn *on_exception, message_fn *on_message, value_fn *on_value,
                        stop_fn *should_stop)
{
    pthread_once(&module_once, module_start);
    struct Z_runtime_instance_t *rt = calloc(1, sizeof *rt);
    if (!rt) return NULL;
    rt->ctx = ctx;
    rt->should_stop = should_stop;
    rt->on_exception = on_exception;
    rt->on_message = on_message;
    rt->on_value = on_value;
    if (start(rt)) {
        free(rt);
        return NULL;
    }
    fill_start(rt);
    uint32_t w[8];
    if (cuzk_glue_prime(rt, w, 8)) {
        cuzk_glue_free(rt);
        return NULL;
    }
    for (int j = 0; j < 4; j++) rt->q[j] = w[2 * j] | (uint64_t)w[2 * j + 1] << 32;
    /* Newton: each step doubles the low bits of 1/q that are right */
    uint64_t inv = 1;
    for (int k = 0; k < 6; k++) inv *= 2 - rt->q[0] * inv;
    rt->np = 0 - inv;
    return rt;
}

API void cuzk_glue_free(struct Z_runtime_instance_t *rt)
{
    if (!rt) return;
    fill_stop(rt);
    Z_circuit_free(&rt->module);
    free(rt);
}

API int cuzk_glue_info(struct Z_runtime_instance_t *rt, uint32_t out[WASM_GLUE_INFO_N])
{
    Z_circuit_instance_t *m = &rt->module;
    GUARDED(out[0] = Z_circuitZ_getVersion(m); out[1] = Z_circuitZ_getMinorVersion(m);
            out[2] = Z_circuitZ_getPatchVersion(m); out[3] = Z_circuitZ_getFieldNumLen32(m);
            out[4] = Z_circuitZ_getWitnessSize(m); out[5] = Z_circuitZ_getInputSize(m));
}

API int cuzk_glue_prime(struct Z_runtime_instance_t *rt, uint32_t *words, uint32_t n)
{
    GUARDED(Z_circuitZ_getRawPrime(&rt->module);
            for (uint32_t j = 0; j < n; j++) words[j] = Z_circuitZ_readSharedRWMemory(&rt->module, j));
}

API int cuzk_glue_init(struct Z_runtime_instance_t *rt, uint32_t sanity_check)
{
    GUARDED(Z_circuitZ_init(&rt->module, sanity_check));
}

API int cuzk_glue_input_size(struct Z_runtime_instance_t *rt, uint32_t hi, uint32_t lo, int32_t *size)
{
    GUARDED(*size = (int32_t)Z_circuitZ_getInputSignalSize(&rt->module, hi, lo));
}

API int cuzk_glue_set_input(struct Z_runtime_instance_t *rt, uint32_t hi, uint32_t lo, uint32_t pos,
                            const uint32_t *words, uint32_t n)
{
    GUARDED(for (uint32_t j = 0; j < n; j++) Z_circuitZ_writeSharedRWMemory(&rt->module, j, words[j]);
            Z_circuitZ_setInputSignal(&rt->module, hi, lo, pos));
}

/* Each value read straight from the shared memory's words (the shared
 * element's value, as readSharedRWMemory reads them: a call each, a
 * sixth of the witness's extraction), the bounds checked once, as its
 * loads would trap. */
API int cuzk_glue_witness(struct Z_runtime_instance_t *rt, uint32_t first, uint32_t count, uint32_t n,
                          uint32_t *out)
{
    Z_circuit_instance_t *m = &rt->module;
    GUARDED(if (FR_SHARED + 8 + 4 * (uint64_t)n > m->w2c_memory.size) wasm_rt_trap(WASM_RT_TRAP_OOB);
            for (uint32_t i = 0; i < count; i++) {
                Z_circuitZ_getWitness(m, first + i);
                memcpy(out + (size_t)i * n, m->w2c_memory.data + FR_SHARED + 8, 4 * (size_t)n);
            });
}
