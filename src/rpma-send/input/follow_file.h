/* One file that held a followed name: opened (then read from its
 * descriptor, whatever its name has become, even once it is removed) or,
 * until it can be, known by its name; what was read of it, and what was
 * seen of it (its first bytes, its largest size), which tell a truncation
 * in place.
 *
 * What counts as a truncation: the file shorter than what was read or
 * seen of it, or its first bytes (up to FOLLOW_HEAD) no longer those seen.
 * A rewrite of bytes past those, or a file truncated and written again
 * to at least its old size with the same first bytes, is not one: what
 * was read stays shipped as it was read, and reading goes on where it
 * was. A file read again after a truncation skips what its start has of
 * a hole and of NUL bytes: what a writer without O_APPEND leaves there
 * when it goes on writing at its old offset. */
#ifndef SEND_FOLLOW_FILE_H
#define SEND_FOLLOW_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <xxhash.h>

#define FOLLOW_HEAD 4096 /* first bytes kept to tell a file's content */

struct follow_id {
	dev_t dev;
	ino_t ino;
};

static inline bool follow_id_equal(struct follow_id a, struct follow_id b)
{
	return a.dev == b.dev && a.ino == b.ino;
}

struct follow_file {
	int fd; /* -1: not opened yet, known by its name */
	int wd; /* its inotify watch */
	struct follow_id id;
	/* Not opened: where it is now; opened: where it was opened. */
	char name[PATH_MAX];
	uint64_t pos;	    /* bytes read (or skipped) */
	XXH3_state_t *hash; /* of those bytes */
	uint8_t head[FOLLOW_HEAD];
	size_t head_len;
	uint64_t seen; /* the largest size seen */
	struct timespec seen_mtime, seen_ctime;
	bool at_end;	 /* its last read found nothing */
	bool touched;	 /* written or truncated since the last look */
	bool copy;	 /* a copytruncate copy: done at its end */
	bool fresh;	 /* read again after a truncation: skip a hole */
	bool superseded; /* a newer file came to the name at `since` */
	struct timespec since;
	/* The first look that found it quiet since it last grew
	 * (send_stats_now_ns; 0: none): input/follow.c's second look. */
	uint64_t quiet_at_ns;
	/* While it is being opened (input/follow_track.c): a descriptor on
	 * the name it had, kept unless events say the name changed hands. */
	int try_fd;
	struct follow_id try_id;
	char tried[PATH_MAX];
	bool spoiled, gone, missed;
	/* At the stop signal (input/follow_stop.c): held, and its size then
	 * (opened) or not opened yet. */
	bool stop_marked;
	uint64_t stop_size;
};

/* A file known by its name only. */
void follow_file_unopened(struct follow_file *ff, const char *name);

/* Takes fd, opened by name, as the file to read, from byte `from` (what
 * lies before it counted as read). False, fd closed, when it cannot. */
bool follow_file_take(struct follow_file *ff, int fd, const char *name,
		      uint64_t from);

/* copy, a copytruncate copy open on fd, takes over ff's reading where it
 * is (what was read of ff is copy's first bytes). False, fd left open,
 * when out of memory. */
bool follow_file_take_over(struct follow_file *copy,
			   const struct follow_file *ff, int fd,
			   const char *name);

void follow_file_close(struct follow_file *ff);

/* Truncated in place: ff read again from its first byte, as new. */
void follow_file_rewind(struct follow_file *ff);

/* Looks at the file: whether it was truncated in place since the last
 * look (else what was seen of it is brought up to date). */
bool follow_file_truncated(struct follow_file *ff);

/* Whether the file open on fd starts with what was read and seen of ff:
 * the copy of it that copytruncate made. */
bool follow_file_continued_by(const struct follow_file *ff, int fd);

/* Reads up to cap bytes where reading is: their count, 0 at its end, -1
 * with errno on an error. */
ssize_t follow_file_read(struct follow_file *ff, void *buf, size_t cap);

/* Milliseconds until ff, superseded, has been quiet (not modified) for
 * wait_ms (0: it has). */
int64_t follow_file_quiet_in_ms(const struct follow_file *ff, uint64_t wait_ms);

/* The name the file has now (for messages): buf. */
const char *follow_file_where(const struct follow_file *ff, char *buf,
			      size_t len);

#endif
