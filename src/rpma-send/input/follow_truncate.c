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

/* Whether the copy open on fd holds what the file ff holds now (from its
 * first byte): a copy made, its truncation still to come. */
static bool is_now(const struct follow_file *ff, int fd)
{
	uint8_t a[FOLLOW_HEAD], b[FOLLOW_HEAD];
	struct stat fs, cs;
	if (fstat(ff->fd, &fs) != 0 || fstat(fd, &cs) != 0 || cs.st_size == 0 ||
	    fs.st_size < cs.st_size)
		return false;
	size_t n = cs.st_size < FOLLOW_HEAD ? (size_t)cs.st_size : FOLLOW_HEAD;
	return pread(ff->fd, a, n, 0) == (ssize_t)n &&
	       pread(fd, b, n, 0) == (ssize_t)n && !memcmp(a, b, n);
}

/* A copy made by a later copytruncate before the follower looked (the
 * file truncated again meanwhile): the whole of what the file held between
 * two truncations, read from its first byte, queued at `at`. Takes fd. */
static bool queue_later_copy(struct follower *f, int at, int fd,
			     const char *name)
{
	struct follow_file copy;
	follow_file_unopened(&copy, name);
	if (!follow_file_take(&copy, fd, name, 0))
		return false; /* fd closed by follow_file_take */
	copy.copy = true;
	copy.wd = -1;
	rs_info("%s was truncated in place again before it was read; "
		"shipping what it held between from %s",
		f->q.files[at].name, name);
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
		int queued = 1, j = i + 1;
		/* up to one that is the file as it is now: logrotate copied it
		 * and has not truncated it yet; it waits for that truncation */
		for (;
		     j < c->n && !is_now(&f->q.files[at + queued], c->c[j].fd);
		     j++)
			if (!follow_queue_known(&f->q, c->c[j].id)) {
				queued += queue_later_copy(
				    f, at + queued, c->c[j].fd, c->c[j].name);
				c->c[j].fd = -1;
			}
		while (j-- > 0)
			forget_one(c, 0);
		return queued;
	}
	return 0;
}

/* The copies listed newer than the one queued at `at` (copies[0 .. newer
 * - 1], newest first), oldest first after it, up to one that is the file
 * as it is now. Returns how many were queued. */
static int queue_newer_copies(struct follower *f, int at,
			      const struct follow_copy *copies, int newer)
{
	int queued = 0;
	for (int j = newer - 1; j >= 0; j--) {
		const struct follow_copy *k = &copies[j];
		if (follow_queue_known(&f->q,
				       (struct follow_id){k->dev, k->ino}))
			continue;
		int fd = follow_fds_open(k->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rs_warn("%s: cannot open this copy of a truncated "
				"file; its %llu bytes are not shipped",
				k->path, (unsigned long long)k->size);
			follow_losses_add(&f->losses, k->path, 0, k->size);
			continue;
		}
		if (is_now(&f->q.files[at + 1 + queued], fd)) {
			close(fd);
			break;
		}
		queued += queue_later_copy(f, at + 1 + queued, fd, k->path);
	}
	return queued;
}

/* A copy beside the file, or in a directory inside its own, that continues
 * it (queued at `at`), then the copies made after it: logrotate renames a
 * copy (.1 to .2) before the follower reads the event of its creation, so
 * the copies of two truncations in one look are found here. Returns how
 * many were queued. */
static int from_directory(struct follower *f, int at)
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
			return 1 + queue_newer_copies(f, at, copies, i);
		close(fd);
	}
	return 0;
}

/* The file at `at` was truncated in place: its copy first (queued at
 * `at`), then the file from its first byte. Returns where the file is. */
static int truncated(struct follower *f, int at)
{
	const struct follow_file *ff = &f->q.files[at];
	bool read_some = ff->pos > 0 || ff->seen > 0;
	int copies = read_some ? from_candidates(f, at) : 0;
	if (!copies && read_some)
		copies = from_directory(f, at);
	if (copies)
		at += copies;
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
