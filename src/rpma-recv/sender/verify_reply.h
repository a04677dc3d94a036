/* Answering a verifying sender: the XXH3-64 hash of a range of the log's
 * committed content, so replicas are compared without moving their bytes,
 * or a copy of a range into a ring for the sender to RDMA-read where the
 * pool itself cannot be registered (or the range is in the archive).
 * Ranges are log positions: the archive's bytes, then the pool's
 * (rotation/rotation.h). Only committed bytes, only for a sender that asked to
 * verify. No RDMA here, so it is tested on the host. */
#ifndef RECV_VERIFY_REPLY_H
#define RECV_VERIFY_REPLY_H

#include "pool/pmem_target.h"
#include "proto/message.h"

#include <stdbool.h>
#include <stdint.h>

struct recv_rotation;

struct recv_ring {
	uint8_t *base; /* NULL when there is none */
	uint64_t length;
};

/* Fills *reply for a HASH or READ_STAGE request on the log of target
 * (positions from rot; NULL: the pool alone, from position 0); returns
 * true when done. */
bool recv_verify_apply(const struct recv_pmem_target *target,
		       const struct recv_rotation *rot,
		       const struct recv_ring *ring, bool verify_allowed,
		       const struct rs_msg *req, struct rs_msg *reply);

#endif
