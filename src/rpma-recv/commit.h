/* Applying one commit request to the pool, under the commit rule: check the
 * range against the log and the staging ring, make the batch persistent
 * (persist in place, or copy from the ring with non-temporal stores), then
 * store and persist the new write offset. Nothing outside the log's data
 * range is ever written. No RDMA here, so it is tested on the host. */
#ifndef RECV_COMMIT_H
#define RECV_COMMIT_H

#include "pmem_target.h"
#include "proto/message.h"

#include <stdint.h>

struct recv_staging {
	const uint8_t *ring; /* NULL when staged is not offered */
	uint64_t length;
};

/* Which request types this connection may use. */
struct recv_commit_policy {
	bool allow_in_place; /* GPSPM */
	bool allow_staged;
};

/* Fills *reply for req and returns true when the pool was committed. */
bool recv_commit_apply(const struct rs_pmem_target *target,
		       const struct recv_staging *staging,
		       struct recv_commit_policy policy,
		       const struct rs_msg *req, struct rs_msg *reply);

#endif
