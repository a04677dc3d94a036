/* Building a chain, and posting it. */
#include "methods/chain.h"

#include "error.h"
#include "session/session.h"

#include <assert.h>

static struct chain_wr *next_wr(struct send_chain *c)
{
	assert(c->n < CHAIN_MAX);
	return &c->wr[c->n++];
}

/* A write or a read: the same request, the data going the other way. */
static void add_rdma(struct send_chain *c, enum chain_op op,
		     const struct rs_mr_desc *remote, uint64_t remote_offset,
		     enum chain_local local, size_t local_offset,
		     const struct chain_wr *how)
{
	struct chain_wr *wr = next_wr(c);
	*wr = *how;
	wr->op = op;
	wr->remote = remote;
	wr->remote_offset = remote_offset;
	wr->local = local;
	wr->local_offset = local_offset;
}

void chain_write(struct send_chain *c, const struct rs_mr_desc *dst,
		 uint64_t dst_offset, enum chain_local src, size_t src_offset,
		 uint32_t len, uint64_t wr_id, unsigned flags)
{
	struct chain_wr how = {.len = len, .wr_id = wr_id, .flags = flags};
	add_rdma(c, CHAIN_WRITE, dst, dst_offset, src, src_offset, &how);
}

void chain_read(struct send_chain *c, enum chain_local dst, size_t dst_offset,
		const struct rs_mr_desc *src, uint64_t src_offset, uint32_t len,
		uint64_t wr_id, unsigned flags)
{
	struct chain_wr how = {.len = len, .wr_id = wr_id, .flags = flags};
	add_rdma(c, CHAIN_READ, src, src_offset, dst, dst_offset, &how);
}

void chain_flush(struct send_chain *c, const struct rs_mr_desc *dst,
		 uint64_t dst_offset, uint32_t len, uint64_t wr_id,
		 unsigned flags)
{
	struct chain_wr how = {.len = len, .wr_id = wr_id, .flags = flags};
	add_rdma(c, CHAIN_FLUSH, dst, dst_offset, CHAIN_WORDS, 0, &how);
}

void chain_atomic_write(struct send_chain *c, const struct rs_mr_desc *dst,
			uint64_t dst_offset, enum chain_local src,
			size_t src_offset, uint64_t wr_id, unsigned flags)
{
	struct chain_wr how = {.len = 8, .wr_id = wr_id, .flags = flags};
	add_rdma(c, CHAIN_ATOMIC_WRITE, dst, dst_offset, src, src_offset, &how);
}

void chain_send(struct send_chain *c, uint16_t slot, const struct rs_msg *msg,
		uint64_t wr_id, unsigned flags)
{
	c->msg = *msg;
	c->slot = slot;
	*next_wr(c) =
	    (struct chain_wr){.op = CHAIN_SEND, .wr_id = wr_id, .flags = flags};
}

static int post_one(const struct send_chain *c, const struct chain_wr *wr,
		    struct rs_session *s, struct rs_mr *local)
{
	struct rs_conn *conn = rs_session_conn(s);
	switch (wr->op) {
	case CHAIN_WRITE:
		return rs_conn_write(conn, wr->remote, wr->remote_offset, local,
				     wr->local_offset, wr->len, wr->wr_id,
				     wr->flags);
	case CHAIN_READ:
		return rs_conn_read(conn, local, wr->local_offset, wr->remote,
				    wr->remote_offset, wr->len, wr->wr_id,
				    wr->flags);
	case CHAIN_SEND:
		return rs_session_send(s, c->slot, &c->msg, wr->wr_id,
				       wr->flags);
	case CHAIN_FLUSH:
		return rs_conn_flush(conn, wr->remote, wr->remote_offset,
				     wr->len, wr->wr_id, wr->flags);
	case CHAIN_ATOMIC_WRITE:
		return rs_conn_atomic_write(conn, wr->remote, wr->remote_offset,
					    local, wr->local_offset, wr->wr_id,
					    wr->flags);
	}
	return RS_E_INVAL;
}

int chain_post(const struct send_chain *c, struct rs_session *s,
	       struct rs_mr *ring, struct rs_mr *words)
{
	for (unsigned i = 0; i < c->n; i++) {
		const struct chain_wr *wr = &c->wr[i];
		int rc =
		    post_one(c, wr, s, wr->local == CHAIN_WORDS ? words : ring);
		if (rc)
			return rc;
	}
	return 0;
}
