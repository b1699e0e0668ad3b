/* Test support shared by several test programs (support.c, linked into
 * every test binary; libc and the library only). */
#ifndef CUZK_TESTS_SUPPORT_H
#define CUZK_TESTS_SUPPORT_H

#include "engine/budget.h"
#include "engine/engine.h"
#include "groth16/synth.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"

/* 1 (after printing "SKIP: ...") when GPU tests cannot run here: no usable
 * GPU, or an AddressSanitizer build (the CUDA runtime and ASan's shadow
 * memory do not mix). The caller then exits 77, which tests/run-all counts
 * as skipped. */
int gpu_tests_unavailable(void);

/* 1 (after printing "SKIP: ...") when circom's wasm cannot be compiled
 * here: wabt's wasm2c is not on PATH. The caller then exits 77. */
int wasm_tests_unavailable(void);

/* The arithmetic paths a test runs through, each vector engine the CPU
 * has and then the scalar code alone: the 8-lane AVX-512 IFMA code of
 * ff/mont52.h (as the library found it), the 4-lane AVX2 code of
 * ff/mont29.h (what a CPU without IFMA runs), the scalar code (as on a CPU
 * with neither). arith_path_select(i) switches to path i (i <
 * arith_paths()) and returns its name. */
int arith_paths(void);
const char *arith_path_select(int i);

/* The next of xorshift64's numbers from *state (non-zero): test data that
 * is the same on every run. */
uint64_t xorshift64(uint64_t *state);

/* Lines of the file at path containing both needles (needle2 may be NULL);
 * -1 when the file cannot be read. */
int count_lines_with(const char *path, const char *needle1, const char *needle2);

/* Waits until exactly n callers are blocked in budget_acquire; 1 when they
 * are, 0 after about 20 s without. A thread's arrival in the queue has no
 * other observable signal, so this polls the stats: tests assert on the
 * state reached, never on the time taken. */
int budget_waiters_reach(cuzk_budget *b, uint32_t n);

/* tests/fixtures/<curve_dir>/<name>, under $CUZK_FIXTURES instead when
 * set (to run from outside the repository root): one of four static
 * buffers, used in turn. */
const char *fixture_path(const char *curve_dir, const char *name);

/* The whole file at path, malloc'd with a NUL after its *len bytes (so
 * JSON reads as text); NULL when it cannot be read. */
char *read_whole_file(const char *path, size_t *len);

/* A fixture's bytes (read_whole_file of fixture_path; free data); a test
 * without its fixtures cannot run: exits 1 saying which is missing. */
typedef struct {
    char *data;
    size_t len;
} file_bytes;
file_bytes fixture_bytes(const char *curve_dir, const char *name);

/* Removes dir and everything below it (rm -rf); 0 on success. */
int remove_tree(const char *dir);

/* A synthetic circuit (sp) and a development key for it, in memory: *z and
 * *w, and the circuit in *r when r is not NULL (free each with its _free;
 * nothing to free after a failure). CUZK_OK or the library's code. */
int make_dev_key(const cuzk_synth_params *sp, cuzk_zkey *z, cuzk_wtns *w, cuzk_r1cs *r);

/* A synthetic circuit of n_constraints (seed: which one; two public
 * signals) with a development key written to zkey_path and, when r1cs_path
 * is not NULL, the circuit to r1cs_path; the witness is kept in *w when w is
 * not NULL (free with cuzk_wtns_free). CUZK_OK or the library's code. */
int write_dev_key(const char *zkey_path, const char *r1cs_path, cuzk_curve_id curve, uint32_t n_constraints,
                  uint64_t seed, cuzk_wtns *w);

/* The toxic waste tests give setups (cuzk_setup_options.toxic): fixed
 * values, so two setups of one circuit make the same key. */
extern const uint64_t test_toxic[5][4];

/* Partition i's proof of r against the verification key of the zkey at
 * zkey_path (snarkjs's check, independent of the engine's own): CUZK_OK or
 * the library's code. */
int verify_partition_proof(const char *zkey_path, const cuzk_job_result *r, uint32_t i);

/* 1 when a and b are the same key byte for byte (header, IC, coefficients,
 * and each point array both hold), else 0 after printing what differs.
 * Serials are not compared. */
int zkeys_equal(const cuzk_zkey *a, const cuzk_zkey *b);

#endif
