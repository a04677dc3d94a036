#include "input/follow_truncate.h"

#include "cli/log.h"
#include "input/follow_fds.h"
#include "input/follow_internal.h"
#include "input/follow_rotated.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COPIES_TRIED 8 /* copies beside the file looked into */

static void forget_one(struct follow_candidates *c, int at)
{
	if (c->c[at].fd >= 0)
		close(c->c[at].fd);
	memmove(&c->c[at], &c->c[at + 1],
		(size_t)(c->n - at - 1) * sizeof(c->c[0]));
	c->n--;
}

void follow_truncate_forget(struct follow_candidates *c)
{
	while (c->n > 0)
		forget_one(c, c->n - 1);
}

void follow_truncate_created(struct follower *f, const char *name,
			     const char *path)
{
	struct follow_candidates *c = &f->candidates;
	struct stat st;
	if (!follow_rotated_is_copy_name(name, f->watch.base) ||
	    follow_rotated_compression(name))
		return;
	int fd = follow_fds_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	if (c->n == FOLLOW_CANDIDATES)
		forget_one(c, 0);
	struct follow_candidate *k = &c->c[c->n++];
	k->fd = fd;
	k->id = (struct follow_id){st.st_dev, st.st_ino};
	snprintf(k->name, sizeof(k->name), "%s", path);
}

/* The copy of the file at `at`, read before it: queued there. */
static bool queue_copy(struct follower *f, int at, int fd, const char *name)
{
	struct follow_file copy;
	const struct follow_file *ff = &f->q.files[at];
	if (!follow_file_take_over(&copy, ff, fd, name))
		return false;
	struct stat st;
	uint64_t size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : ff->pos;
	rs_info("%s was truncated in place with %llu bytes not read yet; "
		"shipping them from %s first",
		ff->name, (unsigned long long)(size - ff->pos), name);
	if (ff->seen > size) {
		rs_warn("%s: %llu bytes written to it between logrotate's copy "
			"and its truncation are in no file (copytruncate's own "
			"loss); not shipped",
			ff->name, (unsigned long long)(ff->seen - size));
		follow_losses_add(&f->losses, ff->name, size, ff->seen);
	}
	copy.wd = -1;
	if (!follow_queue_insert(&f->q, at, &copy)) {
		copy.fd = -1; /* the caller's to close */
		follow_file_close(&copy);
		return false;
	}
	return true;
}

/* A copy made by a later copytruncate before the follower looked (the
 * file truncated again meanwhile): the whole of what the file held between
 * two truncations, read from its first byte, queued at `at`. */
static bool queue_later_copy(struct follower *f, int at,
			     struct follow_candidate *k)
{
	struct follow_file copy;
	follow_file_unopened(&copy, k->name);
	if (!follow_file_take(&copy, k->fd, k->name, 0)) {
		k->fd = -1; /* closed by follow_file_take */
		return false;
	}
	k->fd = -1;
	copy.copy = true;
	copy.wd = -1;
	rs_info("%s was truncated in place again before it was read; "
		"shipping what it held between from %s",
		f->q.files[at].name, k->name);
	if (!follow_queue_insert(&f->q, at, &copy)) {
		follow_file_close(&copy);
		return false;
	}
	return true;
}

/* A copy held since it was created: the newest that continues the file
 * (queued at `at`), then those made after it, oldest first: each holds a
 * later generation of the file, truncated again before the follower
 * looked. The older ones are no use any more. Returns how many were
 * queued. */
static int from_candidates(struct follower *f, int at)
{
	struct follow_candidates *c = &f->candidates;
	for (int i = c->n - 1; i >= 0; i--) {
		struct follow_candidate *k = &c->c[i];
		if (follow_queue_known(&f->q, k->id) ||
		    !follow_file_continued_by(&f->q.files[at], k->fd))
			continue;
		if (!queue_copy(f, at, k->fd, k->name))
			return 0;
		k->fd = -1;
		int queued = 1;
		for (int j = i + 1; j < c->n; j++)
			if (!follow_queue_known(&f->q, c->c[j].id))
				queued +=
				    queue_later_copy(f, at + queued, &c->c[j]);
		follow_truncate_forget(c);
		return queued;
	}
	return 0;
}

/* A copy beside the file, or in a directory inside its own. */
static bool from_directory(struct follower *f, int at)
{
	struct follow_copy copies[COPIES_TRIED];
	int n = follow_rotated_list_near(f->path, copies, COPIES_TRIED);
	for (int i = 0; i < n; i++) {
		struct follow_id id = {copies[i].dev, copies[i].ino};
		if (follow_queue_known(&f->q, id))
			continue;
		int fd = follow_fds_open(copies[i].path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (follow_file_continued_by(&f->q.files[at], fd) &&
		    queue_copy(f, at, fd, copies[i].path))
			return true;
		close(fd);
	}
	return false;
}

/* The file at `at` was truncated in place: its copy first (queued at
 * `at`), then the file from its first byte. Returns where the file is. */
static int truncated(struct follower *f, int at)
{
	const struct follow_file *ff = &f->q.files[at];
	bool read_some = ff->pos > 0 || ff->seen > 0;
	int copies = read_some ? from_candidates(f, at) : 0;
	if (copies)
		at += copies;
	else if (read_some && from_directory(f, at))
		at++;
	else if (ff->seen > ff->pos) {
		rs_warn("%s was truncated in place with %llu bytes not read "
			"yet, and no copy of them was found beside it; they "
			"are not shipped",
			ff->name, (unsigned long long)(ff->seen - ff->pos));
		follow_losses_add(&f->losses, ff->name, ff->pos, ff->seen);
	} else if (read_some)
		rs_info("%s was truncated in place; reading it again from its "
			"first byte",
			ff->name);
	follow_file_rewind(&f->q.files[at]);
	return at;
}

void follow_truncate_check(struct follower *f)
{
	for (int i = 0; i < f->q.n; i++) {
		struct follow_file *ff = &f->q.files[i];
		/* A file watched is looked at when its events say it changed;
		 * one not watched (polling, no watch left) every time. */
		bool look = ff->touched || ff->wd < 0;
		ff->touched = false;
		if (look && follow_file_truncated(ff))
			i = truncated(f, i);
	}
}
