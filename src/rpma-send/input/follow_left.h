/* The file a follower last left as quiet (rpma-send -f with a
 * --rotate-wait): held open a while after, so that what its writer still
 * wrote to it (held up longer than the wait) is named as not shipped
 * (input/follow_losses.h, exit 8) instead of lost unsaid. Released, and
 * looked at, when the next file is left, at the stop, at the end, or
 * once held FOLLOW_LEFT_HOLD_WAITS waits (FOLLOW_LEFT_HOLD_MIN_MS at
 * least): a removed file's space is not kept for long. */
#ifndef SEND_FOLLOW_LEFT_H
#define SEND_FOLLOW_LEFT_H

#include "input/follow_file.h"
#include "input/follow_losses.h"
#include "input/follow_queue.h"

#include <limits.h>
#include <stdint.h>

#define FOLLOW_LEFT_HOLD_WAITS 10
#define FOLLOW_LEFT_HOLD_MIN_MS 10000

struct follow_left {
	int fd; /* the file held, or -1 (set so by follower_new) */
	struct follow_id id;
	char name[PATH_MAX]; /* where it was when left */
	uint64_t pos;	     /* what was read of it */
	uint64_t at_ns;	     /* when it was left (send_stats_now_ns) */
};

/* Holds fd (taken over), file `name` left read to pos; the file held
 * before is released first (follow_left_release). */
void follow_left_hold(struct follow_left *l, int fd, struct follow_id id,
		      const char *name, uint64_t pos,
		      const struct follow_queue *q,
		      struct follow_losses *losses);

/* Closes the file held, if any: what it holds past where it was read is
 * warned of and added to losses, unless the queue reads it again (it
 * came back to the name). */
void follow_left_release(struct follow_left *l, const struct follow_queue *q,
			 struct follow_losses *losses);

/* Releases the file held once it has been held long enough for a wait
 * of wait_ms. */
void follow_left_expire(struct follow_left *l, uint64_t wait_ms,
			const struct follow_queue *q,
			struct follow_losses *losses);

#endif
