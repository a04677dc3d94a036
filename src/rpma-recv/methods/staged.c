/* Staged: the sender writes the batch into a DRAM ring of the receiver's,
 * then asks (RS_MSG_STAGED_COMMIT) the receiver to copy it into the log
 * with libpmem2's non-temporal memcpy, persist it and commit the offset.
 * For memory the device cannot register (fsdax without ODP), so it is
 * always offered; its ring (reach/own_memory.c) is allocated and
 * registered while a staged writer is connected, and freed after its
 * last one. */
#include "methods/recv_method.h"

#include "rdma/mr.h"

static bool staged_offered(const struct recv_offer *o, struct rs_error *why)
{
	(void)o;
	(void)why;
	return true;
}

/* The batch lies wholly inside the ring (no overflow on hostile values). */
static bool staged_source_ok(const struct recv_staging *s,
			     const struct rs_msg *req)
{
	return s->ring && req->ring_offset <= s->length &&
	       req->length <= s->length - req->ring_offset;
}

static void staged_persist(const struct recv_pmem_target *t,
			   const struct recv_staging *s,
			   const struct rs_msg *req)
{
	recv_pmem_target_copy(t, req->offset, s->ring + req->ring_offset,
			      req->length);
}

const struct recv_method recv_method_staged = {
    .id = RS_METHOD_STAGED,
    .on_demand = true,
    .offered = staged_offered,
    .own_memory = RECV_OWN_STAGING_RING,
    /* its writes into the staging ring */
    .qp_access = RS_MR_REMOTE_WRITE,
    .commit_type = RS_MSG_STAGED_COMMIT,
    .source_ok = staged_source_ok,
    .persist = staged_persist,
};
