/* A connection: one rdma_cm id with its reliable-connected queue pair, its
 * completion queue and the event channels used to wait on both without
 * spinning. The sender resolves and connects; the receiver gets a
 * connection from a listener and accepts or rejects it. */
#ifndef RS_CONN_H
#define RS_CONN_H

#include "endpoint.h"

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_conn {
	struct rdma_event_channel *cm_channel;
	bool owns_cm_channel; /* false when the listener's channel is shared */
	struct rdma_cm_id *id;
	struct ibv_comp_channel *comp_channel;
	struct ibv_cq *cq;
	bool cq_armed;
	bool busy_poll; /* spin on the CQ instead of sleeping (--busy-poll) */
	bool established;
};

/* Private data the peer sent with its accept, reject or connect request. */
struct rs_private_data {
	uint8_t bytes[256];
	size_t len;
};

enum rs_conn_status {
	RS_CONN_OK = 0,
	RS_CONN_UNREACHABLE = -1, /* no route, nobody listening, timed out */
	RS_CONN_REJECTED = -2,	  /* the peer refused; see its private data */
	RS_CONN_ERROR = -3,
};

/* Sender side, in order: resolve, create the QP on a PD of id->verbs,
 * connect. Each writes a one-line reason into err when it fails. */
int rs_conn_resolve(struct rs_conn *c, const struct rs_endpoint *ep,
		    int timeout_ms, char *err, size_t errlen);
int rs_conn_create_qp(struct rs_conn *c, struct ibv_pd *pd, uint32_t send_depth,
		      uint32_t recv_depth, char *err, size_t errlen);
int rs_conn_connect(struct rs_conn *c, const void *priv, uint8_t priv_len,
		    int timeout_ms, struct rs_private_data *reply, char *err,
		    size_t errlen);

/* Receiver side, after a listener handed over c. */
int rs_conn_accept(struct rs_conn *c, const void *priv, uint8_t priv_len,
		   int timeout_ms, char *err, size_t errlen);
void rs_conn_reject(struct rs_conn *c, const void *priv, uint8_t priv_len);

void rs_conn_disconnect(struct rs_conn *c);
void rs_conn_destroy(struct rs_conn *c);

/* Posting work. wr_id comes back in the completion. */
int rs_conn_post_write(struct rs_conn *c, const void *local, uint32_t len,
		       uint32_t lkey, uint64_t remote, uint32_t rkey,
		       uint64_t wr_id, unsigned flags);
int rs_conn_post_read(struct rs_conn *c, void *local, uint32_t len,
		      uint32_t lkey, uint64_t remote, uint32_t rkey,
		      uint64_t wr_id, unsigned flags);
int rs_conn_post_send(struct rs_conn *c, const void *local, uint32_t len,
		      uint32_t lkey, uint64_t wr_id, unsigned flags);
int rs_conn_post_recv(struct rs_conn *c, void *local, uint32_t len,
		      uint32_t lkey, uint64_t wr_id);

enum rs_wait_result {
	RS_WAIT_COMPLETION = 0, /* *wc holds one completion */
	RS_WAIT_CM_EVENT = 1,	/* the cm channel has an event to read */
	RS_WAIT_TIMEOUT = 2,
	RS_WAIT_ERROR = 3,
};

/* Returns the next completion, blocking on the completion channel for at
 * most timeout_ms (-1: forever), or spinning on the CQ when busy_poll is set
 * (lowest latency, one core busy). Also returns when an rdma_cm event is
 * pending, so a disconnect is noticed. */
enum rs_wait_result rs_conn_next_completion(struct rs_conn *c,
					    struct ibv_wc *wc, int timeout_ms);

/* strerror(err), or for ENODEV how to get an RDMA device. */
const char *rs_rdma_errno_hint(int err);

/* Waits for one rdma_cm event on c's channel; the caller must ack it. */
int rs_cm_event_wait(struct rdma_event_channel *ch, int timeout_ms,
		     struct rdma_cm_event **event);

#endif
