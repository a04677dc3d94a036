/* Staged: the sender writes the batch into a DRAM ring of the receiver's,
 * then asks (RS_MSG_STAGED_COMMIT) the receiver to copy it into the log
 * with libpmem2's non-temporal memcpy, persist it and commit the offset.
 * For memory the device cannot register (fsdax without ODP), so it is
 * always offered; its ring is allocated and registered while a staged
 * writer is connected, and freed after its last one. */
#include "methods/recv_method.h"

#include "error.h"
#include "methods/exposure_internal.h"
#include "rdma/mr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool staged_offered(const struct recv_offer *o, struct rs_error *why)
{
	(void)o;
	(void)why;
	return true;
}

static int staged_expose(struct recv_exposure *e, struct rs_error *err)
{
	struct recv_exposure_own *own = &e->own[RS_METHOD_STAGED];
	uint64_t len = recv_exposure_ring_len(&e->cfg);
	if (posix_memalign(&own->mem, 4096, len)) {
		own->mem = NULL;
		return rs_error_set(err, RS_E_NOMEM, ENOMEM,
				    "cannot allocate a %llu-byte staging ring",
				    (unsigned long long)len);
	}
	memset(own->mem, 0, len);
	if (rs_mr_reg(e->peer, own->mem, len, RS_MR_REMOTE_WRITE, &own->mr,
		      err))
		return rs_error_wrap(err, "cannot register the staging ring");
	e->staging = (struct recv_staging){.ring = own->mem, .length = len};
	return 0;
}

static void staged_describe(const struct recv_exposure *e,
			    struct rs_accept_info *info)
{
	info->staging =
	    rs_mr_describe(e->own[RS_METHOD_STAGED].mr, RS_MR_USAGE_WRITE_DST);
	info->staging_slot_size = e->cfg.slot_size;
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
    .expose = staged_expose,
    .describe = staged_describe,
    /* its writes into the staging ring */
    .qp_access = RS_MR_REMOTE_WRITE,
    .commit_type = RS_MSG_STAGED_COMMIT,
    .source_ok = staged_source_ok,
    .persist = staged_persist,
};
