/* What a reader may read in place: the pool's committed prefix when its
 * session was granted (the receiver registers no more, so the NIC refuses
 * a read past it), from the log position of the pool's first byte then.
 * Anything else a reader asks the receiver to copy into its ring. */
#ifndef SEND_READ_PREFIX_H
#define SEND_READ_PREFIX_H

#include "proto/descriptor.h"

#include <stdbool.h>
#include <stdint.h>

struct read_prefix {
	uint64_t base; /* the log position of the pool's first byte then */
	uint64_t len;  /* bytes readable from there (0: none) */
};

/* What a reader's grant lets it read in place. */
static inline struct read_prefix
read_prefix_of(const struct rs_accept_info *grant)
{
	return (struct read_prefix){.base = grant->log_base,
				    .len = grant->data_read.length};
}

/* Whether all of [pos, pos + len) lies in the prefix. */
static inline bool read_prefix_covers(const struct read_prefix *r, uint64_t pos,
				      uint64_t len)
{
	return r->len && pos >= r->base && pos - r->base <= r->len &&
	       len <= r->len - (pos - r->base);
}

#endif
