/* Assignments as files, for drivers of supraseal-c2's ABI
 * (bench/peers/c2_prove.c reads them with plain C, linked with either
 * library): "C2ASSIGN" (plain) or "C2ASSIGC" (compact), then nine u64
 * (a_aux bit length and popcount, b_inp's, b_aux's, abc_size, inputs,
 * aux), the three density bitmaps (u64 words), then a, b, c, the inputs
 * and the aux, Montgomery scalars (4 u64 each), all little-endian. Plain:
 * 32 bytes a scalar. Compact: a byte a scalar, 0 (zero), 1 (one, R mod r)
 * or 2 (its 32 bytes follow): a 0/1-heavy witness of a PoRep partition
 * takes ~0.6 GB instead of ~17. */
#ifndef CUZK_FILECOIN_ASSIGNMENT_FILE_H
#define CUZK_FILECOIN_ASSIGNMENT_FILE_H

#include "filecoin/assignment.h"

enum { FIL_ASSIGNMENT_FIELDS = 9 };

/* Writes as to path (a cuzk_outfile), compact or plain. CUZK_ERR_IO,
 * CUZK_ERR_NOMEM. */
int fil_assignment_write(const fil_assignment *as, const char *path, int compact, cuzk_error *err);

#endif
