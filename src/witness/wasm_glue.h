/* The glue compiled into each circuit's shared object, beside wasm2c's
 * translation of the circuit (module name "circuit") and wabt's runtime
 * (wasm-rt-impl.c): it implements circom's imports (runtime.exceptionHandler,
 * printErrorMessage, writeBufferMessage, showSharedRWMemory) by calling the
 * host back, and wraps the exports in the runtime's trap catcher, so that a
 * trap in the circuit's code (out of bounds, unreachable, a stack too deep)
 * returns a code instead of ending the process.
 *
 * The object's entry points, found with dlsym (every other symbol of the
 * object is hidden). Each call that runs circuit code returns 0 or the
 * wasm_rt_trap_t code of the trap that ended it (cuzk_glue_trap_name says
 * which); an exception the circuit raised reaches the host's on_exception
 * first, and then ends the call as the trap "unreachable".
 *
 *   int   cuzk_glue_abi(void)                         WASM_GLUE_ABI
 *   void *cuzk_glue_new(void *ctx, on_exception, on_message, on_value, should_stop)
 *             an instance, NULL when out of memory or its start trapped;
 *             should_stop(ctx) is asked every WASM_GLUE_POLL_EVERY calls
 *             and loop turns of the circuit's code, and nonzero ends the
 *             call under way with the trap WASM_GLUE_TRAP_STOPPED
 *   void  cuzk_glue_free(void *inst)
 *   int   cuzk_glue_info(void *inst, uint32_t out[WASM_GLUE_INFO_N])
 *   int   cuzk_glue_prime(void *inst, uint32_t *words, uint32_t n)
 *             getRawPrime, then the first n of its 32-bit words, least first
 *   int   cuzk_glue_init(void *inst, uint32_t sanity_check)
 *   int   cuzk_glue_input_size(void *inst, uint32_t hash_hi, uint32_t hash_lo, int32_t *size)
 *   int   cuzk_glue_set_input(void *inst, uint32_t hash_hi, uint32_t hash_lo, uint32_t pos,
 *                             const uint32_t *words, uint32_t n)
 *   int   cuzk_glue_witness(void *inst, uint32_t first, uint32_t count, uint32_t n, uint32_t *out)
 *             values first .. first + count - 1, n words each
 *   const char *cuzk_glue_trap_name(int code)          the runtime's words for a trap
 *
 * Inside the object the glue also gives circom's Montgomery product
 * natively (cuzk_glue_mont_mul, hidden), which wasm_build.c routes the
 * translation's Fr_F1m_mul to; the instance keeps the circuit's prime for
 * it, read at its start.
 *
 * The runtime's trap target is thread-local (the object is built with
 * wasm_runtime.h's rewrite) and the translation's call depth the
 * instance's own (the first word of its runtime instance, reset at each
 * entry point; wasm_build.c): an instance serves one thread at a time, and several instances of one object run on several threads at
 * once (circom.c keeps one per calculation under way). */
#ifndef CUZK_WITNESS_WASM_GLUE_H
#define CUZK_WITNESS_WASM_GLUE_H

#include <stdint.h>

/* Changes with any change of the entry points' meaning; part of the cache
 * key through the source itself. */
#define WASM_GLUE_ABI 2

/* How often the circuit's code asks its host whether to stop: every this
 * many function calls and loop turns (between polls, only a countdown in
 * the instance is paid). */
#define WASM_GLUE_POLL_EVERY 65536
/* The trap code of a call the host stopped (beyond wabt's own codes). */
#define WASM_GLUE_TRAP_STOPPED 64

/* cuzk_glue_info's words, in this order (the glue fills them so) */
#define WASM_GLUE_INFO_N 6
enum {
    WASM_GLUE_VERSION,   /* getVersion: circom's major version */
    WASM_GLUE_MINOR,     /* getMinorVersion */
    WASM_GLUE_PATCH,     /* getPatchVersion */
    WASM_GLUE_N32,       /* getFieldNumLen32: 32-bit words of a field element */
    WASM_GLUE_WITNESS,   /* getWitnessSize */
    WASM_GLUE_INPUTS,    /* getInputSize: input values in all */
};

/* What showSharedRWMemory and the message imports hand the host. */
enum { WASM_GLUE_MSG_ERROR = 0 /* printErrorMessage */, WASM_GLUE_MSG_LOG = 1 /* writeBufferMessage */ };

typedef void wasm_glue_exception_fn(void *ctx, uint32_t code);
typedef void wasm_glue_message_fn(void *ctx, int kind, const char *text);
typedef void wasm_glue_value_fn(void *ctx, const uint32_t *words, uint32_t n);
typedef int wasm_glue_stop_fn(void *ctx);

/* The C source of the glue (NUL-terminated), written beside circuit.c and
 * compiled with it. */
extern const char wasm_glue_source[];

#endif
