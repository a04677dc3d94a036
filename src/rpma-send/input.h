/* The sender's input: a path, "-" for standard input, or a pipe; with
 * --follow a growing file that is tailed like `tail -F`, across rotation.
 * Reads fill a batch until it is full, the input ends, or a stream has been
 * idle for the flush interval, so a slow writer's lines are committed
 * promptly. */
#ifndef SEND_INPUT_H
#define SEND_INPUT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct send_input {
	int fd;
	bool is_regular; /* a regular file never idles: read to the end */
	bool eof;
	const char *name;
	/* --follow: the path to reopen on rotation, and what it was. */
	bool follow;
	const char *path;
	dev_t dev;
	ino_t ino;
	off_t pos;
};

/* Set by SIGINT/SIGTERM: stop reading, commit what was read. */
extern volatile sig_atomic_t send_stop_requested;

/* Returns 0, or -1 after writing a one-line reason into err. */
int send_input_open(struct send_input *in, const char *path, bool follow,
		    char *err, size_t errlen);
void send_input_close(struct send_input *in);

/* Reads up to cap bytes into buf. Returns the count (0 at the end or on a
 * stop request), or -1 with errno set on a read error. */
ssize_t send_input_fill(struct send_input *in, void *buf, size_t cap,
			int idle_ms);

#endif
