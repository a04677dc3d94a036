#include "input/follow_queue.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

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
	const struct follow_file *ff = &q->files[at];
	struct follow_done *d = &q->done[q->done_next];
	d->id = ff->id;
	clock_gettime(CLOCK_REALTIME, &d->at);
	d->pos = ff->pos;
	d->head_len = ff->head_len;
	d->head_xxh = XXH3_64bits(ff->head, ff->head_len);
	q->done_next = (q->done_next + 1) % FOLLOW_DONE_KEPT;
	if (q->ndone < FOLLOW_DONE_KEPT)
		q->ndone++;
	follow_queue_remove(q, at);
}

int follow_queue_index(const struct follow_queue *q, struct follow_id id)
{
	for (int i = 0; i < q->n; i++)
		if (q->files[i].fd >= 0 && follow_id_equal(q->files[i].id, id))
			return i;
	return -1;
}

bool follow_queue_known(const struct follow_queue *q, struct follow_id id)
{
	return follow_queue_index(q, id) >= 0;
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

uint64_t follow_queue_resume_at(const struct follow_queue *q,
				struct follow_id id, int fd)
{
	/* the newest entry of the file first */
	for (int k = 1; k <= q->ndone; k++) {
		const struct follow_done *d =
		    &q->done[(q->done_next - k + FOLLOW_DONE_KEPT) %
			     FOLLOW_DONE_KEPT];
		if (!follow_id_equal(d->id, id))
			continue;
		uint8_t head[FOLLOW_HEAD];
		struct stat st;
		if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < d->pos ||
		    pread(fd, head, d->head_len, 0) != (ssize_t)d->head_len ||
		    XXH3_64bits(head, d->head_len) != d->head_xxh)
			return 0;
		return d->pos;
	}
	return 0;
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
