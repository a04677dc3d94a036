/* A replacement of a log's content (rpma-send --truncate): written beside
 * the content the log keeps meanwhile, committed by the commit rule like
 * any batch but without moving the log's write offset, and switched in
 * (rotation/rotation.h, recv_rotation_switch) only once the sender has it
 * whole. Until then the log is its old content, for every reader; a replacement
 * whose sender goes away (or whose receiver restarts) is forgotten. One at
 * a time per log, held by the log's writer. Pure bookkeeping and the
 * choice of its place; no RDMA here. */
#ifndef RECV_GENERATION_H
#define RECV_GENERATION_H

#include "pool/pmem_target.h"

#include <stdbool.h>
#include <stdint.h>

struct recv_rotation;

struct recv_generation {
	bool active;
	uint64_t at;  /* file offset of its first byte */
	uint64_t end; /* file offset after its last committed byte */
};

/* Places a replacement of `expected` bytes (0: not known, a pipe) in the
 * pool of t: beside the old content, with a gap that keeps the switch's
 * moves few; where it does not fit there and the log has an archive, at
 * the pool's start once the old content is sealed into the archive (a
 * rotation: the log's content stays the same). Returns RS_MSG_OK, or
 * RS_MSG_NO_ROOM with the most the pool can take in *room, or the
 * archive's status. */
uint8_t recv_generation_place(struct recv_generation *g,
			      const struct recv_pmem_target *t,
			      struct recv_rotation *rot, uint64_t expected,
			      uint64_t *room);

/* Where the next commit must start: the replacement's end when one is
 * under way, else the log's write offset. */
uint64_t recv_generation_head(const struct recv_generation *g,
			      const struct recv_pmem_target *t);

#endif
