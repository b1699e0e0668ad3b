#include "engine/keycache.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synthesis/pce.h"
#include "util/err.h"
#include "util/file.h"
#include "util/timer.h"
#include "util/verify.h"

struct key_entry {
    char *path;
    key_tier tier;
    int refs;
    int loading;       /* one thread loads; others wait */
    uint64_t bytes;    /* the file's size: what a hot key holds */
    double last_used;
    cuzk_zkey zkey;    /* valid while hot */
    void *map;         /* valid while warm or hot */
    size_t map_len;
    uint64_t loads, evictions;
    int made;          /* keycache_adopt: no file, never evicted */
    /* what was registered: the file (checked on every load) and, from the
     * first load on, the key's shape and hash (the PCE's, over what the
     * compiled PCE depends on); a reload that finds another key fails */
    cuzk_file_id id;
    int has_shape;
    cuzk_curve_id curve;
    uint32_t n_vars, n_public, domain_size;
    uint8_t hash[32];
    key_entry *next;
};

struct keycache {
    cuzk_budget *budget;
    cuzk_logger *log;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    key_entry *entries;
};

const char *key_tier_name(key_tier t)
{
    static const char *const names[] = {"cold", "warm", "hot"};
    return names[t];
}

keycache *keycache_create(cuzk_budget *budget, cuzk_logger *log)
{
    keycache *kc = calloc(1, sizeof *kc);
    if (!kc)
        return NULL;
    kc->budget = budget;
    kc->log = log;
    pthread_mutex_init(&kc->lock, NULL);
    pthread_cond_init(&kc->changed, NULL);
    return kc;
}

static void unmap(key_entry *k)
{
    if (k->map)
        munmap(k->map, k->map_len);
    k->map = NULL;
}

/* Maps the file so its pages stay cached (the warm tier). Best effort. */
static void map_warm(key_entry *k)
{
    if (k->map)
        return;
    int fd = cuzk_open_regular(k->path, NULL, NULL);
    if (fd < 0)
        return;
    void *m = k->map_len ? mmap(NULL, k->map_len, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    close(fd);
    if (m == MAP_FAILED)
        return;
    madvise(m, k->map_len, MADV_WILLNEED);
    k->map = m;
}

/* Frees k (unlinked by the caller) and gives back what it held. */
static void entry_free(keycache *kc, key_entry *k)
{
    if (k->tier == KEY_HOT) {
        cuzk_zkey_free(&k->zkey);
        budget_release(kc->budget, BUDGET_KEYS, k->bytes);
    }
    unmap(k);
    free(k->path);
    free(k);
}

void keycache_destroy(keycache *kc)
{
    if (!kc)
        return;
    for (key_entry *k = kc->entries, *next; k; k = next) {
        next = k->next;
        entry_free(kc, k);
    }
    pthread_mutex_destroy(&kc->lock);
    pthread_cond_destroy(&kc->changed);
    free(kc);
}

/* A new entry named `path` (NULL when out of memory). */
static key_entry *entry_new(const char *path)
{
    key_entry *k = calloc(1, sizeof *k);
    if (k && !(k->path = strdup(path))) {
        free(k);
        k = NULL;
    }
    return k;
}

static void entry_link(keycache *kc, key_entry *k)
{
    pthread_mutex_lock(&kc->lock);
    k->next = kc->entries;
    kc->entries = k;
    pthread_mutex_unlock(&kc->lock);
}

key_entry *keycache_add(keycache *kc, const char *path, cuzk_error *err)
{
    struct stat st;
    cuzk_error why = {0};
    int fd = cuzk_open_regular(path, &st, &why);
    if (fd < 0)
        return cuzk_fail(err, why.code, "cannot read the proving key: %s", why.msg), NULL;
    close(fd);
    key_entry *k = entry_new(path);
    if (!k)
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    k->bytes = (uint64_t)st.st_size;
    k->map_len = (size_t)st.st_size;
    cuzk_file_id_of(&st, &k->id);
    entry_link(kc, k);
    return k;
}

/* Host bytes a key holds: its coefficients, and its points when it has
 * them (a key made on a device may keep them there only). */
static uint64_t zkey_host_bytes(const cuzk_zkey *z)
{
    return (uint64_t)z->n_coefs * sizeof *z->coefs + (z->a ? cuzk_zkey_point_bytes(z) : 0);
}

key_entry *keycache_adopt(keycache *kc, const char *label, cuzk_zkey *z, const atomic_int *cancel,
                          cuzk_error *err)
{
    key_entry *k = entry_new(label);
    if (!k) {
        cuzk_zkey_free(z);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory"), NULL;
    }
    k->bytes = zkey_host_bytes(z);
    if (budget_acquire(kc->budget, BUDGET_KEYS, BUDGET_CLASS_NEW, k->bytes, cancel)) {
        if (cancel && atomic_load(cancel))
            cuzk_fail(err, CUZK_ERR_CANCELLED, "%s: cancelled while waiting for memory for its key", label);
        else
            cuzk_fail(err, CUZK_ERR_NOMEM, "%s: the key made in memory (%llu bytes) is larger than the memory budget",
                      label, (unsigned long long)k->bytes);
        cuzk_zkey_free(z);
        free(k->path);
        free(k);
        return NULL;
    }
    k->zkey = *z;
    memset(z, 0, sizeof *z);
    k->made = 1;
    k->tier = KEY_HOT;
    k->loads = 1;
    k->last_used = cuzk_now_s();
    entry_link(kc, k);
    return k;
}

/* Fails unless z, just read from k's path, is the key registered there:
 * the same file (a key copied over it has another mtime or inode) and the
 * same shape and hash as at the first load. */
static int check_identity(key_entry *k, const cuzk_zkey *z, cuzk_error *err)
{
    uint8_t hash[32];
    if (cuzk_pce_key_hash(z, hash))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: cannot hash the key", k->path);
    const cuzk_file_id *was = &k->id, *now = &z->source;
    if (!cuzk_file_id_equal(was, now))
        return cuzk_fail(err, CUZK_ERR_MISMATCH,
                         "%s: the proving key file has changed since the circuit was registered (%llu bytes, "
                         "inode %llu, mtime %lld ns then; %llu bytes, inode %llu, mtime %lld ns now); put the "
                         "registered file back, or register the new key as another circuit",
                         k->path, (unsigned long long)was->size, (unsigned long long)was->ino,
                         (long long)was->mtime_ns, (unsigned long long)now->size, (unsigned long long)now->ino,
                         (long long)now->mtime_ns);
    if (!k->has_shape) {
        k->has_shape = 1;
        k->curve = z->curve;
        k->n_vars = z->n_vars;
        k->n_public = z->n_public;
        k->domain_size = z->domain_size;
        memcpy(k->hash, hash, sizeof hash);
        return CUZK_OK;
    }
    if (k->curve != z->curve || k->n_vars != z->n_vars || k->n_public != z->n_public ||
        k->domain_size != z->domain_size || memcmp(k->hash, hash, sizeof hash))
        return cuzk_fail(err, CUZK_ERR_MISMATCH,
                         "%s: the proving key file has changed since the circuit was registered (nVars %u, "
                         "nPublic %u, domain %u then; nVars %u, nPublic %u, domain %u now, or other "
                         "coefficients); put the registered file back, or register the new key as another circuit",
                         k->path, k->n_vars, k->n_public, k->domain_size, z->n_vars, z->n_public, z->domain_size);
    return CUZK_OK;
}

/* Loads k outside the lock (k->loading set by the caller). */
static int load_hot(keycache *kc, key_entry *k, const atomic_int *cancel, cuzk_error *err)
{
    if (budget_acquire(kc->budget, BUDGET_KEYS, BUDGET_CLASS_NEW, k->bytes, cancel)) {
        if (cancel && atomic_load(cancel))
            return cuzk_fail(err, CUZK_ERR_CANCELLED, "%s: cancelled while waiting for memory for the key", k->path);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "%s: the key (%llu bytes) does not fit in the memory budget", k->path,
                         (unsigned long long)k->bytes);
    }
    double t0 = cuzk_now_s();
    int rc = cuzk_zkey_read(&k->zkey, k->path, err);
    if (!rc && (rc = check_identity(k, &k->zkey, err)))
        cuzk_zkey_free(&k->zkey);
    if (rc) {
        budget_release(kc->budget, BUDGET_KEYS, k->bytes);
        return rc;
    }
    CUZK_LOG(kc->log, CUZK_LOG_INFO, "key cache: loaded key", "path=%s size_gib=%.3f seconds=%.3f", k->path,
             (double)k->bytes / (1 << 30), cuzk_now_s() - t0);
    return CUZK_OK;
}

int keycache_acquire(keycache *kc, key_entry *k, const cuzk_zkey **z, const atomic_int *cancel, cuzk_error *err)
{
    pthread_mutex_lock(&kc->lock);
    while (k->loading)
        pthread_cond_wait(&kc->changed, &kc->lock);
    k->refs++; /* pins it against eviction from here on */
    if (k->tier != KEY_HOT) {
        k->loading = 1;
        pthread_mutex_unlock(&kc->lock);
        int rc = load_hot(kc, k, cancel, err);
        pthread_mutex_lock(&kc->lock);
        k->loading = 0;
        if (rc) {
            k->refs--;
            pthread_cond_broadcast(&kc->changed);
            pthread_mutex_unlock(&kc->lock);
            return rc;
        }
        map_warm(k);
        k->tier = KEY_HOT;
        k->loads++;
        pthread_cond_broadcast(&kc->changed);
    }
    k->last_used = cuzk_now_s();
    *z = &k->zkey;
    pthread_mutex_unlock(&kc->lock);
    return CUZK_OK;
}

void keycache_release(keycache *kc, key_entry *k)
{
    pthread_mutex_lock(&kc->lock);
    k->refs--;
    k->last_used = cuzk_now_s();
    int evictable = k->refs == 0 && k->tier == KEY_HOT;
    pthread_mutex_unlock(&kc->lock);
    /* A budget waiter may have found every hot key referenced and gone to
     * sleep; this one can be evicted now, so it should ask again. */
    if (evictable)
        budget_wake_all(kc->budget);
}

int keycache_preload(keycache *kc, key_entry *k, const atomic_int *cancel, cuzk_error *err)
{
    const cuzk_zkey *z;
    int rc = keycache_acquire(kc, k, &z, cancel, err);
    if (!rc)
        keycache_release(kc, k);
    return rc;
}

/* Under the lock: hot -> warm (or cold); returns the bytes given back. */
static uint64_t demote(keycache *kc, key_entry *k, int drop)
{
    uint64_t freed = 0;
    if (k->tier == KEY_HOT) {
        cuzk_zkey_free(&k->zkey);
        freed = k->bytes;
        k->evictions++;
        k->tier = KEY_WARM;
    }
    if (drop) {
        unmap(k);
        k->tier = KEY_COLD;
    }
    CUZK_LOG(kc->log, CUZK_LOG_INFO, "key cache: evicted key", "path=%s tier=%s size_gib=%.3f", k->path,
             key_tier_name(k->tier), (double)k->bytes / (1 << 30));
    return freed;
}

int keycache_evict(keycache *kc, key_entry *k, int drop)
{
    pthread_mutex_lock(&kc->lock);
    if (k->refs > 0 || k->loading || k->made) {
        pthread_mutex_unlock(&kc->lock);
        return CUZK_ERR_ARG;
    }
    uint64_t freed = demote(kc, k, drop);
    pthread_mutex_unlock(&kc->lock);
    if (freed)
        budget_release(kc->budget, BUDGET_KEYS, freed);
    return CUZK_OK;
}

uint64_t keycache_evict_lru(void *vkc, uint64_t need)
{
    keycache *kc = vkc;
    uint64_t freed = 0;
    while (freed < need) {
        pthread_mutex_lock(&kc->lock);
        key_entry *victim = NULL;
        for (key_entry *k = kc->entries; k; k = k->next)
            if (k->tier == KEY_HOT && k->refs == 0 && !k->loading && !k->made &&
                (!victim || k->last_used < victim->last_used))
                victim = k;
        uint64_t got = victim ? demote(kc, victim, 0) : 0;
        pthread_mutex_unlock(&kc->lock);
        if (!victim)
            break;
        budget_release(kc->budget, BUDGET_KEYS, got);
        freed += got;
    }
    return freed;
}

void keycache_remove(keycache *kc, key_entry *k)
{
    pthread_mutex_lock(&kc->lock);
    CUZK_VERIFY_CHECK(k->refs == 0 && !k->loading);
    for (key_entry **at = &kc->entries; *at; at = &(*at)->next)
        if (*at == k) {
            *at = k->next;
            break;
        }
    pthread_mutex_unlock(&kc->lock);
    entry_free(kc, k);
}

void keycache_info(keycache *kc, const key_entry *k, key_info *out)
{
    pthread_mutex_lock(&kc->lock);
    *out = (key_info){k->path, k->tier, k->refs, k->bytes, k->last_used, k->loads, k->evictions, k->made};
    pthread_mutex_unlock(&kc->lock);
}
