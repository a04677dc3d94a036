#include "methods/commit.h"

#include "methods/recv_method.h"
#include "pool/stop_at.h"
#include "proto/pool_layout.h"
#include "rotation/generation.h"

static uint8_t check_request(const struct recv_pmem_target *target,
			     const struct recv_staging *staging,
			     const struct recv_method *m,
			     const struct recv_generation *gen,
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
	if (req->offset != recv_generation_head(gen, target))
		return RS_MSG_NOT_CONTIGUOUS;
	return RS_MSG_OK;
}

bool recv_commit_apply_to(struct recv_pmem_target *target,
			  const struct recv_staging *staging,
			  const struct recv_method *m,
			  struct recv_generation *gen, const struct rs_msg *req,
			  struct rs_msg *reply)
{
	bool replacing = gen && gen->active;
	*reply = (struct rs_msg){.type = RS_MSG_COMMIT_DONE, .seq = req->seq};
	reply->status = check_request(target, staging, m, gen, req);
	if (reply->status == RS_MSG_OK) {
		/* Data first, then the offset that covers it: the log's, or
		 * the replacement's (switched in once whole). */
		recv_stop_at("commit-data-landed");
		m->persist(target, staging, req);
		recv_stop_at("commit-data-persisted");
		if (replacing)
			gen->end = req->offset + req->length;
		else
			recv_pmem_target_commit(target,
						req->offset + req->length);
	}
	reply->offset = recv_generation_head(gen, target);
	return reply->status == RS_MSG_OK;
}

bool recv_commit_apply(struct recv_pmem_target *target,
		       const struct recv_staging *staging,
		       const struct recv_method *m, const struct rs_msg *req,
		       struct rs_msg *reply)
{
	return recv_commit_apply_to(target, staging, m, 0, req, reply);
}
