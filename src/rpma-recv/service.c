#include "service.h"

#include "commit.h"
#include "descriptor.h"
#include "exit_code.h"
#include "listener.h"
#include "log.h"
#include "message.h"
#include "mr.h"
#include "verify_reply.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

volatile sig_atomic_t recv_stop_requested;

#define RECV_POLL_MS 200 /* how often an idle loop looks at the stop flag */
#define RECV_ACCEPT_TIMEOUT_MS 5000
#define RECV_AUTH_TIMEOUT_MS 5000

/* Message buffers of one session: a receive per credit and twice as many
 * reply buffers, so a reply is never overwritten before its send is done. */
struct session {
	struct rs_conn conn;
	struct recv_commit_policy policy;
	bool verify;		/* the sender asked to verify */
	struct ibv_mr *read_mr; /* the log, readable, for its verify only */
	struct ibv_mr *ring_read_mr; /* the ring, readable, likewise */
	uint8_t *bufs;
	struct ibv_mr *bufs_mr;
	uint16_t credits;
	uint32_t replies;
	uint64_t commits;
	uint64_t bytes;
	char peer[64];
};

struct service {
	const struct recv_config *cfg;
	struct rs_pmem_target target;
	struct rs_listener listener;
	struct recv_exposure exposure;
	bool exposed;
};

static uint8_t *recv_buf(struct session *s, uint32_t i)
{
	return s->bufs + (size_t)i * RS_MSG_SIZE;
}

static uint8_t *reply_buf(struct session *s, uint32_t i)
{
	return s->bufs +
	       (size_t)(s->credits + i % (2u * s->credits)) * RS_MSG_SIZE;
}

/* After an auth challenge, the grant goes as a message from here. */
static uint8_t *grant_buf(struct session *s)
{
	return s->bufs + (size_t)3 * s->credits * RS_MSG_SIZE;
}

static void reject(struct rs_conn *c, uint8_t reason, uint8_t methods)
{
	uint8_t buf[RS_REJECT_SIZE];
	struct rs_reject_info info = {.reason = reason, .methods = methods};
	size_t len = rs_reject_encode(&info, buf, sizeof(buf));
	rs_conn_reject(c, buf, (uint8_t)len);
}

static int expose_on(struct service *svc, struct ibv_context *verbs)
{
	if (svc->exposed && svc->exposure.peer.verbs == verbs)
		return 0;
	if (svc->exposed)
		recv_exposure_teardown(&svc->exposure);
	char err[256];
	svc->exposed = false;
	if (recv_exposure_setup(&svc->exposure, verbs, &svc->target,
				&svc->cfg->exposure, err, sizeof(err))) {
		rs_err("%s", err);
		return -1;
	}
	svc->exposed = true;
	return 0;
}

static int session_prepare(struct service *svc, struct session *s)
{
	char err[256];
	s->credits = svc->cfg->exposure.slots;
	uint32_t depth = 3u * s->credits;
	if (rs_conn_create_qp(&s->conn, svc->exposure.peer.pd, 2u * s->credits,
			      s->credits, err, sizeof(err))) {
		rs_err("%s", err);
		return -1;
	}
	size_t size = (size_t)depth * RS_MSG_SIZE + RS_ACCEPT_PRIVATE_MAX;
	s->bufs = calloc(1, size);
	if (!s->bufs)
		return -1;
	int ret = rs_mr_reg(&svc->exposure.peer, s->bufs, size,
			    IBV_ACCESS_LOCAL_WRITE, &s->bufs_mr);
	if (ret) {
		rs_err("cannot register message buffers: %s",
		       rs_mr_reg_advice(ret));
		return -1;
	}
	for (uint32_t i = 0; i < s->credits; i++) {
		if (rs_conn_post_recv(&s->conn, recv_buf(s, i), RS_MSG_SIZE,
				      s->bufs_mr->lkey, i)) {
			rs_err("cannot post a receive: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void session_end(struct session *s)
{
	rs_conn_disconnect(&s->conn);
	rs_conn_destroy(&s->conn);
	rs_mr_dereg(&s->bufs_mr);
	rs_mr_dereg(&s->read_mr);
	rs_mr_dereg(&s->ring_read_mr);
	free(s->bufs);
	s->bufs = 0;
}

/* Handles one received message. Returns false when the session must end. */
static bool session_on_message(struct service *svc, struct session *s,
			       const struct ibv_wc *wc)
{
	struct rs_msg req, reply;
	uint32_t slot = (uint32_t)wc->wr_id;
	const char *why = rs_msg_decode(recv_buf(s, slot), wc->byte_len, &req);
	if (why) {
		rs_err("sender %s sent a malformed message (%s); closing the "
		       "connection",
		       s->peer, why);
		return false;
	}
	struct recv_staging staging = {.ring = svc->exposure.ring,
				       .length = svc->exposure.ring_len};
	struct recv_ring ring = {.base = svc->exposure.ring,
				 .length = svc->exposure.ring_len};
	bool verifying =
	    req.type == RS_MSG_HASH || req.type == RS_MSG_READ_STAGE;
	bool ok = verifying ? recv_verify_apply(&svc->target, &ring, s->verify,
						&req, &reply)
			    : recv_commit_apply(&svc->target, &staging,
						s->policy, &req, &reply);
	/* One reply in `credits` is signaled, only to reclaim send-queue
	 * entries: fewer completions, fewer wake-ups. Reply buffers are not
	 * reused before the sender has seen them (it waits for replies). */
	uint32_t n = s->replies++;
	unsigned flags =
	    n % s->credits == s->credits - 1u ? IBV_SEND_SIGNALED : 0;
	uint8_t *out = reply_buf(s, n);
	rs_msg_encode(&reply, out, RS_MSG_SIZE);
	if (rs_conn_post_send(&s->conn, out, RS_MSG_SIZE, s->bufs_mr->lkey,
			      UINT32_MAX, flags)) {
		rs_err("cannot reply to %s: %s", s->peer, strerror(errno));
		return false;
	}
	if (!ok) {
		rs_err("refused a request from %s at offset %llu length %llu: "
		       "%s; closing the connection",
		       s->peer, (unsigned long long)req.offset,
		       (unsigned long long)req.length,
		       rs_msg_status_str(reply.status));
		return false;
	}
	if (!verifying) {
		s->commits++;
		s->bytes += req.length;
	}
	if (rs_conn_post_recv(&s->conn, recv_buf(s, slot), RS_MSG_SIZE,
			      s->bufs_mr->lkey, slot)) {
		rs_err("cannot post a receive: %s", strerror(errno));
		return false;
	}
	return true;
}

/* Handles an rdma_cm event during a session. Returns false at its end. */
static bool session_on_cm_event(struct service *svc, struct session *s)
{
	struct rdma_cm_event *ev;
	if (rs_cm_event_wait(svc->listener.cm_channel, 0, &ev))
		return true;
	bool keep = true;
	struct rdma_cm_id *refused = 0;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		struct rs_conn other = {.id = ev->id};
		char who[64];
		rs_info("refusing sender %s: busy with %s",
			rs_conn_peer_str(&other, who, sizeof(who)), s->peer);
		reject(&other, RS_REJECT_BUSY, 0);
		refused = ev->id;
	} else if (ev->id == s->conn.id &&
		   (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
		    ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT)) {
		keep = false;
	}
	rdma_ack_cm_event(ev);
	if (refused) /* only after the ack, or destroy would wait for it */
		rdma_destroy_id(refused);
	return keep;
}

static void session_serve(struct service *svc, struct session *s)
{
	for (;;) {
		struct ibv_wc wc;
		enum rs_wait_result r =
		    rs_conn_next_completion(&s->conn, &wc, RECV_POLL_MS);
		if (r == RS_WAIT_TIMEOUT) {
			/* Commits are handled one by one, so none is half
			 * done when we get here. */
			if (recv_stop_requested)
				return;
			continue;
		}
		if (r == RS_WAIT_ERROR)
			return;
		if (r == RS_WAIT_CM_EVENT) {
			if (!session_on_cm_event(svc, s))
				return;
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			if (wc.status != IBV_WC_WR_FLUSH_ERR)
				rs_err("connection with %s failed: %s", s->peer,
				       ibv_wc_status_str(wc.status));
			return;
		}
		if (wc.opcode == IBV_WC_RECV &&
		    !session_on_message(svc, s, &wc))
			return;
		if (recv_stop_requested) /* that commit is done: leave now */
			return;
	}
}

static bool allowed(const struct recv_config *cfg, const struct rs_conn *c)
{
	if (cfg->nallow == 0)
		return true;
	const struct sockaddr *peer = rdma_get_peer_addr(c->id);
	for (unsigned i = 0; i < cfg->nallow; i++) {
		if (rs_cidr_match(&cfg->allow[i], peer))
			return true;
	}
	return false;
}

/* Remote read of the log, for a verifying sender's session only; where the
 * device cannot register the pool, of the staging ring the receiver copies
 * ranges into. Deregistered when the session ends. */
static void grant_read(struct service *svc, struct session *s,
		       struct rs_accept_info *info)
{
	const struct rs_pmem_target *t = &svc->target;
	struct rs_peer *peer = &svc->exposure.peer;
	int err = rs_mr_reg(peer, t->base + t->start, t->end - t->start,
			    IBV_ACCESS_REMOTE_READ, &s->read_mr);
	if (!err)
		info->data_read =
		    rs_mr_describe(s->read_mr, RS_MR_USAGE_READ_SRC);
	else
		rs_verbose("no remote read of the pool for %s's verify (%s); "
			   "reading through the staging ring",
			   s->peer, rs_mr_reg_advice(err));
	err = rs_mr_reg(peer, svc->exposure.ring, svc->exposure.ring_len,
			IBV_ACCESS_REMOTE_READ, &s->ring_read_mr);
	if (!err)
		info->staging_read =
		    rs_mr_describe(s->ring_read_mr, RS_MR_USAGE_READ_SRC);
}

/* What the sender may use, as of now: truncates first when asked. */
static void grant(struct service *svc, struct session *s,
		  const struct rs_connect_req *req, struct rs_accept_info *info)
{
	if (req->flags & RS_CONNECT_TRUNCATE) {
		rs_pmem_target_commit(&svc->target, svc->target.start);
		rs_info("log truncated at the request of %s", s->peer);
	}
	recv_exposure_describe(&svc->exposure, &svc->target, info);
	if (s->verify)
		grant_read(svc, s, info);
}

/* Waits for the answer to the challenge; anything else ends the session. */
static bool session_authenticate(struct service *svc, struct session *s,
				 const struct rs_auth_key *key,
				 const uint8_t *nonce)
{
	for (;;) {
		struct ibv_wc wc;
		enum rs_wait_result r = rs_conn_next_completion(
		    &s->conn, &wc, RECV_AUTH_TIMEOUT_MS);
		if (r == RS_WAIT_CM_EVENT && session_on_cm_event(svc, s))
			continue;
		if (r != RS_WAIT_COMPLETION || wc.status != IBV_WC_SUCCESS) {
			rs_err("refusing sender %s: it did not answer the "
			       "auth challenge",
			       s->peer);
			return false;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		uint32_t slot = (uint32_t)wc.wr_id;
		struct rs_msg msg;
		const char *why =
		    rs_msg_decode(recv_buf(s, slot), wc.byte_len, &msg);
		if (!why && msg.type != RS_MSG_AUTH)
			why = "it did not answer the auth challenge";
		if (!why && !rs_auth_check(key, nonce, msg.mac))
			why = "wrong auth key";
		if (why) {
			rs_err("refusing sender %s: %s", s->peer, why);
			return false;
		}
		if (rs_conn_post_recv(&s->conn, recv_buf(s, slot), RS_MSG_SIZE,
				      s->bufs_mr->lkey, slot))
			return false;
		rs_verbose("sender %s proved the auth key", s->peer);
		return true;
	}
}

/* Returns true when a sender was accepted and served. */
static bool on_connect_request(struct service *svc, struct rdma_cm_event *ev)
{
	struct session s;
	memset(&s, 0, sizeof(s));
	struct rs_private_data priv;
	rs_listener_take_request(&svc->listener, ev, &s.conn, &priv);
	rdma_ack_cm_event(ev);
	rs_conn_peer_str(&s.conn, s.peer, sizeof(s.peer));
	s.conn.busy_poll = svc->cfg->busy_poll;

	/* Before anything is registered or described. */
	if (!allowed(svc->cfg, &s.conn)) {
		rs_err("refusing sender %s: not in any --allow range", s.peer);
		reject(&s.conn, RS_REJECT_NOT_ALLOWED, 0);
		rdma_destroy_id(s.conn.id);
		return false;
	}
	struct rs_connect_req req;
	const char *why = rs_connect_req_decode(priv.bytes, priv.len, &req);
	if (why) {
		rs_err("refusing sender %s: %s", s.peer, why);
		reject(&s.conn,
		       strstr(why, "version") ? RS_REJECT_VERSION
					      : RS_REJECT_BAD_REQUEST,
		       0);
		rdma_destroy_id(s.conn.id);
		return false;
	}
	if (expose_on(svc, s.conn.id->verbs)) {
		reject(&s.conn, RS_REJECT_INTERNAL, 0);
		rdma_destroy_id(s.conn.id);
		return false;
	}
	uint8_t methods = svc->exposure.methods;
	if (req.method != RS_METHOD_AUTO &&
	    !(methods & RS_METHOD_BIT(req.method))) {
		rs_err("refusing sender %s: it asks for method %s, which this "
		       "receiver does not offer",
		       s.peer, rs_method_name(req.method));
		reject(&s.conn, RS_REJECT_METHOD, methods);
		rdma_destroy_id(s.conn.id);
		return false;
	}
	s.policy.allow_in_place = methods & RS_METHOD_BIT(RS_METHOD_GPSPM);
	s.policy.allow_staged = methods & RS_METHOD_BIT(RS_METHOD_STAGED);
	if (session_prepare(svc, &s)) {
		reject(&s.conn, RS_REJECT_INTERNAL, 0);
		session_end(&s);
		return false;
	}
	s.verify = req.flags & RS_CONNECT_VERIFY;
	const struct rs_auth_key *key = svc->cfg->auth_key;
	struct rs_challenge challenge;
	struct rs_accept_info info;
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX];
	size_t len;
	if (key) { /* nothing is described before the key is proved */
		if (rs_auth_nonce(challenge.nonce)) {
			rs_err("cannot draw a random auth challenge");
			reject(&s.conn, RS_REJECT_INTERNAL, 0);
			session_end(&s);
			return false;
		}
		len = rs_challenge_encode(&challenge, buf, sizeof(buf));
	} else {
		grant(svc, &s, &req, &info);
		len = rs_accept_info_encode(&info, buf, sizeof(buf));
	}
	char err[256];
	if (rs_conn_accept(&s.conn, buf, (uint8_t)len, RECV_ACCEPT_TIMEOUT_MS,
			   err, sizeof(err))) {
		rs_err("sender %s: %s", s.peer, err);
		session_end(&s);
		return false;
	}
	if (key && !session_authenticate(svc, &s, key, challenge.nonce)) {
		session_end(&s);
		return false;
	}
	if (key) {
		grant(svc, &s, &req, &info);
		len = rs_accept_info_encode(&info, grant_buf(&s),
					    RS_ACCEPT_PRIVATE_MAX);
		if (rs_conn_post_send(&s.conn, grant_buf(&s), (uint32_t)len,
				      s.bufs_mr->lkey, UINT32_MAX,
				      IBV_SEND_SIGNALED)) {
			rs_err("cannot send the grant to %s: %s", s.peer,
			       strerror(errno));
			session_end(&s);
			return false;
		}
	}
	rs_verbose("sender %s connected at write offset %llu", s.peer,
		   (unsigned long long)info.write_offset_value);
	session_serve(svc, &s);
	rs_info("sender %s done: %llu commits, %llu bytes, log at %llu of "
		"%llu bytes",
		s.peer, (unsigned long long)s.commits,
		(unsigned long long)s.bytes,
		(unsigned long long)(rs_pmem_target_write_offset(&svc->target) -
				     svc->target.start),
		(unsigned long long)(svc->target.end - svc->target.start));
	session_end(&s);
	return true;
}

int recv_service_run(const struct recv_config *cfg)
{
	struct service svc;
	memset(&svc, 0, sizeof(svc));
	svc.cfg = cfg;
	char err[512];
	if (rs_pmem_target_open(&svc.target, cfg->pool_path, cfg->create_size,
				err, sizeof(err))) {
		rs_err("%s", err);
		return RS_EXIT_USAGE;
	}
	if (rs_listener_new(&svc.listener, &cfg->listen, err, sizeof(err))) {
		rs_err("%s", err);
		rs_pmem_target_close(&svc.target);
		return RS_EXIT_CONNECT;
	}
	rs_info("serving %s (%llu bytes of log, %llu used) on %s:%s",
		cfg->pool_path,
		(unsigned long long)(svc.target.end - svc.target.start),
		(unsigned long long)(rs_pmem_target_write_offset(&svc.target) -
				     svc.target.start),
		cfg->listen.host[0] ? cfg->listen.host : "*", cfg->listen.port);

	bool served = false;
	while (!recv_stop_requested && !(cfg->once && served)) {
		struct rdma_cm_event *ev;
		if (rs_cm_event_wait(svc.listener.cm_channel, RECV_POLL_MS,
				     &ev))
			continue;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			served |= on_connect_request(&svc, ev);
		} else {
			rdma_ack_cm_event(ev);
		}
	}
	if (svc.exposed)
		recv_exposure_teardown(&svc.exposure);
	rs_listener_delete(&svc.listener);
	rs_pmem_target_close(&svc.target);
	return RS_EXIT_OK;
}
