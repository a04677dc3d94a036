#include "session/session.h"

#include "error.h"
#include "rdma/mr.h"
#include "rdma/peer.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Every slot buffer can hold the largest thing a message carries: the
 * grant, which follows an authentication as a message. */
#define SLOT_BYTES RS_ACCEPT_PRIVATE_MAX
#define SESSION_WR_ID UINT64_MAX /* the session's own sends */

struct rs_session {
	struct rs_conn *conn;
	struct rs_peer *peer;
	bool owns_peer; /* the sender's; the receiver shares its own */
	uint8_t *bufs;	/* per slot: in, then out */
	struct rs_mr *bufs_mr;
	uint16_t slots;	   /* the caller's; the control slot comes after */
	uint32_t recv_len; /* what a receive may take */
	struct rs_accept_info grant;
	const struct rs_auth_key *key;
	uint8_t nonce[RS_AUTH_NONCE_SIZE];
	struct rs_session_token presented; /* receiver: covered by the auth */
	uint8_t version; /* the protocol version the two speak */
};

static size_t in_offset(uint16_t slot)
{
	return (size_t)slot * 2 * SLOT_BYTES;
}

static size_t out_offset(uint16_t slot)
{
	return in_offset(slot) + SLOT_BYTES;
}

static int post_recv(struct rs_session *s, uint16_t slot)
{
	return rs_conn_recv(s->conn, s->bufs_mr, in_offset(slot), s->recv_len,
			    slot);
}

/* The queue pair, the slot buffers, and a receive on every slot, the
 * control slot included (replies may arrive as soon as the connection is
 * up). */
static int setup(struct rs_session *s, uint32_t send_depth,
		 struct rs_error *err)
{
	uint16_t all = s->slots + 1u;
	int rc = rs_conn_create_qp(s->conn, s->peer, send_depth, all, err);
	if (rc)
		return rc;
	size_t size = (size_t)all * 2 * SLOT_BYTES;
	s->bufs = calloc(1, size);
	if (!s->bufs)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	rc = rs_mr_reg(s->peer, s->bufs, size, RS_MR_LOCAL, &s->bufs_mr, err);
	if (rc)
		return err ? rs_error_wrap(err, "cannot register message "
						"buffers")
			   : rc;
	for (uint16_t i = 0; i < all; i++) {
		if (post_recv(s, i))
			return rs_error_set(err, RS_E_LOST, errno,
					    "cannot post a receive: %s",
					    strerror(errno));
	}
	return 0;
}

void rs_session_delete(struct rs_session **session)
{
	struct rs_session *s = *session;
	if (!s)
		return;
	if (s->conn) {
		rs_conn_disconnect(s->conn);
		rs_conn_delete(&s->conn);
	}
	rs_mr_dereg(&s->bufs_mr);
	free(s->bufs);
	if (s->owns_peer)
		rs_peer_delete(&s->peer);
	free(s);
	*session = 0;
}

struct rs_conn *rs_session_conn(const struct rs_session *s)
{
	return s->conn;
}

struct rs_peer *rs_session_peer(const struct rs_session *s)
{
	return s->peer;
}

const struct rs_accept_info *rs_session_grant(const struct rs_session *s)
{
	return &s->grant;
}

uint16_t rs_session_slots(const struct rs_session *s)
{
	return s->slots;
}

uint16_t rs_session_control_slot(const struct rs_session *s)
{
	return s->slots;
}

/* RPMA_TRACE_MESSAGES set: each message sent and taken, one line on
 * stderr with its time on CLOCK_MONOTONIC, so that a commit's time can be
 * split between the two ends where both run on one clock (one host, or
 * one guest: scripts/benchmark/lone-line). */
static void trace(const char *verb, const struct rs_msg *msg)
{
	static atomic_int on = -1; /* looked up once, by any thread */
	int tracing = atomic_load(&on);
	if (tracing < 0) {
		tracing = getenv("RPMA_TRACE_MESSAGES") != NULL;
		atomic_store(&on, tracing);
	}
	if (!tracing)
		return;
	fprintf(stderr, "rpma-trace: %ld %s type %u seq %u at %llu\n",
		(long)getpid(), verb, (unsigned)msg->type, (unsigned)msg->seq,
		(unsigned long long)now_ns());
}

int rs_session_send(struct rs_session *s, uint16_t slot,
		    const struct rs_msg *msg, uint64_t wr_id, unsigned flags)
{
	trace("send", msg);
	rs_msg_encode(msg, s->bufs + out_offset(slot), RS_MSG_SIZE);
	return rs_conn_send(s->conn, s->bufs_mr, out_offset(slot), RS_MSG_SIZE,
			    wr_id, flags);
}

int rs_session_take(struct rs_session *s, const struct rs_completion *wc,
		    struct rs_msg *msg, uint16_t *slot, struct rs_error *err)
{
	*slot = (uint16_t)wc->wr_id;
	int rc =
	    rs_msg_decode(s->bufs + in_offset(*slot), wc->byte_len, msg, err);
	if (rc)
		return rc;
	trace("take", msg);
	if (post_recv(s, *slot))
		return rs_error_set(err, RS_E_LOST, errno,
				    "cannot post a receive: %s",
				    strerror(errno));
	return 0;
}

/* Waits for the next receive, skipping completions of our own sends. */
static int next_receive(struct rs_session *s, int timeout_ms,
			struct rs_completion *wc)
{
	for (;;) {
		enum rs_wait_result r =
		    rs_conn_next_completion(s->conn, wc, timeout_ms);
		if (r != RS_WAIT_COMPLETION || !wc->ok)
			return RS_E_AUTH;
		if (wc->op == RS_OP_RECV)
			return 0;
	}
}

/* ---- the sender's half ---- */

/* Room for "[HOST]:PORT/NAME". */
#define RECEIVER_TEXT_SIZE 320

/* The receiver as messages name it: HOST:PORT, then /NAME when the sender
 * asked for a log by name, since one host may serve several. */
static const char *receiver_text(const struct rs_session_request *r, char *buf,
				 size_t size)
{
	bool ipv6 = strchr(r->host, ':') != 0;
	snprintf(buf, size, "%s%s%s:%s%s%s", ipv6 ? "[" : "", r->host,
		 ipv6 ? "]" : "", r->port, r->req.log_name[0] ? "/" : "",
		 r->req.log_name);
	return buf;
}

/* Why the method asked for was refused; 0 if it was not (another cause). A
 * replacement rules out the methods whose writer moves the write offset
 * itself: said so, as the receiver logs it, not as a missing device. */
static bool method_refused(const struct rs_connect_req *sent,
			   const struct rs_reject_info *rej,
			   struct rs_error *why)
{
	enum rs_method m = (enum rs_method)sent->method, unused;
	if ((sent->flags & RS_CONNECT_REPLACE) &&
	    (RS_METHOD_BIT(m) & RS_METHOD_SENDER_COMMITS)) {
		rs_error_set(why, RS_E_INVAL, 0,
			     "method %s cannot replace a log's content (its "
			     "writer moves the write offset itself); use "
			     "--truncate=in-place or another method",
			     rs_method_name(m));
		return true;
	}
	if (m == RS_METHOD_AUTO && !(rej->methods & sent->methods)) {
		char offered[64];
		bool flush = rej->methods & RS_METHOD_BIT(RS_METHOD_FLUSH);
		rs_error_set(
		    why, RS_E_INVAL, 0,
		    "it offers %s, none of which this sender can "
		    "do%s%s",
		    rs_method_list(rej->methods, offered, sizeof(offered)),
		    flush ? ": " : "",
		    flush ? rs_method_requirement(RS_METHOD_FLUSH) : "");
		return true;
	}
	return rs_method_choose(rej->methods, m, &unused, why) != 0;
}

/* Refused for the version asked in: the newest both speak, to ask again
 * in (*again), when there is one we did not ask in yet; else the line that
 * names both sides' versions. The line is said either way: a receiver
 * upgraded between our two asks refuses the second too, and that is the
 * last (it was empty). */
static int version_refused(const char *who, const struct rs_connect_req *sent,
			   const struct rs_reject_info *rej, uint8_t *again,
			   struct rs_error *err)
{
	uint8_t common = 0;
	int rc = rs_proto_agree(rej->min_version, rej->max_version, who,
				&common, err);
	if (rc)
		return rc;
	if (common == sent->version)
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "%s refused protocol version %u, which it "
				    "says it speaks",
				    who, common);
	*again = common;
	return rs_error_set(err, RS_E_VERSION, 0,
			    "%s refused protocol version %u, saying it speaks "
			    "%u to %u: it changed while we asked; run again",
			    who, sent->version, rej->min_version,
			    rej->max_version);
}

/* What a refusal means. A reject we cannot read is the CM's own (nobody
 * listening), unless it carries our magic with a protocol version older
 * than ours: then retrying cannot help. Refused for its version by a
 * receiver that speaks another we do too: RS_E_VERSION and *again. */
static int on_reject(const struct rs_session_request *r,
		     const struct rs_connect_req *sent,
		     const struct rs_private_data *reply, uint8_t *again,
		     struct rs_error *err)
{
	char who[RECEIVER_TEXT_SIZE];
	receiver_text(r, who, sizeof(who));
	struct rs_reject_info rej;
	int rc = rs_reject_decode(reply->bytes, reply->len, &rej, 0);
	if (rc == RS_E_VERSION)
		return rs_error_set(err, RS_E_VERSION, 0,
				    "%s speaks protocol version %u, this "
				    "sender %u to %u: upgrade the receiver",
				    who, rej.version, RS_PROTO_VERSION_MIN,
				    RS_PROTO_VERSION);
	if (rc)
		return rs_error_set(err, RS_E_UNREACHABLE, ECONNREFUSED,
				    "%s refused the connection", who);
	if (r->refused)
		*r->refused = rej;
	if (rej.reason == RS_REJECT_VERSION)
		return version_refused(who, sent, &rej, again, err);
	struct rs_error why = {0};
	if (rej.reason != RS_REJECT_METHOD || !method_refused(sent, &rej, &why))
		snprintf(why.msg, sizeof(why.msg), "%s",
			 rs_reject_reason_str(rej.reason));
	/* A receiver that is full or stopping is busy too: a sender that
	 * retries may get in later. */
	int code =
	    rs_reject_reason_passes(rej.reason) ? RS_E_BUSY : RS_E_REJECTED;
	if (rej.logs[0])
		return rs_error_set(err, code, 0,
				    "%s refused the connection: %s (logs you "
				    "may use: %s)",
				    who, why.msg, rej.logs);
	return rs_error_set(err, code, 0, "%s refused the connection: %s", who,
			    why.msg);
}

/* The receiver's answer is in the version asked in, or unusable. */
static int answer_version(const char *who, uint8_t asked, uint8_t answered,
			  struct rs_error *err)
{
	if (answered == asked)
		return 0;
	return rs_error_set(err, RS_E_MALFORMED, 0,
			    "%s answered in protocol version %u, asked in %u",
			    who, answered, asked);
}

/* Answers the receiver's challenge; the grant then arrives as a message. */
static int authenticate(struct rs_session *s,
			const struct rs_session_request *r,
			const struct rs_challenge *challenge,
			struct rs_error *err)
{
	char who[RECEIVER_TEXT_SIZE];
	receiver_text(r, who, sizeof(who));
	if (!r->key)
		return rs_error_set(err, RS_E_AUTH, 0,
				    "%s requires an auth key", who);
	struct rs_msg answer = {.type = RS_MSG_AUTH};
	struct rs_session_token none = {{0}};
	rs_auth_mac(r->key, challenge->nonce, r->takeover ? r->takeover : &none,
		    answer.mac);
	struct rs_completion wc;
	if (rs_session_send(s, s->slots, &answer, SESSION_WR_ID,
			    RS_POST_SIGNALED) ||
	    next_receive(s, r->timeout_ms, &wc))
		return rs_error_set(err, RS_E_AUTH, EACCES,
				    "%s did not accept our auth key", who);
	uint16_t slot = (uint16_t)wc.wr_id;
	struct rs_error why = {0};
	if (rs_accept_info_decode(s->bufs + in_offset(slot), wc.byte_len,
				  &s->grant, &why))
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "%s sent an unusable description of its "
				    "pool (%s)",
				    who, why.msg);
	if (answer_version(who, s->version, s->grant.version, err))
		return RS_E_MALFORMED;
	if (post_recv(s, slot))
		return rs_error_set(err, RS_E_LOST, errno,
				    "%s: connection lost after authentication",
				    who);
	return 0;
}

/* A writer can do the methods its caller can post, but flush only where
 * this connection can (the build and the device): the request says so,
 * and the receiver grants no other. Insisting on one it cannot do fails
 * here, before asking. */
static int writer_methods(struct rs_session *s, struct rs_connect_req *req,
			  struct rs_error *err)
{
	const char *why_not = 0;
	if (req->flags & RS_CONNECT_VERIFY)
		return 0;
	if (!rs_conn_can_flush(s->conn, &why_not))
		req->methods &= (uint8_t)~RS_METHOD_BIT(RS_METHOD_FLUSH);
	if (req->method == RS_METHOD_FLUSH &&
	    !(req->methods & RS_METHOD_BIT(RS_METHOD_FLUSH)))
		return rs_error_set(err, RS_E_REJECTED, 0,
				    "method flush cannot be used from here: %s",
				    why_not);
	return 0;
}

/* Asks in protocol version s->version; refused for it by a receiver that
 * speaks another we do too: RS_E_VERSION and *again. */
static int handshake(struct rs_session *s, const struct rs_session_request *r,
		     struct rs_session_times *t, uint8_t *again,
		     struct rs_error *err)
{
	struct rs_connect_req req = r->req;
	req.version = s->version;
	int wrc = writer_methods(s, &req, err);
	if (wrc)
		return wrc;
	if (r->key)
		req.flags |= RS_CONNECT_AUTH;
	if (r->takeover) {
		req.flags |= RS_CONNECT_TAKEOVER;
		req.token = *r->takeover;
	}
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	size_t len = rs_connect_req_encode(&req, buf, sizeof(buf));
	struct rs_private_data reply;
	struct rs_error cerr = {0};
	int rc = rs_conn_connect(s->conn, buf, (uint8_t)len, r->timeout_ms,
				 &reply, &cerr);
	if (r->answer_ms)
		*r->answer_ms = rs_conn_answer_ms(s->conn);
	if (rs_conn_answer_ms(s->conn) >= 0)
		t->answered_ns = now_ns();
	if (rc == RS_E_REJECTED)
		return on_reject(r, &req, &reply, again, err);
	char who[RECEIVER_TEXT_SIZE];
	receiver_text(r, who, sizeof(who));
	if (rc)
		return rs_error_set(err, rc, cerr.sys_errno, "%s: %s", who,
				    cerr.msg);
	struct rs_challenge challenge;
	if (rs_challenge_decode(reply.bytes, reply.len, &challenge, 0) == 0) {
		rc = answer_version(who, s->version, challenge.version, err);
		return rc ? rc : authenticate(s, r, &challenge, err);
	}
	struct rs_error why = {0};
	if (rs_accept_info_decode(reply.bytes, reply.len, &s->grant, &why))
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "%s sent an unusable description of its "
				    "pool (%s)",
				    who, why.msg);
	return answer_version(who, s->version, s->grant.version, err);
}

/* One connection, asking in protocol version. */
static int connect_in(const struct rs_session_request *r, uint8_t version,
		      struct rs_session **session, uint8_t *again,
		      struct rs_error *err)
{
	struct rs_session *s = calloc(1, sizeof(*s));
	if (!s)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	s->owns_peer = true;
	s->slots = r->slots;
	s->recv_len = SLOT_BYTES;
	s->version = version;
	struct rs_session_times unkept, *t = r->times ? r->times : &unkept;
	*t = (struct rs_session_times){.begun_ns = now_ns()};
	int rc =
	    rs_conn_resolve(r->host, r->port, r->timeout_ms, &s->conn, err);
	if (!rc) {
		t->routed_ns = now_ns();
		rc = rs_peer_new(s->conn, &s->peer, err);
	}
	if (!rc)
		rc = setup(s, r->sends_per_slot * r->slots + 4, err);
	if (!rc) {
		t->prepared_ns = now_ns();
		rs_conn_set_busy_poll(s->conn, r->busy_poll);
		rc = handshake(s, r, t, again, err);
	}
	if (!rc)
		t->granted_ns = now_ns();
	if (rc)
		rs_session_delete(&s);
	*session = s;
	return rc;
}

int rs_session_connect(const struct rs_session_request *r,
		       struct rs_session **session, struct rs_error *err)
{
	uint8_t again = 0;
	int rc = connect_in(r, RS_PROTO_VERSION, session, &again, err);
	if (rc == RS_E_VERSION && again)
		rc = connect_in(r, again, session, &again, err);
	return rc;
}

uint8_t rs_session_version(const struct rs_session *s)
{
	return s->version;
}

/* ---- the receiver's half ---- */

int rs_session_read_request(const struct rs_private_data *priv,
			    struct rs_connect_req *req, struct rs_error *err)
{
	return rs_connect_req_decode(priv->bytes, priv->len, req, err);
}

uint8_t rs_session_reject_reason(int errc)
{
	return errc == RS_E_VERSION ? RS_REJECT_VERSION : RS_REJECT_BAD_REQUEST;
}

void rs_session_refuse_with(struct rs_conn **conn,
			    const struct rs_reject_info *info)
{
	uint8_t buf[RS_REJECT_SIZE];
	size_t len = rs_reject_encode(info, buf, sizeof(buf));
	rs_conn_reject(*conn, buf, (uint8_t)len);
	rs_conn_delete(conn);
}

void rs_session_refuse(struct rs_conn **conn, uint8_t version, uint8_t reason,
		       uint8_t methods)
{
	struct rs_reject_info info = {
	    .version = version, .reason = reason, .methods = methods};
	rs_session_refuse_with(conn, &info);
}

/* The accept's private data: a challenge with a key, else the grant. */
static int accept_data(struct rs_session *s, const struct rs_session_accept *a,
		       uint8_t *buf, size_t *len, struct rs_error *err)
{
	if (!a->key) {
		struct rs_accept_info grant = *a->grant;
		grant.version = s->version;
		*len =
		    rs_accept_info_encode(&grant, buf, RS_ACCEPT_PRIVATE_MAX);
		return 0;
	}
	struct rs_challenge challenge = {.version = s->version};
	int rc = rs_auth_random(s->nonce, sizeof(s->nonce), err);
	if (rc)
		return rc;
	memcpy(challenge.nonce, s->nonce, sizeof(s->nonce));
	*len = rs_challenge_encode(&challenge, buf, RS_ACCEPT_PRIVATE_MAX);
	return 0;
}

/* Why a sender whose connection could not be set up is refused: a
 * receiver at its open-file limit is full (the sender may get in once
 * others leave), anything else a failure. */
static uint8_t setup_refusal(const struct rs_error *err)
{
	return err && rs_errno_out_of_files(err->sys_errno)
		   ? RS_REJECT_LIMIT
		   : RS_REJECT_INTERNAL;
}

int rs_session_prepare(struct rs_conn **conn, const struct rs_session_accept *a,
		       struct rs_session **session, struct rs_error *err)
{
	struct rs_session *s = calloc(1, sizeof(*s));
	if (!s) {
		rs_session_refuse(conn, a->version, RS_REJECT_INTERNAL, 0);
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	}
	s->version = a->version;
	s->peer = a->peer;
	s->slots = a->slots;
	s->recv_len = RS_MSG_SIZE; /* a larger message fails its receive */
	s->key = a->key;
	if (a->presented)
		s->presented = *a->presented;
	rs_conn_set_busy_poll(*conn, a->busy_poll);
	/* What the receiver posts (replies, bindings, probes) wakes it for
	 * nothing: an idle sender's probes cost it no wake-up. */
	rs_conn_quiet_sends(*conn);
	s->conn = *conn;
	*conn = 0;
	/* Replies: up to two per slot in flight, the control slot's too. */
	/* Per request a reply and, for a windowed writer, a window's
	 * invalidation and binding: one reply in `slots` is signaled. */
	int rc = setup(s, 4u * (s->slots + 1u), err);
	/* Ready before the answer: what the receiver binds for the grant is
	 * bound before the sender hears of it. Allowed nothing until then:
	 * what is decided meanwhile (a takeover) ends the session it
	 * replaces before this queue pair may do anything. */
	if (!rc)
		rc = rs_conn_ready(s->conn, 0, err);
	if (rc && rs_conn_withdrawn_error(err))
		rs_session_delete(&s); /* no one to tell */
	else if (rc)
		rs_session_refuse_prepared(&s, setup_refusal(err));
	*session = s;
	return rc;
}

void rs_session_refuse_prepared(struct rs_session **session, uint8_t reason)
{
	struct rs_session *s = *session;
	if (!s)
		return;
	rs_session_refuse(&s->conn, s->version, reason, 0);
	rs_session_delete(session);
}

int rs_session_answer(struct rs_session **session,
		      const struct rs_session_accept *a, struct rs_error *err)
{
	struct rs_session *s = *session;
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX];
	size_t len = 0;
	int rc = accept_data(s, a, buf, &len, err);
	if (rc) {
		rs_session_refuse_prepared(session, RS_REJECT_INTERNAL);
		return rc;
	}
	/* Left to the caller when it fails: a memory window it bound on the
	 * queue pair goes before the queue pair does. */
	if (a->access && (rc = rs_conn_set_access(s->conn, a->access, err)))
		return rc;
	return rs_conn_answer(s->conn, buf, (uint8_t)len, err);
}

int rs_session_accept(struct rs_conn **conn, const struct rs_session_accept *a,
		      struct rs_session **session, struct rs_error *err)
{
	int rc = rs_session_prepare(conn, a, session, err);
	if (!rc && (rc = rs_session_answer(session, a, err)))
		rs_session_delete(session);
	return rc;
}

int rs_session_check_auth(struct rs_session *s, const struct rs_msg *msg,
			  struct rs_error *err)
{
	if (msg->type != RS_MSG_AUTH)
		return rs_error_set(err, RS_E_AUTH, 0,
				    "it did not answer the auth challenge");
	if (!s->key ||
	    !rs_auth_check(s->key, s->nonce, &s->presented, msg->mac))
		return rs_error_set(err, RS_E_AUTH, 0, "wrong auth key");
	return 0;
}

int rs_session_set_access(struct rs_session *s, unsigned access,
			  struct rs_error *err)
{
	return rs_conn_set_access(s->conn, access, err);
}

int rs_session_send_grant(struct rs_session *s,
			  const struct rs_accept_info *grant)
{
	uint16_t slot = s->slots; /* the control slot */
	struct rs_accept_info in_version = *grant;
	in_version.version = s->version;
	size_t len = rs_accept_info_encode(
	    &in_version, s->bufs + out_offset(slot), SLOT_BYTES);
	return rs_conn_send(s->conn, s->bufs_mr, out_offset(slot),
			    (uint32_t)len, SESSION_WR_ID, RS_POST_SIGNALED);
}
