/* Dispatch policy arithmetic, kept apart from the engine's threads so it can
 * be tested alone. The engine's dispatcher thread asks, under its lock,
 * whether and when the next partition may enter synthesis. */
#ifndef CUZK_ENGINE_PACER_CONTROL_H
#define CUZK_ENGINE_PACER_CONTROL_H

/* PI pacer: spaces dispatches by the measured device service time, divided
 * among the device slots, and corrects by the error between the device
 * queue depth and its target:
 *   interval = (ema / slots) * (1 + kp e + ki I),  e = depth - target,
 *   I = integral of e over dispatches (clamped against wind-up),
 *   ema = exponential moving average of service times (alpha = 0.2).
 * Before the first service time is measured there is nothing to space
 * by: the interval is 0, and pacer_admits holds what is in flight to the
 * device slots plus the target queue, so a cold start does not fill every
 * permit (and check out a buffer for each) at once. */
typedef struct {
    double kp, ki, target_depth;
    int slots;
    double ema_s;   /* 0 until the first measurement */
    double integral;
} pacer;

void pacer_init(pacer *p, double kp, double ki, double target_depth, int slots);
void pacer_on_service_time(pacer *p, double seconds);
/* Whether one more partition may be dispatched with `in_flight` already
 * holding permits: always once a service time is known, before that only
 * while in_flight < slots + target_depth. */
int pacer_admits(const pacer *p, int in_flight);
/* The interval to wait after a dispatch made with `depth` partitions queued
 * for the device; updates the integral. */
double pacer_next_interval(pacer *p, double depth);

#endif
