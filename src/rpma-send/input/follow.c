#include "input/follow.h"

#include "cli/fd_limit.h"
#include "cli/log.h"
#include "common/stats.h"
#include "input/follow_fds.h"
#include "input/follow_internal.h"
#include "input/follow_track.h"

#include <errno.h>
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

void follower_notice_locked(struct follower *f)
{
	follow_track_notice(f);
	follow_truncate_check(f);
	follow_left_expire(&f->left, f->rotate_wait_ms, &f->q, &f->losses);
}

void follower_notice(struct follower *f)
{
	follow_background_woken(f);
	if (f->bg.running)
		return; /* its thread noticed already */
	pthread_mutex_lock(&f->lock);
	follower_notice_locked(f);
	pthread_mutex_unlock(&f->lock);
}

uint64_t follower_look_ms(const struct follower *f)
{
	return follow_watch_active(&f->watch) ? FOLLOW_SAFETY_MS
					      : FOLLOW_POLL_MS;
}

static uint64_t confirm_ms(const struct follower *f)
{
	return f->rotate_wait_ms < FOLLOW_CONFIRM_MS ? f->rotate_wait_ms
						     : FOLLOW_CONFIRM_MS;
}

/* Milliseconds until the second look at the front file, whose first
 * found it quiet at quiet_at_ns (0 then: none yet). */
static int64_t second_look_in_ms(const struct follower *f,
				 const struct follow_file *ff)
{
	if (!ff->quiet_at_ns)
		return 0;
	uint64_t since_ms = (send_stats_now_ns() - ff->quiet_at_ns) / 1000000u;
	return since_ms < confirm_ms(f) ? (int64_t)(confirm_ms(f) - since_ms)
					: 0;
}

/* Milliseconds before the file at the front, at its end, may be left:
 * until it has been quiet for the wait by its times, then until the
 * second look (a copytruncate copy at once). */
static int64_t leave_in_ms(const struct follower *f)
{
	const struct follow_file *ff = &f->q.files[0];
	if (ff->copy)
		return 0;
	int64_t quiet = follow_file_quiet_in_ms(ff, f->rotate_wait_ms);
	return quiet > 0 ? quiet : second_look_in_ms(f, ff);
}

/* Whether the file at the front, at its end, was quiet for the wait at
 * two looks confirm_ms apart: the first starts the second's wait, and
 * anything written to it meanwhile starts it all over. */
static bool quiet_at_two_looks(struct follower *f, struct follow_file *ff)
{
	if (follow_file_quiet_in_ms(ff, f->rotate_wait_ms) > 0) {
		ff->quiet_at_ns = 0; /* written meanwhile */
		return false;
	}
	if (confirm_ms(f) == 0)
		return true;
	if (!ff->quiet_at_ns) {
		ff->quiet_at_ns = send_stats_now_ns();
		return false; /* looked at again after confirm_ms */
	}
	return second_look_in_ms(f, ff) == 0;
}

/* The file being read is at its end: done with it when a newer one
 * waits and it has been quiet long enough, at two looks. */
static bool done_with_current(struct follower *f)
{
	struct follow_file *ff = &f->q.files[0];
	if (f->q.n < 2 || (!ff->copy && !quiet_at_two_looks(f, ff)))
		return false;
	char was[PATH_MAX], next[PATH_MAX];
	rs_info("done with %s (%s, %llu bytes); reading %s",
		follow_file_where(ff, was, sizeof(was)),
		ff->copy ? "the copy of a truncated file" : "quiet",
		(unsigned long long)ff->pos,
		follow_file_where(&f->q.files[1], next, sizeof(next)));
	if (!ff->copy && f->rotate_wait_ms > 0) {
		follow_left_hold(&f->left, ff->fd, ff->id, was, ff->pos, &f->q,
				 &f->losses);
		ff->fd = -1; /* held now */
	}
	return true;
}

static ssize_t read_locked(struct follower *f, void *buf, size_t cap)
{
	follower_notice_locked(f);
	bool opened_again = false;
	while (f->q.n > 0) {
		struct follow_file *ff = &f->q.files[0];
		if (ff->fd < 0 && !opened_again) {
			/* A file done may have freed a descriptor for it. */
			follower_notice_locked(f);
			opened_again = true;
			continue;
		}
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

ssize_t follower_read(struct follower *f, void *buf, size_t cap)
{
	follow_background_woken(f);
	pthread_mutex_lock(&f->lock);
	ssize_t n = read_locked(f, buf, cap);
	f->reader_waits = n == 0;
	int e = errno;
	pthread_mutex_unlock(&f->lock);
	errno = e;
	return n;
}

struct follower *follower_new(const char *path, uint64_t rotate_wait_ms)
{
	struct follower *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->rotate_wait_ms = rotate_wait_ms;
	f->bg.stop_fd = f->bg.wake_fd = f->left.fd = -1;
	pthread_mutex_init(&f->lock, NULL);
	rs_fd_limit_raise(); /* each file held costs one (input/follow_fds.h) */
	follow_watch_open(&f->watch, path);
	/* The file there now is held from the start: rotated before the
	 * first read, it is still read first. */
	follower_notice_locked(f);
	return f;
}

bool follower_watch_in_background(struct follower *f)
{
	return follow_background_start(f);
}

void follower_free(struct follower *f)
{
	if (!f)
		return;
	follow_background_stop(f);
	follow_left_release(&f->left, &f->q, &f->losses);
	pthread_mutex_destroy(&f->lock);
	follow_queue_free(&f->q);
	follow_truncate_forget(&f->candidates);
	follow_watch_close(&f->watch);
	free(f);
}

static bool start_at_locked(struct follower *f, const char *const *paths, int n,
			    uint64_t from)
{
	for (int i = 0; i < n; i++) {
		int fd = follow_fds_open(paths[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0) {
			if (fd >= 0)
				close(fd);
			return false;
		}
		/* Held already (the path): taken again from where asked. */
		int was = follow_queue_index(
		    &f->q, (struct follow_id){st.st_dev, st.st_ino});
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

bool follower_start_at(struct follower *f, const char *const *paths, int n,
		       uint64_t from)
{
	pthread_mutex_lock(&f->lock);
	bool ok = start_at_locked(f, paths, n, from);
	pthread_mutex_unlock(&f->lock);
	return ok;
}

int follower_wake_fd(const struct follower *f)
{
	return f->bg.running ? f->bg.wake_fd : f->watch.fd;
}

static uint64_t recheck_locked(const struct follower *f)
{
	uint64_t ms = follower_look_ms(f);
	const struct follow_file *ff = &f->q.files[0];
	if (f->q.n > 1 && ff->fd >= 0 && ff->at_end) {
		uint64_t leave = (uint64_t)leave_in_ms(f);
		if (leave < ms)
			ms = leave;
	}
	return ms;
}

uint64_t follower_recheck_ms(struct follower *f)
{
	pthread_mutex_lock(&f->lock);
	uint64_t ms = recheck_locked(f);
	pthread_mutex_unlock(&f->lock);
	return ms;
}
