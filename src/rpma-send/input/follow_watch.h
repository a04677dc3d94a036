/* What wakes a followed file's reader: inotify on the path's directory
 * (a name created, moved or removed: rotation) and on each file it holds
 * open (written, truncated), as tail -F and Fluent Bit do, so that growth
 * is read as it happens and little is left unread when a file is
 * truncated in place. Where inotify is not to be had (no instance left,
 * a file system that does not report, RPMA_SEND_FOLLOW_POLL=1 for the
 * tests), nothing wakes it and the reader polls.
 *
 * The directory's events also say where a file went that left the
 * followed name by a rename within the directory: a file that held the
 * name only for a moment (an application that opens its log for every
 * line, between logrotate's rename and its create, which logrotate then
 * renames to NAME-DATE.backup) is found by its new name. */
#ifndef SEND_FOLLOW_WATCH_H
#define SEND_FOLLOW_WATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define FOLLOW_DEPARTURES_MAX 8 /* departures told per drain */

/* The followed name left a file: renamed to `to` (a path in the same
 * directory), or, `to` empty, removed or moved out of the directory. */
struct follow_departure {
	char to[PATH_MAX];
};

struct follow_watch {
	int fd;	    /* the inotify instance, -1 when polling */
	int dir_wd; /* the directory's watch, -1 if none */
	char dir[PATH_MAX];
	char base[NAME_MAX + 1];
	/* A rename away from the name whose other half is still to come. */
	uint32_t cookie;
	int cookie_at; /* its departure's index in this drain, -1: none */
};

/* Watches the directory of path (which need not exist yet). */
void follow_watch_open(struct follow_watch *w, const char *path);
void follow_watch_close(struct follow_watch *w);

/* Watches the file open on fd: the watch, or -1 (polling). */
int follow_watch_file(struct follow_watch *w, int fd);
void follow_watch_forget(struct follow_watch *w, int wd);

/* Takes every event that is there without waiting; the followed name's
 * departures among them go to out, in the order they happened, up to max:
 * their number. */
int follow_watch_drain(struct follow_watch *w, struct follow_departure *out,
		       int max);

/* Whether events wake the reader; if not, it polls. */
static inline bool follow_watch_active(const struct follow_watch *w)
{
	return w->fd >= 0;
}

#endif
