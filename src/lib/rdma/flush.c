/* IBTA 1.5's RDMA FLUSH and ATOMIC WRITE on a connection: posted through
 * ibv_wr_* on an extended queue pair (there is no ibv_send_wr for an
 * atomic write's value), in groups kept in order with the chains conn.c
 * posts with ibv_post_send. Without rdma-core 45 the build has neither, and
 * these say so. */
#include "rdma/conn.h"

#include "error.h"
#include "rdma/internal.h"

#include <stdint.h>

/* A queue pair that can also post RDMA FLUSH and ATOMIC WRITE (through
 * ibv_wr_*); -1 where the device will not make one (the caller then makes a
 * plain one). */
int rs_conn_create_qp_ex(struct rs_conn *c, struct rs_peer *peer,
			 const struct ibv_qp_init_attr *attr)
{
#ifdef RS_HAVE_IBV_FLUSH
	struct ibv_qp_init_attr_ex ex = {
	    .send_cq = attr->send_cq,
	    .recv_cq = attr->recv_cq,
	    .qp_type = attr->qp_type,
	    .sq_sig_all = attr->sq_sig_all,
	    .cap = attr->cap,
	    .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	    .pd = peer->pd,
	    .send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
			      IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_SEND |
			      IBV_QP_EX_WITH_FLUSH |
			      IBV_QP_EX_WITH_ATOMIC_WRITE,
	};
	if (rdma_create_qp_ex(c->id, &ex))
		return -1;
	c->qpx = ibv_qp_to_qp_ex(c->id->qp);
	return 0;
#else
	(void)c;
	(void)peer;
	(void)attr;
	return -1;
#endif
}

/* Posts what ibv_wr_* gathered: before anything posted the other way,
 * so that the send queue holds the requests in the order they were made. */
int rs_conn_complete_wr_group(struct rs_conn *c)
{
	if (!c->wr_open)
		return 0;
	c->wr_open = false;
	return ibv_wr_complete(c->qpx) ? RS_E_LOST : 0;
}

#ifdef RS_HAVE_IBV_FLUSH
/* Opens (or continues) a group of ibv_wr_* requests, after what the
 * chain held back: that goes out first, in order. */
static int open_wr_group(struct rs_conn *c, uint64_t wr_id, unsigned flags)
{
	if (!c->qpx)
		return RS_E_INVAL;
	if (c->chained) {
		struct ibv_send_wr *bad;
		c->chained = 0;
		if (ibv_post_send(c->id->qp, &c->chain[0], &bad))
			return RS_E_LOST;
	}
	if (!c->wr_open)
		ibv_wr_start(c->qpx);
	c->wr_open = true;
	c->qpx->wr_id = wr_id;
	c->qpx->wr_flags = rs_conn_send_flags(flags);
	return 0;
}

/* The group goes out unless more follow. */
static int close_wr_group(struct rs_conn *c, unsigned flags)
{
	return (flags & RS_POST_MORE) ? 0 : rs_conn_complete_wr_group(c);
}

#endif

bool rs_conn_can_flush(const struct rs_conn *c, const char **why_not)
{
#ifndef RS_HAVE_IBV_FLUSH
	*why_not = RS_NO_FLUSH_BUILD;
#else
	*why_not = "this machine's RDMA device does not do RDMA FLUSH to "
		   "persistence and ATOMIC WRITE";
#endif
	return c->qpx != NULL;
}

int rs_conn_flush(struct rs_conn *c, const struct rs_mr_desc *dst,
		  uint64_t dst_offset, uint32_t len, uint64_t wr_id,
		  unsigned flags)
{
#ifdef RS_HAVE_IBV_FLUSH
	int rc = open_wr_group(c, wr_id, flags);
	if (rc)
		return rc;
	ibv_wr_flush(c->qpx, dst->rkey, dst->addr + dst_offset, len,
		     IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE);
	return close_wr_group(c, flags);
#else
	(void)c, (void)dst, (void)dst_offset, (void)len, (void)wr_id;
	(void)flags;
	return RS_E_INVAL;
#endif
}

int rs_conn_atomic_write(struct rs_conn *c, const struct rs_mr_desc *dst,
			 uint64_t dst_offset, const struct rs_mr *src,
			 size_t src_offset, uint64_t wr_id, unsigned flags)
{
#ifdef RS_HAVE_IBV_FLUSH
	int rc = open_wr_group(c, wr_id, flags);
	if (rc)
		return rc;
	/* The 8 bytes are taken now, into the request itself. */
	ibv_wr_atomic_write(c->qpx, dst->rkey, dst->addr + dst_offset,
			    (const uint8_t *)src->mr->addr + src_offset);
	return close_wr_group(c, flags);
#else
	(void)c, (void)dst, (void)dst_offset, (void)src, (void)src_offset;
	(void)wr_id, (void)flags;
	return RS_E_INVAL;
#endif
}
