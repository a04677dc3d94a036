/* rpma-send --fetch's rules, pure: where a read starts, which of a log's
 * bytes come straight from its pool (RDMA reads) and which through the
 * receiver's ring (the archive's, or a pool the device cannot expose),
 * and whether bytes read from the pool still stand once the log's state
 * is known again. A reader never sees a byte past the committed end it
 * was told; rotation is the only thing that overwrites committed pool
 * bytes (the pool started over: its base moves), and a replacement or
 * emptying makes the log another content altogether. */
#ifndef SEND_FETCH_PLAN_H
#define SEND_FETCH_PLAN_H

#include "connect/read_prefix.h"

#include <stdbool.h>
#include <stdint.h>

/* Where a log stands (a WAIT_DONE): log positions, and its content. */
struct fetch_log {
	uint64_t first;	  /* its oldest byte held (archive pruned before) */
	uint64_t base;	  /* where its pool starts */
	uint64_t end;	  /* after its last committed byte */
	uint64_t content; /* which content it is */
};

/* Where the reader starts. */
struct fetch_start {
	bool at_end;   /* only what comes next (tail -f) */
	uint64_t from; /* else this log position */
};

enum fetch_verdict {
	FETCH_GO,	/* read on */
	FETCH_REPLACED, /* another content than the one being read */
	FETCH_GONE,	/* the next byte is no longer held (pruned) */
	FETCH_SHORT,	/* the log ends before where the reader is */
};

/* The position to start at, once the log's state is known. */
uint64_t fetch_start_at(const struct fetch_start *s, const struct fetch_log *l);

/* What the log's state means for a reader at pos that began reading the
 * content numbered content. */
enum fetch_verdict fetch_check(const struct fetch_log *l, uint64_t content,
			       uint64_t pos);

/* Whether the len bytes at pos are read straight from the pool: all of
 * them in the readable prefix, the pool not started over since. */
bool fetch_from_pool(const struct fetch_log *l, const struct read_prefix *r,
		     uint64_t pos, uint64_t len);

/* The length of the chunk at pos, at most chunk bytes, not past end and
 * not across the pool's start (a chunk comes from one place). */
uint32_t fetch_chunk_len(const struct fetch_log *l, uint64_t pos, uint64_t end,
			 uint32_t chunk);

/* Bytes read from the pool while the log was before still stand when it
 * is after now: the pool did not start over, the content is the same. */
bool fetch_still_stands(const struct fetch_log *before,
			const struct fetch_log *after);

#endif
