#include "input/follow_queue.h"

#include <stdlib.h>
#include <string.h>

static void supersede(struct follow_file *ff)
{
	if (!ff->superseded) {
		ff->superseded = true;
		clock_gettime(CLOCK_REALTIME, &ff->since);
	}
}

bool follow_queue_insert(struct follow_queue *q, int at,
			 const struct follow_file *ff)
{
	if (q->n == q->cap) {
		int cap = q->cap ? 2 * q->cap : 8;
		struct follow_file *more =
		    realloc(q->files, (size_t)cap * sizeof(*more));
		if (!more)
			return false;
		q->files = more;
		q->cap = cap;
	}
	memmove(&q->files[at + 1], &q->files[at],
		(size_t)(q->n - at) * sizeof(*q->files));
	q->files[at] = *ff;
	q->n++;
	if (at > 0)
		supersede(&q->files[at - 1]);
	if (at < q->n - 1)
		supersede(&q->files[at]);
	return true;
}

void follow_queue_remove(struct follow_queue *q, int at)
{
	follow_file_close(&q->files[at]);
	memmove(&q->files[at], &q->files[at + 1],
		(size_t)(q->n - at - 1) * sizeof(*q->files));
	q->n--;
}

void follow_queue_finish(struct follow_queue *q, int at)
{
	q->done[q->done_next].id = q->files[at].id;
	clock_gettime(CLOCK_REALTIME, &q->done[q->done_next].at);
	q->done_next = (q->done_next + 1) % FOLLOW_DONE_KEPT;
	if (q->ndone < FOLLOW_DONE_KEPT)
		q->ndone++;
	follow_queue_remove(q, at);
}

bool follow_queue_known(const struct follow_queue *q, struct follow_id id)
{
	for (int i = 0; i < q->n; i++)
		if (q->files[i].fd >= 0 && follow_id_equal(q->files[i].id, id))
			return true;
	return false;
}

bool follow_queue_finished(const struct follow_queue *q, struct follow_id id,
			   struct timespec mtime)
{
	for (int i = 0; i < q->ndone; i++) {
		struct timespec at = q->done[i].at;
		if (follow_id_equal(q->done[i].id, id) &&
		    (mtime.tv_sec != at.tv_sec ? mtime.tv_sec < at.tv_sec
					       : mtime.tv_nsec <= at.tv_nsec))
			return true;
	}
	return false;
}

bool follow_queue_unopened(const struct follow_queue *q)
{
	for (int i = 0; i < q->n; i++)
		if (q->files[i].fd < 0)
			return true;
	return false;
}

void follow_queue_free(struct follow_queue *q)
{
	while (q->n > 0)
		follow_queue_remove(q, q->n - 1);
	free(q->files);
	q->files = NULL;
	q->cap = 0;
}
