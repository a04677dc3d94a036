/* The files a followed name held, in the order they held it: [0] is
 * read, the others wait their turn, opened or known by name. As many as
 * come: none is dropped for want of room. And the files read to their
 * end, not to be read again when one is met once more by its times. */
#ifndef SEND_FOLLOW_QUEUE_H
#define SEND_FOLLOW_QUEUE_H

#include "input/follow_file.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FOLLOW_DONE_KEPT 64 /* files read to their end remembered */

struct follow_queue {
	struct follow_file *files;
	int n, cap;
	struct follow_done {
		struct follow_id id;
		struct timespec at;
		uint64_t pos;	   /* where it was finished */
		uint64_t head_xxh; /* its first bytes, to know it again */
		size_t head_len;
	} done[FOLLOW_DONE_KEPT];
	int ndone, done_next;
};

/* Puts a copy of ff at `at` (0 to n): the file before it has been
 * superseded since now, and so has ff if one comes after it. False when
 * out of memory. */
bool follow_queue_insert(struct follow_queue *q, int at,
			 const struct follow_file *ff);

/* Takes the file at `at` out, closed. */
void follow_queue_remove(struct follow_queue *q, int at);

/* The file at `at` was read to its end: out, closed, remembered. */
void follow_queue_finish(struct follow_queue *q, int at);

/* Whether the file is opened in the queue. */
bool follow_queue_known(const struct follow_queue *q, struct follow_id id);

/* Where the file is opened in the queue, or -1. */
int follow_queue_index(const struct follow_queue *q, struct follow_id id);

/* Whether the file, last modified at mtime, was read to its end (an
 * inode number used again by a newer file is not). */
bool follow_queue_finished(const struct follow_queue *q, struct follow_id id,
			   struct timespec mtime);

/* Where to read a file, open on fd, that came back to the name: where it
 * was read to its end if it is one of those (its first bytes the same, its
 * size not less), else 0 (a file new to the name, or a new file that took
 * a finished one's inode number). */
uint64_t follow_queue_resume_at(const struct follow_queue *q,
				struct follow_id id, int fd);

/* Whether a file waits to be opened. */
bool follow_queue_unopened(const struct follow_queue *q);

void follow_queue_free(struct follow_queue *q);

#endif
