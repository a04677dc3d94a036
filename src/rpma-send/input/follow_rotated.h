/* The rotated copies of a followed file that lie beside it: in its
 * directory, named after it and going on with '.', '-' or '_' (logrotate's
 * app.log.1, app.log-20261126 with dateext), or its name's last extension
 * kept at the end (logrotate's `extension`: app.1.log), regular files and
 * not compressed (.gz, .xz, .bz2, .zst, .lz4, .Z). A compressed copy is
 * not read. A copytruncate copy is also looked for in the directories
 * just inside the file's (olddir old), never farther (olddir /elsewhere).
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
	/* logrotate's N in NAME.N (NAME.N.gz, STEM.N.EXT): the smaller the
	 * newer, where two copies have one time; -1 when it has none */
	long number;
	bool compressed; /* listed only when asked for */
};

/* The copies of path, newest (last modified) first, the file at path
 * itself left out: their number, at most max. With compressed, the
 * compressed ones too (marked), which cannot be read. */
int follow_rotated_list(const char *path, struct follow_copy *out, int max,
			bool compressed);

/* Every copy of path (compressed ones too, marked) last modified not
 * before since, however many, newest first: their number; *out is the
 * caller's to free (NULL when none, or out of memory: 0 then). */
int follow_rotated_list_since(const char *path, struct timespec since,
			      struct follow_copy **out);

/* The same as follow_rotated_list, not compressed, also in the directories in
 * the file's own (olddir): where a copytruncate copy is looked for. */
int follow_rotated_list_near(const char *path, struct follow_copy *out,
			     int max);

/* Whether name (in the file's directory) is named as a copy of a file
 * named base. */
bool follow_rotated_is_copy_name(const char *name, const char *base);

/* The compression suffix name ends with (".gz"...), or NULL. */
const char *follow_rotated_compression(const char *name);

/* The XXH3-64 of the first len bytes of the file open on fd, or of what
 * it has if shorter (*short_read set). */
uint64_t follow_rotated_hash(int fd, uint64_t len, int *short_read);

#endif
