#include "engine/pacer_control.h"

#define PACER_EMA_ALPHA 0.2
#define PACER_INTEGRAL_LIMIT 8.0
#define PACER_MAX_FACTOR 10.0

void pacer_init(pacer *p, double kp, double ki, double target_depth, int slots)
{
    *p = (pacer){kp, ki, target_depth, slots > 0 ? slots : 1, 0, 0};
}

void pacer_on_service_time(pacer *p, double seconds)
{
    p->ema_s = p->ema_s == 0 ? seconds : (1 - PACER_EMA_ALPHA) * p->ema_s + PACER_EMA_ALPHA * seconds;
}

int pacer_admits(const pacer *p, int in_flight)
{
    return p->ema_s > 0 || in_flight < p->slots + p->target_depth;
}

double pacer_next_interval(pacer *p, double depth)
{
    if (p->ema_s == 0)
        return 0;
    double e = depth - p->target_depth;
    p->integral += e;
    if (p->integral > PACER_INTEGRAL_LIMIT)
        p->integral = PACER_INTEGRAL_LIMIT;
    if (p->integral < -PACER_INTEGRAL_LIMIT)
        p->integral = -PACER_INTEGRAL_LIMIT;
    double factor = 1 + p->kp * e + p->ki * p->integral;
    if (factor < 0)
        factor = 0;
    if (factor > PACER_MAX_FACTOR)
        factor = PACER_MAX_FACTOR;
    return p->ema_s / p->slots * factor;
}
