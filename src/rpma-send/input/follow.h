/* rpma-send -f: a path followed as it grows and is rotated, losing nothing
 * the files keep.
 *
 * What is read, in order:
 * - the file the path names, as it grows (woken by input/follow_watch.h, else
 *   polled);
 * - when the path comes to name another file (renamed away and created
 *   again, removed and created again, replaced by a symlink, or appearing
 *   late: nocreate), the old file is still read until it has been quiet
 *   (not modified) for rotate_wait, so that what the application writes
 *   before it reopens is shipped; then the new file from its first byte.
 *   Files that came meanwhile wait their turn in order (FOLLOW_FILES_MAX),
 *   a file renamed away before it was seen at the path too (found by the
 *   rename's other half: input/follow_watch.h);
 * - when the file is truncated in place (copytruncate), noticed by its
 *   size or, if it grew back past where reading was before it was looked
 *   at again, by the bytes last read no longer being there: first what the
 *   newest rotated copy beside it holds beyond the bytes read (its first
 *   bytes hashing to what was read: input/follow_rotated.h), then the
 *   file again from its first byte.
 * What copytruncate itself loses (written between its copy and its
 * truncate) is in no file and cannot be shipped. */
#ifndef SEND_FOLLOW_H
#define SEND_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FOLLOW_ROTATE_WAIT_DEFAULT_MS 5000 /* as Fluent Bit's Rotate_Wait */
#define FOLLOW_FILES_MAX 8 /* files read or waiting their turn */

struct follower;

/* Follows path, reading from the first byte of the file it names (or of
 * the first that appears there). NULL when out of memory. */
struct follower *follower_new(const char *path, uint64_t rotate_wait_ms);
void follower_free(struct follower *f);

/* Starts with the rotated copy at copy_path, from byte `from`, then the
 * copies newer than it (newest last) and the path: what --resume found
 * the log to hold. False if a file could not be opened. */
bool follower_start_at(struct follower *f, const char *const *paths, int n,
		       uint64_t from);

/* Reads up to cap bytes: their count; 0 when nothing is there now (call
 * again once woken or after follower_recheck_ms); -1 with errno on a read
 * error. */
ssize_t follower_read(struct follower *f, void *buf, size_t cap);

/* From now on a file read to its end gives way to the next one at once:
 * the sender is stopping and nobody waits for late lines. */
void follower_stop_waiting(struct follower *f);

/* The descriptor that becomes readable when something may have changed
 * (inotify), or -1: then poll. */
int follower_wake_fd(const struct follower *f);

/* Milliseconds to wait at most before reading again when nothing came:
 * short when polling, a safety net when woken by events, sooner when a
 * rotated file's grace period ends. */
uint64_t follower_recheck_ms(const struct follower *f);

#endif
