/* Witnesses from a circom 2 circuit's wasm witness calculator
 * (<circuit>_js/<circuit>.wasm), run as native code: the wasm is translated
 * and compiled once per circuit and cached (wasm_build.h), and driven
 * through circom's protocol as snarkjs's `wtns calculate` drives it, so the
 * witness is the same, value for value:
 *
 *   init(0); for each input signal, in the JSON's order: its FNV-1a hash
 *   split in two 32-bit halves, getInputSignalSize (negative: no such
 *   input), then for each value writeSharedRWMemory and setInputSignal (the
 *   circuit runs as its last input is set); every input value must have
 *   been set (getInputSize); then getWitness(i) and readSharedRWMemory for
 *   each of getWitnessSize values.
 *
 * What the circuit raises (runtime.exceptionHandler: a failed assert, a
 * signal not found or set twice, no memory) and what its code traps on (an
 * access out of bounds, unreachable code, a stack too deep) come back as
 * CUZK_ERR_UNSATISFIED / CUZK_ERR_FORMAT with circom's own message
 * (printErrorMessage: "Error in template T_1 line: 12"); the process goes
 * on. Only circom 2 calculators of the curves cuzk proves on are taken:
 * getVersion must be 2 and the prime bn128's or bls12381's r.
 *
 * One cuzk_circom serves calculations on several threads at once: each
 * runs in an instance of its own (the circuit's memory and state), taken
 * from the idle ones or made, and kept for the next; the runtime's trap
 * state is per thread (wasm_runtime.h). The log callback is then called
 * from the calculating threads. */
#ifndef CUZK_WITNESS_CIRCOM_H
#define CUZK_WITNESS_CIRCOM_H

#include <stdatomic.h>

#include "cuzk/cuzk.h"
#include "groth16/wtns.h"
#include "witness/input.h"

typedef struct cuzk_circom cuzk_circom;

/* One line of text (no newline). */
typedef void cuzk_circom_line_fn(void *ctx, const char *line);

typedef struct {
    const char *cache_dir;         /* the compiled circuits (wasm_build.h); NULL: the default */
    cuzk_circom_line_fn *progress; /* the one-time compile's steps; NULL: quiet */
    cuzk_circom_line_fn *log;      /* what the circuit's log() prints, a line at a time; NULL: dropped */
    void *ctx;                     /* handed to both */
    const atomic_int *cancel;      /* NULL, or a flag that ends a compile under way (CUZK_ERR_CANCELLED) */
} cuzk_circom_options;

/* Loads the calculator at wasm_path (compiling it when the cache has none).
 * o may be NULL; it is copied. CUZK_OK with *out set (free with
 * cuzk_circom_free), or: CUZK_ERR_IO (the file, the cache, wabt or the
 * compiler), CUZK_ERR_FORMAT (not WebAssembly, not circom 2's calculator,
 * a prime of another curve), CUZK_ERR_NOMEM; *out NULL. */
int cuzk_circom_load(cuzk_circom **out, const char *wasm_path, const cuzk_circom_options *o, cuzk_error *err);
void cuzk_circom_free(cuzk_circom *c);

/* The curve whose r is the circuit's prime. */
cuzk_curve_id cuzk_circom_curve(const cuzk_circom *c);
/* 1 when cuzk_circom_load compiled the circuit, 0 when the cache had it. */
int cuzk_circom_compiled(const cuzk_circom *c);
/* The values of its witness (the r1cs's wires). */
uint32_t cuzk_circom_witness_size(const cuzk_circom *c);

/* Whether in could be the circuit's input: every signal is an input of
 * the circuit with as many values as it takes, and every input value is
 * given (what cuzk_circom_calculate checks before the circuit runs, without
 * running it). CUZK_OK, or CUZK_ERR_ARG as cuzk_circom_calculate names
 * them, CUZK_ERR_NOMEM. Safe beside calculations. */
int cuzk_circom_check_input(cuzk_circom *c, const witness_input *in, cuzk_error *err);

/* The witness for in (values reduced mod the circuit's prime, as
 * witness_input_read with cuzk_curve_r(cuzk_circom_curve(c)) gives them)
 * into w (free with cuzk_wtns_free), which it overwrites. CUZK_OK, or:
 * CUZK_ERR_ARG (a signal the circuit has no input of, a signal with too
 * many or too few values, an input value missing), CUZK_ERR_UNSATISFIED
 * (the circuit raised an error: a failed assert), CUZK_ERR_FORMAT (its
 * code trapped), CUZK_ERR_NOMEM; w then holds nothing. c stays usable.
 * Any number of threads may calculate with one c at once. */
int cuzk_circom_calculate(cuzk_circom *c, const witness_input *in, cuzk_wtns *w, cuzk_error *err);
/* When a calculation stops before its end: as soon as *flag (when not
 * NULL) is nonzero (a cancel), or once deadline_s (cuzk_now_s's clock;
 * 0: none) has passed. The circuit's code asks at every
 * WASM_GLUE_POLL_EVERY-th call or loop turn (wasm_glue.h), so a
 * calculation that would never end stops too. */
typedef struct {
    const atomic_int *flag;
    double deadline_s;
    double limit_s; /* the limit deadline_s stands for, for the message */
} cuzk_circom_stop;

/* cuzk_circom_calculate, stopped by stop (NULL: never): then
 * CUZK_ERR_CANCELLED, with a message saying which (cancelled, or ran past
 * its limit of limit_s seconds); w holds nothing and c stays usable. */
int cuzk_circom_calculate_until(cuzk_circom *c, const witness_input *in, const cuzk_circom_stop *stop,
                                cuzk_wtns *w, cuzk_error *err);
/* witness_input_read of input_path, then cuzk_circom_calculate. */
int cuzk_circom_calculate_file(cuzk_circom *c, const char *input_path, cuzk_wtns *w, cuzk_error *err);

#endif
