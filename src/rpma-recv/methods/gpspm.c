/* GPSPM: the sender writes the batch into the log's data range, then asks
 * (RS_MSG_COMMIT) the receiver to persist it in place and commit the
 * offset. Correct on any platform, page-cache files included; needs a pool
 * the device can register. Where the device binds memory windows the
 * sender writes through them (reach/write_windows.h), else with the pool's
 * key. */
#include "methods/recv_method.h"

#include "error.h"
#include "rdma/mr.h"

static bool gpspm_offered(const struct recv_offer *o, struct rs_error *why)
{
	(void)why; /* the pool's registration failure has been told */
	return o->pool_writable || o->pool_windows;
}

static void gpspm_persist(const struct recv_pmem_target *t,
			  const struct recv_staging *s,
			  const struct rs_msg *req)
{
	(void)s;
	recv_pmem_target_persist(t, req->offset, req->length);
}

const struct recv_method recv_method_gpspm = {
    .id = RS_METHOD_GPSPM,
    .offered = gpspm_offered,
    .commit_type = RS_MSG_COMMIT,
    .persist = gpspm_persist,
    /* where no windows reach the pool, its writer's own key does */
    .pool_access = RS_MR_REMOTE_WRITE,
    /* its writes, through its windows or its key */
    .qp_access = RS_MR_REMOTE_WRITE,
};
