/* What the RDMA objects are made of. Only src/lib/rdma includes this: to
 * everyone else peer, memory region, connection and listener are opaque. */
#ifndef RS_RDMA_INTERNAL_H
#define RS_RDMA_INTERNAL_H

#include "rdma/conn.h"

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>

/* The ibv access flags for what rdma/mr.h's RS_MR_REMOTE_WRITE,
 * RS_MR_REMOTE_READ and RS_MR_FLUSH let a peer do (mr.c): the same for a
 * region, a window and a queue pair. */
int rs_remote_access(unsigned access);

struct rs_peer {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	bool odp_rc_write_read; /* can register memory without pinning it */
	/* RDMA FLUSH to persistence and ATOMIC WRITE (IBTA 1.5), in this
	 * build and on this device */
	bool flush_ops;
};

struct rs_mr {
	struct ibv_mr *mr;
};

struct rs_conn {
	struct rdma_event_channel *cm_channel;
	bool owns_cm_channel; /* false when the listener's channel is shared */
	struct rdma_cm_id *id;
	struct ibv_comp_channel *comp_channel;
	struct ibv_cq *cq;
	/* With quiet sends: the send queue's own CQ, which raises no event and
	 * is polled (before cq) whenever completions are taken. NULL: cq
	 * takes both. */
	struct ibv_cq *send_cq;
	bool quiet_sends;
	/* The queue pair's extended posting (FLUSH, ATOMIC WRITE), or NULL;
	 * wr_open: a group started with ibv_wr_start, not yet completed. */
	struct ibv_qp_ex *qpx;
	bool wr_open;
	bool cq_armed;
	bool busy_poll; /* spin on the CQ instead of sleeping */
	bool established;
	int answer_ms; /* what the last connect waited for its answer; -1 */
	/* Work requests posted with RS_POST_MORE, waiting for the last of
	 * their chain: one doorbell (a system call on Soft-RoCE) for all. */
	struct ibv_send_wr chain[RS_CONN_CHAIN_MAX];
	struct ibv_sge chain_sge[RS_CONN_CHAIN_MAX];
	unsigned chained;
};

struct rs_listener {
	struct rdma_event_channel *cm_channel;
	struct rdma_cm_id *id;
	/* A descriptor kept spare (a dup of cm_channel's), given up when a
	 * request finds the process at its open-file limit, so that request
	 * can still be answered: refused, saying why. -1 while given up. */
	int reserve_fd;
	char shown[320]; /* host:port, for errors */
};

/* Waits up to timeout_ms for one event on ch; the caller acks it. */
int rs_cm_event_wait(struct rdma_event_channel *ch, int timeout_ms,
		     struct rdma_cm_event **event);

/* strerror(err), or for ENODEV how to get an RDMA device, for EMFILE and
 * ENFILE which limit to raise. */
const char *rs_rdma_errno_hint(int err);

/* Copies the private data an event carries. */
void rs_private_data_copy(const struct rdma_cm_event *ev,
			  struct rs_private_data *pd);

/* Posts one work request the connection's own calls do not build (a
 * window's binding), after what they chained: on the same queue pair, in
 * order. */
int rs_conn_post_raw(struct rs_conn *c, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad);
/* The same, held back (copied) for the connection's next post, as
 * RS_POST_MORE holds its own: one doorbell for both. Requests that carry
 * no scatter list only (a window's binding). */
int rs_conn_hold_raw(struct rs_conn *c, struct ibv_send_wr *wr);

/* Why a build without rdma-core 45 has no flush method. */
#define RS_NO_FLUSH_BUILD                                                      \
	"this build has no RDMA FLUSH (built with rdma-core older than 45)"

/* IBV_SEND_* of RS_POST_* flags. */
unsigned rs_conn_send_flags(unsigned flags);

/* flush.c: a queue pair that can post RDMA FLUSH and ATOMIC WRITE, or -1
 * (the caller makes a plain one); */
int rs_conn_create_qp_ex(struct rs_conn *c, struct rs_peer *peer,
			 const struct ibv_qp_init_attr *attr);
/* what ibv_wr_* gathered, posted before anything goes the other way. */
int rs_conn_complete_wr_group(struct rs_conn *c);

#endif
