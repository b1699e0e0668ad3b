/* The first challenge of a powers-of-tau file of each power up to
 * CUZK_FIRST_CHALLENGES - 1, for both curves (tools/gen_first_challenges.py):
 * a pure function of the curve and the power whose hashing takes seconds
 * at 2^24 (phase1.inc's first_challenge hashes beyond the table). */
#ifndef CUZK_CEREMONY_FIRST_CHALLENGES_H
#define CUZK_CEREMONY_FIRST_CHALLENGES_H

#include <stdint.h>

enum { CUZK_FIRST_CHALLENGES = 25 };

extern const uint8_t bn254_first_challenges[CUZK_FIRST_CHALLENGES][64];
extern const uint8_t bls12_381_first_challenges[CUZK_FIRST_CHALLENGES][64];

#endif
