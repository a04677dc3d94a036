/* rpma-send -f: a path followed as it grows and is rotated, losing nothing
 * the files keep, however long the reader is kept from reading.
 *
 * What is read, in order:
 * - the file the path names, as it grows (woken by input/follow_watch.h,
 *   else polled);
 * - every file that comes to hold the path (renamed away and created
 *   again, removed and created again, replaced by a symlink, appearing
 *   late), in the order they held it, each opened as soon as the follower
 *   learns of it and held open until read (input/follow_track.h): a file
 *   renamed again and again, or removed, before its turn is still read.
 *   A file is read until it has been quiet (not modified) for rotate_wait
 *   after a newer one came, so that what the application writes before it
 *   reopens is shipped; then the next from its first byte;
 * - a file truncated in place (copytruncate): what it held beyond the
 *   bytes read, from its copy, then the file again from its first byte
 *   (input/follow_truncate.h; what counts as a truncation:
 *   input/follow_file.h).
 * The follower learns of changes when it reads, when follower_notice is
 * called (the sender does also while it cannot send: back-pressure), and,
 * once follower_watch_in_background was called, in a thread of its own as
 * events come (the sender may be blocked waiting for a receiver).
 * What copytruncate itself loses (written between its copy and its
 * truncate) is in no file and cannot be shipped. */
#ifndef SEND_FOLLOW_H
#define SEND_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FOLLOW_ROTATE_WAIT_DEFAULT_MS 5000 /* as Fluent Bit's Rotate_Wait */
/* A rotated file quiet for the wait is left only if a second look this
 * much later (at most the wait) finds it quiet still: a writer held up
 * with the reader (a stalled machine, a starved CPU) writes again first. */
#define FOLLOW_CONFIRM_MS 250
/* Files --resume starts with at most (follower_start_at); a follower
 * holds as many as come. */
#define FOLLOW_FILES_MAX 8

struct follower;

/* Follows path, reading from the first byte of the file it names (or of
 * the first that appears there). NULL when out of memory. */
struct follower *follower_new(const char *path, uint64_t rotate_wait_ms);
void follower_free(struct follower *f);

/* Starts with the files at paths (a rotated copy, from byte `from`, then
 * the copies newer than it, oldest first, and the path): what --resume
 * found the log to hold. False if a file could not be opened. */
bool follower_start_at(struct follower *f, const char *const *paths, int n,
		       uint64_t from);

/* Reads up to cap bytes: their count; 0 when nothing is there now (call
 * again once woken or after follower_recheck_ms); -1 with errno on a read
 * error. */
ssize_t follower_read(struct follower *f, void *buf, size_t cap);

/* From now on a thread of the follower's own notices as events come
 * (input/follow_background.h), whatever the caller is doing; the wake
 * descriptor is then its own. False when it cannot be started. */
bool follower_watch_in_background(struct follower *f);

/* Learns what changed without reading: the files that came to the path
 * are opened and held, truncations met (with a thread of its own: only
 * takes the wake-up, the thread did the rest). Called when the wake
 * descriptor is readable or follower_recheck_ms has passed, also while
 * nothing can be read for want of room. */
void follower_notice(struct follower *f);

/* How many files or stretches went before they were read, each named in
 * one line in buf (input/follow_losses.h); 0, buf untouched, if none. */
unsigned follower_losses(struct follower *f, char *buf, size_t len);

/* From now on a file read to its end gives way to the next one at once:
 * the sender is stopping and nobody waits for late lines. What the files
 * hold now is the backlog follower_left tells of. */
void follower_stop_waiting(struct follower *f);

/* After follower_stop_waiting: how many files or stretches the files
 * held then were not read, each named in one line in buf; 0, buf
 * untouched, if none. */
unsigned follower_left(struct follower *f, char *buf, size_t len);

/* The descriptor that becomes readable when something may have changed
 * (inotify; with a thread of its own, an eventfd it signals once a read
 * found nothing), or -1: then poll. */
int follower_wake_fd(const struct follower *f);

/* Milliseconds to wait at most before reading again when nothing came:
 * short when polling, a safety net when woken by events, sooner when a
 * rotated file's grace period ends. */
uint64_t follower_recheck_ms(struct follower *f);

#endif
