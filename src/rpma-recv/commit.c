#include "commit.h"

#include "proto/pool_layout.h"
#include "recv_method.h"

static uint8_t check_request(const struct rs_pmem_target *target,
			     const struct recv_staging *staging,
			     const struct recv_method *m,
			     const struct rs_msg *req)
{
	if (!m || !m->commit_type || req->type != m->commit_type)
		return RS_MSG_BAD_REQUEST;
	if (rs_log_range_check(req->offset, req->length, target->start,
			       target->end, 0))
		return RS_MSG_OUT_OF_RANGE;
	if (m->source_ok && !m->source_ok(staging, req))
		return RS_MSG_OUT_OF_RANGE;
	/* Appends only: a batch must continue the committed log exactly, so a
	 * gap of unpersisted bytes can never be committed. */
	if (req->offset != rs_pmem_target_write_offset(target))
		return RS_MSG_NOT_CONTIGUOUS;
	return RS_MSG_OK;
}

bool recv_commit_apply(const struct rs_pmem_target *target,
		       const struct recv_staging *staging,
		       const struct recv_method *m, const struct rs_msg *req,
		       struct rs_msg *reply)
{
	*reply = (struct rs_msg){.type = RS_MSG_COMMIT_DONE, .seq = req->seq};
	reply->status = check_request(target, staging, m, req);
	if (reply->status == RS_MSG_OK) {
		/* Data first, then the offset that covers it. */
		m->persist(target, staging, req);
		rs_pmem_target_commit(target, req->offset + req->length);
	}
	reply->offset = rs_pmem_target_write_offset(target);
	return reply->status == RS_MSG_OK;
}
