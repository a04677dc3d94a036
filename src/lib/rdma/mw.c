#include "rdma/mw.h"

#include "error.h"
#include "rdma/internal.h"
#include "rdma/mr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rs_mw {
	struct ibv_mw *mw;
	uint64_t addr, length; /* of the last binding */
	uint32_t rkey;
	bool bound; /* a type-2 window binds only once invalidated */
};

/* rxe's vendor id (drivers/infiniband/sw/rxe: RXE_VENDOR_ID). */
#define SOFT_ROCE_VENDOR_ID 0xffffffu

static bool attr_binds(const struct ibv_device_attr *attr)
{
	return attr->device_cap_flags &
	       (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B);
}

/* Every device but rxe is trusted to keep a window to its range. */
static bool attr_bounded(const struct ibv_device_attr *attr)
{
	return attr->vendor_id != SOFT_ROCE_VENDOR_ID;
}

bool rs_peer_has_windows(const struct rs_peer *peer)
{
	struct ibv_device_attr attr;
	return !ibv_query_device(peer->verbs, &attr) && attr_binds(&attr);
}

bool rs_peer_windows_bounded(const struct rs_peer *peer)
{
	struct ibv_device_attr attr;
	if (ibv_query_device(peer->verbs, &attr))
		return false;
	return attr_bounded(&attr);
}

int rs_windows_survey(struct rs_window_support *out, int max)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list)
		return 0;
	for (int i = 0; i < n && i < max; i++) {
		struct rs_window_support *w = &out[i];
		struct ibv_device_attr attr;
		struct ibv_context *ctx = ibv_open_device(list[i]);
		snprintf(w->device, sizeof(w->device), "%s",
			 ibv_get_device_name(list[i]));
		w->binds =
		    ctx && !ibv_query_device(ctx, &attr) && attr_binds(&attr);
		w->bounded = w->binds && attr_bounded(&attr);
		if (ctx)
			ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	return n;
}

int rs_mw_new(struct rs_peer *peer, struct rs_mw **out, struct rs_error *err)
{
	struct rs_mw *w = calloc(1, sizeof(*w));
	if (!w)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	errno = 0;
	w->mw = ibv_alloc_mw(peer->pd, IBV_MW_TYPE_2);
	if (!w->mw) {
		int e = errno ? errno : EOPNOTSUPP;
		free(w);
		return rs_error_set(err, RS_E_PROVIDER, e,
				    "cannot allocate a memory window: %s",
				    strerror(e));
	}
	w->rkey = w->mw->rkey;
	*out = w;
	return 0;
}

void rs_mw_delete(struct rs_mw **mw)
{
	if (!*mw)
		return;
	ibv_dealloc_mw((*mw)->mw);
	free(*mw);
	*mw = 0;
}

int rs_mw_bind(struct rs_conn *c, struct rs_mw *mw, const struct rs_mr *mr,
	       size_t offset, size_t length, unsigned access, uint64_t wr_id,
	       unsigned flags)
{
	/* The provider names the window by its current key when the binding
	 * is posted (rxe checks it); only a type-1 bind updates it itself,
	 * and a binding held back is posted after this call: the key the
	 * last binding gave is set here, by then posted. */
	mw->mw->rkey = mw->rkey;
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	uint64_t addr = (uint64_t)(uintptr_t)mr->mr->addr + offset;
	struct ibv_send_wr wr = {
	    .wr_id = wr_id,
	    .opcode = IBV_WR_BIND_MW,
	    .send_flags = (flags & RS_POST_SIGNALED) ? IBV_SEND_SIGNALED : 0,
	};
	wr.bind_mw.mw = mw->mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
	    .mr = mr->mr,
	    .addr = addr,
	    .length = length,
	    .mw_access_flags = (unsigned)rs_remote_access(access),
	};
	/* A bound type-2 window is invalidated first (its old key stops
	 * there), in the same chain. */
	struct ibv_send_wr inv = {
	    .wr_id = wr_id,
	    .opcode = IBV_WR_LOCAL_INV,
	    .invalidate_rkey = mw->rkey,
	    .next = &wr,
	};
	struct ibv_send_wr *bad, *first = mw->bound ? &inv : &wr;
	int rc = (flags & RS_POST_MORE) ? rs_conn_hold_raw(c, first)
					: rs_conn_post_raw(c, first, &bad);
	if (rc)
		return RS_E_LOST;
	mw->bound = true;
	mw->rkey = rkey;
	mw->addr = addr;
	mw->length = length;
	return 0;
}

/* The work request id of a binding waited for at once ("bindnow"). */
#define BIND_NOW_WR_ID UINT64_C(0x62696e646e6f77)

int rs_mw_bind_now(struct rs_conn *c, struct rs_mw *mw, const struct rs_mr *mr,
		   size_t offset, size_t length, unsigned access,
		   int timeout_ms, struct rs_error *err)
{
	if (rs_mw_bind(c, mw, mr, offset, length, access, BIND_NOW_WR_ID,
		       RS_POST_SIGNALED))
		return rs_error_set(err, RS_E_LOST, errno,
				    "cannot bind a memory window: %s",
				    strerror(errno));
	/* A provider may do it on a thread of its own (rxe on Linux 6.12):
	 * looked for every 50 us, not spun on. */
	struct timespec nap = {.tv_nsec = 50000};
	for (int waited_us = 0; waited_us <= timeout_ms * 1000;
	     waited_us += 50) {
		struct rs_completion wc;
		enum rs_wait_result r = rs_conn_poll_sends(c, &wc);
		if (r == RS_WAIT_ERROR)
			break;
		if (r == RS_WAIT_COMPLETION && wc.wr_id == BIND_NOW_WR_ID) {
			if (wc.ok)
				return 0;
			return rs_error_set(err, RS_E_PROVIDER, EINVAL,
					    "the RDMA device did not bind a "
					    "memory window: %s",
					    wc.status);
		}
		if (r != RS_WAIT_COMPLETION)
			nanosleep(&nap, 0);
	}
	return rs_error_set(err, RS_E_PROVIDER, ETIMEDOUT,
			    "the RDMA device did not bind a memory window "
			    "within %d ms",
			    timeout_ms);
}

int rs_mw_revoke(struct rs_conn *c, struct rs_mw *mw, uint64_t wr_id,
		 unsigned flags)
{
	if (!mw->bound)
		return 0;
	struct ibv_send_wr inv = {
	    .wr_id = wr_id,
	    .opcode = IBV_WR_LOCAL_INV,
	    .send_flags = (flags & RS_POST_SIGNALED) ? IBV_SEND_SIGNALED : 0,
	    .invalidate_rkey = mw->rkey,
	};
	struct ibv_send_wr *bad;
	if (rs_conn_post_raw(c, &inv, &bad))
		return RS_E_LOST;
	mw->bound = false;
	mw->length = 0;
	return 0;
}

struct rs_mr_desc rs_mw_describe(const struct rs_mw *mw, uint8_t usage)
{
	return (struct rs_mr_desc){
	    .addr = mw->addr,
	    .length = mw->length,
	    .rkey = mw->rkey,
	    .usage = usage,
	};
}
