#include "exposure.h"

#include "cli/log.h"
#include "error.h"
#include "proto/pool_layout.h"
#include "rdma/mr.h"
#include "rdma/peer.h"

#include "cli/log.h"
#include "proto/pool_layout.h"
#include "rdma/mr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void register_pool(struct recv_exposure *e,
			  const struct rs_pmem_target *target)
{
	unsigned access = RS_MR_REMOTE_WRITE;
	struct rs_error err = {0};
	if (rs_mr_reg(e->peer, target->base + target->start,
		      target->end - target->start, access, &e->data_mr, &err)) {
		rs_info("cannot register the pool for direct writes (%s): %s; "
			"offering the staged method only",
			strerror(err.sys_errno), err.msg);
		return;
	}
	e->methods |= RS_METHOD_BIT(RS_METHOD_GPSPM);

	if (!e->cfg.direct_write_to_pmem)
		return;
	if (!rs_pmem_target_byte_addressable(target)) {
		rs_info("--direct-write-to-pmem ignored: %s is not "
			"byte-addressable PMem; not offering apm",
			target->path);
		return;
	}
	/* APM's flush reads and offset write touch only this word. */
	access |= RS_MR_REMOTE_READ;
	if (rs_mr_reg(e->peer, target->base + RS_LOG_WRITE_OFFSET,
		      sizeof(uint64_t), access, &e->offset_mr, &err)) {
		rs_info("cannot register the write offset (%s); not offering "
			"apm",
			strerror(err.sys_errno));
		return;
	}
	e->methods |= RS_METHOD_BIT(RS_METHOD_APM);
}

static int register_ring(struct recv_exposure *e, char *err, size_t errlen)
{
	e->ring_len = (uint64_t)e->cfg.slot_size * e->cfg.slots;
	if (posix_memalign((void **)&e->ring, 4096, e->ring_len)) {
		snprintf(err, errlen,
			 "cannot allocate a %llu-byte staging ring",
			 (unsigned long long)e->ring_len);
		e->ring = 0;
		return -1;
	}
	memset(e->ring, 0, e->ring_len);
	struct rs_error why = {0};
	if (rs_mr_reg(e->peer, e->ring, e->ring_len, RS_MR_REMOTE_WRITE,
		      &e->ring_mr, &why)) {
		snprintf(err, errlen, "cannot register the staging ring: %s",
			 why.msg);
		return -1;
	}
	e->methods |= RS_METHOD_BIT(RS_METHOD_STAGED);
	return 0;
}

int recv_exposure_setup(struct recv_exposure *e, const struct rs_conn *conn,
			const struct rs_pmem_target *target,
			const struct recv_exposure_config *cfg, char *err,
			size_t errlen)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	struct rs_error why = {0};
	if (rs_peer_new(conn, &e->peer, &why)) {
		snprintf(err, errlen, "%s", why.msg);
		return -1;
	}
	register_pool(e, target);
	if (register_ring(e, err, errlen)) {
		recv_exposure_teardown(e);
		return -1;
	}
	return 0;
}

void recv_exposure_teardown(struct recv_exposure *e)
{
	rs_mr_dereg(&e->data_mr);
	rs_mr_dereg(&e->offset_mr);
	rs_mr_dereg(&e->ring_mr);
	free(e->ring);
	e->ring = 0;
	rs_peer_delete(&e->peer);
	e->methods = 0;
}

void recv_exposure_describe(const struct recv_exposure *e,
			    const struct rs_pmem_target *target,
			    struct rs_accept_info *info)
{
	memset(info, 0, sizeof(*info));
	info->peer_flags =
	    e->cfg.direct_write_to_pmem ? RS_PEER_DIRECT_WRITE_TO_PMEM : 0;
	info->methods = e->methods;
	info->credits = e->cfg.slots;
	if (e->data_mr)
		info->data = rs_mr_describe(e->data_mr, RS_MR_USAGE_WRITE_DST);
	if (e->offset_mr)
		info->write_offset = rs_mr_describe(
		    e->offset_mr, RS_MR_USAGE_WRITE_DST | RS_MR_USAGE_READ_SRC);
	if (e->ring_mr)
		info->staging =
		    rs_mr_describe(e->ring_mr, RS_MR_USAGE_WRITE_DST);
	info->staging_slot_size = e->cfg.slot_size;
	info->start_offset = target->start;
	info->end_offset = target->end;
	info->write_offset_value = rs_pmem_target_write_offset(target);
	memcpy(info->pool_uuid, target->uuid, sizeof(info->pool_uuid));
}
