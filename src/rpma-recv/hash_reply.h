/* Answering a verifying sender's hash request: the XXH3-64 of a range of
 * the committed log, so replicas are compared without moving their bytes.
 * Only committed bytes are hashed, and only for a sender that asked to
 * verify. No RDMA here, so it is tested on the host. */
#ifndef RECV_HASH_REPLY_H
#define RECV_HASH_REPLY_H

#include "message.h"
#include "pmem_target.h"

#include <stdbool.h>

/* Fills *reply for req; returns true when the hash was computed. */
bool recv_hash_apply(const struct rs_pmem_target *target, bool verify_allowed,
		     const struct rs_msg *req, struct rs_msg *reply);

#endif
