/* The line rpma-recv shows in `systemctl status` (STATUS= of sd_notify):
 * the logs it serves, how full each one's pool is and what its archive
 * holds, the senders connected and the bytes committed since it started,
 * e.g.
 *   serving 2 logs (app 41% +2.1 GiB archived, audit 3%), 1 sender
 *   connected, 1.5 GiB committed
 * with the first few logs only ("and 3 more"), so that it stays short. It
 * is sent only when systemd listens ($NOTIFY_SOCKET set at start) and only
 * when its text changed, so the service loop may offer it every turn. */
#ifndef RECV_STATUS_LINE_H
#define RECV_STATUS_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECV_STATUS_NAMES_SHOWN 3 /* names on the line, at most */
#define RECV_STATUS_TEXT_MAX 512  /* the longest text fits, with its NUL */

/* What the line says of one log besides its name. */
struct recv_status_log {
	unsigned fill;	   /* percent of its pool's data range committed */
	uint64_t archived; /* bytes in its archive's files */
};

struct recv_status {
	unsigned nlogs;		  /* logs served (taking new senders) */
	unsigned opening;	  /* logs still to open since the start */
	const char *const *names; /* the first nnames of them, in order */
	/* The same logs' fill and archive (NULL: names only). */
	const struct recv_status_log *usage;
	unsigned nnames;    /* at most nlogs */
	unsigned senders;   /* connected */
	uint64_t committed; /* bytes, over all logs, since the start */
};

/* Writes the text (without "STATUS=") into text, size bytes. A name too
 * long for the line is counted among the "more". */
void recv_status_text(const struct recv_status *st, char *text, size_t size);

/* What was sent, so that an unchanged text is not sent again. */
struct recv_status_line {
	bool enabled;			 /* $NOTIFY_SOCKET was set */
	char sent[RECV_STATUS_TEXT_MAX]; /* the last text, "" before */
};

/* Enabled when $NOTIFY_SOCKET is set now, i.e. under systemd. */
void recv_status_line_init(struct recv_status_line *line);

/* Sends "STATUS=text" when enabled and text changed, or always (when
 * enabled) with head before it, e.g. "READY=1\n". Returns true when it
 * sent. A send that fails is not retried: the next change is sent. */
bool recv_status_line_send(struct recv_status_line *line, const char *head,
			   const char *text);

#endif
