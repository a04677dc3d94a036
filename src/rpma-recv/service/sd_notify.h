/* Telling systemd how the service is doing (readiness, reload, stop, a
 * status line) without linking libsystemd: the sd_notify(3) protocol is one
 * datagram of "KEY=VALUE" lines to the AF_UNIX socket named by
 * $NOTIFY_SOCKET, which systemd sets for Type=notify services only. Outside
 * systemd every call is a no-op, so callers need not check where they run.
 *
 * Where rpma-recv sends what (see systemd.service(5), Type=notify):
 *   READY=1       once the listener is up and every log is open, and again
 *                 when a reload has finished;
 *   RELOADING=1   on SIGHUP, before rereading the configuration
 *                 (recv_sd_notify_reloading() adds the timestamp newer
 *                 systemd wants);
 *   STOPPING=1    on SIGTERM or SIGINT, before draining the sessions;
 *   STATUS=...    a one-line summary for `systemctl status`, with READY=1
 *                 at start and whenever it changes (service/status_line.h).
 * Send from the main loop, not from a signal handler: the handler only sets
 * a flag. */
#ifndef RECV_SD_NOTIFY_H
#define RECV_SD_NOTIFY_H

/* Sends state ("READY=1", or several assignments separated by '\n') to
 * $NOTIFY_SOCKET: an absolute path, or an abstract socket when it starts
 * with '@'. Returns 0 when sent, and 0 doing nothing when $NOTIFY_SOCKET is
 * unset; -1 with errno set when it is malformed (EINVAL, EAFNOSUPPORT for
 * kinds of address not supported here, such as vsock:) or the send fails.
 * $NOTIFY_SOCKET is left set, so later calls reach systemd too. Safe to call
 * from several threads. */
int recv_sd_notify(const char *state);

/* recv_sd_notify() of a formatted state, e.g.
 * recv_sd_notifyf("STATUS=serving %u logs", n). A state longer than 1023
 * bytes fails with EMSGSIZE rather than being cut. */
int recv_sd_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "RELOADING=1" with MONOTONIC_USEC=<now>: systemd 253 and later match a
 * reload to the notification by that timestamp and may otherwise end
 * `systemctl reload` early; older ones ignore the field. Send READY=1 when
 * the reload is done, whether it succeeded or not. */
int recv_sd_notify_reloading(void);

#endif
