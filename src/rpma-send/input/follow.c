#include "input/follow.h"

#include "cli/log.h"
#include "input/follow_internal.h"
#include "input/follow_track.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FOLLOW_POLL_MS 20    /* without events: look again after */
#define FOLLOW_SAFETY_MS 500 /* with events: look anyway after */

void follower_drop(struct follower *f, int at, bool finished)
{
	follow_watch_forget(&f->watch, f->q.files[at].wd);
	if (finished)
		follow_queue_finish(&f->q, at);
	else
		follow_queue_remove(&f->q, at);
}

void follower_notice(struct follower *f)
{
	follow_track_notice(f);
	follow_truncate_check(f);
}

/* The file being read is at its end: done with it when a newer one
 * waits and it has been quiet long enough (a copytruncate copy at
 * once). */
static bool done_with_current(struct follower *f)
{
	const struct follow_file *ff = &f->q.files[0];
	if (f->q.n < 2 ||
	    (!ff->copy && follow_file_quiet_in_ms(ff, f->rotate_wait_ms) > 0))
		return false;
	char was[PATH_MAX], next[PATH_MAX];
	rs_info("done with %s (%s, %llu bytes); reading %s",
		follow_file_where(ff, was, sizeof(was)),
		ff->copy ? "the copy of a truncated file" : "quiet",
		(unsigned long long)ff->pos,
		follow_file_where(&f->q.files[1], next, sizeof(next)));
	return true;
}

ssize_t follower_read(struct follower *f, void *buf, size_t cap)
{
	follower_notice(f);
	while (f->q.n > 0) {
		struct follow_file *ff = &f->q.files[0];
		if (ff->fd < 0)
			return 0; /* waits to be opened */
		ssize_t n = follow_file_read(ff, buf, cap);
		ff->at_end = n == 0;
		if (n != 0 || !done_with_current(f))
			return n;
		follower_drop(f, 0, true);
	}
	return 0;
}

struct follower *follower_new(const char *path, uint64_t rotate_wait_ms)
{
	struct follower *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->rotate_wait_ms = rotate_wait_ms;
	follow_watch_open(&f->watch, path);
	/* The file there now is held from the start: rotated before the
	 * first read, it is still read first. */
	follower_notice(f);
	return f;
}

void follower_free(struct follower *f)
{
	if (!f)
		return;
	follow_queue_free(&f->q);
	follow_truncate_forget(&f->candidates);
	follow_watch_close(&f->watch);
	free(f);
}

static int queued_at(const struct follower *f, struct follow_id id)
{
	for (int i = 0; i < f->q.n; i++)
		if (f->q.files[i].fd >= 0 &&
		    follow_id_equal(f->q.files[i].id, id))
			return i;
	return -1;
}

bool follower_start_at(struct follower *f, const char *const *paths, int n,
		       uint64_t from)
{
	for (int i = 0; i < n; i++) {
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0) {
			if (fd >= 0)
				close(fd);
			return false;
		}
		/* Held already (the path): taken again from where asked. */
		int was =
		    queued_at(f, (struct follow_id){st.st_dev, st.st_ino});
		if (was >= 0)
			follower_drop(f, was, false);
		struct follow_file ff;
		follow_file_unopened(&ff, paths[i]);
		if (!follow_file_take(&ff, fd, paths[i], i == 0 ? from : 0))
			return false;
		ff.wd = follow_watch_file(&f->watch, ff.fd);
		if (!follow_queue_insert(&f->q, i < f->q.n ? i : f->q.n, &ff)) {
			follow_watch_forget(&f->watch, ff.wd);
			follow_file_close(&ff);
			return false;
		}
	}
	return true;
}

int follower_wake_fd(const struct follower *f)
{
	return f->watch.fd;
}

uint64_t follower_recheck_ms(const struct follower *f)
{
	uint64_t ms =
	    follow_watch_active(&f->watch) ? FOLLOW_SAFETY_MS : FOLLOW_POLL_MS;
	const struct follow_file *ff = &f->q.files[0];
	if (f->q.n > 1 && ff->fd >= 0 && ff->at_end) {
		uint64_t quiet = ff->copy ? 0
					  : (uint64_t)follow_file_quiet_in_ms(
						ff, f->rotate_wait_ms);
		if (quiet < ms)
			ms = quiet;
	}
	return ms;
}

void follower_stop_waiting(struct follower *f)
{
	f->rotate_wait_ms = 0;
}
