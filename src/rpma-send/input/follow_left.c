#include "input/follow_left.h"

#include "cli/log.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

void follow_left_hold(struct follow_left *l, int fd, struct follow_id id,
		      const char *name, uint64_t pos,
		      const struct follow_queue *q,
		      struct follow_losses *losses)
{
	follow_left_release(l, q, losses);
	if (fd < 0)
		return;
	l->fd = fd;
	l->held = true;
	l->id = id;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->pos = pos;
	clock_gettime(CLOCK_MONOTONIC, &l->at);
}

void follow_left_release(struct follow_left *l, const struct follow_queue *q,
			 struct follow_losses *losses)
{
	if (!l->held)
		return;
	struct stat st;
	if (fstat(l->fd, &st) == 0 && (uint64_t)st.st_size > l->pos &&
	    !follow_queue_known(q, l->id)) {
		rs_warn("%s: %llu bytes were written to it after it was left "
			"(quiet for --rotate-wait): not shipped; a longer "
			"--rotate-wait ships them",
			l->name,
			(unsigned long long)((uint64_t)st.st_size - l->pos));
		follow_losses_add(losses, l->name, l->pos,
				  (uint64_t)st.st_size);
	}
	close(l->fd);
	l->fd = -1;
	l->held = false;
}

void follow_left_expire(struct follow_left *l, uint64_t wait_ms,
			const struct follow_queue *q,
			struct follow_losses *losses)
{
	if (!l->held)
		return;
	uint64_t hold = wait_ms * FOLLOW_LEFT_HOLD_WAITS;
	if (hold < FOLLOW_LEFT_HOLD_MIN_MS)
		hold = FOLLOW_LEFT_HOLD_MIN_MS;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t held_ms = (int64_t)(now.tv_sec - l->at.tv_sec) * 1000 +
			  (now.tv_nsec - l->at.tv_nsec) / 1000000;
	if (held_ms >= (int64_t)hold)
		follow_left_release(l, q, losses);
}
