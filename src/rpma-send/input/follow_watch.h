/* What wakes a followed file's reader: inotify on the path's directory
 * (a name created, moved or removed: rotation) and on each file it holds
 * open (written, truncated), as tail -F and Fluent Bit do, so that growth
 * is read as it happens and little is left unread when a file is
 * truncated in place. Where inotify is not to be had (no instance left,
 * a file system that does not report, RPMA_SEND_FOLLOW_POLL=1 for the
 * tests), nothing wakes it and the reader polls. */
#ifndef SEND_FOLLOW_WATCH_H
#define SEND_FOLLOW_WATCH_H

#include <stdbool.h>

struct follow_watch {
	int fd;	    /* the inotify instance, -1 when polling */
	int dir_wd; /* the directory's watch, -1 if none */
};

/* Watches the directory of path (which need not exist yet). */
void follow_watch_open(struct follow_watch *w, const char *path);
void follow_watch_close(struct follow_watch *w);

/* Watches the file open on fd: the watch, or -1 (polling). */
int follow_watch_file(struct follow_watch *w, int fd);
void follow_watch_forget(struct follow_watch *w, int wd);

/* Takes every event that is there without waiting: true if there was
 * one (something may have changed). */
bool follow_watch_drain(struct follow_watch *w);

/* Whether events wake the reader; if not, it polls. */
static inline bool follow_watch_active(const struct follow_watch *w)
{
	return w->fd >= 0;
}

#endif
