/* What tells a followed file's reader that something changed: inotify on
 * the path's directory, told as what happened to the names in it (a file
 * came to a name, a name was renamed to another, a name went), and on each
 * file the reader holds open (written, truncated), as tail -F and Fluent
 * Bit do. A directory that does not exist yet (or was removed) is waited
 * for through its nearest existing ancestor, and watched once it appears.
 * Where inotify is not to be had (no instance left, a file system that
 * does not report, RPMA_SEND_FOLLOW_POLL=1 for the tests), nothing wakes
 * the reader and it polls. */
#ifndef SEND_FOLLOW_WATCH_H
#define SEND_FOLLOW_WATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

enum follow_change {
	FOLLOW_CAME,	/* a file came to name: created, or moved in */
	FOLLOW_RENAMED, /* name was renamed to `to` (what `to` held is gone) */
	FOLLOW_WENT,	/* name was removed, or moved out of the directory */
	/* Events were lost (the queue overflowed), or the directory came or
	 * went: what happened must be found from the files themselves. */
	FOLLOW_UNKNOWN,
	FOLLOW_TOUCHED, /* the file watched as wd was written or truncated */
};

/* A change of a name in the directory; names without the directory. */
struct follow_event {
	enum follow_change change;
	bool created; /* FOLLOW_CAME by creation, not by a rename */
	int wd;	      /* FOLLOW_TOUCHED: the file's watch */
	char name[NAME_MAX + 1];
	char to[NAME_MAX + 1];
};

typedef void (*follow_event_fn)(void *ctx, const struct follow_event *ev);

struct follow_watch {
	int fd;	      /* the inotify instance, -1 when polling */
	int dir_wd;   /* the directory's watch, -1 while it is missing */
	int above_wd; /* meanwhile, its nearest existing ancestor's */
	char dir[PATH_MAX];
	char base[NAME_MAX + 1];
	/* A rename away whose other half has not come yet: told as a
	 * departure from the directory once it has waited long enough. */
	uint32_t cookie;
	char moved_from[NAME_MAX + 1];
	uint64_t moved_from_ns;
};

/* Watches the directory of path (which need not exist yet). */
void follow_watch_open(struct follow_watch *w, const char *path);
void follow_watch_close(struct follow_watch *w);

/* Watches the file open on fd: the watch, or -1 (polling). */
int follow_watch_file(struct follow_watch *w, int fd);
void follow_watch_forget(struct follow_watch *w, int wd);

/* Takes every event that is there without waiting and tells fn each
 * change of a name in the directory, in the order they happened: the
 * number of events read (of any kind). */
int follow_watch_drain(struct follow_watch *w, follow_event_fn fn, void *ctx);

/* Whether a rename away from a name waits for its other half. */
static inline bool follow_watch_midway(const struct follow_watch *w)
{
	return w->cookie != 0;
}

/* Whether events wake the reader; if not, it polls. */
static inline bool follow_watch_active(const struct follow_watch *w)
{
	return w->fd >= 0;
}

#endif
