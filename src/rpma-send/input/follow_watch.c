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
	const char *poll_only = getenv("RPMA_SEND_FOLLOW_POLL");
	if (poll_only && strcmp(poll_only, "1") == 0)
		return;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		return;
	char copy[PATH_MAX];
	snprintf(copy, sizeof(copy), "%s", path);
	/* A directory that does not exist yet is found by polling. */
	w->dir_wd = inotify_add_watch(w->fd, dirname(copy), DIR_EVENTS);
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

bool follow_watch_drain(struct follow_watch *w)
{
	if (w->fd < 0)
		return false;
	bool any = false;
	char buf[4096]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	while (read(w->fd, buf, sizeof(buf)) > 0)
		any = true;
	return any;
}
