#include "log_watch.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct log_watch {
    char path[512];
    pthread_t reader;
    pthread_mutex_t lock;
    pthread_cond_t cv; /* text grew, or the writer closed */
    char *text;        /* every line read so far, NUL-terminated */
    size_t len, cap;
    int closed;
    int joined; /* the reader joined (log_watch_closed) */
};

static void *read_lines(void *arg)
{
    log_watch *w = arg;
    int fd = open(w->path, O_RDONLY | O_CLOEXEC); /* waits for the logger's open */
    char buf[4096];
    for (ssize_t n; fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0;) {
        pthread_mutex_lock(&w->lock);
        if (w->len + (size_t)n + 1 > w->cap) {
            size_t cap = 2 * (w->len + (size_t)n + 1);
            char *grown = realloc(w->text, cap);
            if (!grown) {
                pthread_mutex_unlock(&w->lock);
                break;
            }
            w->text = grown;
            w->cap = cap;
        }
        memcpy(w->text + w->len, buf, (size_t)n);
        w->len += (size_t)n;
        w->text[w->len] = 0;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->lock);
    }
    if (fd >= 0) close(fd);
    pthread_mutex_lock(&w->lock);
    w->closed = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

log_watch *log_watch_start(const char *path)
{
    log_watch *w = calloc(1, sizeof *w);
    if (!w || mkfifo(path, 0600)) {
        free(w);
        return NULL;
    }
    snprintf(w->path, sizeof w->path, "%s", path);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (!(w->text = calloc(1, 1)) || pthread_create(&w->reader, NULL, read_lines, w)) {
        unlink(path);
        free(w->text);
        free(w);
        return NULL;
    }
    w->cap = 1;
    return w;
}

/* Whole lines of w->text containing needle; under w->lock. */
static int count_locked(const log_watch *w, const char *needle)
{
    int n = 0;
    for (const char *line = w->text; *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol) break;
        const char *hit = strstr(line, needle);
        if (hit && hit + strlen(needle) <= eol) n++;
        line = eol + 1;
    }
    return n;
}

int log_watch_wait(log_watch *w, const char *needle, int n)
{
    pthread_mutex_lock(&w->lock);
    int found;
    while (!(found = count_locked(w, needle) >= n) && !w->closed) pthread_cond_wait(&w->cv, &w->lock);
    pthread_mutex_unlock(&w->lock);
    return found;
}

int log_watch_count(log_watch *w, const char *needle)
{
    pthread_mutex_lock(&w->lock);
    int n = count_locked(w, needle);
    pthread_mutex_unlock(&w->lock);
    return n;
}

void log_watch_closed(log_watch *w)
{
    if (!w->joined) pthread_join(w->reader, NULL);
    w->joined = 1;
}

void log_watch_free(log_watch *w)
{
    log_watch_closed(w);
    unlink(w->path);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cv);
    free(w->text);
    free(w);
}
