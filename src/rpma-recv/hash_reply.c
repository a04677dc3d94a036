#include "hash_reply.h"

#include "pool_layout.h"

#include <xxhash.h>

bool recv_hash_apply(const struct rs_pmem_target *target, bool verify_allowed,
		     const struct rs_msg *req, struct rs_msg *reply)
{
	*reply = (struct rs_msg){.type = RS_MSG_HASH_DONE,
				 .seq = req->seq,
				 .offset = req->offset,
				 .length = req->length};
	if (req->type != RS_MSG_HASH || !verify_allowed) {
		reply->status = RS_MSG_BAD_REQUEST;
		return false;
	}
	if (rs_log_range_check(req->offset, req->length, target->start,
			       rs_pmem_target_write_offset(target))) {
		reply->status = RS_MSG_OUT_OF_RANGE;
		return false;
	}
	reply->hash = XXH3_64bits(target->base + req->offset, req->length);
	return true;
}
