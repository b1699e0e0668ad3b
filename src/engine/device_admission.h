/* Admission of proofs to one device's memory: how many of the proofs the
 * engine's workers bring to a device may run on it at once.
 *
 * Workers per device (workers_per_device) overlap one proof's transfers
 * and CPU side with another's kernels, but two 2^27 proofs next to a
 * resident 2^27 key do not fit in an H200 together. A proof states what
 * device memory it needs for its scratch (what its key's last proof alone
 * took at its peak), or 0 when that is not known yet; it is admitted when
 * the device runs nothing, or when what the running proofs were admitted
 * with plus its need fits in the device's capacity for scratch: its free
 * memory and what the memory pool that the proofs share holds (a sum that
 * does not change while proofs take from and give back to that pool).
 * A proof whose need is not known runs alone, so that its peak can be
 * measured; so does a retry of a proof that ran out of memory next to
 * others (backend_gpu.c).
 *
 * The rule (admission_fits) is pure; admission_enter and admission_leave
 * wrap it in a lock and a condition variable for the device's workers. */
#ifndef CUZK_ENGINE_DEVICE_ADMISSION_H
#define CUZK_ENGINE_DEVICE_ADMISSION_H

#include <pthread.h>
#include <stddef.h>

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t room;
    int in_flight;      /* proofs admitted and not yet left */
    int alone;          /* one of them runs alone (its need unknown) */
    size_t admitted;    /* the sum of the needs they were admitted with */
    unsigned long long waits; /* proofs that waited for room */
} device_admission;

void admission_init(device_admission *a);
void admission_destroy(device_admission *a);

/* 1 when a proof needing `need` bytes (0: unknown, run alone) may start
 * on a device with `capacity` bytes for proofs' scratch, given what a
 * already runs; else 0. */
int admission_fits(const device_admission *a, size_t need, size_t capacity);

/* Waits until admission_fits(a, need, capacity(ctx)) and counts the proof
 * in; capacity is asked again each time a proof leaves. */
void admission_enter(device_admission *a, size_t need, size_t (*capacity)(void *ctx), void *ctx);

/* The proof admitted with `need` has ended; wakes the waiters. */
void admission_leave(device_admission *a, size_t need);

#endif
