/* The sender's input: a path, "-" for standard input, or a pipe; with
 * --follow a growing file, followed across rotation and truncation
 * (input/follow.h).
 * Reads take what is there; the sender decides when a batch is full or
 * the input idle. */
#ifndef SEND_INPUT_H
#define SEND_INPUT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rs_error;

struct send_input {
	int fd;
	bool is_regular; /* a regular file never idles: read to the end */
	bool eof;
	const char *name;
	/* --follow: the path, followed across rotation (input/follow.h). */
	bool follow;
	const char *path;
	struct follower *follower;
	off_t pos;
};

/* Bytes a regular file (not followed) has left to read, else 0: what a
 * replacement of the log will take. */
uint64_t send_input_size(const struct send_input *in);

/* Returns 0, or RS_E_IO (cannot open path, a directory) or
 * RS_E_INTERRUPTED (a stop signal while a FIFO waited for its writer: the
 * caller says so) with the reason in err. */
int send_input_open(struct send_input *in, const char *path,
		    struct rs_error *err);

/* --follow: path followed as it grows, across rotation and truncation
 * (input/follow.h), a rotated file read until quiet for rotate_wait_ms. A file
 * not there yet is waited for. Returns 0, or RS_E_IO, RS_E_INVAL (standard
 * input) or RS_E_NOMEM with the reason in err. */
int send_input_follow(struct send_input *in, const char *path,
		      uint64_t rotate_wait_ms, struct rs_error *err);

/* A followed input starts with these files, the first from byte `from`
 * (--resume: follower_start_at). False if one cannot be opened. */
bool send_input_follow_from(struct send_input *in, const char *const *paths,
			    int n, uint64_t from);
void send_input_close(struct send_input *in);

/* The line for an input path that open(2) refused with errno e, and its
 * code: RS_E_INTERRUPTED, or RS_E_IO with the fix. */
int send_input_open_failed(const char *path, int e, struct rs_error *err);

/* Reads what is there, up to cap bytes: the count; 0 when the input ended
 * (in->eof), or with --follow when nothing new has arrived yet (try again
 * after a pause); -1 with errno on a read error (EINTR: a signal). Blocks
 * only on a pipe or terminal that has nothing to read. */
ssize_t send_input_read(struct send_input *in, void *buf, size_t cap);

/* The descriptor to poll(2) before reading, or -1 for a regular file, which
 * is always ready. */
int send_input_wait_fd(const struct send_input *in);

/* --follow is stopping: a rotated file's successor is read as soon as
 * the file is read to its end (no grace period). */
void send_input_stop_waiting(struct send_input *in);

/* With --follow, once a read found nothing: the descriptor that wakes the
 * reader when the file may have changed (-1: none), and how long to wait
 * at most before reading again. */
int send_input_wake_fd(const struct send_input *in);
uint64_t send_input_recheck_ms(const struct send_input *in);

/* With --follow: learns of rotations without reading (follower_notice;
 * the follower's own thread does it as events come), when the wake
 * descriptor is readable or the recheck time has passed, also while
 * nothing can be sent. */
void send_input_notice(struct send_input *in);

/* With --follow: how many files or stretches went before they were read
 * (0: none), all said in one line in buf (input/follow_losses.h). */
unsigned send_input_losses(struct send_input *in, char *buf, size_t len);

/* With --follow, after send_input_stop_waiting: how many files or
 * stretches held at the stop were left unread, said in one line in buf. */
unsigned send_input_left(struct send_input *in, char *buf, size_t len);

#endif
