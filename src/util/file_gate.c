/* The file gate (file_gate.h): waiters sleep on a condition variable; the
 * gate's thread reads the folder's inotify events and wakes them on each,
 * and they look for the file again themselves. */
#include "util/file_gate.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "util/err.h"

struct file_gate {
    char *path;
    int watch_fd; /* inotify on the file's folder */
    int stop_fd;  /* eventfd: the thread ends when it is written */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static int gate_cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_acquire) != 0;
}

static void *gate_thread(void *arg)
{
    file_gate *g = arg;
    struct pollfd fds[2] = {{.fd = g->watch_fd, .events = POLLIN}, {.fd = g->stop_fd, .events = POLLIN}};
    _Alignas(struct inotify_event) char events[4096];
    for (;;) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (fds[1].revents)
            break;
        /* what the events say does not matter: the waiters look at the file */
        if (read(g->watch_fd, events, sizeof events) < 0 && errno != EINTR && errno != EAGAIN)
            break;
        file_gate_wake(g);
    }
    return NULL;
}

/* The folder of path ("." for a bare name), in out[cap]. */
static int folder_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return snprintf(out, cap, ".") >= (int)cap ? -1 : 0;
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= cap)
        return -1;
    memcpy(out, path, n);
    out[n] = 0;
    return 0;
}

file_gate *file_gate_create(const char *path, cuzk_error *err)
{
    char folder[PATH_MAX];
    if (!path || !*path || folder_of(path, folder, sizeof folder))
        return cuzk_fail(err, CUZK_ERR_ARG, "gate '%s': a file path is expected", path ? path : ""), NULL;
    file_gate *g = calloc(1, sizeof *g);
    if (!g || !(g->path = strdup(path))) {
        free(g);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "gate %s: out of memory", path), NULL;
    }
    g->stop_fd = -1;
    g->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (g->watch_fd < 0 || inotify_add_watch(g->watch_fd, folder, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
        cuzk_fail(err, CUZK_ERR_IO, "gate %s: cannot watch the folder %s: %s", path, folder, strerror(errno));
        goto fail;
    }
    if ((g->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
        cuzk_fail(err, CUZK_ERR_IO, "gate %s: eventfd: %s", path, strerror(errno));
        goto fail;
    }
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    if (pthread_create(&g->thread, NULL, gate_thread, g)) {
        pthread_cond_destroy(&g->cv);
        pthread_mutex_destroy(&g->mu);
        cuzk_fail(err, CUZK_ERR_NOMEM, "gate %s: cannot start its thread", path);
        goto fail;
    }
    return g;
fail:
    if (g->watch_fd >= 0)
        close(g->watch_fd);
    if (g->stop_fd >= 0)
        close(g->stop_fd);
    free(g->path);
    free(g);
    return NULL;
}

void file_gate_destroy(file_gate *g)
{
    if (!g)
        return;
    uint64_t one = 1;
    while (write(g->stop_fd, &one, sizeof one) < 0 && errno == EINTR)
        ;
    pthread_join(g->thread, NULL);
    close(g->watch_fd);
    close(g->stop_fd);
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    free(g->path);
    free(g);
}

int file_gate_pass(file_gate *g, const atomic_int *cancel)
{
    pthread_mutex_lock(&g->mu);
    /* the watch predates this look, and the thread wakes us under g->mu,
     * so a file made after the look cannot be missed */
    int rc = 0;
    while (access(g->path, F_OK) != 0) {
        if (gate_cancelled(cancel)) {
            rc = -1;
            break;
        }
        pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    return rc;
}

void file_gate_wake(file_gate *g)
{
    pthread_mutex_lock(&g->mu);
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}
