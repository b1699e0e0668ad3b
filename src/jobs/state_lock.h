/* A state directory belongs to one daemon at a time: an exclusive lock
 * (flock) on DIR/lock, taken at start and held while the daemon lives; the
 * kernel lets go when the process ends, however it ends (kill -9 too), so
 * a restart never finds a stale lock. The holder's pid is written in the
 * file for the message a second daemon gets. */
#ifndef CUZK_JOBS_STATE_LOCK_H
#define CUZK_JOBS_STATE_LOCK_H

#include "cuzk/cuzk.h"

/* Makes dir (mode 0750, its parents too) when missing and locks it:
 * *fd holds the lock. CUZK_ERR_CONFLICT when another process holds it,
 * CUZK_ERR_IO when the folder cannot be made or opened. */
int state_lock_take(const char *dir, int *fd, cuzk_error *err);
void state_lock_release(int fd);

#endif
