/* The follower at a stop (SIGINT, SIGTERM): what the files held when the
 * signal came is its backlog; what of it was not read when the sender
 * ends is said, as are the losses (input/follow_losses.h). */
#include "input/follow.h"

#include "input/follow_internal.h"

#include <limits.h>
#include <sys/stat.h>

void follower_stop_waiting(struct follower *f)
{
	pthread_mutex_lock(&f->lock);
	/* What was written to the file left before the signal counts; what
	 * comes after it is not the sender's to read. */
	follow_left_release(&f->left, &f->q, &f->losses);
	f->rotate_wait_ms = 0;
	for (int i = 0; i < f->q.n; i++) {
		struct follow_file *ff = &f->q.files[i];
		struct stat st;
		ff->stop_marked = true;
		ff->stop_size = ff->seen;
		if (ff->fd >= 0 && fstat(ff->fd, &st) == 0 &&
		    (uint64_t)st.st_size > ff->stop_size)
			ff->stop_size = (uint64_t)st.st_size;
	}
	pthread_mutex_unlock(&f->lock);
}

unsigned follower_losses(struct follower *f, char *buf, size_t len)
{
	pthread_mutex_lock(&f->lock);
	follow_left_release(&f->left, &f->q, &f->losses);
	unsigned n = f->losses.n;
	if (n)
		follow_losses_describe(&f->losses, "not shipped", buf, len);
	pthread_mutex_unlock(&f->lock);
	return n;
}

/* The backlog left: each file held at the signal, from where reading
 * got to up to its size then (not opened yet: all of it), named where it
 * is now (a file opened at the name was rotated since). */
static void backlog_left(const struct follower *f, struct follow_losses *l)
{
	char where[PATH_MAX];
	for (int i = 0; i < f->q.n; i++) {
		const struct follow_file *ff = &f->q.files[i];
		if (!ff->stop_marked)
			continue;
		if (ff->fd < 0)
			follow_losses_add(l, ff->name, 0, FOLLOW_LOSS_WHOLE);
		else if (ff->pos < ff->stop_size)
			follow_losses_add(
			    l, follow_file_where(ff, where, sizeof(where)),
			    ff->pos, ff->stop_size);
	}
}

unsigned follower_left(struct follower *f, char *buf, size_t len)
{
	struct follow_losses left = {0};
	pthread_mutex_lock(&f->lock);
	backlog_left(f, &left);
	pthread_mutex_unlock(&f->lock);
	if (left.n)
		follow_losses_describe(&left, "left unread at the stop", buf,
				       len);
	return left.n;
}
