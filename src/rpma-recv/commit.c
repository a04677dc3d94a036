#include "commit.h"

#include "proto/pool_layout.h"

static uint8_t check_request(const struct rs_pmem_target *target,
			     const struct recv_staging *staging,
			     struct recv_commit_policy policy,
			     const struct rs_msg *req)
{
	bool staged = req->type == RS_MSG_STAGED_COMMIT;
	if (req->type != RS_MSG_COMMIT && !staged)
		return RS_MSG_BAD_REQUEST;
	if ((staged && !policy.allow_staged) ||
	    (!staged && !policy.allow_in_place))
		return RS_MSG_BAD_REQUEST;
	if (rs_log_range_check(req->offset, req->length, target->start,
			       target->end, 0))
		return RS_MSG_OUT_OF_RANGE;
	if (staged && (!staging->ring || req->ring_offset > staging->length ||
		       req->length > staging->length - req->ring_offset))
		return RS_MSG_OUT_OF_RANGE;
	/* Appends only: a batch must continue the committed log exactly, so a
	 * gap of unpersisted bytes can never be committed. */
	if (req->offset != rs_pmem_target_write_offset(target))
		return RS_MSG_NOT_CONTIGUOUS;
	return RS_MSG_OK;
}

bool recv_commit_apply(const struct rs_pmem_target *target,
		       const struct recv_staging *staging,
		       struct recv_commit_policy policy,
		       const struct rs_msg *req, struct rs_msg *reply)
{
	*reply = (struct rs_msg){.type = RS_MSG_COMMIT_DONE, .seq = req->seq};
	reply->status = check_request(target, staging, policy, req);
	if (reply->status == RS_MSG_OK) {
		if (req->type == RS_MSG_STAGED_COMMIT)
			rs_pmem_target_copy(target, req->offset,
					    staging->ring + req->ring_offset,
					    req->length);
		else
			rs_pmem_target_persist(target, req->offset,
					       req->length);
		rs_pmem_target_commit(target, req->offset + req->length);
	}
	reply->offset = rs_pmem_target_write_offset(target);
	return reply->status == RS_MSG_OK;
}
