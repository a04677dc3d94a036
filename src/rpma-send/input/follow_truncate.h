/* A followed file truncated in place (logrotate's copytruncate): what it
 * held beyond the bytes read is read first from the copy made of it,
 * found among the files created with a copy's name (opened as they are
 * created, so that compress without delaycompress cannot take them away),
 * then beside it and in the directories just inside its own (olddir):
 * the copy whose first bytes are what was read and seen of it. Then the
 * file again from its first byte. Truncations met while nothing is read
 * (the receiver slow or away) each get their copy, in order. */
#ifndef SEND_FOLLOW_TRUNCATE_H
#define SEND_FOLLOW_TRUNCATE_H

#include "input/follow_file.h"

#include <limits.h>

#define FOLLOW_CANDIDATES 8 /* files created with a copy's name, held */

struct follow_candidate {
	int fd;
	struct follow_id id;
	char name[PATH_MAX];
};

struct follow_candidates {
	struct follow_candidate c[FOLLOW_CANDIDATES]; /* oldest first */
	int n;
};

struct follower;

/* A file was created in the directory with this name (path: with the
 * directory): held if it is named as a copy of the followed file. */
void follow_truncate_created(struct follower *f, const char *name,
			     const char *path);

/* Looks at every opened file for a truncation in place and handles it. */
void follow_truncate_check(struct follower *f);

void follow_truncate_forget(struct follow_candidates *c);

#endif
