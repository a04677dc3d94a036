/* rpma-send --resume -f: where a followed file's stream left off when the
 * file may have been rotated while the sender was down.
 *
 * Nothing is kept between runs, so no inode or offset is known: what can
 * be known is the content. The log's last bytes (up to 4 KiB, read back)
 * are looked for in FILE and in its rotated copies beside it (in its
 * directory, named after it: input/follow_rotated.h), newest first; where they
 * end in one, and the log's bytes before them equal that file's first
 * bytes (the receiver's hashes), the stream goes on right there: the rest
 * of that file, then each newer copy in order, then FILE as -f follows it.
 *
 * What cannot be known: a copy compressed or moved elsewhere while the
 * sender was down (its lines are refused rather than skipped: a newer
 * compressed copy than the one found stops the resume with its name), a
 * file that held the log's last bytes and is gone, and which of two files
 * holding the very same bytes was meant (the newest wins). */
#ifndef SEND_RESUME_FOLLOW_H
#define SEND_RESUME_FOLLOW_H

#include "common/send_config.h"
#include "input/follow.h"
#include "verify/config.h"

#include <limits.h>
#include <stdint.h>

struct resume_follow_plan {
	/* Read in order, paths[0] from byte `from`; the last is FILE when
	 * it exists. */
	char paths[FOLLOW_FILES_MAX][PATH_MAX];
	int npaths;
	uint64_t from;
	uint64_t held; /* the log's bytes, which the stream appends to */
};

/* How --resume compares the log with local files: the receiver's hashes
 * of 1 MiB chunks, over cfg's connection settings. */
struct verify_config resume_verify_config(const struct ship_config *cfg);

/* Finds where to go on. Returns 0, or a negative rs_errc, reported:
 * RS_E_DIVERGED when the log's last bytes are in no file it can read, or
 * a copy on the way is compressed; the connection's codes. */
int resume_follow_find(const struct ship_config *cfg, const char *path,
		       struct resume_follow_plan *plan);

#endif
