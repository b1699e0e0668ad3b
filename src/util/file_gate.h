/* A gate that is open while a file exists. Threads wait at it until the
 * file appears (created, or moved into place) or until their cancel flag is
 * set and the gate woken. It lets a test hold work still until it has seen
 * what it wanted to see, and then release it: the test is decided by
 * events, not by how long something takes (the sim backend's
 * [devices] sim_gate). Linux: inotify watches the file's folder, from a
 * thread the gate owns. */
#ifndef CUZK_UTIL_FILE_GATE_H
#define CUZK_UTIL_FILE_GATE_H

#include <stdatomic.h>

#include "cuzk/cuzk.h"

typedef struct file_gate file_gate;

/* A gate on the file `path`, whose folder must exist (the file need not).
 * NULL with a message when the folder cannot be watched. */
file_gate *file_gate_create(const char *path, cuzk_error *err);

/* Ends the gate's thread and frees it; nobody may be waiting at it. */
void file_gate_destroy(file_gate *g);

/* Returns 0 as soon as the file exists (at once if it does), or -1 when
 * *cancel (may be NULL: never) is found set first; a cancel made while
 * waiting is seen at the next file_gate_wake. */
int file_gate_pass(file_gate *g, const atomic_int *cancel);

/* Every thread waiting at g checks its cancel flag again. */
void file_gate_wake(file_gate *g);

#endif
