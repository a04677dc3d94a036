#include "conn.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *rs_rdma_errno_hint(int err)
{
	if (err == ENODEV)
		return "no RDMA device on this machine; load a driver or set "
		       "up Soft-RoCE (rdma link add rxe0 type rxe netdev ETH)";
	return strerror(err);
}

int rs_cm_event_wait(struct rdma_event_channel *ch, int timeout_ms,
		     struct rdma_cm_event **event)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	int n;
	do {
		n = poll(&pfd, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (n < 0)
		return -1;
	return rdma_get_cm_event(ch, event);
}

/* Waits for the event that a resolve or connect step must produce. */
static int expect_event(struct rs_conn *c, enum rdma_cm_event_type want,
			int timeout_ms, struct rs_private_data *pd,
			enum rdma_cm_event_type *got)
{
	struct rdma_cm_event *ev;
	if (rs_cm_event_wait(c->cm_channel, timeout_ms, &ev))
		return -1;
	*got = ev->event;
	int status = ev->status;
	if (pd) {
		size_t len = ev->param.conn.private_data_len;
		if (len > sizeof(pd->bytes))
			len = sizeof(pd->bytes);
		pd->len = ev->param.conn.private_data ? len : 0;
		if (pd->len)
			memcpy(pd->bytes, ev->param.conn.private_data, len);
	}
	rdma_ack_cm_event(ev);
	if (*got != want) {
		errno = status < 0 ? -status : ECONNREFUSED;
		return -1;
	}
	return 0;
}

int rs_conn_resolve(struct rs_conn *c, const struct rs_endpoint *ep,
		    int timeout_ms, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	struct rdma_addrinfo hints = {.ai_port_space = RDMA_PS_TCP};
	struct rdma_addrinfo *ai = 0;
	if (rdma_getaddrinfo(ep->host, ep->port, &hints, &ai)) {
		snprintf(err, errlen, "cannot resolve %s:%s: %s", ep->host,
			 ep->port, rs_rdma_errno_hint(errno));
		return RS_CONN_UNREACHABLE;
	}
	c->cm_channel = rdma_create_event_channel();
	c->owns_cm_channel = true;
	if (!c->cm_channel ||
	    rdma_create_id(c->cm_channel, &c->id, c, RDMA_PS_TCP)) {
		snprintf(err, errlen,
			 "cannot create an RDMA CM id: %s "
			 "(is an RDMA device configured?)",
			 strerror(errno));
		rdma_freeaddrinfo(ai);
		return RS_CONN_ERROR;
	}
	enum rdma_cm_event_type got;
	int ret = rdma_resolve_addr(c->id, ai->ai_src_addr, ai->ai_dst_addr,
				    timeout_ms);
	rdma_freeaddrinfo(ai);
	if (ret || expect_event(c, RDMA_CM_EVENT_ADDR_RESOLVED,
				timeout_ms + 1000, 0, &got)) {
		snprintf(err, errlen,
			 "cannot reach %s over RDMA (address resolution "
			 "failed: %s); check the address and that an RDMA "
			 "device serves that network",
			 ep->host, strerror(errno));
		return RS_CONN_UNREACHABLE;
	}
	if (rdma_resolve_route(c->id, timeout_ms) ||
	    expect_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED, timeout_ms + 1000, 0,
			 &got)) {
		snprintf(err, errlen, "cannot find a route to %s: %s", ep->host,
			 strerror(errno));
		return RS_CONN_UNREACHABLE;
	}
	return RS_CONN_OK;
}

int rs_conn_create_qp(struct rs_conn *c, struct ibv_pd *pd, uint32_t send_depth,
		      uint32_t recv_depth, char *err, size_t errlen)
{
	c->comp_channel = ibv_create_comp_channel(c->id->verbs);
	if (!c->comp_channel) {
		snprintf(err, errlen, "cannot create a completion channel: %s",
			 strerror(errno));
		return RS_CONN_ERROR;
	}
	int cqe = (int)(send_depth + recv_depth);
	c->cq = ibv_create_cq(c->id->verbs, cqe, c, c->comp_channel, 0);
	if (!c->cq) {
		snprintf(err, errlen, "cannot create a completion queue: %s",
			 strerror(errno));
		return RS_CONN_ERROR;
	}
	struct ibv_qp_init_attr attr = {
	    .send_cq = c->cq,
	    .recv_cq = c->cq,
	    .qp_type = IBV_QPT_RC,
	    .sq_sig_all = 0,
	    .cap =
		{
		    .max_send_wr = send_depth,
		    .max_recv_wr = recv_depth,
		    .max_send_sge = 1,
		    .max_recv_sge = 1,
		},
	};
	if (rdma_create_qp(c->id, pd, &attr)) {
		snprintf(err, errlen, "cannot create a queue pair: %s",
			 strerror(errno));
		return RS_CONN_ERROR;
	}
	return RS_CONN_OK;
}

#define RS_RDMA_READS_IN_FLIGHT 16

/* At least one (APM needs reads), at most RS_RDMA_READS_IN_FLIGHT. */
static uint8_t reads_in_flight(int device_max)
{
	if (device_max < 1)
		return 1;
	if (device_max > RS_RDMA_READS_IN_FLIGHT)
		return RS_RDMA_READS_IN_FLIGHT;
	return (uint8_t)device_max;
}

/* Up to 16 RDMA reads in flight each way (APM flushes, verify), as far as
 * the device allows; 1 would serialize every read on a round trip. */
static struct rdma_conn_param conn_param(const struct rs_conn *c,
					 const void *priv, uint8_t len)
{
	struct ibv_device_attr attr;
	int in = 1, out = 1;
	if (ibv_query_device(c->id->verbs, &attr) == 0) {
		in = attr.max_qp_rd_atom;
		out = attr.max_qp_init_rd_atom;
	}
	return (struct rdma_conn_param){
	    .private_data = priv,
	    .private_data_len = len,
	    .responder_resources = reads_in_flight(in),
	    .initiator_depth = reads_in_flight(out),
	    .retry_count = 7,
	    .rnr_retry_count = 7,
	};
}

int rs_conn_connect(struct rs_conn *c, const void *priv, uint8_t priv_len,
		    int timeout_ms, struct rs_private_data *reply, char *err,
		    size_t errlen)
{
	struct rdma_conn_param param = conn_param(c, priv, priv_len);
	if (rdma_connect(c->id, &param)) {
		snprintf(err, errlen, "connect failed: %s", strerror(errno));
		return RS_CONN_ERROR;
	}
	enum rdma_cm_event_type got = RDMA_CM_EVENT_CONNECT_ERROR;
	if (expect_event(c, RDMA_CM_EVENT_ESTABLISHED, timeout_ms, reply,
			 &got) == 0) {
		c->established = true;
		return RS_CONN_OK;
	}
	if (got == RDMA_CM_EVENT_REJECTED && reply->len > 0) {
		snprintf(err, errlen, "the receiver refused the connection");
		return RS_CONN_REJECTED;
	}
	snprintf(err, errlen,
		 "nothing accepts connections there (%s); is rpma-recv "
		 "running on that address and port?",
		 got == RDMA_CM_EVENT_REJECTED ? "connection refused"
					       : rdma_event_str(got));
	return RS_CONN_UNREACHABLE;
}

int rs_conn_accept(struct rs_conn *c, const void *priv, uint8_t priv_len,
		   int timeout_ms, char *err, size_t errlen)
{
	struct rdma_conn_param param = conn_param(c, priv, priv_len);
	if (rdma_accept(c->id, &param)) {
		snprintf(err, errlen, "accept failed: %s", strerror(errno));
		return RS_CONN_ERROR;
	}
	/* The listener's channel carries our ESTABLISHED event. */
	struct rdma_cm_event *ev;
	if (rs_cm_event_wait(c->cm_channel, timeout_ms, &ev)) {
		snprintf(err, errlen, "sender did not complete the connection");
		return RS_CONN_ERROR;
	}
	enum rdma_cm_event_type got = ev->event;
	bool ours = ev->id == c->id;
	rdma_ack_cm_event(ev);
	if (!ours || got != RDMA_CM_EVENT_ESTABLISHED) {
		snprintf(err, errlen, "connection not established (%s)",
			 rdma_event_str(got));
		return RS_CONN_ERROR;
	}
	c->established = true;
	return RS_CONN_OK;
}

void rs_conn_reject(struct rs_conn *c, const void *priv, uint8_t priv_len)
{
	rdma_reject(c->id, priv, priv_len);
}

void rs_conn_disconnect(struct rs_conn *c)
{
	if (c->id && c->established)
		rdma_disconnect(c->id);
	c->established = false;
}

void rs_conn_destroy(struct rs_conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->comp_channel)
		ibv_destroy_comp_channel(c->comp_channel);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->cm_channel && c->owns_cm_channel)
		rdma_destroy_event_channel(c->cm_channel);
	memset(c, 0, sizeof(*c));
}

static int post_rdma(struct rs_conn *c, enum ibv_wr_opcode op, void *local,
		     uint32_t len, uint32_t lkey, uint64_t remote,
		     uint32_t rkey, uint64_t wr_id, unsigned flags)
{
	struct ibv_sge sge = {
	    .addr = (uint64_t)(uintptr_t)local, .length = len, .lkey = lkey};
	struct ibv_send_wr wr = {
	    .wr_id = wr_id,
	    .sg_list = &sge,
	    .num_sge = 1,
	    .opcode = op,
	    .send_flags = flags,
	};
	wr.wr.rdma.remote_addr = remote;
	wr.wr.rdma.rkey = rkey;
	struct ibv_send_wr *bad;
	return ibv_post_send(c->id->qp, &wr, &bad);
}

int rs_conn_post_write(struct rs_conn *c, const void *local, uint32_t len,
		       uint32_t lkey, uint64_t remote, uint32_t rkey,
		       uint64_t wr_id, unsigned flags)
{
	/* Verbs take a non-const sge address; a write only reads it. */
	return post_rdma(c, IBV_WR_RDMA_WRITE, (void *)(uintptr_t)local, len,
			 lkey, remote, rkey, wr_id, flags);
}

int rs_conn_post_read(struct rs_conn *c, void *local, uint32_t len,
		      uint32_t lkey, uint64_t remote, uint32_t rkey,
		      uint64_t wr_id, unsigned flags)
{
	return post_rdma(c, IBV_WR_RDMA_READ, local, len, lkey, remote, rkey,
			 wr_id, flags);
}

int rs_conn_post_send(struct rs_conn *c, const void *local, uint32_t len,
		      uint32_t lkey, uint64_t wr_id, unsigned flags)
{
	return post_rdma(c, IBV_WR_SEND, (void *)(uintptr_t)local, len, lkey, 0,
			 0, wr_id, flags);
}

int rs_conn_post_recv(struct rs_conn *c, void *local, uint32_t len,
		      uint32_t lkey, uint64_t wr_id)
{
	struct ibv_sge sge = {
	    .addr = (uint64_t)(uintptr_t)local, .length = len, .lkey = lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;
	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool cm_event_pending(const struct rs_conn *c)
{
	struct pollfd pfd = {.fd = c->cm_channel->fd, .events = POLLIN};
	return poll(&pfd, 1, 0) > 0;
}

static enum rs_wait_result spin(struct rs_conn *c, struct ibv_wc *wc,
				int64_t deadline)
{
	for (unsigned i = 1;; i++) {
		int n = ibv_poll_cq(c->cq, 1, wc);
		if (n < 0)
			return RS_WAIT_ERROR;
		if (n == 1)
			return RS_WAIT_COMPLETION;
		if (i % 4096 == 0) { /* now and then, look up from the CQ */
			if (cm_event_pending(c))
				return RS_WAIT_CM_EVENT;
			if (deadline >= 0 && now_ms() >= deadline)
				return RS_WAIT_TIMEOUT;
		}
	}
}

enum rs_wait_result rs_conn_next_completion(struct rs_conn *c,
					    struct ibv_wc *wc, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	if (c->busy_poll)
		return spin(c, wc, deadline);
	for (;;) {
		int n = ibv_poll_cq(c->cq, 1, wc);
		if (n < 0)
			return RS_WAIT_ERROR;
		if (n == 1)
			return RS_WAIT_COMPLETION;
		if (!c->cq_armed) {
			/* Arm, then poll once more: a completion that landed
			 * before arming raises no event. */
			if (ibv_req_notify_cq(c->cq, 0))
				return RS_WAIT_ERROR;
			c->cq_armed = true;
			continue;
		}
		struct pollfd pfd[2] = {
		    {.fd = c->comp_channel->fd, .events = POLLIN},
		    {.fd = c->cm_channel->fd, .events = POLLIN},
		};
		int wait = -1;
		if (deadline >= 0) {
			int64_t left = deadline - now_ms();
			wait = left > 0 ? (int)left : 0;
		}
		int ready = poll(pfd, 2, wait);
		if (ready < 0 && errno == EINTR)
			return RS_WAIT_TIMEOUT; /* let the caller see signals */
		if (ready < 0)
			return RS_WAIT_ERROR;
		if (ready == 0)
			return RS_WAIT_TIMEOUT;
		if (pfd[0].revents & POLLIN) {
			struct ibv_cq *cq;
			void *ctx;
			if (ibv_get_cq_event(c->comp_channel, &cq, &ctx))
				return RS_WAIT_ERROR;
			ibv_ack_cq_events(cq, 1);
			c->cq_armed = false;
			continue;
		}
		if (pfd[1].revents & POLLIN)
			return RS_WAIT_CM_EVENT;
	}
}
