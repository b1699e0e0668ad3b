#include "backend/device_admission.h"

void admission_init(device_admission *a)
{
    *a = (device_admission){0};
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->room, NULL);
}

void admission_destroy(device_admission *a)
{
    pthread_cond_destroy(&a->room);
    pthread_mutex_destroy(&a->lock);
}

int admission_fits(const device_admission *a, size_t need, size_t capacity)
{
    if (a->in_flight == 0)
        return 1;
    if (a->alone || need == 0)
        return 0;
    return a->admitted <= capacity && need <= capacity - a->admitted;
}

void admission_enter(device_admission *a, size_t need, size_t (*capacity)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&a->lock);
    int waited = 0;
    while (!admission_fits(a, need, a->in_flight ? capacity(ctx) : 0)) {
        waited = 1;
        pthread_cond_wait(&a->room, &a->lock);
    }
    a->waits += (unsigned long long)waited;
    a->in_flight++;
    a->alone = need == 0;
    a->admitted += need;
    pthread_mutex_unlock(&a->lock);
}

void admission_leave(device_admission *a, size_t need)
{
    pthread_mutex_lock(&a->lock);
    a->in_flight--;
    a->admitted -= need;
    if (need == 0 || a->in_flight == 0)
        a->alone = 0;
    pthread_cond_broadcast(&a->room);
    pthread_mutex_unlock(&a->lock);
}
