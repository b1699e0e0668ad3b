/* rapidsnark's C API (iden3/rapidsnark, src/prover.h), served by libcuzk:
 * the same prototypes, return codes and buffer-size protocol, so programs
 * and bindings written for librapidsnark build unchanged with
 * -I<includedir>/cuzk/rapidsnark and link with -lcuzk (or -lrapidsnark,
 * which make install points at libcuzk).
 *
 * Shared rules:
 *  - error_msg: when a call fails and error_msg is not NULL and
 *    error_msg_maxsize > 0, the message is written there, cut to
 *    error_msg_maxsize - 1 bytes and always NUL-terminated; on success it
 *    is left as it was.
 *  - keys and witnesses: BN254 and BLS12-381 (rapidsnark proves BN254
 *    only); the zkey is read whole and checked before any proof.
 *  - output: proof.json and public.json texts as `snarkjs groth16 prove`
 *    lays them out (one-space indentation; rapidsnark's own are compact),
 *    NUL-terminated; both are JSON that snarkjs and rapidsnark's verifier
 *    read.
 *  - backend: the GPU when one is usable, else the CPU; the environment
 *    variable CUZK_BACKEND (cpu, gpu or auto), read when a prover is
 *    made, chooses (these prototypes have no room for a choice). Every CPU
 *    thread is used.
 *  - each proof is checked against the key's own verification key before
 *    it is handed out (a corrupt key fails with PROVER_ERROR).
 *  - thread-safety: a prover object may prove from several threads at
 *    once; the one-shot calls share nothing.
 */
#ifndef CUZK_RAPIDSNARK_PROVER_H
#define CUZK_RAPIDSNARK_PROVER_H

#ifdef __cplusplus
extern "C" {
#endif

#define PROVER_OK 0x0
#define PROVER_ERROR 0x1
#define PROVER_ERROR_SHORT_BUFFER 0x2
#define PROVER_INVALID_WITNESS_LENGTH 0x3

/* On input: zkey_buffer holds zkey_size bytes of a .zkey; public_size is
 * writable.
 * On output: *public_size is a size that any public.json of this key fits
 * in, its NUL included.
 * Returns PROVER_OK, or PROVER_ERROR (a NULL pointer, a key that cannot be
 * read: see error_msg). Only the key's header is read. */
int groth16_public_size_for_zkey_buf(const void *zkey_buffer, unsigned long long zkey_size,
                                     unsigned long long *public_size, char *error_msg,
                                     unsigned long long error_msg_maxsize);

/* The same for the .zkey file zkey_fname. */
int groth16_public_size_for_zkey_file(const char *zkey_fname, unsigned long long *public_size, char *error_msg,
                                      unsigned long long error_msg_maxsize);

/* On output: *proof_size is a size that any proof.json fits in (of either
 * curve), its NUL included. NULL proof_size: nothing is written. */
void groth16_proof_size(unsigned long long *proof_size);

/* Makes a prover for the key in zkey_buffer (zkey_size bytes, copied:
 * the buffer may go once the call returns).
 * On output: on PROVER_OK, *prover_object is a prover that the caller
 * releases with groth16_prover_destroy.
 * Returns PROVER_OK, or PROVER_ERROR (a NULL pointer, a key that cannot be
 * read, no usable backend: see error_msg). */
int groth16_prover_create(void **prover_object, const void *zkey_buffer, unsigned long long zkey_size,
                          char *error_msg, unsigned long long error_msg_maxsize);

/* The same for the .zkey file zkey_file_path. */
int groth16_prover_create_zkey_file(void **prover_object, const char *zkey_file_path, char *error_msg,
                                    unsigned long long error_msg_maxsize);

/* Proves the witness in wtns_buffer (wtns_size bytes of a .wtns).
 * On input: *proof_size and *public_size are the sizes of proof_buffer and
 * public_buffer (groth16_proof_size and groth16_public_size_for_zkey_*
 * give sizes that always suffice).
 * On output: on PROVER_OK, the buffers hold the NUL-terminated texts and
 * *proof_size, *public_size their lengths without the NUL. On
 * PROVER_ERROR_SHORT_BUFFER (either buffer holds less than its text and
 * NUL), nothing is written to the buffers and *proof_size, *public_size
 * are the sizes needed, NUL included; call again with those. On other
 * errors the sizes are left as they were.
 * Returns PROVER_OK; PROVER_ERROR_SHORT_BUFFER; PROVER_INVALID_WITNESS_LENGTH
 * (the witness does not have the key's number of values); PROVER_ERROR
 * (a NULL pointer, a witness that cannot be read or is over another curve,
 * a corrupt key, a device failure: see error_msg). */
int groth16_prover_prove(void *prover_object, const void *wtns_buffer, unsigned long long wtns_size,
                         char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
                         unsigned long long *public_size, char *error_msg, unsigned long long error_msg_maxsize);

/* Releases a prover made by groth16_prover_create*; NULL is a no-op. */
void groth16_prover_destroy(void *prover_object);

/* groth16_prover_create, groth16_prover_prove and groth16_prover_destroy in
 * one call: what they return, with the same buffer protocol. */
int groth16_prover(const void *zkey_buffer, unsigned long long zkey_size, const void *wtns_buffer,
                   unsigned long long wtns_size, char *proof_buffer, unsigned long long *proof_size,
                   char *public_buffer, unsigned long long *public_size, char *error_msg,
                   unsigned long long error_msg_maxsize);

/* The same with the key read from the .zkey file zkey_file_path. */
int groth16_prover_zkey_file(const char *zkey_file_path, const void *wtns_buffer, unsigned long long wtns_size,
                             char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
                             unsigned long long *public_size, char *error_msg,
                             unsigned long long error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif
