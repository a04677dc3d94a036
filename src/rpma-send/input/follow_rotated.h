/* The rotated copies of a followed file that lie beside it: in its
 * directory, named after it and going on with '.', '-' or '_' (logrotate's
 * app.log.1, app.log-20261126 with dateext), regular files and not
 * compressed (.gz, .xz, .bz2, .zst, .lz4, .Z). A copy moved elsewhere
 * (olddir) or compressed is not found.
 *
 * Used to ship what a file held but had not been read yet when it was
 * truncated in place (copytruncate: the copy holds it), and by --resume to
 * find where a followed file's log left off. */
#ifndef SEND_FOLLOW_ROTATED_H
#define SEND_FOLLOW_ROTATED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define FOLLOW_ROTATED_MAX 64 /* copies looked at, newest first */

struct follow_copy {
	char path[4096];
	dev_t dev;
	ino_t ino;
	uint64_t size;
	struct timespec mtime;
	bool compressed; /* listed only when asked for */
};

/* The copies of path, newest (last modified) first, the file at path
 * itself left out: their number, at most max. With compressed, the
 * compressed ones too (marked), which cannot be read. */
int follow_rotated_list(const char *path, struct follow_copy *out, int max,
			bool compressed);

/* The XXH3-64 of the first len bytes of the file open on fd, or of what
 * it has if shorter (*short_read set). */
uint64_t follow_rotated_hash(int fd, uint64_t len, int *short_read);

#endif
