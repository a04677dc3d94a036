#include "input/follow_track.h"

#include "cli/log.h"
#include "error.h"
#include "input/follow_fds.h"
#include "input/follow_internal.h"
#include "input/follow_rotated.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESOLVE_ROUNDS 16 /* opens and event reads in one notice */
#define LOOKS_AT_PATH 4	  /* a file at the name while events come */

/* ---- the events: who came to the name, where they went ---- */

static void in_dir(const struct follower *f, const char *name, char *out)
{
	if (snprintf(out, PATH_MAX, "%s/%s", f->watch.dir, name) >= PATH_MAX)
		out[0] = '\0'; /* too long to open */
}

/* A file came to the followed name: it joins the queue, last. */
static void arrive(struct follower *f)
{
	struct follow_file ff;
	char name[PATH_MAX];
	in_dir(f, f->watch.base, name);
	follow_file_unopened(&ff, name);
	if (!follow_queue_insert(&f->q, f->q.n, &ff)) {
		rs_warn("out of memory: a file that came to %s is not read",
			f->path);
		follow_losses_add(&f->losses, name, 0, FOLLOW_LOSS_WHOLE);
	}
}

/* Something came to name: an open made there before is in doubt, and a
 * file not opened yet that was there is gone (replaced). */
static void came_to(struct follower *f, const char *name)
{
	for (int i = 0; i < f->q.n; i++) {
		struct follow_file *ff = &f->q.files[i];
		if (ff->fd >= 0)
			continue;
		if (ff->try_fd >= 0 && strcmp(ff->tried, name) == 0)
			ff->spoiled = true;
		if (strcmp(ff->name, name) == 0)
			ff->gone = true;
	}
}

static void renamed(struct follower *f, const char *from, const char *to)
{
	for (int i = 0; i < f->q.n; i++) {
		struct follow_file *ff = &f->q.files[i];
		if (ff->fd < 0 && !ff->gone && strcmp(ff->name, from) == 0)
			snprintf(ff->name, sizeof(ff->name), "%s", to);
	}
}

static void went(struct follower *f, const char *name)
{
	for (int i = 0; i < f->q.n; i++) {
		struct follow_file *ff = &f->q.files[i];
		if (ff->fd < 0 && strcmp(ff->name, name) == 0)
			ff->gone = true;
	}
}

/* Events were lost: names followed so far may be wrong, and any file
 * may have changed. */
static void forget_unopened(struct follower *f)
{
	for (int i = f->q.n - 1; i >= 0; i--)
		if (f->q.files[i].fd < 0)
			follower_drop(f, i, false);
		else
			f->q.files[i].touched = true;
	f->unknown = true;
}

static void touched(struct follower *f, int wd)
{
	for (int i = 0; i < f->q.n; i++)
		if (f->q.files[i].wd == wd)
			f->q.files[i].touched = true;
}

/* Whether a file that came to name arrives at the followed name. Once
 * events were lost, one cannot be placed after those lost: the name and
 * the copies' times tell it instead (look_at_path). */
static bool arrives(const struct follower *f, const char *name)
{
	return strcmp(name, f->watch.base) == 0 && !f->unknown;
}

void follow_track_event(void *ctx, const struct follow_event *ev)
{
	struct follower *f = ctx;
	char name[PATH_MAX], to[PATH_MAX];
	in_dir(f, ev->name, name);
	switch (ev->change) {
	case FOLLOW_CAME:
		came_to(f, name);
		if (arrives(f, ev->name))
			arrive(f);
		else if (ev->created && strcmp(ev->name, f->watch.base) != 0)
			follow_truncate_created(f, ev->name, name);
		break;
	case FOLLOW_RENAMED:
		in_dir(f, ev->to, to);
		came_to(f, to);
		renamed(f, name, to);
		if (arrives(f, ev->to))
			arrive(f);
		break;
	case FOLLOW_WENT:
		went(f, name);
		break;
	case FOLLOW_UNKNOWN:
		forget_unopened(f);
		break;
	case FOLLOW_TOUCHED:
		touched(f, ev->wd);
		break;
	}
}

/* ---- opening what the events told of ---- */

/* No descriptor left: said once until one is had again. */
static void no_fds(struct follower *f, const char *name)
{
	if (!f->told_no_fds)
		rs_warn("cannot open %s yet: too many open files (%d files of "
			"%s held or waiting); reading stops there until the "
			"files before it are done",
			name, f->q.n, f->path);
	f->told_no_fds = true;
}

/* Opens a file not opened yet where it is now; the open is kept once the
 * events that follow do not put it in doubt. */
static bool try_open(struct follower *f, struct follow_file *ff)
{
	int fd = follow_fds_open(ff->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 && rs_errno_out_of_files(errno)) {
		no_fds(f, ff->name);
		return false;
	}
	if (fd < 0) {
		ff->missed = errno == ENOENT;
		ff->gone = !ff->missed;
		if (ff->gone)
			rs_warn("cannot open %s, which held %s: %s; not read",
				ff->name, f->path, strerror(errno));
		return false;
	}
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		close(fd);
		ff->gone = true;
		return false;
	}
	ff->try_fd = fd;
	ff->try_id = (struct follow_id){st.st_dev, st.st_ino};
	snprintf(ff->tried, sizeof(ff->tried), "%s", ff->name);
	ff->spoiled = ff->missed = false;
	return true;
}

static int try_opening(struct follower *f)
{
	int tried = 0;
	for (int i = 0; i < f->q.n; i++) {
		struct follow_file *ff = &f->q.files[i];
		if (ff->fd < 0 && !ff->gone && ff->try_fd < 0)
			tried += try_open(f, ff);
	}
	return tried;
}

/* Where to read the file open on fd (name): 0, or where it ended when it
 * was read to its end before and came back to the name (said so). */
static uint64_t resume_at(const struct follower *f, struct follow_id id, int fd,
			  const char *name)
{
	uint64_t from = follow_queue_resume_at(&f->q, id, fd);
	if (from)
		rs_info("%s, read to its end before, came back to %s: read on "
			"from byte %llu",
			name, f->path, (unsigned long long)from);
	return from;
}

/* The open of the file at `at` is kept: it is read in its turn. */
static void keep(struct follower *f, int at)
{
	struct follow_file *ff = &f->q.files[at];
	int fd = ff->try_fd;
	ff->try_fd = -1;
	if (follow_queue_known(&f->q, ff->try_id)) {
		close(fd); /* the event of a file known already */
		follower_drop(f, at, false);
		return;
	}
	uint64_t from = resume_at(f, ff->try_id, fd, ff->tried);
	if (!follow_file_take(ff, fd, ff->tried, from)) {
		follower_drop(f, at, false);
		return;
	}
	ff->wd = follow_watch_file(&f->watch, ff->fd);
	f->told_no_fds = false;
}

/* After the events that followed the opens: each open kept, or given up
 * to be made again where the file is now; files gone are said so. */
static void settle(struct follower *f, int events)
{
	for (int i = f->q.n - 1; i >= 0; i--) {
		struct follow_file *ff = &f->q.files[i];
		if (ff->fd >= 0)
			continue;
		if (ff->try_fd >= 0 && !ff->spoiled) {
			keep(f, i);
			continue;
		}
		if (ff->try_fd >= 0) {
			close(ff->try_fd);
			ff->try_fd = -1;
		}
		/* Not where the events say, and no event to come: events
		 * were lost, and where it went is found by the copies' times
		 * (look_at_path). */
		if (ff->missed && events == 0 &&
		    !follow_watch_midway(&f->watch)) {
			follower_drop(f, i, false);
			f->unknown = true;
			continue;
		}
		if (ff->gone) {
			rs_warn("a file that held %s went (last as %s) before "
				"it could be opened; what it held is not "
				"shipped",
				f->path, ff->name);
			follow_losses_add(&f->losses, ff->name, 0,
					  FOLLOW_LOSS_WHOLE);
			follower_drop(f, i, false);
		}
	}
}

/* Opens what the events told of, until no event comes any more. */
static void resolve(struct follower *f)
{
	for (int round = 0; round < RESOLVE_ROUNDS; round++) {
		if (!follow_queue_unopened(&f->q))
			return;
		int tried = try_opening(f);
		int events =
		    follow_watch_drain(&f->watch, follow_track_event, f);
		settle(f, events);
		if (tried == 0 && events == 0)
			return;
	}
}

/* ---- where events were lost or are not to be had ---- */

static struct timespec coarse_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return t;
}

enum take { TAKEN, TAKE_LATER, TAKE_LOST };

/* Opens path as a file that held the name, read before the one queued at
 * `at` (f->q.n: after all). TAKE_LATER: not now (no descriptor to spare,
 * out of memory, or the name changed meanwhile: looked at again);
 * TAKE_LOST: it cannot be read. */
static enum take take_at(struct follower *f, const char *path,
			 struct follow_id id, int at)
{
	int fd = follow_fds_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 && rs_errno_out_of_files(errno))
		no_fds(f, path);
	if (fd < 0 && errno != ENOENT && !rs_errno_out_of_files(errno)) {
		rs_warn("cannot open %s, which held %s: %s; not read", path,
			f->path, strerror(errno));
		return TAKE_LOST;
	}
	if (fd < 0 || fstat(fd, &st) != 0 ||
	    !follow_id_equal(id, (struct follow_id){st.st_dev, st.st_ino})) {
		if (fd >= 0)
			close(fd);
		return TAKE_LATER;
	}
	struct follow_file ff;
	follow_file_unopened(&ff, path);
	if (!follow_file_take(&ff, fd, path, resume_at(f, id, fd, path)))
		return TAKE_LATER;
	ff.wd = follow_watch_file(&f->watch, ff.fd);
	if (!follow_queue_insert(&f->q, at, &ff)) {
		follow_watch_forget(&f->watch, ff.wd);
		follow_file_close(&ff);
		return TAKE_LATER;
	}
	f->told_no_fds = false;
	return TAKEN;
}

/* The rotated copies beside the file modified since everything was last
 * known held the name meanwhile (a file is modified when it is created),
 * however many: queued oldest first, before the one queued at `at`
 * (f->q.n: after all). False when one cannot be opened yet: none after it
 * is taken, and the next look tries again from there. */
static bool take_by_times(struct follower *f, int at)
{
	struct follow_copy *copies;
	int n = follow_rotated_list_since(f->path, f->settled_at, &copies);
	bool all = true;
	for (int i = n - 1; i >= 0 && all; i--) {
		const struct follow_copy *c = &copies[i];
		struct follow_id id = {c->dev, c->ino};
		if (follow_queue_known(&f->q, id) ||
		    follow_queue_finished(&f->q, id, c->mtime))
			continue;
		if (c->compressed) {
			rs_warn("%s held %s while no event told of it, and was "
				"compressed before it was read; not shipped",
				c->path, f->path);
			follow_losses_add(&f->losses, c->path, 0,
					  FOLLOW_LOSS_WHOLE);
			continue;
		}
		enum take t = take_at(f, c->path, id, at);
		all = t != TAKE_LATER;
		at += t == TAKEN;
		if (t == TAKE_LOST)
			follow_losses_add(&f->losses, c->path, 0,
					  FOLLOW_LOSS_WHOLE);
		else if (t == TAKEN)
			rs_info("%s held %s while no event told of it (by its "
				"time); reading it in its turn",
				c->path, f->path);
	}
	free(copies);
	return all;
}

/* The file at the name, if it is not known: at the start, when polling,
 * or where events were lost. Events not taken yet may tell how it came,
 * and come first. */
static void look_at_path(struct follower *f)
{
	for (int look = 0; look < LOOKS_AT_PATH; look++) {
		struct stat st;
		if (follow_queue_unopened(&f->q) || stat(f->path, &st) != 0 ||
		    S_ISDIR(st.st_mode))
			return;
		struct follow_id id = {st.st_dev, st.st_ino};
		int held = follow_queue_index(&f->q, id);
		if (held >= 0) {
			/* No rename since it came; those before it whose
			 * events were lost are found by their times, read
			 * before it (after it if it is being read). */
			if (held == 0 && f->q.files[0].pos > 0)
				held = 1;
			if (!f->unknown || take_by_times(f, held))
				f->unknown = false;
			return;
		}
		if (follow_watch_drain(&f->watch, follow_track_event, f) > 0) {
			resolve(f);
			continue;
		}
		if (f->q.n > 0 &&
		    (f->unknown || !follow_watch_active(&f->watch)) &&
		    !take_by_times(f, f->q.n)) {
			f->unknown = true; /* tried again at the next look */
			return;
		}
		bool had = f->q.n > 0;
		enum take t = take_at(f, f->path, id, f->q.n);
		/* Not taken now (the name changed hands since it was looked
		 * at, or no descriptor): what held it is a copy by the next
		 * look, found by its time. Settled, its events were gone. */
		f->unknown = t == TAKE_LATER && had;
		if (t == TAKEN && had)
			rs_info("%s now names another file; reading the one "
				"before until it has been quiet for %llu ms",
				f->path, (unsigned long long)f->rotate_wait_ms);
		return;
	}
}

void follow_track_notice(struct follower *f)
{
	struct timespec began = coarse_now();
	int events = follow_watch_drain(&f->watch, follow_track_event, f);
	resolve(f);
	/* A file that came to the name has its event; the name itself is
	 * looked at when none came (the first look, a look of the reader or
	 * of the safety recheck), or when events were lost or are not to be
	 * had. */
	if (events == 0 || f->unknown || !follow_watch_active(&f->watch))
		look_at_path(f);
	if (!f->unknown && !follow_queue_unopened(&f->q))
		f->settled_at = began;
}
