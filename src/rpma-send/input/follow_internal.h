/* The follower's state, shared by the files that make it up (follow.c:
 * reading; follow_track.c: which files held the name; follow_truncate.c:
 * a file truncated in place; follow_background.c: its own thread, which
 * notices). Nothing outside input/follow*.c includes it. Everything here
 * is used with `lock` held, but for path, watch.fd and bg, which do not
 * change while the thread runs. */
#ifndef SEND_FOLLOW_INTERNAL_H
#define SEND_FOLLOW_INTERNAL_H

#include "input/follow_background.h"
#include "input/follow_left.h"
#include "input/follow_losses.h"
#include "input/follow_queue.h"
#include "input/follow_truncate.h"
#include "input/follow_watch.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct follower {
	char path[PATH_MAX];
	uint64_t rotate_wait_ms;
	struct follow_watch watch;
	struct follow_queue q;
	struct follow_candidates candidates;
	/* Events were lost: which files held the name is found from the
	 * files' times once the name holds one not known. */
	bool unknown;
	/* Until then (the file system's clock) every file that came to the
	 * name is known. */
	struct timespec settled_at;
	bool told_no_fds;	     /* said that files wait for descriptors */
	struct follow_losses losses; /* what went before it was read */
	struct follow_left left;     /* the file last left as quiet */
	/* The reader found nothing to read: its thread wakes it when events
	 * come (else they come while the sender cannot read anyway). */
	bool reader_waits;
	pthread_mutex_t lock;
	struct follow_background bg;
};

/* Takes the file at `at` out of the queue: read to its end (finished)
 * or not to be read. */
void follower_drop(struct follower *f, int at, bool finished);

/* follower_notice's work, the lock held. */
void follower_notice_locked(struct follower *f);

/* Milliseconds between two looks when no event comes. */
uint64_t follower_look_ms(const struct follower *f);

#endif
