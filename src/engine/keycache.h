/* The key cache: proving keys by tier, reference counted, evicted LRU
 * under the memory budget.
 *   hot   parsed in host memory (and, for a GPU backend, resident on the
 *         device), counted under BUDGET_KEYS
 *   warm  the file mapped (mmap + MADV_WILLNEED): its pages stay in the page
 *         cache, so the next load reads memory, not disk; not counted
 *   cold  on disk only
 * A key with references (jobs using it) is never evicted. The budget's
 * evictor calls keycache_evict_lru, which demotes idle hot keys to warm,
 * least recently used first. */
#ifndef CUZK_ENGINE_KEYCACHE_H
#define CUZK_ENGINE_KEYCACHE_H

#include "engine/budget.h"
#include "groth16/zkey.h"
#include "util/log.h"

typedef enum { KEY_COLD = 0, KEY_WARM = 1, KEY_HOT = 2 } key_tier;
const char *key_tier_name(key_tier t);

typedef struct keycache keycache;
typedef struct key_entry key_entry;

typedef struct {
    const char *path;
    key_tier tier;
    int refs;
    uint64_t bytes; /* counted under BUDGET_KEYS while hot */
    double last_used;
    uint64_t loads, evictions;
    int made; /* keycache_adopt: made in memory, never evicted */
} key_info;

keycache *keycache_create(cuzk_budget *budget, cuzk_logger *log);
void keycache_destroy(keycache *kc);

/* A cold entry for path (checked to exist and be readable). */
key_entry *keycache_add(keycache *kc, const char *path, cuzk_error *err);
/* An entry for a key made in memory (a development setup), named `label`
 * where a path would be: it takes *z (cleared), is hot from the start with
 * the host memory it holds counted under BUDGET_KEYS, and is never evicted,
 * since no file could bring it back. NULL with err filled when that memory
 * is over the budget or the wait for it is cancelled (z is freed then). */
key_entry *keycache_adopt(keycache *kc, const char *label, cuzk_zkey *z, const atomic_int *cancel,
                          cuzk_error *err);
/* Makes the key hot (loading it, waiting for budget, evicting idle keys)
 * and takes a reference; *z stays valid until keycache_release. A load
 * checks that the file is still the one added (device, inode, size, mtime)
 * and, after the first, that the key has the first one's shape and hash:
 * CUZK_ERR_MISMATCH, naming the file, when it is not (a key copied over
 * the path would not match the circuit's PCE and verification key). */
/* A wait for budget ends when *cancel (may be NULL) becomes non-zero (set
 * it, then budget_wake_all): CUZK_ERR_CANCELLED. */
int keycache_acquire(keycache *kc, key_entry *k, const cuzk_zkey **z, const atomic_int *cancel, cuzk_error *err);
/* Drops the reference; when it was the last, budget waiters are woken to
 * ask the evictor again (the key has just become evictable). */
void keycache_release(keycache *kc, key_entry *k);
/* Preload: acquire then release (the key stays hot until evicted). */
int keycache_preload(keycache *kc, key_entry *k, const atomic_int *cancel, cuzk_error *err);
/* Demotes an idle key to warm (drop == 0) or cold (drop == 1); CUZK_ERR_ARG
 * while it has references or when it was made in memory (keycache_adopt). */
int keycache_evict(keycache *kc, key_entry *k, int drop);
/* The budget evictor: demotes idle hot keys, LRU first, until `need` bytes
 * are freed; returns the bytes freed. */
uint64_t keycache_evict_lru(void *kc, uint64_t need);
/* Drops the entry (its memory and mapping, and it from the budget): for a
 * circuit whose registration failed. k must have no references; k is
 * invalid afterwards. */
void keycache_remove(keycache *kc, key_entry *k);
void keycache_info(keycache *kc, const key_entry *k, key_info *out);

#endif
