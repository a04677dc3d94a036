#include "input/follow_watch.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* A name in the directory that comes, goes or changes what it names. */
#define DIR_EVENTS                                                             \
	(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB)
/* The file itself: written, truncated, renamed or removed. */
#define FILE_EVENTS (IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)

void follow_watch_open(struct follow_watch *w, const char *path)
{
	w->fd = w->dir_wd = -1;
	w->cookie = 0;
	w->cookie_at = -1;
	char dcopy[PATH_MAX], bcopy[PATH_MAX];
	snprintf(dcopy, sizeof(dcopy), "%s", path);
	snprintf(bcopy, sizeof(bcopy), "%s", path);
	snprintf(w->dir, sizeof(w->dir), "%s", dirname(dcopy));
	snprintf(w->base, sizeof(w->base), "%s", basename(bcopy));
	const char *poll_only = getenv("RPMA_SEND_FOLLOW_POLL");
	if (poll_only && strcmp(poll_only, "1") == 0)
		return;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		return;
	/* A directory that does not exist yet is found by polling. */
	w->dir_wd = inotify_add_watch(w->fd, w->dir, DIR_EVENTS);
}

void follow_watch_close(struct follow_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = w->dir_wd = -1;
}

int follow_watch_file(struct follow_watch *w, int fd)
{
	if (w->fd < 0)
		return -1;
	/* By the descriptor, not the name: the file may have been renamed
	 * already, and the name may be a symlink. */
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return inotify_add_watch(w->fd, link, FILE_EVENTS);
}

void follow_watch_forget(struct follow_watch *w, int wd)
{
	if (w->fd >= 0 && wd >= 0)
		inotify_rm_watch(w->fd, wd);
}

/* Notes a departure of the followed name in ev, if it is one. */
static int take_event(struct follow_watch *w, const struct inotify_event *ev,
		      struct follow_departure *out, int n, int max)
{
	if (ev->wd != w->dir_wd || ev->len == 0)
		return n;
	bool ours = strcmp(ev->name, w->base) == 0;
	if ((ev->mask & IN_MOVED_TO) && ev->cookie == w->cookie &&
	    w->cookie != 0) {
		/* The other half of a rename away from the name. */
		int at = w->cookie_at >= 0 ? w->cookie_at : n < max ? n++ : -1;
		if (at >= 0 &&
		    snprintf(out[at].to, sizeof(out[at].to), "%s/%s", w->dir,
			     ev->name) >= (int)sizeof(out[at].to))
			out[at].to[0] = '\0'; /* a name too long to open */
		w->cookie = 0;
		w->cookie_at = -1;
		return n;
	}
	if (!ours || !(ev->mask & (IN_MOVED_FROM | IN_DELETE)) || n == max)
		return n;
	out[n].to[0] = '\0';
	if (ev->mask & IN_MOVED_FROM) {
		w->cookie = ev->cookie;
		w->cookie_at = n;
	}
	return n + 1;
}

int follow_watch_drain(struct follow_watch *w, struct follow_departure *out,
		       int max)
{
	if (w->fd < 0)
		return 0;
	int n = 0;
	char buf[4096]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t got;
	while ((got = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + got;) {
			const struct inotify_event *ev = (const void *)p;
			n = take_event(w, ev, out, n, max);
			p += sizeof(*ev) + ev->len;
		}
	}
	/* A rename's halves come together; one split across two drains
	 * is told again, whole, in the next. */
	w->cookie_at = -1;
	return n;
}
