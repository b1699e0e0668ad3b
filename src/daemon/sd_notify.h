/* systemd's readiness protocol (Type=notify): one datagram to the socket
 * named by $NOTIFY_SOCKET. Without that variable nothing is sent, so the
 * daemon runs the same under any supervisor. */
#ifndef CUZK_DAEMON_SD_NOTIFY_H
#define CUZK_DAEMON_SD_NOTIFY_H

/* state: e.g. "READY=1", "STOPPING=1", "STATUS=draining". Best effort. */
void sd_notify_state(const char *state);

#endif
