#include "verify_reply.h"

#include "proto/pool_layout.h"

#include <string.h>
#include <xxhash.h>

static uint8_t check(const struct rs_pmem_target *target,
		     const struct recv_ring *ring, bool verify_allowed,
		     const struct rs_msg *req)
{
	if ((req->type != RS_MSG_HASH && req->type != RS_MSG_READ_STAGE) ||
	    !verify_allowed)
		return RS_MSG_BAD_REQUEST;
	if (rs_log_range_check(req->offset, req->length, target->start,
			       rs_pmem_target_write_offset(target), 0))
		return RS_MSG_OUT_OF_RANGE;
	if (req->type == RS_MSG_READ_STAGE &&
	    (!ring->base || req->ring_offset > ring->length ||
	     req->length > ring->length - req->ring_offset))
		return RS_MSG_OUT_OF_RANGE;
	return RS_MSG_OK;
}

bool recv_verify_apply(const struct rs_pmem_target *target,
		       const struct recv_ring *ring, bool verify_allowed,
		       const struct rs_msg *req, struct rs_msg *reply)
{
	*reply = (struct rs_msg){
	    .seq = req->seq, .offset = req->offset, .length = req->length};
	reply->type = req->type == RS_MSG_READ_STAGE ? RS_MSG_READ_STAGE_DONE
						     : RS_MSG_HASH_DONE;
	reply->status = check(target, ring, verify_allowed, req);
	if (reply->status != RS_MSG_OK)
		return false;
	const uint8_t *src = target->base + req->offset;
	if (req->type == RS_MSG_HASH) {
		reply->hash = XXH3_64bits(src, req->length);
	} else {
		memcpy(ring->base + req->ring_offset, src, req->length);
		reply->ring_offset = req->ring_offset;
	}
	return true;
}
