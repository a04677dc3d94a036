#include "input/follow_watch.h"

#include "common/stats.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* A name in the directory that comes, goes or changes what it names, and
 * the directory itself going. */
#define DIR_EVENTS                                                             \
	(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB |     \
	 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
/* While the directory is missing: something came to its nearest ancestor. */
#define ABOVE_EVENTS                                                           \
	(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
/* The file itself: written, truncated, renamed or removed. */
#define FILE_EVENTS (IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)
/* A rename's two halves are queued by one system call: a first half left
 * alone this long was a move out of the directory. */
#define HALF_RENAME_NS 50000000ull

/* The nearest existing ancestor of the directory, watched for what comes
 * to it (the next step down, perhaps). */
static void watch_above(struct follow_watch *w)
{
	char up[PATH_MAX];
	snprintf(up, sizeof(up), "%s", w->dir);
	for (;;) {
		char copy[PATH_MAX];
		snprintf(copy, sizeof(copy), "%s", up);
		snprintf(up, sizeof(up), "%s", dirname(copy));
		int wd = inotify_add_watch(w->fd, up, ABOVE_EVENTS);
		if (wd >= 0) {
			if (w->above_wd >= 0 && w->above_wd != wd)
				inotify_rm_watch(w->fd, w->above_wd);
			w->above_wd = wd;
			return;
		}
		if (strcmp(up, "/") == 0 || strcmp(up, ".") == 0)
			return; /* nothing to watch: the safety recheck looks */
	}
}

/* Watches the directory if it is there (true), else its ancestor. */
static bool watch_dir(struct follow_watch *w)
{
	w->dir_wd = inotify_add_watch(w->fd, w->dir, DIR_EVENTS);
	if (w->dir_wd < 0) {
		watch_above(w);
		return false;
	}
	if (w->above_wd >= 0)
		inotify_rm_watch(w->fd, w->above_wd);
	w->above_wd = -1;
	return true;
}

void follow_watch_open(struct follow_watch *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->fd = w->dir_wd = w->above_wd = -1;
	char dcopy[PATH_MAX], bcopy[PATH_MAX];
	snprintf(dcopy, sizeof(dcopy), "%s", path);
	snprintf(bcopy, sizeof(bcopy), "%s", path);
	snprintf(w->dir, sizeof(w->dir), "%s", dirname(dcopy));
	snprintf(w->base, sizeof(w->base), "%s", basename(bcopy));
	const char *poll_only = getenv("RPMA_SEND_FOLLOW_POLL");
	if (poll_only && strcmp(poll_only, "1") == 0)
		return;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd >= 0)
		watch_dir(w);
}

void follow_watch_close(struct follow_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = w->dir_wd = w->above_wd = -1;
}

int follow_watch_file(struct follow_watch *w, int fd)
{
	if (w->fd < 0)
		return -1;
	/* By the descriptor, not the name: the file may have been renamed
	 * or removed already, and the name may be a symlink. */
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return inotify_add_watch(w->fd, link, FILE_EVENTS);
}

void follow_watch_forget(struct follow_watch *w, int wd)
{
	if (w->fd >= 0 && wd >= 0)
		inotify_rm_watch(w->fd, wd);
}

static void tell(follow_event_fn fn, void *ctx, enum follow_change change,
		 bool created, const char *name, const char *to)
{
	struct follow_event ev = {.change = change, .created = created};
	snprintf(ev.name, sizeof(ev.name), "%s", name);
	snprintf(ev.to, sizeof(ev.to), "%s", to ? to : "");
	fn(ctx, &ev);
}

/* A first half of a rename that waits is told as a departure. */
static void half_went(struct follow_watch *w, follow_event_fn fn, void *ctx)
{
	if (w->cookie)
		tell(fn, ctx, FOLLOW_WENT, false, w->moved_from, NULL);
	w->cookie = 0;
}

/* The directory itself was removed or renamed: waited for again. */
static void dir_went(struct follow_watch *w, const struct inotify_event *ev,
		     follow_event_fn fn, void *ctx)
{
	half_went(w, fn, ctx);
	if (!(ev->mask & IN_IGNORED))
		inotify_rm_watch(w->fd, w->dir_wd);
	w->dir_wd = -1;
	watch_dir(w);
	tell(fn, ctx, FOLLOW_UNKNOWN, false, "", NULL);
}

/* An event on a name in the directory. */
static void name_event(struct follow_watch *w, const struct inotify_event *ev,
		       follow_event_fn fn, void *ctx)
{
	if ((ev->mask & IN_MOVED_TO) && w->cookie && ev->cookie == w->cookie) {
		w->cookie = 0;
		tell(fn, ctx, FOLLOW_RENAMED, false, w->moved_from, ev->name);
		return;
	}
	half_went(w, fn, ctx);
	if (ev->mask & IN_MOVED_FROM) {
		w->cookie = ev->cookie ? ev->cookie : 1;
		snprintf(w->moved_from, sizeof(w->moved_from), "%s", ev->name);
		w->moved_from_ns = send_stats_now_ns();
	} else if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
		tell(fn, ctx, FOLLOW_CAME, (ev->mask & IN_CREATE) != 0,
		     ev->name, NULL);
	} else if (ev->mask & IN_DELETE) {
		tell(fn, ctx, FOLLOW_WENT, false, ev->name, NULL);
	}
}

static void take_event(struct follow_watch *w, const struct inotify_event *ev,
		       follow_event_fn fn, void *ctx)
{
	if (ev->mask & IN_Q_OVERFLOW) {
		w->cookie = 0;
		tell(fn, ctx, FOLLOW_UNKNOWN, false, "", NULL);
	} else if (ev->wd == w->above_wd && w->dir_wd < 0) {
		if (ev->mask & IN_IGNORED)
			w->above_wd = -1;
		if (watch_dir(w))
			tell(fn, ctx, FOLLOW_UNKNOWN, false, "", NULL);
	} else if (ev->wd == w->dir_wd &&
		   (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF))) {
		dir_went(w, ev, fn, ctx);
	} else if (ev->wd == w->dir_wd && ev->len > 0) {
		name_event(w, ev, fn, ctx);
	} else if (ev->wd != w->dir_wd && ev->wd != w->above_wd) {
		struct follow_event touched = {.change = FOLLOW_TOUCHED,
					       .wd = ev->wd};
		fn(ctx, &touched);
	}
}

int follow_watch_drain(struct follow_watch *w, follow_event_fn fn, void *ctx)
{
	if (w->fd < 0)
		return 0;
	/* A directory missing so far may be there now. */
	if (w->dir_wd < 0 && watch_dir(w))
		tell(fn, ctx, FOLLOW_UNKNOWN, false, "", NULL);
	int n = 0;
	char buf[4096]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t got;
	/* When the read that found the queue empty was asked for: a rename's
	 * first half is a departure once the other half was not there that
	 * long after it. Not the time of this check: a thread held off the
	 * CPU between the two (as under emulation) would take a rename for
	 * a departure. */
	uint64_t asked = send_stats_now_ns();
	while ((got = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + got; n++) {
			const struct inotify_event *ev = (const void *)p;
			take_event(w, ev, fn, ctx);
			p += sizeof(*ev) + ev->len;
		}
		asked = send_stats_now_ns();
	}
	if (w->cookie && asked >= w->moved_from_ns + HALF_RENAME_NS)
		half_went(w, fn, ctx);
	return n;
}
