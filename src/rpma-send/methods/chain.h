/* The work requests one batch is posted as: a chain that goes out with one
 * doorbell. A persistence method builds it without touching the connection
 * (so a unit test can read what it would post); the replica then posts it
 * on its session. */
#ifndef SEND_CHAIN_H
#define SEND_CHAIN_H

#include "proto/descriptor.h"
#include "proto/message.h"
#include "rdma/conn.h"

#include <stddef.h>
#include <stdint.h>

struct rs_mr;
struct rs_session;

#define CHAIN_MAX RS_CONN_CHAIN_MAX

enum chain_op {
	CHAIN_WRITE,	    /* local to remote */
	CHAIN_READ,	    /* remote to local */
	CHAIN_SEND,	    /* the chain's message, through a session slot */
	CHAIN_FLUSH,	    /* RDMA FLUSH: the remote range made persistent */
	CHAIN_ATOMIC_WRITE, /* 8 bytes of local, landing whole remotely */
};

/* The registered local memory a request names. */
enum chain_local {
	CHAIN_RING,  /* the window's batch ring */
	CHAIN_WORDS, /* the method's per-slot words */
};

struct chain_wr {
	enum chain_op op;
	const struct rs_mr_desc *remote; /* WRITE: where to; READ: from */
	uint64_t remote_offset;
	enum chain_local local; /* WRITE, ATOMIC_WRITE: from; READ: where to */
	size_t local_offset;
	uint32_t len;
	uint64_t wr_id; /* comes back in the completion */
	unsigned flags; /* RS_POST_*: all but the last hold RS_POST_MORE */
};

struct send_chain {
	struct chain_wr wr[CHAIN_MAX];
	unsigned n;
	struct rs_msg msg; /* what CHAIN_SEND sends, */
	uint16_t slot;	   /* in this session slot */
};

void chain_write(struct send_chain *c, const struct rs_mr_desc *dst,
		 uint64_t dst_offset, enum chain_local src, size_t src_offset,
		 uint32_t len, uint64_t wr_id, unsigned flags);
void chain_read(struct send_chain *c, enum chain_local dst, size_t dst_offset,
		const struct rs_mr_desc *src, uint64_t src_offset, uint32_t len,
		uint64_t wr_id, unsigned flags);
/* RDMA FLUSH of [dst_offset, +len) of dst, to persistence. */
void chain_flush(struct send_chain *c, const struct rs_mr_desc *dst,
		 uint64_t dst_offset, uint32_t len, uint64_t wr_id,
		 unsigned flags);
/* RDMA ATOMIC WRITE of the 8 bytes at src_offset of src to dst_offset. */
void chain_atomic_write(struct send_chain *c, const struct rs_mr_desc *dst,
			uint64_t dst_offset, enum chain_local src,
			size_t src_offset, uint64_t wr_id, unsigned flags);
/* The chain's one message. */
void chain_send(struct send_chain *c, uint16_t slot, const struct rs_msg *msg,
		uint64_t wr_id, unsigned flags);

/* Posts c's requests in order on s, ring and words being the registered
 * CHAIN_RING and CHAIN_WORDS. 0, or non-zero when the connection is gone
 * (nothing after the failing request is posted). */
int chain_post(const struct send_chain *c, struct rs_session *s,
	       struct rs_mr *ring, struct rs_mr *words);

#endif
