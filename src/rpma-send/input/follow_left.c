#include "input/follow_left.h"

#include "cli/log.h"
#include "common/stats.h"

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
	l->id = id;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->pos = pos;
	l->at_ns = send_stats_now_ns();
}

void follow_left_release(struct follow_left *l, const struct follow_queue *q,
			 struct follow_losses *losses)
{
	if (l->fd < 0)
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
}

void follow_left_expire(struct follow_left *l, uint64_t wait_ms,
			const struct follow_queue *q,
			struct follow_losses *losses)
{
	uint64_t hold = wait_ms * FOLLOW_LEFT_HOLD_WAITS;
	if (hold < FOLLOW_LEFT_HOLD_MIN_MS)
		hold = FOLLOW_LEFT_HOLD_MIN_MS;
	if (l->fd >= 0 && send_stats_now_ns() - l->at_ns >= hold * 1000000u)
		follow_left_release(l, q, losses);
}
