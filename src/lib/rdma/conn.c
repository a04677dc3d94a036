#include "rdma/conn.h"

#include "error.h"
#include "rdma/internal.h"
#include "rdma/mr.h"
#include "rdma/peer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *rs_rdma_errno_hint(int err)
{
	if (err == ENODEV)
		return "no RDMA device on this machine; load a driver or set "
		       "up Soft-RoCE (rdma link add rxe0 type rxe netdev ETH)";
	if (err == EMFILE)
		return "the process has as many files open as its limit "
		       "allows; raise it (LimitNOFILE= in its unit, or ulimit "
		       "-n)";
	if (err == ENFILE)
		return "the system has as many files open as it allows; "
		       "raise fs.file-max";
	return strerror(err);
}

int rs_cm_event_wait(struct rdma_event_channel *ch, int timeout_ms,
		     struct rdma_cm_event **event)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	/* A signal the program handles (SIGINT, SIGTERM, SIGHUP) ends the
	 * wait with EINTR: the program decides whether to wait again. */
	int n = poll(&pfd, 1, timeout_ms);
	if (n == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (n < 0)
		return -1;
	return rdma_get_cm_event(ch, event);
}

void rs_private_data_copy(const struct rdma_cm_event *ev,
			  struct rs_private_data *pd)
{
	size_t len = ev->param.conn.private_data_len;
	if (!ev->param.conn.private_data)
		len = 0;
	if (len > sizeof(pd->bytes))
		len = sizeof(pd->bytes);
	if (len) /* none: memcpy may not be given NULL, even for nothing */
		memcpy(pd->bytes, ev->param.conn.private_data, len);
	pd->len = len;
}

/* Waits for the event that a resolve or connect step must produce. */
static int expect_event(struct rs_conn *c, enum rdma_cm_event_type want,
			int timeout_ms, struct rs_private_data *pd,
			enum rdma_cm_event_type *got)
{
	struct rdma_cm_event *ev;
	if (rs_cm_event_wait(c->cm_channel, timeout_ms, &ev))
		return -1; /* *got untouched: nothing arrived */
	*got = ev->event;
	int status = ev->status;
	if (pd)
		rs_private_data_copy(ev, pd);
	rdma_ack_cm_event(ev);
	if (*got != want) {
		errno = status < 0 ? -status : ECONNREFUSED;
		return -1;
	}
	return 0;
}

static int resolve_steps(struct rs_conn *c, const char *host,
			 struct rdma_addrinfo *ai, int timeout_ms,
			 struct rs_error *err)
{
	enum rdma_cm_event_type got;
	if (rdma_resolve_addr(c->id, ai->ai_src_addr, ai->ai_dst_addr,
			      timeout_ms) ||
	    expect_event(c, RDMA_CM_EVENT_ADDR_RESOLVED, timeout_ms + 1000, 0,
			 &got))
		return rs_error_set(
		    err, RS_E_UNREACHABLE, errno,
		    "cannot reach %s over RDMA (address "
		    "resolution failed: %s); check the address "
		    "and that an RDMA device serves that network",
		    host, strerror(errno));
	if (rdma_resolve_route(c->id, timeout_ms) ||
	    expect_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED, timeout_ms + 1000, 0,
			 &got))
		return rs_error_set(err, RS_E_UNREACHABLE, errno,
				    "cannot find a route to %s: %s", host,
				    strerror(errno));
	return 0;
}

/* Why rdma_getaddrinfo failed. Without an RDMA device it says ENODEV for
 * any name, so the name is looked up on its own first: a name that does
 * not exist is named as the trouble, and only then the missing device
 * (which no retry brings back). */
static int resolve_failure(const char *host, const char *port, int e,
			   struct rs_error *err)
{
	if (e == ENODEV) {
		struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
		struct addrinfo *ai = 0;
		int gai = getaddrinfo(host, port, &hints, &ai);
		if (ai)
			freeaddrinfo(ai);
		if (gai)
			return rs_error_set(err, RS_E_UNREACHABLE, 0,
					    "cannot resolve %s: %s; check the "
					    "name",
					    host, gai_strerror(gai));
		return rs_error_set(err, RS_E_NODEV, e,
				    "cannot reach %s:%s: %s", host, port,
				    rs_rdma_errno_hint(e));
	}
	return rs_error_set(err, RS_E_UNREACHABLE, e,
			    "cannot resolve %s:%s: %s", host, port,
			    rs_rdma_errno_hint(e));
}

int rs_conn_resolve(const char *host, const char *port, int timeout_ms,
		    struct rs_conn **conn, struct rs_error *err)
{
	struct rdma_addrinfo hints = {.ai_port_space = RDMA_PS_TCP};
	struct rdma_addrinfo *ai = 0;
	if (rdma_getaddrinfo(host, port, &hints, &ai))
		return resolve_failure(host, port, errno, err);
	struct rs_conn *c = calloc(1, sizeof(*c));
	if (!c) {
		rdma_freeaddrinfo(ai);
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	}
	c->owns_cm_channel = true;
	c->cm_channel = rdma_create_event_channel();
	int rc = 0;
	if (!c->cm_channel ||
	    rdma_create_id(c->cm_channel, &c->id, c, RDMA_PS_TCP))
		rc = rs_error_set(err, RS_E_PROVIDER, errno,
				  "cannot create an RDMA CM id: %s",
				  rs_rdma_errno_hint(errno));
	if (!rc)
		rc = resolve_steps(c, host, ai, timeout_ms, err);
	rdma_freeaddrinfo(ai);
	if (rc)
		rs_conn_delete(&c);
	*conn = c;
	return rc;
}

/* rdma_cm let go of a request while it was being set up: its sender gave
 * up on it (a host short of CPU). The calls that need it then fail with
 * EINVAL, as a limit of the device does: told apart by asking whether the
 * request is still held. Says so in err (rs_conn_withdrawn_error). */
static bool withdrawn_meanwhile(struct rs_conn *c, int e, struct rs_error *err)
{
	if (e != EINVAL || !rs_conn_withdrawn(c))
		return false;
	rs_error_set(err, RS_E_LOST, ECONNABORTED,
		     "its sender withdrew the request while it was set up");
	return true;
}

int rs_conn_create_qp(struct rs_conn *c, struct rs_peer *peer,
		      uint32_t send_depth, uint32_t recv_depth,
		      struct rs_error *err)
{
	c->comp_channel = ibv_create_comp_channel(c->id->verbs);
	if (!c->comp_channel)
		return rs_error_set(err, RS_E_PROVIDER, errno,
				    "cannot create a completion channel: %s",
				    rs_rdma_errno_hint(errno));
	int cqe = (int)(send_depth + recv_depth);
	if (c->quiet_sends) {
		cqe = (int)recv_depth;
		c->send_cq =
		    ibv_create_cq(c->id->verbs, (int)send_depth, c, NULL, 0);
		if (!c->send_cq)
			return rs_error_set(
			    err, RS_E_PROVIDER, errno,
			    "cannot create a completion queue: %s",
			    strerror(errno));
	}
	c->cq = ibv_create_cq(c->id->verbs, cqe, c, c->comp_channel, 0);
	if (!c->cq)
		return rs_error_set(err, RS_E_PROVIDER, errno,
				    "cannot create a completion queue: %s",
				    strerror(errno));
	struct ibv_qp_init_attr attr = {
	    .send_cq = c->send_cq ? c->send_cq : c->cq,
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
	if (peer->flush_ops && rs_conn_create_qp_ex(c, peer, &attr) == 0)
		return 0;
	if (rdma_create_qp(c->id, peer->pd, &attr)) {
		int e = errno;
		if (withdrawn_meanwhile(c, e, err))
			return RS_E_LOST;
		return rs_error_set(err, RS_E_PROVIDER, e,
				    "cannot create a queue pair: %s",
				    strerror(e));
	}
	return 0;
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

/* How long the queue pair waits for an acknowledgement before it sends
 * again: 4.096 us * 2^RS_ACK_TIMEOUT_EXP. The connection manager's default
 * for RoCE is about a second, so one lost packet stalls the link for that
 * long. See rpma-ship(7) for the measurements behind the value. */
#ifndef RS_ACK_TIMEOUT_EXP    /* a build may choose another, to measure */
#define RS_ACK_TIMEOUT_EXP 14 /* 67 ms */
#endif

static void set_ack_timeout(struct rdma_cm_id *id)
{
	uint8_t exp = RS_ACK_TIMEOUT_EXP;
	/* Best effort: a kernel without the option keeps its default. */
	rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &exp,
			sizeof(exp));
}

int rs_conn_connect(struct rs_conn *c, const void *priv, uint8_t priv_len,
		    int timeout_ms, struct rs_private_data *reply,
		    struct rs_error *err)
{
	set_ack_timeout(c->id);
	struct rdma_conn_param param = conn_param(c, priv, priv_len);
	if (rdma_connect(c->id, &param))
		return rs_error_set(err, RS_E_PROVIDER, errno,
				    "connect failed: %s", strerror(errno));
	/* ESTABLISHED stands for "no event" until one arrives. */
	enum rdma_cm_event_type got = RDMA_CM_EVENT_ESTABLISHED;
	reply->len = 0;
	int64_t asked = now_ms();
	int waited =
	    expect_event(c, RDMA_CM_EVENT_ESTABLISHED, timeout_ms, reply, &got);
	c->answer_ms =
	    waited && errno == ETIMEDOUT ? -1 : (int)(now_ms() - asked);
	if (waited == 0) {
		c->established = true;
		return 0;
	}
	if (got == RDMA_CM_EVENT_ESTABLISHED)
		return rs_error_set(err, RS_E_TIMEOUT, ETIMEDOUT,
				    "no answer to the connect request within "
				    "%d ms",
				    timeout_ms);
	if (got == RDMA_CM_EVENT_REJECTED && reply->len > 0)
		return rs_error_set(err, RS_E_REJECTED, ECONNREFUSED,
				    "the receiver refused the connection");
	return rs_error_set(err, RS_E_UNREACHABLE, ECONNREFUSED,
			    "nothing accepts connections there (%s)",
			    got == RDMA_CM_EVENT_REJECTED
				? "connection refused"
				: rdma_event_str(got));
}

/* One step of the accepting side's queue pair, with the attributes
 * rdma_cm says for it (the path, the peer's queue pair, its sequence
 * numbers), as rdma_accept would take it. */
static int qp_step(struct rs_conn *c, enum ibv_qp_state to,
		   struct ibv_qp_attr *attr, int *mask)
{
	attr->qp_state = to;
	if (rdma_init_qp_attr(c->id, attr, mask))
		return errno ? errno : EINVAL;
	if (to == IBV_QPS_RTR) {
		struct ibv_port_attr port;
		/* rdma_cm's own workaround: bits 21-24 are RoCE's only */
		if (ibv_query_port(c->id->verbs, c->id->port_num, &port) == 0 &&
		    port.link_layer == IBV_LINK_LAYER_INFINIBAND)
			*mask &= (int)(UINT_MAX ^ 0xe00000u);
	}
	return 0;
}

/* rdma_accept moves a queue pair it knows to RTS with every remote access
 * its device has (write, read, atomic, flush), and sets that again on the
 * way, so it cannot be cut down before the peer may use it. This side
 * moves it itself, with only `access` from the start, and the reads in
 * flight of param, as rdma_accept would have. */
static int ready_qp(struct rs_conn *c, const struct rdma_conn_param *param,
		    unsigned access)
{
	struct ibv_qp_attr attr;
	int mask, rc = qp_step(c, IBV_QPS_INIT, &attr, &mask);
	if (!rc) {
		attr.qp_access_flags = (unsigned)rs_remote_access(access);
		rc = ibv_modify_qp(c->id->qp, &attr, mask);
	}
	if (!rc && !(rc = qp_step(c, IBV_QPS_RTR, &attr, &mask))) {
		attr.max_dest_rd_atomic = param->responder_resources;
		rc = ibv_modify_qp(c->id->qp, &attr, mask);
	}
	if (!rc && !(rc = qp_step(c, IBV_QPS_RTS, &attr, &mask))) {
		attr.max_rd_atomic = param->initiator_depth;
		rc = ibv_modify_qp(c->id->qp, &attr, mask);
	}
	return rc;
}

int rs_conn_ready(struct rs_conn *c, unsigned access, struct rs_error *err)
{
	set_ack_timeout(c->id);
	struct rdma_conn_param param = conn_param(c, 0, 0);
	int rc = ready_qp(c, &param, access);
	if (rc && withdrawn_meanwhile(c, rc, err))
		return RS_E_LOST;
	if (rc)
		return rs_error_set(err, RS_E_PROVIDER, rc,
				    "cannot make the queue pair ready: %s",
				    strerror(rc));
	return 0;
}

int rs_conn_accept(struct rs_conn *c, const void *priv, uint8_t priv_len,
		   unsigned access, struct rs_error *err)
{
	int rc = rs_conn_ready(c, access, err);
	return rc ? rc : rs_conn_answer(c, priv, priv_len, err);
}

int rs_conn_answer(struct rs_conn *c, const void *priv, uint8_t priv_len,
		   struct rs_error *err)
{
	struct rdma_conn_param param = conn_param(c, priv, priv_len);
	/* Shown no queue pair, rdma_accept leaves it as it is and answers
	 * with the number given (librdmacm reads id->qp only in the call). */
	struct ibv_qp *qp = c->id->qp;
	param.qp_num = qp->qp_num;
	c->id->qp = NULL;
	int rc = rdma_accept(c->id, &param);
	int e = errno;
	c->id->qp = qp;
	if (rc && withdrawn_meanwhile(c, e, err))
		return RS_E_LOST;
	if (rc)
		return rs_error_set(err, RS_E_PROVIDER, e, "accept failed: %s",
				    strerror(e));
	return 0;
}

int rs_conn_set_access(struct rs_conn *c, unsigned access, struct rs_error *err)
{
	struct ibv_qp_attr attr = {.qp_access_flags =
				       (unsigned)rs_remote_access(access)};
	int rc = ibv_modify_qp(c->id->qp, &attr, IBV_QP_ACCESS_FLAGS);
	if (rc)
		return rs_error_set(err, RS_E_PROVIDER, rc,
				    "cannot change what the peer may do "
				    "through its queue pair: %s",
				    strerror(rc));
	return 0;
}

int rs_conn_answer_ms(const struct rs_conn *c)
{
	return c->answer_ms;
}

/* Two ways a withdrawal shows: an event on the request's channel, when
 * the sender's rejection came after the request was read; none at all when
 * it came before (the kernel drops a new connection's events until its
 * request is read, "the accept will just fail later"), but then the
 * connection manager no longer has the request: the attributes of its
 * queue pair fail (EINVAL). */
bool rs_conn_withdrawn(struct rs_conn *c)
{
	struct rdma_cm_event *ev;
	bool gone = false;
	while (!gone && rs_cm_event_wait(c->cm_channel, 0, &ev) == 0) {
		enum rdma_cm_event_type type = ev->event;
		rdma_ack_cm_event(ev);
		gone = type == RDMA_CM_EVENT_REJECTED ||
		       type == RDMA_CM_EVENT_DISCONNECTED ||
		       type == RDMA_CM_EVENT_TIMEWAIT_EXIT ||
		       type == RDMA_CM_EVENT_CONNECT_ERROR ||
		       type == RDMA_CM_EVENT_UNREACHABLE ||
		       type == RDMA_CM_EVENT_DEVICE_REMOVAL;
	}
	struct ibv_qp_attr attr = {.qp_state = IBV_QPS_INIT};
	int mask = 0;
	return gone || rdma_init_qp_attr(c->id, &attr, &mask) != 0;
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

void rs_conn_delete(struct rs_conn **conn)
{
	struct rs_conn *c = *conn;
	if (!c)
		return;
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->send_cq)
		ibv_destroy_cq(c->send_cq);
	if (c->comp_channel)
		ibv_destroy_comp_channel(c->comp_channel);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->cm_channel && c->owns_cm_channel)
		rdma_destroy_event_channel(c->cm_channel);
	free(c);
	*conn = 0;
}

void rs_conn_set_busy_poll(struct rs_conn *c, bool busy_poll)
{
	c->busy_poll = busy_poll;
}

const struct sockaddr *rs_conn_peer_addr(const struct rs_conn *c)
{
	return rdma_get_peer_addr(c->id);
}

const char *rs_conn_peer_str(const struct rs_conn *c, char *buf, size_t len)
{
	const struct sockaddr *sa = rs_conn_peer_addr(c);
	char host[INET6_ADDRSTRLEN] = "?";
	socklen_t salen = sa->sa_family == AF_INET6
			      ? sizeof(struct sockaddr_in6)
			      : sizeof(struct sockaddr_in);
	getnameinfo(sa, salen, host, sizeof(host), 0, 0, NI_NUMERICHOST);
	snprintf(buf, len, "%s", host);
	return buf;
}

unsigned rs_conn_send_flags(unsigned flags)
{
	return ((flags & RS_POST_SIGNALED) ? IBV_SEND_SIGNALED : 0) |
	       ((flags & RS_POST_FENCE) ? IBV_SEND_FENCE : 0);
}

/* Adds a work request to the connection's chain and posts the chain
 * unless RS_POST_MORE says more follow (and there is room for them). */
static int post_send_wr(struct rs_conn *c, enum ibv_wr_opcode op,
			struct ibv_sge *sge, uint64_t remote, uint32_t rkey,
			uint64_t wr_id, unsigned flags)
{
	if (rs_conn_complete_wr_group(c))
		return RS_E_LOST;
	unsigned i = c->chained++;
	c->chain_sge[i] = *sge;
	c->chain[i] = (struct ibv_send_wr){
	    .wr_id = wr_id,
	    .sg_list = &c->chain_sge[i],
	    .num_sge = sge->length ? 1 : 0,
	    .opcode = op,
	    .send_flags = rs_conn_send_flags(flags),
	};
	c->chain[i].wr.rdma.remote_addr = remote;
	c->chain[i].wr.rdma.rkey = rkey;
	if (i > 0)
		c->chain[i - 1].next = &c->chain[i];
	if ((flags & RS_POST_MORE) && c->chained < RS_CONN_CHAIN_MAX)
		return 0;
	c->chained = 0;
	struct ibv_send_wr *bad;
	return ibv_post_send(c->id->qp, &c->chain[0], &bad) ? RS_E_LOST : 0;
}

int rs_conn_post_raw(struct rs_conn *c, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad)
{
	if (rs_conn_complete_wr_group(c)) {
		*bad = wr;
		return RS_E_LOST;
	}
	if (c->chained) { /* what was held back goes first */
		c->chain[c->chained - 1].next = wr;
		c->chained = 0;
		return ibv_post_send(c->id->qp, &c->chain[0], bad);
	}
	return ibv_post_send(c->id->qp, wr, bad);
}

int rs_conn_hold_raw(struct rs_conn *c, struct ibv_send_wr *wr)
{
	unsigned n = 0;
	for (const struct ibv_send_wr *w = wr; w; w = w->next)
		n++;
	/* Room for them and the request that posts them, or posted now. */
	if (c->chained + n >= RS_CONN_CHAIN_MAX) {
		struct ibv_send_wr *bad;
		return rs_conn_post_raw(c, wr, &bad) ? RS_E_LOST : 0;
	}
	if (rs_conn_complete_wr_group(c))
		return RS_E_LOST;
	for (; wr; wr = wr->next) {
		unsigned i = c->chained++;
		c->chain[i] = *wr;
		c->chain[i].next = 0;
		if (i > 0)
			c->chain[i - 1].next = &c->chain[i];
	}
	return 0;
}

static struct ibv_sge sge_of(const struct rs_mr *mr, size_t offset,
			     uint32_t len)
{
	return (struct ibv_sge){.addr =
				    (uint64_t)(uintptr_t)mr->mr->addr + offset,
				.length = len,
				.lkey = mr->mr->lkey};
}

int rs_conn_write(struct rs_conn *c, const struct rs_mr_desc *dst,
		  uint64_t dst_offset, const struct rs_mr *src,
		  size_t src_offset, uint32_t len, uint64_t wr_id,
		  unsigned flags)
{
	struct ibv_sge sge = sge_of(src, src_offset, len);
	return post_send_wr(c, IBV_WR_RDMA_WRITE, &sge, dst->addr + dst_offset,
			    dst->rkey, wr_id, flags);
}

int rs_conn_probe(struct rs_conn *c, unsigned flags)
{
	/* No bytes: no address, no key, nothing the peer's program sees. */
	struct ibv_sge none = {0};
	return post_send_wr(c, IBV_WR_RDMA_WRITE, &none, 0, 0,
			    RS_CONN_PROBE_WR_ID, flags);
}

int rs_conn_read(struct rs_conn *c, struct rs_mr *dst, size_t dst_offset,
		 const struct rs_mr_desc *src, uint64_t src_offset,
		 uint32_t len, uint64_t wr_id, unsigned flags)
{
	struct ibv_sge sge = sge_of(dst, dst_offset, len);
	return post_send_wr(c, IBV_WR_RDMA_READ, &sge, src->addr + src_offset,
			    src->rkey, wr_id, flags);
}

int rs_conn_send(struct rs_conn *c, const struct rs_mr *src, size_t offset,
		 uint32_t len, uint64_t wr_id, unsigned flags)
{
	struct ibv_sge sge = sge_of(src, offset, len);
	return post_send_wr(c, IBV_WR_SEND, &sge, 0, 0, wr_id, flags);
}

int rs_conn_recv(struct rs_conn *c, struct rs_mr *dst, size_t offset,
		 uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = sge_of(dst, offset, len);
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;
	return ibv_post_recv(c->id->qp, &wr, &bad) ? RS_E_LOST : 0;
}

static void completion_of(const struct ibv_wc *wc, struct rs_completion *out)
{
	enum rs_op op = RS_OP_OTHER;
	if (wc->opcode == IBV_WC_RDMA_WRITE)
		op = RS_OP_WRITE;
	else if (wc->opcode == IBV_WC_RDMA_READ)
		op = RS_OP_READ;
	else if (wc->opcode == IBV_WC_SEND)
		op = RS_OP_SEND;
	else if (wc->opcode == IBV_WC_RECV)
		op = RS_OP_RECV;
#ifdef RS_HAVE_IBV_FLUSH
	else if (wc->opcode == IBV_WC_FLUSH)
		op = RS_OP_FLUSH;
#endif
	*out = (struct rs_completion){
	    .wr_id = wc->wr_id,
	    .op = op,
	    .ok = wc->status == IBV_WC_SUCCESS,
	    .flushed = wc->status == IBV_WC_WR_FLUSH_ERR,
	    .status = ibv_wc_status_str(wc->status),
	    .byte_len = wc->byte_len,
	};
}

/* One completion: the quiet send queue's first (it raises no event, so
 * nothing else makes it looked at), then the queue pair's CQ. */
static int poll_one(struct rs_conn *c, struct ibv_wc *wc)
{
	int n = c->send_cq ? ibv_poll_cq(c->send_cq, 1, wc) : 0;
	return n ? n : ibv_poll_cq(c->cq, 1, wc);
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
		int n = poll_one(c, wc);
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

/* How long a wait may sleep: forever for a negative timeout, not at all
 * for 0, else until deadline. */
static int poll_wait_ms(int timeout_ms, int64_t deadline)
{
	if (timeout_ms <= 0)
		return timeout_ms < 0 ? -1 : 0;
	int64_t left = deadline - now_ms();
	return left > 0 ? (int)left : 0;
}

/* Takes the completion channel's event: the CQ is to be armed again. */
static int take_cq_event(struct rs_conn *c)
{
	struct ibv_cq *cq;
	void *ctx;
	if (ibv_get_cq_event(c->comp_channel, &cq, &ctx))
		return -1;
	ibv_ack_cq_events(cq, 1);
	c->cq_armed = false;
	return 0;
}

static enum rs_wait_result next_wc(struct rs_conn *c, struct ibv_wc *wc,
				   int timeout_ms)
{
	/* No clock for a look without waiting, the common case: in a guest
	 * without a vDSO clock each reading is a system call. */
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : timeout_ms;
	if (c->busy_poll)
		return spin(c, wc, deadline);
	for (;;) {
		int n = poll_one(c, wc);
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
		int ready = poll(pfd, 2, poll_wait_ms(timeout_ms, deadline));
		if (ready < 0 && errno == EINTR)
			return RS_WAIT_TIMEOUT; /* let the caller see signals */
		if (ready < 0)
			return RS_WAIT_ERROR;
		if (ready == 0)
			return RS_WAIT_TIMEOUT;
		if (pfd[0].revents & POLLIN) {
			if (take_cq_event(c))
				return RS_WAIT_ERROR;
			continue;
		}
		if (pfd[1].revents & POLLIN)
			return RS_WAIT_CM_EVENT;
	}
}

enum rs_wait_result rs_conn_next_completion(struct rs_conn *c,
					    struct rs_completion *wc,
					    int timeout_ms)
{
	struct ibv_wc raw;
	enum rs_wait_result r = next_wc(c, &raw, timeout_ms);
	if (r == RS_WAIT_COMPLETION)
		completion_of(&raw, wc);
	return r;
}

/* What one ibv_poll_cq of n results gave, as a wait's result. */
static enum rs_wait_result polled(int n, const struct ibv_wc *raw,
				  struct rs_completion *wc)
{
	if (n < 0)
		return RS_WAIT_ERROR;
	if (n == 0)
		return RS_WAIT_TIMEOUT;
	completion_of(raw, wc);
	return RS_WAIT_COMPLETION;
}

enum rs_wait_result rs_conn_poll_completion(struct rs_conn *c,
					    struct rs_completion *wc)
{
	struct ibv_wc raw;
	return polled(poll_one(c, &raw), &raw, wc);
}

enum rs_wait_result rs_conn_poll_sends(struct rs_conn *c,
				       struct rs_completion *wc)
{
	struct ibv_wc raw;
	int n = c->send_cq ? ibv_poll_cq(c->send_cq, 1, &raw) : 0;
	return polled(n, &raw, wc);
}

void rs_conn_quiet_sends(struct rs_conn *c)
{
	c->quiet_sends = true;
}

enum rs_conn_event rs_conn_next_event(struct rs_conn *c)
{
	struct rdma_cm_event *ev;
	if (rs_cm_event_wait(c->cm_channel, 0, &ev))
		return RS_CONN_EVENT_NONE;
	enum rdma_cm_event_type type = ev->event;
	rdma_ack_cm_event(ev);
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		c->established = true;
		return RS_CONN_EVENT_ESTABLISHED;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		c->established = false;
		return RS_CONN_EVENT_CLOSED;
	default:
		return RS_CONN_EVENT_OTHER;
	}
}

void rs_conn_fds(const struct rs_conn *c, int *completion_fd, int *event_fd)
{
	*completion_fd = c->comp_channel->fd;
	*event_fd = c->cm_channel->fd;
}
