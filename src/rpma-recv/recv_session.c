#include "recv_session.h"

#include "cli/log.h"
#include "clock.h"
#include "counters.h"
#include "error.h"
#include "rotation.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *recv_session_state_name(enum recv_session_state s)
{
	switch (s) {
	case RECV_SESSION_ADMITTED:
		return "admitted";
	case RECV_SESSION_AUTHENTICATING:
		return "authenticating";
	case RECV_SESSION_SERVING:
		return "serving";
	default:
		return "closing";
	}
}

static void close_with(struct recv_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void close_with(struct recv_session *s, const char *fmt, ...)
{
	if (s->state == RECV_SESSION_CLOSING)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	s->state = RECV_SESSION_CLOSING;
}

void recv_session_init(struct recv_session *s,
		       const struct recv_session_config *cfg,
		       const struct recv_session_link *link, const char *peer,
		       int64_t now_ms)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->link = *link;
	s->state = RECV_SESSION_ADMITTED;
	s->deadline_ms = now_ms + cfg->deadline_ms;
	s->heard_ms = now_ms;
	snprintf(s->peer, sizeof(s->peer), "%s", peer);
}

void recv_session_on_established(struct recv_session *s, int64_t now_ms)
{
	if (s->state != RECV_SESSION_ADMITTED)
		return;
	if (s->cfg.auth) {
		s->state = RECV_SESSION_AUTHENTICATING;
		s->deadline_ms = now_ms + s->cfg.deadline_ms;
		return;
	}
	s->state = RECV_SESSION_SERVING;
	s->served = true;
}

/* The sender's first message can overtake the connection's ESTABLISHED
 * event: a message proves the connection is up. */
static void established_by_message(struct recv_session *s)
{
	int64_t admitted_ms = s->deadline_ms - s->cfg.deadline_ms;
	recv_session_on_established(s, admitted_ms);
}

static void refused_auth(struct recv_session *s)
{
	if (s->cfg.counters)
		recv_counters_refused(s->cfg.counters, RECV_REFUSED_AUTH);
}

static void on_auth_answer(struct recv_session *s, const struct rs_msg *msg)
{
	struct rs_error err = {0};
	if (s->link.check_auth(s->link.ctx, msg, &err)) {
		rs_err("refusing sender %s: %s", s->peer, err.msg);
		refused_auth(s);
		close_with(s, "%s", err.msg);
		return;
	}
	rs_verbose("sender %s proved the auth key", s->peer);
	if (s->link.send_grant(s->link.ctx)) {
		close_with(s, "cannot send the grant");
		return;
	}
	s->state = RECV_SESSION_SERVING;
	s->served = true;
}

/* A commit request applied, and counted when it committed. */
static bool commit(struct recv_session *s, const struct rs_msg *req,
		   struct rs_msg *reply)
{
	const struct recv_session_config *c = &s->cfg;
	uint64_t start = c->counters ? recv_now_ns() : 0;
	bool ok =
	    recv_commit_apply(c->target, &c->staging, c->method, req, reply);
	if (ok && c->counters)
		recv_counters_committed(c->counters, req->length,
					recv_now_ns() - start);
	return ok;
}

/* A writer with nothing in flight asks for its full pool to be archived
 * and started over. An archive that fails is the sender's to report (it
 * ends its stream); only a request that makes no sense ends the session. */
static bool rebase(struct recv_session *s, const struct rs_msg *req,
		   struct rs_msg *reply)
{
	const struct recv_session_config *c = &s->cfg;
	*reply = (struct rs_msg){.type = RS_MSG_REBASE_DONE, .seq = req->seq};
	if (!c->method)
		reply->status = RS_MSG_BAD_REQUEST;
	else if (!c->rotation)
		reply->status = RS_MSG_NO_ARCHIVE;
	else
		reply->status = recv_rotation_rebase(c->rotation, req->offset,
						     &reply->offset);
	return reply->status != RS_MSG_BAD_REQUEST;
}

/* Applies one request and answers it. */
static void serve(struct recv_session *s, uint16_t slot,
		  const struct rs_msg *req)
{
	const struct recv_session_config *c = &s->cfg;
	struct rs_msg reply;
	bool verifying =
	    req->type == RS_MSG_HASH || req->type == RS_MSG_READ_STAGE;
	bool committing = !verifying && req->type != RS_MSG_KEEPALIVE &&
			  req->type != RS_MSG_REBASE;
	bool ok = true;
	if (req->type == RS_MSG_KEEPALIVE)
		reply = (struct rs_msg){.type = RS_MSG_KEEPALIVE_DONE,
					.seq = req->seq};
	else if (req->type == RS_MSG_REBASE)
		ok = rebase(s, req, &reply);
	else if (verifying)
		ok = recv_verify_apply(c->target, c->rotation, &c->read_ring,
				       c->verify, req, &reply);
	else
		ok = commit(s, req, &reply);
	/* One reply in `credits` is signaled, only to reclaim send-queue
	 * entries: fewer completions, fewer wake-ups. */
	uint32_t n = s->replies++;
	bool signaled = n % c->credits == c->credits - 1u;
	if (s->link.reply(s->link.ctx, slot, &reply, signaled)) {
		close_with(s, "cannot reply");
		return;
	}
	if (!ok) {
		rs_err("refused a request from %s at offset %llu length %llu: "
		       "%s; closing the connection",
		       s->peer, (unsigned long long)req->offset,
		       (unsigned long long)req->length,
		       rs_msg_status_str(reply.status));
		close_with(s, "refused request");
		return;
	}
	if (committing) {
		s->commits++;
		s->bytes += req->length;
	}
}

void recv_session_on_message(struct recv_session *s, uint16_t slot,
			     const struct rs_msg *msg, int64_t now_ms)
{
	s->heard_ms = now_ms;
	if (s->state == RECV_SESSION_ADMITTED)
		established_by_message(s);
	if (s->state == RECV_SESSION_AUTHENTICATING)
		on_auth_answer(s, msg);
	else if (s->state == RECV_SESSION_SERVING)
		serve(s, slot, msg);
}

void recv_session_on_failure(struct recv_session *s, const char *why)
{
	if (s->state == RECV_SESSION_AUTHENTICATING) {
		rs_err("refusing sender %s: it did not answer the auth "
		       "challenge",
		       s->peer);
		refused_auth(s);
	}
	close_with(s, "%s", why);
}

void recv_session_on_timer(struct recv_session *s, int64_t now_ms)
{
	if (s->state == RECV_SESSION_AUTHENTICATING && now_ms >= s->deadline_ms)
		recv_session_on_failure(s, "auth deadline passed");
	else if (s->state == RECV_SESSION_ADMITTED && now_ms >= s->deadline_ms)
		close_with(s, "sender did not complete the connection");
	else if (s->state == RECV_SESSION_SERVING &&
		 now_ms - s->heard_ms >= s->cfg.peer_timeout_ms) {
		rs_info("sender %s: no word for %lld ms (peer timeout); ending "
			"its session, the log is free",
			s->peer, (long long)(now_ms - s->heard_ms));
		close_with(s, "peer timeout");
	}
}
