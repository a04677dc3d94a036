/* The one error convention of the project below each program's main(): a
 * fallible function returns 0 on success or a negative enum rs_errc, and
 * when the caller passes a struct rs_error (it may pass NULL) also one line
 * of text saying what went wrong and, where there is one, the fix. The
 * library never prints and never names a program or an option; each
 * program maps a code to its exit status in one place (rpma-send's
 * send_exit_status.c, rpma-recv's recv_exit_status.c), and decides how to
 * report it. */
#ifndef RS_ERROR_H
#define RS_ERROR_H

#include <stdbool.h>
#include <stddef.h>

enum rs_errc {
	RS_E_NOMEM = -1,       /* out of memory or locked memory */
	RS_E_PROVIDER = -2,    /* a verbs or rdma_cm call failed */
	RS_E_UNREACHABLE = -3, /* no route, nobody listening, timed out */
	RS_E_REJECTED = -4,    /* the peer refused; see the reject info */
	RS_E_LOST = -5,	       /* an established connection went away */
	RS_E_MALFORMED = -6,   /* bytes from the wire or the user are bad */
	RS_E_VERSION = -7,     /* a protocol version we do not speak */
	RS_E_AUTH = -8,	       /* authentication missing or wrong */
	RS_E_INVAL = -9,       /* a request that cannot work as asked */
	RS_E_TIMEOUT = -10,    /* a peer did not answer in time */
	RS_E_BUSY = -11,       /* the peer serves someone else right now */
	RS_E_FULL = -12,       /* the log has no room left */
	RS_E_DIVERGED = -13,   /* logs that must hold the same bytes do not: not
				  a prefix of the input, replicas that differ */
	RS_E_DEGRADED = -14,   /* done, on fewer replicas than were asked for */
	RS_E_IO = -15,	       /* a local file or device cannot be used */
	RS_E_NODEV = -16,      /* no RDMA device on this machine: it will not
				  come back by waiting */
	RS_E_INTERRUPTED = -17, /* SIGINT or SIGTERM asked the work to stop */
	RS_E_INPUT_LOST = -18,	/* done, but some input went before it could
				   be read (a followed file rotated away) */
	RS_E_INPUT_LEFT = -19,	/* stopped with input left to read (what a
				   followed file held at the stop signal) */
};
#define RS_E_LAST RS_E_INPUT_LEFT /* the lowest code, for tests */

/* Worth trying again later: the peer may come back or become free. */
#define RS_ERRC_TRANSIENT(code)                                                \
	((code) == RS_E_UNREACHABLE || (code) == RS_E_LOST ||                  \
	 (code) == RS_E_BUSY || (code) == RS_E_TIMEOUT)

struct rs_error {
	int code;      /* enum rs_errc, or 0 */
	int sys_errno; /* errno behind it, or 0 */
	char msg[320];
};

/* Records code, sys_errno and the formatted text in err (when not NULL) and
 * returns code, so a failure is one statement: return rs_error_set(...). */
int rs_error_set(struct rs_error *err, int code, int sys_errno, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

/* Puts "PREFIX: " before err's text and returns its code. */
int rs_error_wrap(struct rs_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The text of err, or a generic sentence for code when err has none. */
const char *rs_error_str(const struct rs_error *err);

/* Whether errno e says the process (EMFILE) or the system (ENFILE) has as
 * many files open as it may: a limit to raise, not a broken call. */
bool rs_errno_out_of_files(int e);

#endif
